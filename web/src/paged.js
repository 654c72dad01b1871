// A table of API rows filled a page at a time: the first answer, then a button asking for the
// next page with the cursor the last answer gave (its `next`, sent back as parameters).
import { ApiError } from './api.js';
import { h } from './dom.js';
import { fill } from './section.js';
import { dataTable, tableRow } from './table.js';

// load(next) resolves to an answer (next: undefined for the first page); rows(answer) are its
// rows; the other options are dataTable's.
export function pagedTable(body, { load, rows, more = 'More', moreTestid, ...table }) {
  const button = h('button', { type: 'button', testid: moreTestid, hidden: true }, more);
  let next = null;
  const loaded = (answer) => {
    next = answer.next;
    button.hidden = !next;
  };
  fill(body, () => load(undefined), (answer) => {
    loaded(answer);
    return [h('div', { class: 'scroll' }, dataTable({ ...table, rows: rows(answer) })), button];
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await load(next);
      const tbody = body.querySelector('tbody');
      const fresh = rows(answer);
      if (fresh.length) tbody.querySelector('tr.empty')?.remove();
      for (const row of fresh) tbody.append(tableRow(table.columns, row, table));
      loaded(answer);
    } catch (error) {
      // The banner says why; the button stays for another try.
      if (!(error instanceof ApiError)) throw error;
    }
    button.disabled = false;
  });
}

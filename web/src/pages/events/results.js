// The table of events found, newest first: a search's pages are added below, the live tail's
// events above. An event already shown is not shown twice.
import { h } from '../../dom.js';
import { eventColumns } from '../../event-columns.js';
import { dataTable, tableRow } from '../../table.js';

export function resultsTable(onClick) {
  function select(e, tr) {
    body.querySelector('tr.selected')?.classList.remove('selected');
    tr.classList.add('selected');
    onClick(e.id);
  }
  const el = dataTable({ columns: eventColumns, rows: [], testid: 'events-table', onRowClick: select, empty: 'no events' });
  const body = el.tBodies[0];
  const ids = new Set();
  const row = (e) => tableRow(eventColumns, e, { rowTestid: 'event-row', rowKey: (x) => x.id, onRowClick: select });
  const fresh = (events) => events.filter((e) => !ids.has(e.id) && ids.add(e.id));
  const dropEmptyRow = () => body.querySelector('tr.empty')?.remove();
  return {
    el,
    get count() {
      return ids.size;
    },
    clear() {
      ids.clear();
      body.replaceChildren(h('tr', { class: 'empty' }, h('td', { colSpan: eventColumns.length }, 'no events')));
    },
    // Older events (a search's answer, newest first).
    appendOlder(events) {
      const rows = fresh(events).map(row);
      if (rows.length) dropEmptyRow();
      body.append(...rows);
    },
    // Newer events (the stream's, oldest first).
    prependNewer(events) {
      const rows = fresh(events).map((e) => {
        const tr = row(e);
        tr.classList.add('new');
        return tr;
      });
      if (rows.length) dropEmptyRow();
      body.prepend(...rows.reverse());
    },
  };
}

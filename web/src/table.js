// A table of API rows. Each cell carries its column (data-col) and raw value (data-value), so
// that what a test reads is the number the API gave, whatever the text shows.
import { h } from './dom.js';

// columns: [{key, label, value(row), format(value)?, render(row)?, num?}]; a cell without a
// value shows a dash.
export function dataTable({ columns, rows, testid, rowTestid, rowKey, onRowClick, empty = 'none' }) {
  const head = h('thead', {}, h('tr', {}, columns.map((c) => h('th', { class: c.num ? 'num' : undefined, scope: 'col' }, c.label))));
  const body = h('tbody');
  const table = h('table', { class: onRowClick ? 'data clickable' : 'data', testid }, head, body);
  if (!rows.length) {
    body.append(h('tr', { class: 'empty' }, h('td', { colSpan: columns.length }, empty)));
    return table;
  }
  for (const row of rows) body.append(tableRow(columns, row, { rowTestid, rowKey, onRowClick }));
  return table;
}

export function tableRow(columns, row, { rowTestid, rowKey, onRowClick } = {}) {
  const tr = h('tr', { testid: rowTestid, dataset: rowKey ? { key: rowKey(row) } : undefined });
  if (onRowClick) {
    tr.tabIndex = 0;
    tr.addEventListener('click', () => onRowClick(row, tr));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') onRowClick(row, tr);
    });
  }
  for (const c of columns) {
    const raw = c.value ? c.value(row) : undefined;
    const known = raw !== undefined && raw !== null;
    const content = c.render ? c.render(row) : known && c.format ? c.format(raw) : raw;
    const td = h('td', { class: c.num ? 'num' : undefined, dataset: { col: c.key } }, content ?? '—');
    if (known) td.dataset.value = typeof raw === 'object' ? JSON.stringify(raw) : raw;
    tr.append(td);
  }
  return tr;
}

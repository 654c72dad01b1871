// Deliveries of the rules' actions, newest first: the recent ones
// (GET /api/v1/rules/deliveries) and their columns.
import { api } from '../../api.js';
import { formatIso } from '../../format.js';
import { pagedTable } from '../../paged.js';

export const deliveryColumns = [
  { key: 'seq', label: 'seq', value: (d) => d.seq, num: true },
  { key: 'rule', label: 'rule', value: (d) => d.rule },
  { key: 'path', label: 'path', value: (d) => d.path },
  { key: 'event_ids', label: 'events', value: (d) => d.event_ids, format: (ids) => ids.join(' ') },
  { key: 'state', label: 'state', value: (d) => d.state },
  { key: 'attempts', label: 'attempts', value: (d) => d.attempts, num: true },
  { key: 'created', label: 'created (UTC)', value: (d) => d.created, format: formatIso },
  { key: 'finished', label: 'finished (UTC)', value: (d) => d.finished, format: formatIso },
  { key: 'last_result', label: 'result', value: (d) => d.last_result },
];

export const deliveryRow = { rowTestid: 'delivery-row', rowKey: (d) => d.id };

// call: 'deliveries' or 'dead'; rule: one rule's only, or every rule's when empty.
export function showDeliveries(body, { call, rule, testid, columns = deliveryColumns, empty }) {
  pagedTable(body, {
    load: (next) => api(`rules/${call}`, { params: { rule, limit: 50, ...next } }),
    rows: (answer) => answer.deliveries,
    more: 'Older',
    moreTestid: `${testid}-older`,
    testid,
    ...deliveryRow,
    columns,
    empty,
  });
}

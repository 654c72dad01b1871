// What a policy's runs did, newest first, with each action's result
// (GET /api/v1/policies/actions?policy=P), with "Older".
import { api } from '../../api.js';
import { formatBytes, formatIso } from '../../format.js';
import { pagedTable } from '../../paged.js';

const columns = [
  { key: 'id', label: 'id', value: (a) => a.id, num: true },
  { key: 'run', label: 'run', value: (a) => a.run, num: true },
  { key: 'rule', label: 'rule', value: (a) => a.rule },
  { key: 'action', label: 'action', value: (a) => a.action },
  { key: 'path', label: 'path', value: (a) => a.path },
  { key: 'destination', label: 'destination', value: (a) => a.destination },
  { key: 'size', label: 'size', value: (a) => a.size, format: formatBytes, num: true },
  { key: 'uid', label: 'uid', value: (a) => a.uid, num: true },
  { key: 'state', label: 'state', value: (a) => a.state },
  { key: 'result', label: 'result', value: (a) => a.result },
  { key: 'finished', label: 'finished (UTC)', value: (a) => a.finished, format: formatIso },
];

export function showActions(body, policy) {
  pagedTable(body, {
    load: (next) => api('policies/actions', { params: { policy, limit: 50, ...next } }),
    rows: (answer) => answer.actions,
    more: 'Older',
    moreTestid: 'actions-older',
    testid: 'actions-table',
    rowTestid: 'action-row',
    rowKey: (a) => a.id,
    columns,
    empty: 'no action taken',
  });
}

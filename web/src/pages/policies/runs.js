// The runs of a policy, newest first (GET /api/v1/policies/{name}/runs), with "Older"; the
// columns of a run are also those of each policy's last run.
import { api } from '../../api.js';
import { formatBytes, formatCount, formatIso } from '../../format.js';
import { pagedTable } from '../../paged.js';

const count = (key, label) => ({ key, label, value: (r) => r[key], format: formatCount, num: true });

export const runColumns = [
  { key: 'state', label: 'state', value: (r) => r.state },
  { key: 'started', label: 'started (UTC)', value: (r) => r.started, format: formatIso },
  { key: 'finished', label: 'finished (UTC)', value: (r) => r.finished, format: formatIso },
  count('actions', 'actions'),
  count('failed', 'failed'),
  count('skipped', 'skipped'),
  { key: 'volume', label: 'volume', value: (r) => r.volume, format: formatBytes, num: true },
];

const columns = [
  { key: 'id', label: 'run', value: (r) => r.id, num: true },
  ...runColumns,
  { key: 'user', label: 'by', value: (r) => r.user },
  { key: 'host', label: 'host', value: (r) => r.host },
  { key: 'target', label: 'target', value: (r) => r.target, format: (t) => t || 'all' },
  { key: 'message', label: 'message', value: (r) => r.message },
];

export function showRuns(body, policy) {
  pagedTable(body, {
    load: (next) => api(`policies/${encodeURIComponent(policy)}/runs`, { params: { limit: 20, ...next } }),
    rows: (answer) => answer.runs,
    more: 'Older',
    moreTestid: 'runs-older',
    testid: 'runs-table',
    rowTestid: 'run-row',
    rowKey: (r) => r.id,
    columns,
    empty: 'never run',
  });
}

// What the catalog saw removed, newest first (GET /api/v1/catalog/removed): what undelete
// lists.
import { api } from '../../api.js';
import { formatBytes, formatNs } from '../../format.js';
import { fill, panel } from '../../section.js';
import { dataTable } from '../../table.js';

const shown = 100;

function render({ removed }) {
  return dataTable({
    testid: 'removed-table',
    rowTestid: 'removed-row',
    rowKey: (r) => r.path,
    rows: removed,
    empty: 'nothing removed',
    columns: [
      { key: 'path', label: 'path', value: (r) => r.path },
      { key: 'type', label: 'type', value: (r) => r.type },
      { key: 'size', label: 'size', value: (r) => r.size, format: formatBytes, num: true },
      { key: 'user', label: 'owner', value: (r) => r.user },
      { key: 'removed_ns', label: 'removed (UTC)', value: (r) => r.removed_ns, format: formatNs },
      { key: 'event_id', label: 'event', value: (r) => r.event_id, num: true },
      { key: 'by_uid', label: 'by uid', value: (r) => r.by_uid, num: true },
      { key: 'jobid', label: 'job', value: (r) => r.jobid },
    ],
  });
}

export function removedPanel() {
  const { el, body } = panel('Removed entries', { testid: 'removed', wide: true });
  fill(body, () => api('catalog/removed', { params: { limit: shown } }), render);
  return el;
}

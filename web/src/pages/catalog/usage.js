// Usage by user, group or type (GET /api/v1/catalog/usage): a table and the volume of each.
import { api } from '../../api.js';
import { barChart } from '../../chart.js';
import { formatBytes, formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { switcher } from '../../switcher.js';
import { dataTable } from '../../table.js';

const chartedRows = 20;

function render(answer) {
  const rows = answer.rows;
  const charted = rows.slice(0, chartedRows);
  return [
    barChart({ testid: 'chart-usage', label: `volume by ${answer.by}`, labels: charted.map((r) => r.key), values: charted.map((r) => r.size), format: formatBytes }),
    dataTable({
      testid: 'usage-table',
      rowTestid: 'usage-row',
      rowKey: (r) => r.key,
      rows,
      columns: [
        { key: 'key', label: answer.by, value: (r) => r.key },
        { key: 'id', label: 'id', value: (r) => r.id, num: true },
        { key: 'count', label: 'entries', value: (r) => r.count, format: formatCount, num: true },
        { key: 'size', label: 'volume', value: (r) => r.size, format: formatBytes, num: true },
        { key: 'blocks', label: 'blocks', value: (r) => r.blocks, format: formatCount, num: true },
      ],
    }),
  ];
}

export function usagePanel() {
  const load = (by) => fill(body, () => api('catalog/usage', { params: { by } }), render);
  const { el, body } = panel('Usage', { testid: 'usage', controls: switcher(['user', 'group', 'type'], 'user', load, 'usage-by') });
  load('user');
  return el;
}

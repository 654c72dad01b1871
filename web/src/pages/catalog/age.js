// Regular files per age of their modification or access time
// (GET /api/v1/catalog/age-histogram).
import { api } from '../../api.js';
import { barChart } from '../../chart.js';
import { formatBytes, formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { switcher } from '../../switcher.js';
import { dataTable } from '../../table.js';

function render(time, { ranges }) {
  return [
    barChart({ testid: 'chart-age', label: `files per ${time} age`, labels: ranges.map((r) => r.label), values: ranges.map((r) => r.count), format: formatCount }),
    dataTable({
      testid: 'age-table',
      rowTestid: 'age-range',
      rowKey: (r) => r.label,
      rows: ranges,
      columns: [
        { key: 'label', label: `${time} age`, value: (r) => r.label },
        { key: 'count', label: 'files', value: (r) => r.count, format: formatCount, num: true },
        { key: 'size', label: 'volume', value: (r) => r.size, format: formatBytes, num: true },
      ],
    }),
  ];
}

export function agePanel() {
  const load = (time) => {
    el.dataset.time = time;
    fill(body, () => api('catalog/age-histogram', { params: { time } }), (answer) => render(time, answer));
  };
  const { el, body } = panel('Age', { testid: 'age', wide: true, controls: switcher(['mtime', 'atime'], 'mtime', load, 'age-time') });
  load('mtime');
  return el;
}

// Regular files per size range, Robinhood's ten (GET /api/v1/catalog/size-profile).
import { api } from '../../api.js';
import { barChart } from '../../chart.js';
import { formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { dataTable } from '../../table.js';

function render({ buckets }) {
  return [
    barChart({ testid: 'chart-size-profile', label: 'files per size range', labels: buckets.map((b) => b.label), values: buckets.map((b) => b.count), format: formatCount }),
    dataTable({
      testid: 'size-profile-table',
      rowTestid: 'size-bucket',
      rowKey: (b) => b.label,
      rows: buckets,
      columns: [
        { key: 'label', label: 'size', value: (b) => b.label },
        { key: 'count', label: 'files', value: (b) => b.count, format: formatCount, num: true },
      ],
    }),
  ];
}

export function sizeProfilePanel() {
  const { el, body } = panel('Size profile', { testid: 'size-profile' });
  fill(body, () => api('catalog/size-profile'), render);
  return el;
}

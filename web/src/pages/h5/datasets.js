// Bytes read and written per dataset, a table and a bar chart of the bytes moved; a click on a
// dataset shows its lineage.
import { barChart } from '../../chart.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount, formatDuration } from '../../format.js';
import { dataTable } from '../../table.js';

const chartedRows = 20;

// A dataset as the lineage call names it: FILE:/path.
const datasetName = (d) => `${d.file}:${d.path}`;

const columns = [
  { key: 'dataset', label: 'dataset', value: datasetName },
  { key: 'reads', label: 'reads', value: (d) => d.reads, format: formatCount, num: true },
  { key: 'read_bytes', label: 'read', value: (d) => d.read_bytes, format: formatBytes, num: true },
  { key: 'read_ns', label: 'read time', value: (d) => d.read_ns, format: formatDuration, num: true },
  { key: 'writes', label: 'writes', value: (d) => d.writes, format: formatCount, num: true },
  { key: 'write_bytes', label: 'written', value: (d) => d.write_bytes, format: formatBytes, num: true },
  { key: 'write_ns', label: 'write time', value: (d) => d.write_ns, format: formatDuration, num: true },
  { key: 'switches', label: 'read/write switches', value: (d) => d.switches, format: formatCount, num: true },
];

export function datasetsView(datasets, chosen, onChoose) {
  const select = (d, tr) => {
    tr.parentElement.querySelector('tr.selected')?.classList.remove('selected');
    tr.classList.add('selected');
    onChoose(datasetName(d));
  };
  const charted = datasets.slice(0, chartedRows);
  const table = dataTable({ testid: 'datasets-table', rowTestid: 'dataset-row', rowKey: datasetName, rows: datasets, columns, onRowClick: select, empty: 'no dataset read or written' });
  table.querySelector(`tr[data-key="${CSS.escape(chosen ?? '')}"]`)?.classList.add('selected');
  return [
    charted.length ? barChart({ testid: 'chart-datasets', label: 'bytes read and written per dataset', labels: charted.map((d) => `${d.file.split('/').pop()}:${d.path}`),
      values: charted.map((d) => d.read_bytes + d.write_bytes), format: formatBytes }) : null,
    h('p', { class: 'muted' }, 'Click a dataset to see its lineage.'),
    h('div', { class: 'scroll' }, table),
  ];
}

// POSIX reads and writes per access size, in Darshan's ten buckets (read_sizes, write_sizes).
import { barChart } from '../../chart.js';
import { h } from '../../dom.js';
import { formatCount } from '../../format.js';
import { dataTable } from '../../table.js';

// Darshan's order (src/iotrace/analysis/access_patterns.cpp); the bounds are bytes, K = 1024.
const sizeBuckets = ['0_100', '100_1K', '1K_10K', '10K_100K', '100K_1M', '1M_4M', '4M_10M', '10M_100M', '100M_1G', '1G_PLUS'];

export function accessSizes({ read_sizes: reads, write_sizes: writes }) {
  const chart = (testid, label, counts) => barChart({ testid, label, labels: sizeBuckets, values: sizeBuckets.map((b) => counts[b]), format: formatCount, height: 180 });
  return [
    h('div', { class: 'pair' }, h('div', {}, h('h3', {}, 'reads'), chart('chart-read-sizes', 'reads per access size', reads)),
      h('div', {}, h('h3', {}, 'writes'), chart('chart-write-sizes', 'writes per access size', writes))),
    dataTable({
      testid: 'sizes-table',
      rowTestid: 'size-row',
      rowKey: (b) => b,
      rows: sizeBuckets,
      columns: [
        { key: 'bucket', label: 'access size (bytes)', value: (b) => b },
        { key: 'reads', label: 'reads', value: (b) => reads[b], format: formatCount, num: true },
        { key: 'writes', label: 'writes', value: (b) => writes[b], format: formatCount, num: true },
      ],
    }),
  ];
}

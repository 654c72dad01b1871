// The calls slower than their function's threshold, and the processes whose time in HDF5 is
// above the threshold over the job's processes.
import { h } from '../../dom.js';
import { formatCount, formatDuration } from '../../format.js';
import { dataTable } from '../../table.js';

const rank = { key: 'rank', label: 'rank', value: (s) => s.rank, format: (r) => (r < 0 ? '—' : String(r)), num: true };

export function stragglersView({ stragglers, straggler_calls: total }) {
  return [
    h('p', { class: 'muted', testid: 'stragglers-count', dataset: { value: total } },
      `${formatCount(total)} calls above their function's threshold${total > stragglers.length ? `, the slowest ${stragglers.length} listed` : ''}.`),
    dataTable({
      testid: 'stragglers-table',
      rowTestid: 'straggler-row',
      rows: stragglers,
      empty: 'no straggler',
      columns: [
        { key: 'function', label: 'function', value: (s) => s.function },
        { key: 'duration_ns', label: 'duration', value: (s) => s.duration_ns, format: formatDuration, num: true },
        { key: 'threshold_ns', label: 'threshold', value: (s) => s.threshold_ns, format: formatDuration, num: true },
        { key: 'trace', label: 'trace', value: (s) => s.trace },
        rank,
        { key: 'pid', label: 'pid', value: (s) => s.pid, num: true },
        { key: 'object', label: 'object', value: (s) => s.object },
      ],
    }),
  ];
}

export function slowRanksTable(slowRanks) {
  return dataTable({
    testid: 'slow-ranks-table',
    rowTestid: 'slow-rank-row',
    rows: slowRanks,
    empty: 'no slow process',
    columns: [
      { key: 'trace', label: 'trace', value: (s) => s.trace },
      rank,
      { key: 'pid', label: 'pid', value: (s) => s.pid, num: true },
      { key: 'hdf5_ns', label: 'time in HDF5', value: (s) => s.hdf5_ns, format: formatDuration, num: true },
      { key: 'threshold_ns', label: 'threshold', value: (s) => s.threshold_ns, format: formatDuration, num: true },
    ],
  });
}

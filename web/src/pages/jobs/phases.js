// A job's I/O phases: their seconds, what they moved and their read and write I/O modes.
import { formatBytes, formatCount, formatSeconds } from '../../format.js';
import { dataTable } from '../../table.js';

const mode = (m) => (m.processes ? `${m.mode} (${m.processes} processes)` : m.mode);

export function phasesTable(phases) {
  return dataTable({
    testid: 'phases-table',
    rowTestid: 'phase-row',
    rowKey: (p) => p.first_second,
    rows: phases,
    empty: 'no phase',
    columns: [
      { key: 'first_second', label: 'from (UTC)', value: (p) => p.first_second, format: formatSeconds },
      { key: 'seconds', label: 'seconds', value: (p) => p.last_second - p.first_second + 1, num: true },
      { key: 'read_bytes', label: 'read', value: (p) => p.read_bytes, format: formatBytes, num: true },
      { key: 'write_bytes', label: 'written', value: (p) => p.write_bytes, format: formatBytes, num: true },
      { key: 'data_ops', label: 'data ops', value: (p) => p.data_ops, format: formatCount, num: true },
      { key: 'meta_ops', label: 'metadata ops', value: (p) => p.meta_ops, format: formatCount, num: true },
      { key: 'read_mode', label: 'read mode', value: (p) => p.read_mode.mode, render: (p) => mode(p.read_mode) },
      { key: 'write_mode', label: 'write mode', value: (p) => p.write_mode.mode, render: (p) => mode(p.write_mode) },
    ],
  });
}

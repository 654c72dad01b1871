// A job's processes: what each moved and how long it spent in data operations.
import { formatBytes, formatCount, formatDuration } from '../../format.js';
import { dataTable } from '../../table.js';

export function processesTable(processes) {
  return dataTable({
    testid: 'processes-table',
    rowTestid: 'process-row',
    rowKey: (p) => `${p.host}:${p.pid}`,
    rows: processes,
    columns: [
      { key: 'host', label: 'host', value: (p) => p.host },
      { key: 'pid', label: 'pid', value: (p) => p.pid, num: true },
      { key: 'rank', label: 'rank', value: (p) => p.rank, format: (r) => (r < 0 ? '—' : String(r)), num: true },
      { key: 'exe', label: 'program', value: (p) => p.exe },
      { key: 'read_bytes', label: 'read', value: (p) => p.read_bytes, format: formatBytes, num: true },
      { key: 'write_bytes', label: 'written', value: (p) => p.write_bytes, format: formatBytes, num: true },
      { key: 'data_ops', label: 'data ops', value: (p) => p.data_ops, format: formatCount, num: true },
      { key: 'meta_ops', label: 'metadata ops', value: (p) => p.meta_ops, format: formatCount, num: true },
      { key: 'io_ns', label: 'time in I/O', value: (p) => p.io_ns, format: formatDuration, num: true },
      { key: 'killed', label: 'killed', value: (p) => p.killed, format: (k) => (k ? 'killed' : '') },
    ],
  });
}

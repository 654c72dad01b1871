// What each layer (POSIX, STDIO, MPI-IO) moved and did over the whole job.
import { formatBytes, formatCount } from '../../format.js';
import { dataTable } from '../../table.js';

export const layerNames = { posix: 'POSIX', stdio: 'STDIO', mpiio: 'MPI-IO' };

const count = (key, label) => ({ key, label, value: (l) => l[key], format: formatCount, num: true });

export function layersTable(report) {
  return dataTable({
    testid: 'layers-table',
    rowTestid: 'layer-row',
    rowKey: (l) => l.layer,
    rows: Object.keys(layerNames).map((layer) => ({ layer, ...report[layer] })),
    columns: [
      { key: 'layer', label: 'layer', value: (l) => l.layer, format: (layer) => layerNames[layer] },
      { key: 'read_bytes', label: 'read', value: (l) => l.read_bytes, format: formatBytes, num: true },
      { key: 'write_bytes', label: 'written', value: (l) => l.write_bytes, format: formatBytes, num: true },
      count('read_ops', 'reads'),
      count('write_ops', 'writes'),
      count('meta_ops', 'metadata'),
      count('other_ops', 'other'),
    ],
  });
}

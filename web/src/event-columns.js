// The columns of a table of events (the events page, the overview's overflows).
import { formatEventTime } from './format.js';

export const eventColumns = [
  { key: 'id', label: 'id', value: (e) => e.id, num: true },
  { key: 'time', label: 'time (UTC)', value: (e) => e.time, format: formatEventTime },
  { key: 'kinds', label: 'kinds', value: (e) => e.kinds.join(','), format: (k) => k.replaceAll(',', ' ') },
  { key: 'path', label: 'path', value: (e) => e.path, format: (p) => p },
  { key: 'dir', label: 'dir', value: (e) => (e.dir ? 'dir' : ''), format: (d) => d },
  { key: 'source', label: 'source', value: (e) => e.source },
];

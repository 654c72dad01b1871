// The HDF5 traces' figures: processes, the programs' calls and their time in HDF5.
import { card, cardRow } from '../../cards.js';
import { formatCount, formatDuration } from '../../format.js';

export function summaryCards(r) {
  return cardRow(
    card('processes', r.processes, { format: formatCount, testid: 'h5-processes' }),
    card('calls', r.calls, { format: formatCount, testid: 'h5-calls' }),
    card('time in HDF5', r.hdf5_ns, { format: formatDuration, testid: 'h5-time', title: `${r.hdf5_ns} ns` }),
    card('straggler calls', r.straggler_calls, { format: formatCount, testid: 'h5-straggler-calls' }),
    card('datasets', r.datasets.length, { format: formatCount, testid: 'h5-datasets' }));
}

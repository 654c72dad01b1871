// The hot functions of the HDF5 traces, by total time, and the log2 latency histogram of the
// one chosen (a click on its row).
import { barChart } from '../../chart.js';
import { h, replace } from '../../dom.js';
import { formatCount, formatDuration, formatShare } from '../../format.js';
import { dataTable } from '../../table.js';

const duration = (key, label) => ({ key, label, value: (f) => f[key], format: formatDuration, num: true });

const columns = [
  { key: 'function', label: 'function', value: (f) => f.function },
  { key: 'count', label: 'calls', value: (f) => f.count, format: formatCount, num: true },
  { key: 'failed', label: 'failed', value: (f) => f.failed, format: formatCount, num: true },
  duration('total_ns', 'total'),
  { key: 'share', label: 'share', value: (f) => f.share, format: formatShare, num: true },
  duration('p50_ns', 'p50'),
  duration('p90_ns', 'p90'),
  duration('p99_ns', 'p99'),
  duration('max_ns', 'max'),
];

// Bucket b holds the durations in [2^b, 2^(b+1)) ns: every bucket from the first to the last
// that holds a call, labelled by its lower bound.
function latencyBuckets(log2) {
  const bs = Object.keys(log2).map(Number);
  const out = [];
  for (let b = Math.min(...bs); b <= Math.max(...bs); b += 1) out.push({ b, count: log2[b] ?? 0 });
  return out;
}

function histogram(f) {
  const buckets = latencyBuckets(f.log2_ns_buckets);
  const chart = barChart({ testid: 'chart-latency', label: `calls of ${f.function} per latency`, labels: buckets.map(({ b }) => `≥${formatDuration(2 ** b)}`),
    values: buckets.map(({ count }) => count), format: formatCount, height: 200 });
  chart.dataset.function = f.function;
  chart.dataset.buckets = JSON.stringify(buckets.map(({ b }) => b));
  return [h('p', { class: 'muted', testid: 'latency-caption' }, 'Calls of ', h('code', {}, f.function), ' per latency (log2 buckets).'), chart];
}

// chosen: the function shown first (the hottest when none); onChoose(name) follows a click.
export function functionsView(functions, chosen, onChoose) {
  if (!functions.length) return h('p', { class: 'muted', testid: 'functions-none' }, 'No HDF5 call in the traces.');
  const histogramBox = h('div', { testid: 'latency' });
  const select = (f, tr) => {
    tr.parentElement.querySelector('tr.selected')?.classList.remove('selected');
    tr.classList.add('selected');
    replace(histogramBox, histogram(f));
    onChoose(f.function);
  };
  const table = dataTable({ testid: 'functions-table', rowTestid: 'function-row', rowKey: (f) => f.function, rows: functions, columns, onRowClick: select });
  const first = functions.find((f) => f.function === chosen) ?? functions[0];
  table.querySelector(`tr[data-key="${CSS.escape(first.function)}"]`).classList.add('selected');
  replace(histogramBox, histogram(first));
  return [h('div', { class: 'scroll' }, table), histogramBox];
}

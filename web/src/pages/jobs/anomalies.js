// The storage targets found in trouble in the servers' samples over the last hour, day or week
// (GET /api/v1/jobs/anomalies): the rule that flagged each, its bandwidths and service time
// beside its peers', and when it was working.
import { api } from '../../api.js';
import { h } from '../../dom.js';
import { formatBytes, formatDuration, formatNs, formatRate } from '../../format.js';
import { fill, panel } from '../../section.js';
import { switcher } from '../../switcher.js';
import { dataTable } from '../../table.js';

const windows = { '1h': 3600, '1d': 86400, '7d': 7 * 86400 };

const perMib = (us) => `${formatDuration(us * 1000)}/MiB`;

const columns = [
  { key: 'target', label: 'target', value: (a) => a.target },
  { key: 'job', label: 'job', value: (a) => a.job, format: (job) => job || 'all jobs' },
  { key: 'rule', label: 'rule', value: (a) => a.rule },
  { key: 'bytes', label: 'bytes', value: (a) => a.bytes, format: formatBytes, num: true },
  { key: 'avg_bw', label: 'mean bandwidth', value: (a) => a.avg_bw, format: formatRate, num: true },
  { key: 'peak_bw', label: 'peak bandwidth', value: (a) => a.peak_bw, format: formatRate, num: true },
  { key: 'peers_mean_peak_bw', label: "peers' mean peak", value: (a) => a.peers_mean_peak_bw, format: formatRate, num: true },
  { key: 'usecs_per_mib', label: 'service time', value: (a) => a.usecs_per_mib, format: perMib, num: true },
  { key: 'peers_median_usecs_per_mib', label: "peers' median", value: (a) => a.peers_median_usecs_per_mib, format: perMib, num: true },
  { key: 'z', label: 'z', value: (a) => a.z, format: (z) => z.toFixed(1), num: true },
  { key: 'peers', label: 'peers', value: (a) => a.peers, num: true },
  { key: 'duration', label: 'within', value: (a) => a.duration },
  { key: 'first_ns', label: 'first (UTC)', value: (a) => a.first_ns, format: formatNs },
  { key: 'last_ns', label: 'last (UTC)', value: (a) => a.last_ns, format: formatNs },
];

function render({ since_ns: since, until_ns: until, anomalies }) {
  return [
    h('p', { class: 'muted', testid: 'anomalies-span', dataset: { since, until } }, `From ${formatNs(since)} to ${formatNs(until)}.`),
    h('div', { class: 'scroll' }, dataTable({
      testid: 'anomalies-table',
      rowTestid: 'anomaly-row',
      rowKey: (a) => `${a.target} ${a.job}`,
      rows: anomalies,
      empty: 'no target in trouble',
      columns,
    })),
  ];
}

export function anomaliesPanel() {
  const load = (span) => {
    el.dataset.window = span;
    const since = (BigInt(Date.now() - windows[span] * 1000) * 1000000n).toString();
    fill(body, () => api('jobs/anomalies', { params: { since } }), render);
  };
  const { el, body } = panel('Storage targets in trouble', { testid: 'anomalies', wide: true, controls: switcher(Object.keys(windows), '1d', load, 'anomalies-window') });
  load('1d');
  return el;
}

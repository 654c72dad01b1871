// A job's figures as cards: who ran it where and when, what it moved, its I/O mode and
// bandwidths (the summary and report of GET /api/v1/jobs/{job}).
import { card, cardRow } from '../../cards.js';
import { formatBytes, formatCount, formatDuration, formatNs, formatRate } from '../../format.js';

export function summaryCards({ summary: s, report: r }) {
  return cardRow(
    card('user', s.user, { testid: 'job-user', title: `uid ${s.uid}` }),
    card('hosts', s.hosts.join(' '), { testid: 'job-hosts' }),
    card('processes', s.processes, { format: formatCount, testid: 'job-processes' }),
    card('start (UTC)', s.first_ns, { format: formatNs, testid: 'job-first' }),
    card('duration', s.last_ns - s.first_ns, { format: formatDuration, testid: 'job-duration' }),
    card('read', s.read_bytes, { format: formatBytes, testid: 'job-read-bytes', title: `${s.read_bytes} bytes` }),
    card('written', s.write_bytes, { format: formatBytes, testid: 'job-write-bytes', title: `${s.write_bytes} bytes` }),
    card('metadata ops', s.meta_ops, { format: formatCount, testid: 'job-meta-ops' }),
    card('I/O mode', s.mode, { testid: 'job-mode', title: `reads ${r.read_mode.mode}, writes ${r.write_mode.mode}` }),
    card('findings', s.findings, { format: formatCount, testid: 'job-findings' }),
    card('peak bandwidth', r.peak_bandwidth, { format: formatRate, testid: 'job-peak-bandwidth' }),
    card('mean bandwidth', r.mean_bandwidth, { format: formatRate, testid: 'job-mean-bandwidth' }),
    card('data ops/s', r.mean_iops, { format: (v) => formatCount(Math.round(v)), testid: 'job-mean-iops' }));
}

// The jobs of the I/O traces the caller may see, newest first (GET /api/v1/jobs), a page at a
// time with "More" (the answer's next offset). A job whose traces cannot be read shows why.
import { api } from '../../api.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount, formatDuration, formatNs } from '../../format.js';
import { pagedTable } from '../../paged.js';
import { panel } from '../../section.js';
import { jobLink } from './job-link.js';

const readable = (j) => !j.error;

const columns = [
  { key: 'job', label: 'job', value: (j) => j.job, render: (j) => (readable(j) ? jobLink(j.job) : [j.job, ' ', h('span', { class: 'error', testid: 'job-error' }, j.error)]) },
  { key: 'user', label: 'user', value: (j) => j.user },
  { key: 'uid', label: 'uid', value: (j) => j.uid, num: true },
  { key: 'hosts', label: 'hosts', value: (j) => j.hosts, format: (hosts) => hosts.join(' ') },
  { key: 'processes', label: 'processes', value: (j) => j.processes, format: formatCount, num: true },
  { key: 'first_ns', label: 'start (UTC)', value: (j) => j.first_ns, format: formatNs },
  { key: 'duration_ns', label: 'duration', value: (j) => (readable(j) ? j.last_ns - j.first_ns : undefined), format: formatDuration, num: true },
  { key: 'read_bytes', label: 'read', value: (j) => j.read_bytes, format: formatBytes, num: true },
  { key: 'write_bytes', label: 'written', value: (j) => j.write_bytes, format: formatBytes, num: true },
  { key: 'meta_ops', label: 'metadata ops', value: (j) => j.meta_ops, format: formatCount, num: true },
  { key: 'mode', label: 'I/O mode', value: (j) => j.mode },
  { key: 'findings', label: 'findings', value: (j) => j.findings, format: formatCount, num: true },
];

export function jobsPanel(pageSize) {
  const { el, body } = panel('Jobs', { testid: 'jobs', wide: true });
  pagedTable(body, {
    load: (next) => api('jobs', { params: { limit: pageSize, ...next } }),
    rows: (answer) => answer.jobs,
    moreTestid: 'jobs-more',
    testid: 'jobs-table',
    rowTestid: 'job-row',
    rowKey: (j) => j.job,
    columns,
    empty: 'no jobs',
  });
  return el;
}

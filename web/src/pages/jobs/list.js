// The jobs of the I/O traces the caller may see, newest first (GET /api/v1/jobs), a page at a
// time with "More" (the answer's next offset). A job whose traces cannot be read shows why.
import { api, ApiError } from '../../api.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount, formatDuration, formatNs } from '../../format.js';
import { fill, panel } from '../../section.js';
import { dataTable, tableRow } from '../../table.js';
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

const rowOptions = { rowTestid: 'job-row', rowKey: (j) => j.job };

export function jobsPanel(pageSize) {
  const { el, body } = panel('Jobs', { testid: 'jobs', wide: true });
  const more = h('button', { type: 'button', testid: 'jobs-more', hidden: true }, 'More');
  let offset = null;
  const loaded = (answer) => {
    offset = answer.next?.offset ?? null;
    more.hidden = offset === null;
  };
  fill(body, () => api('jobs', { params: { limit: pageSize } }), (answer) => {
    loaded(answer);
    return [h('div', { class: 'scroll' }, dataTable({ testid: 'jobs-table', columns, rows: answer.jobs, empty: 'no jobs', ...rowOptions })), more];
  });
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const answer = await api('jobs', { params: { limit: pageSize, offset } });
      const rows = body.querySelector('[data-testid="jobs-table"] tbody');
      for (const job of answer.jobs) rows.append(tableRow(columns, job, rowOptions));
      loaded(answer);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
    more.disabled = false;
  });
  return el;
}

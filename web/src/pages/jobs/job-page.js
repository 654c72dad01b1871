// One job of the I/O traces (GET /api/v1/jobs/{job}): its figures, layers, seconds, phases,
// access sizes, processes and findings.
import { api } from '../../api.js';
import { h } from '../../dom.js';
import { routeHref } from '../../router.js';
import { fill, panel } from '../../section.js';
import { accessSizes } from './sizes.js';
import { findingsTable } from './findings.js';
import { layersTable } from './layers.js';
import { phasesTable } from './phases.js';
import { processesTable } from './processes.js';
import { summaryCards } from './summary.js';
import { timelineCharts } from './timelines.js';

export default {
  path: '/jobs/job',
  title: 'Job',
  under: '/jobs',
  render(view, params) {
    const job = params.get('job') ?? '';
    const parts = [
      ['Job', 'job-summary', true, summaryCards],
      ['Layers', 'job-layers', false, (a) => layersTable(a.report)],
      ['Findings', 'job-findings-panel', false, (a) => findingsTable(a.report.findings)],
      ['Seconds', 'job-timelines', true, (a) => timelineCharts(a.report.series)],
      ['Phases', 'job-phases', true, (a) => phasesTable(a.report.phases)],
      ['Access sizes (POSIX)', 'job-sizes', true, (a) => accessSizes(a.report)],
      ['Processes', 'job-processes-panel', true, (a) => h('div', { class: 'scroll' }, processesTable(a.report.per_process))],
    ].map(([title, testid, wide, render]) => ({ ...panel(title, { testid, wide }), render }));
    view.append(
      h('p', {}, h('a', { href: routeHref('/jobs'), testid: 'jobs-back' }, '← all jobs')),
      h('h1', {}, 'Job ', h('code', { testid: 'job-name' }, job)),
      h('div', { class: 'grid' }, parts.map((p) => p.el)));
    const answer = api(`jobs/${encodeURIComponent(job)}`);
    for (const p of parts) fill(p.body, () => answer, p.render);
  },
};

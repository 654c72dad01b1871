// Jobs (I/O): the jobs of the I/O traces and the storage targets in trouble. The page size is
// the address's limit (#/jobs?limit=20).
import { h } from '../../dom.js';
import { anomaliesPanel } from './anomalies.js';
import { jobsPanel } from './list.js';

const defaultPageSize = 50;

export default {
  path: '/jobs',
  title: 'Jobs (I/O)',
  nav: true,
  render(view, params) {
    const pageSize = Number(params.get('limit')) || defaultPageSize;
    view.append(h('h1', {}, 'Jobs (I/O)'), h('div', { class: 'grid' }, jobsPanel(pageSize), anomaliesPanel()));
  },
};

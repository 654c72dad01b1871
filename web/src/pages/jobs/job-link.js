// A link to the page of one job of the I/O traces.
import { h } from '../../dom.js';
import { routeHref } from '../../router.js';

export function jobLink(job) {
  return h('a', { href: routeHref('/jobs/job', { job }), testid: 'job-link', dataset: { job } }, job);
}

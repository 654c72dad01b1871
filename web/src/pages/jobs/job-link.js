// A link to the page of one job of the I/O traces.
import { h } from '../../dom.js';
import { routeHref } from '../../router.js';

export function jobHref(job) {
  return routeHref('/jobs/job', { job });
}

export function jobLink(job) {
  return h('a', { href: jobHref(job), testid: 'job-link', dataset: { job } }, job);
}

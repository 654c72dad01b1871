// The left navigation: one link per page that has an entry.
import { h } from './dom.js';
import { navPages, routeHref } from './router.js';

export function navElement() {
  return h('nav', { class: 'side', 'aria-label': 'pages' },
    h('ul', {}, navPages().map((p) => h('li', {}, h('a', { href: routeHref(p.path), dataset: { page: p.path }, testid: `nav-${p.path.slice(1)}` }, p.title)))));
}

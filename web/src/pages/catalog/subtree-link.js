// A link to the subtree view of a directory.
import { h } from '../../dom.js';
import { routeHref } from '../../router.js';

export function subtreeHref(path) {
  return routeHref('/catalog/subtree', { path });
}

export function subtreeLink(path, text = path) {
  return h('a', { href: subtreeHref(path), class: 'path', testid: 'subtree-link', dataset: { path } }, text);
}

// The catalog's figures (GET /api/v1/catalog/summary): entries, totals over what the caller may
// see, and its roots or the caller's granted subtrees, each a way into the subtree view.
import { api } from '../../api.js';
import { card, cardRow } from '../../cards.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { subtreeLink } from './subtree-link.js';

// The catalog's roots; for a caller granted only parts of them, the granted subtrees the
// totals are summed over.
function placesLine({ roots, scopes }) {
  const restricted = roots.length !== scopes.length || roots.some((r, i) => r !== scopes[i]);
  if (restricted) return h('p', { class: 'roots', testid: 'summary-scopes' }, 'granted: ', scopes.map((p) => subtreeLink(p)));
  return h('p', { class: 'roots', testid: 'summary-roots' }, 'roots: ', roots.length ? roots.map((r) => subtreeLink(r)) : 'none');
}

export function summaryPanel() {
  const { el, body } = panel('Catalog', { testid: 'catalog-summary', wide: true });
  fill(body, () => api('catalog/summary'), (s) => [
    cardRow(
      card('files', s.totals.files, { format: formatCount, testid: 'summary-files' }),
      card('directories', s.totals.dirs, { format: formatCount, testid: 'summary-dirs' }),
      card('symlinks', s.totals.symlinks, { format: formatCount, testid: 'summary-symlinks' }),
      card('volume', s.totals.size, { format: formatBytes, testid: 'summary-size', title: `${s.totals.size} bytes` }),
      card('entries', s.entries, { format: formatCount, testid: 'summary-entries' }),
      card('removed', s.removed, { format: formatCount, testid: 'summary-removed' }),
      card(`${s.backend} bytes`, s.bytes, { format: formatBytes, testid: 'summary-bytes' })),
    placesLine(s),
  ]);
  return el;
}

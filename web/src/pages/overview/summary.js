// The store's and the catalog's figures of /api/v1/overview as cards.
import { card, cardRow } from '../../cards.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount } from '../../format.js';

export function storeCards(store) {
  if (!store) return h('p', { class: 'muted', testid: 'store-none' }, 'This server has no event store.');
  return cardRow(
    card('first id', store.first_id, { format: formatCount, testid: 'store-first-id' }),
    card('last id', store.last_id, { format: formatCount, testid: 'store-last-id' }),
    card('bytes', store.bytes, { format: formatBytes, testid: 'store-bytes', title: `${store.bytes} bytes` }),
    card('file', store.path, { testid: 'store-path' }));
}

export function catalogCards(catalog) {
  if (!catalog) return h('p', { class: 'muted', testid: 'catalog-none' }, 'This server has no catalog.');
  return cardRow(
    card('entries', catalog.entries, { format: formatCount, testid: 'catalog-entries' }),
    card('names', catalog.names, { format: formatCount, testid: 'catalog-names' }),
    card('removed', catalog.removed, { format: formatCount, testid: 'catalog-removed' }),
    card('bytes', catalog.bytes, { format: formatBytes, testid: 'catalog-bytes', title: `${catalog.bytes} bytes` }),
    card('last applied', catalog.last_applied, { format: formatCount, testid: 'catalog-last-applied' }),
    card('lag (events)', catalog.lag_events, { format: formatCount, testid: 'catalog-lag',
      title: catalog.lag_events === null ? 'no follower applied this store' : undefined }),
    card(catalog.backend, catalog.uri, { testid: 'catalog-uri' }));
}

// The store's (or the aggregator's) and the catalog's figures of /api/v1/overview as cards.
import { card, cardRow } from '../../cards.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount } from '../../format.js';

function aggregatorCards(agg) {
  const ms = (us) => `${(us / 1000).toFixed(1)} ms`;
  return cardRow(
    card('first id', agg.first_id, { format: formatCount, testid: 'aggregator-first-id' }),
    card('last id', agg.last_id, { format: formatCount, testid: 'aggregator-last-id' }),
    card('queued', agg.queued_events, { format: formatCount, testid: 'aggregator-queued',
      title: 'events received and not yet committed' }),
    card('commit (mean)', agg.commit_latency_us_mean, { format: ms, testid: 'aggregator-commit-mean' }),
    card('collectors', agg.collectors, { format: formatCount, testid: 'aggregator-collectors' }),
    card('subscribers', agg.consumers, { format: formatCount, testid: 'aggregator-consumers' }),
    card('aggregator', agg.endpoint, { testid: 'aggregator-endpoint' }));
}

// The store's figures, or those of the aggregator the server follows (--from).
export function storeCards(store, aggregator) {
  if (!store && aggregator) return aggregatorCards(aggregator);
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

// Overview: live event rates per source and kind, the store's (or the aggregator's) and the
// catalog's figures, recent overflows and errors (GET /api/v1/overview, then the stream's "rates" messages).
import { api } from '../../api.js';
import { timeChart } from '../../chart.js';
import { h, replace } from '../../dom.js';
import { eventColumns } from '../../event-columns.js';
import { formatCount } from '../../format.js';
import { fill, panel } from '../../section.js';
import { openStream } from '../../stream.js';
import { dataTable } from '../../table.js';
import { ratesModel } from './rates.js';
import { catalogCards, storeCards } from './summary.js';

const refreshMs = 10000;
const maxEarly = 600;

function ratesTable(view) {
  return dataTable({
    testid: 'rates-table',
    rowTestid: 'rates-row',
    rowKey: (s) => s.label,
    rows: view.series,
    empty: 'no events in the window',
    columns: [
      { key: 'source', label: 'source', value: (s) => s.source },
      { key: 'kind', label: 'kind', value: (s) => s.kind },
      { key: 'total', label: 'events in the window', value: (s) => s.total, format: formatCount, num: true },
      { key: 'last', label: 'last bucket', value: (s) => s.values[s.values.length - 1] ?? 0, format: formatCount, num: true },
    ],
  });
}

function ratesPanel() {
  const state = h('span', { class: 'stream-state', testid: 'stream-state' }, 'connecting');
  const { el, body } = panel('Event rates', { testid: 'rates', controls: state, wide: true });
  const chart = timeChart({ testid: 'chart-rates', label: 'events per bucket, per source and kind' });
  const caption = h('p', { class: 'muted', testid: 'rates-caption' });
  const table = h('div');
  replace(body, caption, chart.el, table);
  let model = null;
  const draw = () => {
    const view = model.view();
    chart.update(view.xs, view.series);
    replace(table, ratesTable(view));
  };
  const early = [];
  return {
    el,
    seed(rates) {
      model = ratesModel(rates, Math.floor(Date.now() / 1000));
      caption.textContent = `Events per ${rates.step_s} s over the last ${rates.window_s} s.`;
      el.dataset.windowS = rates.window_s;
      el.dataset.stepS = rates.step_s;
      for (const message of early.splice(0)) model.feed(message);
      draw();
    },
    // Messages that come before the seed wait for it.
    feed(message) {
      if (!model) {
        if (early.length < maxEarly) early.push(message);
        return;
      }
      model.feed(message);
      draw();
    },
    setState(text) {
      state.textContent = text;
      state.dataset.state = text;
    },
  };
}

function overflowsTable(events) {
  return dataTable({ testid: 'overflows-table', rowTestid: 'overflow-row', rowKey: (e) => e.id, rows: events, columns: eventColumns, empty: 'no overflow' });
}

function errorsList(errors) {
  if (!errors.length) return h('p', { class: 'muted', testid: 'errors-none' }, 'no error');
  return h('ul', { class: 'errors', testid: 'errors-list' }, errors.map((e) => h('li', {}, e)));
}

export default {
  path: '/overview',
  title: 'Overview',
  nav: true,
  render(view) {
    const rates = ratesPanel();
    const store = panel('Event store', { testid: 'store' });
    const catalog = panel('Catalog', { testid: 'catalog' });
    const overflows = panel('Recent overflows', { testid: 'overflows', wide: true });
    const errors = panel('Errors', { testid: 'errors', wide: true });
    view.append(h('h1', {}, 'Overview'), h('div', { class: 'grid' }, rates.el, store.el, catalog.el, overflows.el, errors.el));

    let seeded = false;
    let close = openStream({}, { onRates: (m) => rates.feed(m), onState: (s) => rates.setState(s) });
    const load = () => {
      const answer = api('overview');
      const part = (body, render) => fill(body, () => answer, render);
      part(store.body, (o) => storeCards(o.store, o.aggregator));
      part(catalog.body, (o) => catalogCards(o.catalog));
      part(overflows.body, (o) => overflowsTable(o.recent_overflows));
      part(errors.body, (o) => errorsList(o.errors));
      answer.then((o) => {
        // A server that follows an aggregator (--from) without a store shows the aggregator there.
        store.el.querySelector('h2').textContent = !o.store && o.aggregator ? 'Aggregator' : 'Event store';
        if (seeded) return;
        seeded = true;
        if (o.rates) {
          rates.seed(o.rates);
          return;
        }
        close();
        close = () => {};
        rates.setState('no event store');
      }, () => {});
    };
    load();
    const timer = setInterval(load, refreshMs);
    return () => {
      clearInterval(timer);
      close();
    };
  },
};

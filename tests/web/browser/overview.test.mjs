// The overview shows the store's and the catalog's figures and the event rates of the API.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { screenshot } from './browser.mjs';
import { cardValue, tableRows } from './read-page.mjs';
import { withPage } from './session.mjs';

export function overviewTests(ctx) {
  it('overview: store, catalog and rates figures', async () => {
    await withPage(ctx, { route: '/overview' }, async (page) => {
      const events = await ctx.fixture.storedEvents();
      const o = await ctx.api('overview');
      assert.equal(o.store.last_id, events[events.length - 1].id);
      assert.equal(o.catalog.lag_events, 0);
      assert.equal(await cardValue(page, 'store-first-id'), String(o.store.first_id));
      assert.equal(await cardValue(page, 'store-last-id'), String(o.store.last_id));
      assert.equal(await cardValue(page, 'store-bytes'), String(o.store.bytes));
      assert.equal(await cardValue(page, 'catalog-entries'), String(o.catalog.entries));
      assert.equal(await cardValue(page, 'catalog-names'), String(o.catalog.names));
      assert.equal(await cardValue(page, 'catalog-removed'), String(o.catalog.removed));
      assert.equal(await cardValue(page, 'catalog-last-applied'), String(o.catalog.last_applied));
      assert.equal(await cardValue(page, 'catalog-lag'), '0');

      // Every stored event is in the window: per kind, the series add up to the events of
      // that kind, and the page shows each series' total.
      await page.locator('[data-testid="rates-row"]').first().waitFor();
      const totals = Object.fromEntries(o.rates.series.map((s) => [`${s.source} ${s.kind}`, s.points.reduce((a, [, n]) => a + n, 0)]));
      const shown = Object.fromEntries((await tableRows(page, 'rates-table')).map((r) => [r.key, Number(r.cells.total.value)]));
      assert.deepEqual(shown, totals);
      for (const kind of new Set(o.rates.series.map((s) => s.kind))) {
        const perKind = o.rates.series.filter((s) => s.kind === kind).reduce((a, s) => a + totals[`${s.source} ${s.kind}`], 0);
        assert.equal(perKind, events.filter((e) => e.events.includes(kind)).length, `events of kind ${kind}`);
      }
      const chart = JSON.parse(await page.getAttribute('[data-testid="chart-rates"]', 'data-series'));
      assert.deepEqual(Object.fromEntries(chart.series.map((s) => [s.label, s.values.reduce((a, b) => a + b, 0)])), totals);
      await page.locator('[data-testid="stream-state"][data-state="live"]').waitFor();
      await page.locator('[data-testid="overflows-table"]').waitFor();
      assert.deepEqual((await tableRows(page, 'overflows-table')).map((r) => Number(r.key)), o.recent_overflows.map((e) => e.id));
      if (o.errors.length) assert.deepEqual(await page.locator('[data-testid="errors-list"] li').allTextContents(), o.errors);
      else await page.locator('[data-testid="errors-none"]').waitFor();
      await screenshot(page, 'overview');
    });
  });
}

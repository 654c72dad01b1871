// A token granted one directory sees nothing of the paths outside it: not their events, nor
// their catalog entries, usage, directories or removed entries, nor the actions and alerts of
// policies there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { screenshot } from './browser.mjs';
import { eventsUnder, sizeBuckets, subtreeTotals, under, usage } from './expect.mjs';
import { columnValues, linkedPaths, settled, tableRows } from './read-page.mjs';
import { go, withPage } from './session.mjs';
import { grantedDir } from './tree.mjs';

// The paths of the tree outside the grant that the page's HTML names (text, links, data).
async function foreignPaths(page, tree, granted) {
  const text = await page.evaluate(() => document.body.innerHTML);
  const pattern = new RegExp(`${tree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/[\\w.-]+)*`, 'g');
  return [...new Set(text.match(pattern) ?? [])].filter((p) => !under(p, granted));
}

export function restrictedTests(ctx) {
  it('a token granted one directory sees only what lies under it', async () => {
    const { tree, entries, restricted } = ctx.fixture;
    const granted = join(tree, grantedDir);
    const inside = entries.filter((e) => under(e.path, granted));
    await withPage(ctx, { token: restricted, route: '/events' }, async (page) => {
      assert.equal(await page.textContent('[data-testid="whoami-user"]'), 'nobody');
      assert.deepEqual(JSON.parse(await page.getAttribute('[data-testid="whoami-paths"]', 'data-paths')), [granted]);

      await settled(page, 'events-results');
      const expected = eventsUnder(await ctx.fixture.storedEvents(), granted);
      assert.ok(expected.length > 0);
      assert.deepEqual((await tableRows(page, 'events-table')).map((r) => Number(r.key)), expected.map((e) => e.id));
      assert.deepEqual(await foreignPaths(page, tree, granted), []);
      await screenshot(page, 'restricted-events');

      await go(page, '/catalog');
      // No root of the catalog is granted whole: the granted directory shows instead.
      await settled(page, 'catalog-summary', 'summary-scopes');
      assert.deepEqual(await linkedPaths(page, 'summary-scopes'), [granted]);
      await settled(page, 'usage', 'usage-table');
      assert.deepEqual(Object.fromEntries((await tableRows(page, 'usage-table')).map((r) => [r.cells.id.value, Number(r.cells.count.value)])),
        Object.fromEntries([...usage(inside, 'uid')].map(([id, r]) => [String(id), r.count])));
      await settled(page, 'size-profile', 'size-profile-table');
      const { buckets } = await ctx.api('catalog/size-profile');
      assert.deepEqual(await columnValues(page, 'size-profile-table', 'count'), sizeBuckets(inside, buckets));
      for (const by of ['size', 'count']) {
        await settled(page, `top-dirs-${by}`, `top-dirs-${by}-table`);
        const dirs = await tableRows(page, `top-dirs-${by}-table`);
        assert.deepEqual(dirs.map((d) => d.key).sort(), inside.filter((e) => e.type === 'dir').map((e) => e.path).sort());
        for (const d of dirs) assert.equal(Number(d.cells.size.value), subtreeTotals(inside, d.key).size, d.key);
      }
      await settled(page, 'removed', 'removed-table');
      assert.deepEqual((await tableRows(page, 'removed-table')).map((r) => r.key), [join(granted, 'g3.txt')]);
      assert.deepEqual(await foreignPaths(page, tree, granted), []);
      await screenshot(page, 'restricted-catalog');

      // The purge acted outside the granted directory, and its alerts are there too.
      await go(page, '/policies');
      await settled(page, 'policies', 'policies-table');
      const [purge] = await tableRows(page, 'policies-table');
      assert.deepEqual(['last_actions', 'last_volume'].map((k) => purge.cells[k].value), ['0', '0']);
      await settled(page, 'alerts', 'open-alerts-table');
      assert.equal(await page.getAttribute('[data-testid="open-alerts-total"]', 'data-value'), '0');

      await go(page, '/overview');
      await settled(page, 'store');
      assert.deepEqual(await foreignPaths(page, tree, granted), []);
    });
  });
}

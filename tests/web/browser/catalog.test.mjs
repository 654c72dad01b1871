// The catalog page: usage, size profile, age histograms, top directories with the drill-down
// into subtrees, and removed entries, each with the figures of the tree on disk.
import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { it } from 'node:test';
import { screenshot } from './browser.mjs';
import { ageRanges, sizeBuckets, subtreeTotals, usage } from './expect.mjs';
import { cardValue, chartData, columnValues, linkedPaths, settled, tableRows } from './read-page.mjs';
import { purgeLimit, tmpFiles } from './policies.mjs';
import { go, withPage } from './session.mjs';
import { removedFiles } from './tree.mjs';

// {id: {count, size}} of the usage table.
async function usageShown(page) {
  const rows = await tableRows(page, 'usage-table');
  return Object.fromEntries(rows.map((r) => [r.cells.id.value ?? r.key, { count: Number(r.cells.count.value), size: Number(r.cells.size.value) }]));
}

async function switchTo(page, panel, button) {
  await page.click(`[data-testid="${button}"]`);
  await settled(page, panel);
}

async function totalsShown(page) {
  const out = {};
  for (const key of ['entries', 'files', 'dirs', 'symlinks', 'size']) out[key] = Number(await cardValue(page, `subtree-${key}`));
  return out;
}

async function openSubtree(page, link, path) {
  await link.click();
  await page.locator(`[data-testid="subtree-path"]:text-is("${path}")`).waitFor();
  await settled(page, 'subtree-totals');
  await settled(page, 'subtree-children');
}

export function catalogTests(ctx) {
  it('catalog: usage, size profile and ages of the tree', async () => {
    await withPage(ctx, { route: '/catalog' }, async (page) => {
      const { entries } = ctx.fixture;
      await settled(page, 'catalog-summary', 'summary-roots');
      assert.deepEqual(await linkedPaths(page, 'summary-roots'), [ctx.fixture.tree]);
      await settled(page, 'usage', 'usage-table');
      const byUid = Object.fromEntries([...usage(entries, 'uid')].map(([id, r]) => [String(id), r]));
      assert.deepEqual(await usageShown(page), byUid);
      // alpha, alpha/deep, a1, a2, a3, a5, a6 and new.txt (a4 was removed).
      assert.equal(byUid['1000'].count, 8);
      const chart = await chartData(page, 'chart-usage');
      assert.deepEqual(chart.values, (await tableRows(page, 'usage-table')).map((r) => Number(r.cells.size.value)));

      await switchTo(page, 'usage', 'usage-by-group');
      assert.deepEqual(await usageShown(page), Object.fromEntries([...usage(entries, 'gid')].map(([id, r]) => [String(id), r])));
      await switchTo(page, 'usage', 'usage-by-type');
      const byType = await usageShown(page);
      assert.deepEqual(Object.keys(byType).sort(), ['dir', 'file', 'symlink']);
      for (const type of ['dir', 'file', 'symlink']) assert.equal(byType[type].count, entries.filter((e) => e.type === type).length, type);

      await settled(page, 'size-profile', 'size-profile-table');
      const { buckets } = await ctx.api('catalog/size-profile');
      assert.equal(buckets.length, 10);
      const expected = sizeBuckets(entries, buckets);
      assert.deepEqual(await columnValues(page, 'size-profile-table', 'count'), expected);
      assert.deepEqual(Object.keys((await tableRows(page, 'size-profile-table'))[0].cells), ['label', 'count']);
      assert.deepEqual((await chartData(page, 'chart-size-profile')).values, expected);

      for (const time of ['mtime', 'atime']) {
        await switchTo(page, 'age', `age-time-${time}`);
        const { ranges } = await ctx.api('catalog/age-histogram', { time });
        const counts = ageRanges(entries, ranges, time, Date.now());
        assert.deepEqual(await columnValues(page, 'age-table', 'count'), counts, time);
        assert.deepEqual((await chartData(page, 'chart-age')).values, counts, time);
      }
      await screenshot(page, 'catalog');
    });
  });

  it('catalog: top directories, their subtrees and the removed entries', async () => {
    await withPage(ctx, { route: '/catalog' }, async (page) => {
      const { tree, entries } = ctx.fixture;
      const totalsOf = (dir) => subtreeTotals(entries, dir);
      const dirs = entries.filter((e) => e.type === 'dir').map((e) => ({ path: e.path, ...totalsOf(e.path) }));
      for (const [by, key] of [['size', 'size'], ['count', 'entries']]) {
        const table = `top-dirs-${by}-table`;
        await settled(page, `top-dirs-${by}`, table);
        const rows = await tableRows(page, table);
        const top = dirs.map((d) => d[key]).sort((a, b) => b - a).slice(0, 10);
        assert.deepEqual(rows.map((r) => Number(r.cells[key].value)), top, `top directories by ${by}`);
        for (const r of rows) {
          const d = dirs.find((x) => x.path === r.key);
          assert.ok(d, `${r.key} is a directory of the tree`);
          assert.deepEqual([r.cells.entries.value, r.cells.files.value, r.cells.dirs.value, r.cells.size.value].map(Number),
            [d.entries, d.files, d.dirs, d.size], r.key);
        }
      }

      await settled(page, 'removed', 'removed-table');
      // The files removed while watched, and those the purge policy deleted.
      const removed = await tableRows(page, 'removed-table');
      assert.deepEqual(removed.map((r) => r.key).sort(), [...removedFiles.map((f) => join(tree, f)), ...ctx.fixture.purged].sort());
      assert.deepEqual(Object.fromEntries(removed.map((r) => [basename(r.key), Number(r.cells.size.value)])),
        { 'a4.dat': 5000, 'b3.txt': 31, 'g3.txt': 1023, ...Object.fromEntries(tmpFiles.slice(0, purgeLimit)) });

      // Drill down from the largest directories into beta, then beta/made, and up again.
      const beta = join(tree, 'beta');
      await openSubtree(page, page.locator(`[data-testid="top-dirs-size-table"] [data-testid="subtree-link"][data-path="${beta}"]`), beta);
      assert.deepEqual(await totalsShown(page), totalsOf(beta));
      const children = await tableRows(page, 'children-table');
      assert.deepEqual(children.map((r) => r.key).sort(), ['b1.bin', 'b2.bin', 'b4.txt', 'b5.txt', 'made']);
      for (const r of children) {
        const e = entries.find((x) => x.path === join(beta, r.key));
        assert.deepEqual([r.cells.type.value, Number(r.cells.size.value), Number(r.cells.mtime_ns.value) > 0], [e.type, e.size, true], r.key);
      }
      await screenshot(page, 'catalog-subtree');
      const made = join(beta, 'made');
      await openSubtree(page, page.locator(`[data-testid="children-table"] [data-testid="subtree-link"][data-path="${made}"]`), made);
      assert.deepEqual(await totalsShown(page), totalsOf(made));
      await openSubtree(page, page.locator(`[data-testid="breadcrumbs"] [data-path="${beta}"]`), beta);
      await openSubtree(page, page.locator(`[data-testid="breadcrumbs"] [data-path="${tree}"]`), tree);
      assert.deepEqual(await totalsShown(page), totalsOf(tree));
      await go(page, '/catalog');
    });
  });
}

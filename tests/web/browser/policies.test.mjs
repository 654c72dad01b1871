// The policies page: the purge's definition, its last run (limited to two actions) and next
// run, the actions it took with their results, the open alerts, and a preview of what its next
// run would do, each known from the policies file and the tree.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { screenshot } from './browser.mjs';
import { under } from './expect.mjs';
import { purgeLimit, tmpDir, tmpFiles } from './policies.mjs';
import { settled, tableRows } from './read-page.mjs';
import { withPage } from './session.mjs';

const cell = (row, key) => row.cells[key].value;
const wholeSeconds = (iso) => Date.parse(`${iso.slice(0, 19)}Z`) / 1000;

export function policiesTests(ctx) {
  it('policies: the purge, its run and actions, the open alerts and a preview', async () => {
    const { tree, entries } = ctx.fixture;
    const dir = join(tree, tmpDir);
    const path = (name) => join(dir, name);
    const done = tmpFiles.slice(0, purgeLimit);
    const left = tmpFiles.slice(purgeLimit);
    await withPage(ctx, { route: '/policies' }, async (page) => {
      await settled(page, 'policies', 'policies-table');
      const [purge, ...others] = await tableRows(page, 'policies-table');
      assert.equal(others.length, 0);
      assert.equal(purge.key, 'purge');
      assert.deepEqual(['last_state', 'last_actions', 'last_failed', 'last_volume'].map((k) => cell(purge, k)),
        ['limited', String(purgeLimit), '0', String(done.reduce((a, [, size]) => a + size, 0))]);
      // Periodic, every hour from the last run's start.
      const [started, next] = [cell(purge, 'last_started'), cell(purge, 'next_run')];
      assert.equal(wholeSeconds(next) - wholeSeconds(started), 3600);
      assert.equal(next.slice(19), started.slice(19));

      await settled(page, 'alerts', 'open-alerts-table');
      assert.deepEqual((await tableRows(page, 'alerts-table')).map((a) => [a.key, cell(a, 'open')]), [['stale_tmp', String(tmpFiles.length)]]);
      assert.equal(await page.getAttribute('[data-testid="open-alerts-total"]', 'data-value'), String(tmpFiles.length));
      assert.deepEqual((await tableRows(page, 'open-alerts-table')).map((a) => [cell(a, 'alert'), cell(a, 'key'), cell(a, 'notified')]),
        tmpFiles.map(([name]) => ['stale_tmp', path(name), 'true']));

      await settled(page, 'policy', 'policy-rules');
      assert.equal(await page.textContent('[data-testid="policy-scope"]'), `tree == '${dir}'`);
      assert.equal(await page.textContent('[data-testid="policy-limits"]'), `at most ${purgeLimit} actions`);
      assert.equal(await page.textContent('[data-testid="policy-triggers"]'), 'every 1h');
      assert.deepEqual((await tableRows(page, 'policy-rules')).map((r) => [r.key, cell(r, 'condition')]), [['stale_tmp', "last_mod > '30d'"]]);

      await settled(page, 'runs', 'runs-table');
      const runs = await tableRows(page, 'runs-table');
      assert.deepEqual(runs.map((r) => ['state', 'actions', 'failed', 'volume', 'user'].map((k) => cell(r, k))),
        [['limited', String(purgeLimit), '0', cell(purge, 'last_volume'), 'root']]);
      await settled(page, 'actions', 'actions-table');
      // Largest first, so the newest action is the smaller file.
      assert.deepEqual((await tableRows(page, 'actions-table')).map((a) => ['path', 'rule', 'action', 'size', 'state', 'result'].map((k) => cell(a, k))),
        [...done].reverse().map(([name, size]) => [path(name), 'stale_tmp', 'delete', String(size), 'done', '']));

      await page.click('[data-testid="preview-button"][data-policy="purge"]');
      await settled(page, 'preview', 'preview-actions');
      assert.deepEqual((await tableRows(page, 'preview-actions')).map((a) => ['path', 'rule', 'action', 'size'].map((k) => cell(a, k))),
        left.map(([name, size]) => [path(name), 'stale_tmp', 'delete', String(size)]));
      assert.deepEqual(await tableRows(page, 'preview-skipped'), []);
      assert.deepEqual((await tableRows(page, 'preview-rules')).map((r) => [r.key, cell(r, 'act'), cell(r, 'volume')]),
        [['stale_tmp', String(left.length), String(left.reduce((a, [, size]) => a + size, 0))]]);
      // Every entry of the catalog is selected, those outside the directory out of scope; the
      // directory itself is no *.tmp file.
      const inside = entries.filter((e) => under(e.path, dir));
      const totals = {};
      for (const key of ['selected', 'out-of-scope', 'no-rule']) totals[key] = Number(await page.getAttribute(`[data-testid="preview-${key}"]`, 'data-value'));
      assert.deepEqual(totals, { selected: entries.length, 'out-of-scope': entries.length - inside.length, 'no-rule': inside.filter((e) => e.type !== 'file').length });
      await screenshot(page, 'policies');
    });
  });
}

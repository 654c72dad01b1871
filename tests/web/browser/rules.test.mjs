// The rules page: each rule's deliveries counted by state, the recent deliveries and the dead
// letters of the failing rule, one replayed by an administrator; a read-only token sees no
// Replay button, and a replay it forces is refused with the server's message.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { apiClient } from './api-client.mjs';
import { screenshot } from './browser.mjs';
import { settled, tableRows } from './read-page.mjs';
import { withPage } from './session.mjs';

const states = ['pending', 'running', 'waiting', 'succeeded', 'dead', 'retried'];

async function countsShown(page) {
  return Object.fromEntries((await tableRows(page, 'rules-table')).map((r) => [r.key, Object.fromEntries(states.map((s) => [s, Number(r.cells[s].value)]))]));
}

const counts = (overrides) => ({ ...Object.fromEntries(states.map((s) => [s, 0])), ...overrides });

export function rulesTests(ctx) {
  it('rules: counts by state, deliveries, dead letters and a replay', async () => {
    const { closed } = ctx.fixture;
    const n = closed.length;
    const lastEvent = String(Math.max(...closed.map((e) => e.id)));
    await withPage(ctx, { route: '/rules' }, async (page) => {
      await settled(page, 'rules', 'rules-table');
      assert.ok(n >= 3, 'new.txt, a2.dat and m1.txt were closed after writing');
      assert.deepEqual(await countsShown(page), { ingest: counts({ succeeded: n }), reject: counts({ dead: n }) });
      const rules = await tableRows(page, 'rules-table');
      assert.deepEqual(rules.map((r) => [r.cells.last_event.value, r.cells.last_result.value]), [[lastEvent, 'exit 0'], [lastEvent, 'exit 1']]);

      await settled(page, 'dead', 'dead-table');
      const dead = await tableRows(page, 'dead-table');
      const closedPaths = closed.map((e) => e.path).sort();
      assert.deepEqual(dead.map((d) => d.cells.path.value).sort(), closedPaths);
      assert.deepEqual(new Set(dead.map((d) => [d.cells.rule.value, d.cells.state.value, d.cells.last_result.value].join())), new Set(['reject,dead,exit 1']));
      assert.equal(await page.locator('[data-testid="replay-button"]:visible').count(), n);
      await settled(page, 'deliveries', 'deliveries-table');
      const recent = await tableRows(page, 'deliveries-table');
      assert.equal(recent.length, 2 * n);
      assert.deepEqual(recent.map((d) => Number(d.cells.seq.value)), recent.map((d) => Number(d.cells.seq.value)).sort((a, b) => b - a));

      const replayed = dead[0].key;
      await page.click(`[data-testid="replay-button"][data-id="${replayed}"]`);
      await page.locator(`[data-testid="dead-table"] tr[data-key="${replayed}"] td[data-col="state"][data-value="pending"]`).waitFor();
      assert.equal(await page.getAttribute(`[data-testid="dead-table"] tr[data-key="${replayed}"] td[data-col="attempts"]`, 'data-value'), '0');
      await page.locator(`[data-testid="rules-table"] tr[data-key="reject"] td[data-col="dead"][data-value="${n - 1}"]`).waitFor();
      assert.deepEqual(await countsShown(page), { ingest: counts({ succeeded: n }), reject: counts({ dead: n - 1, pending: 1 }) });
      await page.locator(`[data-testid="deliveries-table"] tr[data-key="${replayed}"] td[data-col="state"][data-value="pending"]`).waitFor();
      await screenshot(page, 'rules');

      await page.click('[data-testid="rule-link"][data-rule="reject"]');
      await page.locator('[data-testid="rules-all"]').waitFor();
      await settled(page, 'dead', 'dead-table');
      await settled(page, 'deliveries', 'deliveries-table');
      assert.equal((await tableRows(page, 'dead-table')).length, n - 1);
      assert.deepEqual(new Set((await tableRows(page, 'deliveries-table')).map((d) => d.cells.rule.value)), new Set(['reject']));
    });

    // A read-only token: no Replay button; one shown by force is refused, with the server's word.
    const target = (await ctx.api('rules/dead')).deliveries[0].id;
    const refusal = await apiClient(ctx.fixture.url, ctx.fixture.viewer)(`rules/deliveries/${target}/replay`, {}, { method: 'POST', body: {} }).catch((e) => e);
    assert.equal(refusal.status, 403);
    await withPage(ctx, { token: ctx.fixture.viewer, route: '/rules', allow: ['403'] }, async (page) => {
      await settled(page, 'dead', 'dead-table');
      assert.equal(await page.locator('[data-testid="whoami-admin"]').count(), 0);
      assert.equal(await page.locator('[data-testid="replay-button"]').count(), n - 1);
      assert.equal(await page.locator('[data-testid="replay-button"]:visible').count(), 0);
      const button = page.locator(`[data-testid="replay-button"][data-id="${target}"]`);
      await button.evaluate((b) => b.removeAttribute('hidden'));
      await button.click();
      await page.locator('[data-testid="replay-error"]').waitFor();
      assert.equal(await page.textContent('[data-testid="notice"] span'), refusal.message);
      assert.equal((await page.textContent('[data-testid="replay-error"]')).trim(), refusal.message);
    });
  });
}

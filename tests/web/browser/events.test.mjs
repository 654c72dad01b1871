// The events page: its searches give exactly the stored events they ask for, newest first,
// page by page; a click shows one event whole; the live tail shows a file made meanwhile.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { screenshot } from './browser.mjs';
import { eventsUnder } from './expect.mjs';
import { settled, tableRows } from './read-page.mjs';
import { withPage } from './session.mjs';

async function search(page, { prefix = '', kinds = [], limit = 100 }) {
  await page.fill('[data-testid="events-prefix"]', prefix);
  await page.fill('[data-testid="events-limit"]', String(limit));
  for (const box of await page.locator('[data-testid^="events-kind-"]').all()) {
    await box.setChecked(kinds.includes(await box.getAttribute('value')));
  }
  await page.click('[data-testid="events-search"]');
  await settled(page, 'events-results');
}

async function shownIds(page) {
  return (await tableRows(page, 'events-table')).map((r) => Number(r.key));
}

export function eventsTests(ctx) {
  it('events: the search gives the stored events of a prefix and kinds, newest first', async () => {
    await withPage(ctx, { route: '/events' }, async (page) => {
      const { tree } = ctx.fixture;
      const stored = await ctx.fixture.storedEvents();
      await settled(page, 'events-results');
      assert.deepEqual(await shownIds(page), eventsUnder(stored, '/').map((e) => e.id));

      await search(page, { prefix: join(tree, 'alpha'), kinds: ['DELETE'] });
      const deleted = await tableRows(page, 'events-table');
      assert.deepEqual(deleted.map((r) => r.cells.path.value), [join(tree, 'alpha/deep/a4.dat')]);
      assert.deepEqual(deleted.map((r) => Number(r.key)), eventsUnder(stored, join(tree, 'alpha'), ['DELETE']).map((e) => e.id));
      assert.match(await page.evaluate(() => location.hash), /prefix=.*alpha.*kinds=DELETE/);

      await search(page, { prefix: tree, kinds: ['CREATE'] });
      const created = eventsUnder(stored, tree, ['CREATE']);
      assert.deepEqual(await shownIds(page), created.map((e) => e.id));
      assert.deepEqual(new Set(created.map((e) => e.path)),
        new Set(['alpha/new.txt', 'beta/made', 'beta/made/m1.txt'].map((p) => join(tree, p))));
      await screenshot(page, 'events');
    });
  });

  it('events: "older" pages through every event, and a click shows one whole', async () => {
    await withPage(ctx, { route: '/events' }, async (page) => {
      const { tree } = ctx.fixture;
      const all = eventsUnder(await ctx.fixture.storedEvents(), tree);
      await search(page, { prefix: tree, limit: 4 });
      assert.equal((await shownIds(page)).length, 4);
      while (await page.isVisible('[data-testid="events-older"]')) {
        await page.click('[data-testid="events-older"]');
        await settled(page, 'events-results');
      }
      assert.deepEqual(await shownIds(page), all.map((e) => e.id));

      const target = all[all.length - 1];
      await page.click(`[data-testid="event-row"][data-key="${target.id}"]`);
      await page.locator(`[data-testid="event-json"][data-id="${target.id}"]`).waitFor();
      const text = await page.textContent('[data-testid="event-json"]');
      const shown = JSON.parse(text);
      assert.equal(shown.id, target.id);
      assert.equal(shown.path, target.path);
      assert.equal(text.match(/"ts_ns": (\d+)/)[1], String(target.ts), 'every digit of the time');
      await screenshot(page, 'events-detail');
    });
  });

  it('events: a refused search shows the server\'s message', async () => {
    await withPage(ctx, { route: '/events', allow: ['400'] }, async (page) => {
      await settled(page, 'events-results');
      const refusal = await ctx.api('events', { prefix: 'not/absolute' }).catch((e) => e);
      assert.equal(refusal.status, 400);
      await search(page, { prefix: 'not/absolute' });
      await page.locator('[data-testid="notice"]').waitFor();
      assert.equal(await page.textContent('[data-testid="notice"] span'), refusal.message);
      assert.equal(await page.textContent('[data-testid="events-status"]'), 'The search failed.');
    });
  });

  it('events: the live tail shows a file created meanwhile', async () => {
    await withPage(ctx, { route: '/events' }, async (page) => {
      const { tree } = ctx.fixture;
      await search(page, { prefix: join(tree, 'alpha') });
      await page.check('[data-testid="events-live"]');
      await page.locator('[data-testid="events-live-state"][data-state="live"]').waitFor();
      const made = join(tree, 'alpha/live.txt');
      writeFileSync(made, 'live');
      const row = page.locator(`[data-testid="event-row"]:has(td[data-col="path"][data-value="${made}"])`).first();
      await row.waitFor();
      const first = (await tableRows(page, 'events-table'))[0];
      const stored = eventsUnder(await ctx.fixture.storedEvents(), made);
      assert.ok(stored.some((e) => e.id === Number(first.key)), 'the newest row is an event of the new file');
      assert.ok((await tableRows(page, 'events-table')).some((r) => r.cells.path.value === made && r.cells.kinds.value.split(',').includes('CREATE')));
      await screenshot(page, 'events-live');
    });
  });
}

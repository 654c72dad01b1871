// A server that shows an aggregator's events (`serve --from`): `fathom aggregate` fed by
// `fathom collect` watching a tree of its own. The overview shows the aggregator's figures and
// the rates of its events; the events page lists the files made.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { apiClient } from './api-client.mjs';
import { screenshot } from './browser.mjs';
import { startProgram, waitFor } from './processes.mjs';
import { cardValue, settled, tableRows } from './read-page.mjs';
import { withPage } from './session.mjs';

export function aggregatorTests(ctx) {
  it('overview and events of an aggregator (serve --from)', async () => {
    const { binary } = ctx.fixture;
    const dir = join(ctx.fixture.dir, 'from');
    const tree = join(dir, 'tree');
    mkdirSync(tree, { recursive: true });
    const programs = [];
    try {
      const aggregate = startProgram(binary, ['aggregate', '--listen', 'tcp://127.0.0.1:*', '--store',
        `sqlite:${join(dir, 'aggregated.db')}`, '--insecure']);
      programs.push(aggregate);
      await aggregate.waitForStderr('aggregating on', 20000);
      const endpoint = aggregate.stderr.match(/aggregating on (\S+) into/)[1];
      const collect = startProgram(binary, ['collect', '-r', tree, '--name', 'tree', '--to', endpoint, '--insecure']);
      programs.push(collect);
      await collect.waitForStderr('watches established', 20000);
      const files = ['one.txt', 'two.txt', 'three.txt'].map((name) => join(tree, name));
      for (const file of files) writeFileSync(file, 'x');

      const ready = join(dir, 'ready.json');
      const serve = startProgram(binary, ['serve', '--listen', '127.0.0.1:0', '--from', endpoint, '--insecure',
        '--ready-file', ready]);
      programs.push(serve);
      const started = await serve.waitForFile(ready, 30000);
      const api = apiClient(started.url, started.token);
      const server = { browser: ctx.browser, fixture: { url: started.url, token: started.token } };
      await waitFor('the aggregator to hold every file written', async () => {
        const found = await api('events', { prefix: tree, kinds: 'CLOSE_WRITE', limit: 100 });
        return files.every((file) => found.events.some((e) => e.path === file));
      });

      const o = await api('overview');
      assert.equal(o.store, null);
      assert.equal(o.aggregator.endpoint, endpoint);
      assert.equal(o.aggregator.collectors, 1);
      await withPage(server, { route: '/overview' }, async (page) => {
        assert.equal(await cardValue(page, 'aggregator-endpoint'), endpoint);
        assert.equal(await page.textContent('[data-testid="store"] h2'), 'Aggregator');
        assert.equal(await cardValue(page, 'aggregator-first-id'), String(o.aggregator.first_id));
        assert.ok(Number(await cardValue(page, 'aggregator-last-id')) >= o.aggregator.last_id);
        assert.equal(await cardValue(page, 'aggregator-collectors'), '1');
        assert.equal(await cardValue(page, 'aggregator-queued'), '0');
        // The rates come from the server's subscription: one CREATE per file.
        await page.locator('[data-testid="rates-row"]').first().waitFor();
        const creates = (await tableRows(page, 'rates-table')).filter((r) => r.key.endsWith(' CREATE'))
          .reduce((sum, r) => sum + Number(r.cells.total.value), 0);
        assert.equal(creates, files.length);
        await page.locator('[data-testid="stream-state"][data-state="live"]').waitFor();
        await screenshot(page, 'overview-aggregator');
      });
      await withPage(server, { route: '/events' }, async (page) => {
        await settled(page, 'events-results');
        const shown = (await tableRows(page, 'events-table')).map((r) => r.cells.path.value);
        for (const file of files) assert.ok(shown.includes(file), `${file} among ${shown}`);
      });
    } finally {
      for (const p of programs.reverse()) await p.stop();
    }
  });
}

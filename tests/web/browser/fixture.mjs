// Real data for the pages: a tree (tree.mjs) scanned into a catalog, watched into an event
// store while it changes and while a policy purges part of it (policies.mjs), rules run on the
// stored events (rules.mjs), the catalog brought up to date from the store, I/O and HDF5
// traces and the storage servers' samples (traces.mjs), and fathom serve on them all with a
// tokens database holding an administrator's token, a read-only token granted `/`, a token of
// user "nobody" granted one directory and one of uid 1000 (whose jobs and traces it sees).
// The watch keeps running, so that the live tail can be tested; the catalog is not followed
// past the fixture, so that it keeps the figures of `entries`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walk } from './expect.mjs';
import { fathom, startProgram, waitFor } from './processes.mjs';
import { runPolicies, writePolicies } from './policies.mjs';
import { runRules, writeRules } from './rules.mjs';
import { makeTraces, userUid } from './traces.mjs';
import { changeTree, grantedDir, makeTree } from './tree.mjs';

export async function startFixture(binary) {
  const dir = mkdtempSync(join(tmpdir(), 'fathom-web-'));
  const tree = join(dir, 'tree');
  const store = join(dir, 'events.db');
  const catalog = join(dir, 'catalog.db');
  const tokens = join(dir, 'tokens.db');
  const ready = join(dir, 'ready.json');
  const policies = join(dir, 'policies.yaml');
  const rules = join(dir, 'rules.yaml');
  const programs = [];
  const stop = async () => {
    for (const p of programs.reverse()) await p.stop();
    if (!process.env.FATHOM_WEB_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Made meanwhile: one of the jobs waits a second.
    const tracing = makeTraces(binary, dir);
    tracing.catch(() => {});
    makeTree(tree);
    await fathom(binary, ['scan', '--catalog', catalog, '-q', tree]);

    const watch = startProgram(binary, ['watch', '-r', tree, '--store', store, '-q']);
    programs.push(watch);
    await watch.waitForStderr('watches established', 20000);
    const last = changeTree(tree);
    // The store's events as its own reader prints them (ts as text: it has more digits than a
    // double holds).
    const storedEvents = async () => (await fathom(binary, ['events', '--store', store, '--format', 'json']))
      .split('\n').filter(Boolean).map((line) => ({ ...JSON.parse(line), ts: line.match(/"ts":(\d+)/)[1] }));
    await waitFor(`the store to hold the change of ${last}`, async () => (await storedEvents()).some((e) => e.path === last));
    writePolicies(policies, tree, join(dir, 'alerts.log'));
    const purged = await runPolicies(binary, policies, catalog, tree);
    await waitFor('the store to hold the purge', async () => {
      const deleted = new Set((await storedEvents()).filter((e) => e.events.includes('DELETE')).map((e) => e.path));
      return purged.every((p) => deleted.has(p));
    });
    writeRules(rules, tree, join(dir, 'rules.db'));
    await runRules(binary, rules, store);
    // The files the rules acted on, one delivery of each rule per CLOSE_WRITE event.
    const closed = (await storedEvents()).filter((e) => e.events.includes('CLOSE_WRITE'));
    await fathom(binary, ['catalog', 'follow', '--catalog', catalog, '--store', store, '--until-idle']);
    // What the catalog holds from now on (the tree changes again, unfollowed, in the tests).
    const entries = walk(tree);

    const traces = await tracing;

    const assets = process.env.FATHOM_WEB_ASSETS ? ['--assets', process.env.FATHOM_WEB_ASSETS] : [];
    const serve = startProgram(binary, ['serve', '--listen', '127.0.0.1:0', '--store', store, '--catalog', catalog,
      '--config', policies, '--rules', rules, '--io', traces.io, '--io-samples', traces.samples, '--h5', traces.h5, '--ready-file', ready, '--tokens', tokens, ...assets]);
    programs.push(serve);
    const started = await serve.waitForFile(ready, 30000);
    // A server given a tokens file makes no start-up token: an administrator's is made there.
    const makeToken = async (user, paths, admin) => (await fathom(binary, ['token', 'create', '--tokens', tokens,
      '--user', user, '--paths', ...paths, ...(admin ? ['--admin'] : [])])).trim();
    const token = started.token ?? await makeToken('root', ['/'], true);
    const restricted = await makeToken('nobody', [join(tree, grantedDir)], false);
    const user = await makeToken(String(userUid), [traces.data], false);
    const viewer = await makeToken('viewer', ['/'], false);
    const { url } = started;
    return { binary, dir, tree, entries, store, url, token, restricted, user, viewer, traces, purged, closed, storedEvents, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

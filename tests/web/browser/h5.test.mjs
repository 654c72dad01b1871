// The HDF5 page: hot functions with their latencies, stragglers, slow processes, bytes per
// dataset and a dataset's lineage, each as fathom h5 report and fathom h5 lineage give them
// over the traces; a token of uid 1000 sees its own process's traces only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { apiClient } from './api-client.mjs';
import { screenshot } from './browser.mjs';
import { h5Lineage, h5Report, latencyHistogram, provUses } from './expect-traces.mjs';
import { cardValue, chartData, settled, tableRows } from './read-page.mjs';
import { go, withPage } from './session.mjs';
import { h5Dataset, h5ReadBytes, h5WrittenBytes } from './traces.mjs';

const durations = ['total_ns', 'p50_ns', 'p90_ns', 'p99_ns', 'max_ns'];

async function functionsShown(page) {
  return (await tableRows(page, 'functions-table')).map((r) => [r.key, ...['count', 'failed', 'share', ...durations].map((k) => Number(r.cells[k].value))]);
}

const functionLines = (report) => report.functions.map((f) => [f.function, f.count, f.failed, f.share, ...durations.map((k) => f[k])]);

async function latencyShown(page) {
  const el = page.locator('[data-testid="chart-latency"]');
  return { function: await el.getAttribute('data-function'), buckets: JSON.parse(await el.getAttribute('data-buckets')), values: (await chartData(page, 'chart-latency')).values };
}

function latencyOf(report, name) {
  const histogram = latencyHistogram(report.functions.find((f) => f.function === name).log2_ns_buckets);
  return { function: name, buckets: histogram.map(([b]) => b), values: histogram.map(([, n]) => n) };
}

async function datasetsShown(page) {
  return (await tableRows(page, 'datasets-table')).map((r) => [r.key, ...['reads', 'read_bytes', 'writes', 'write_bytes', 'switches'].map((k) => Number(r.cells[k].value))]);
}

const datasetLines = (report) => report.datasets.map((d) => [`${d.file}:${d.path}`, d.reads, d.read_bytes, d.writes, d.write_bytes, d.switches]);

async function summaryShown(page) {
  await settled(page, 'h5-summary');
  const out = {};
  for (const [key, testid] of [['processes', 'h5-processes'], ['calls', 'h5-calls'], ['hdf5_ns', 'h5-time'], ['straggler_calls', 'h5-straggler-calls']]) {
    out[key] = Number(await cardValue(page, testid));
  }
  return out;
}

const summaryOf = ({ processes, calls, hdf5_ns: hdf5Ns, straggler_calls: stragglers }) => ({ processes, calls, hdf5_ns: hdf5Ns, straggler_calls: stragglers });

export function h5Tests(ctx) {
  it('hdf5: hot functions, latencies, datasets and a dataset\'s lineage', async () => {
    const { binary, traces } = ctx.fixture;
    const report = await h5Report(binary, traces.h5);
    const known = `${traces.h5Files.h5job}:${h5Dataset}`;
    await withPage(ctx, { route: '/h5' }, async (page) => {
      assert.deepEqual(await summaryShown(page), summaryOf(report));
      assert.equal(report.processes, 2);
      await settled(page, 'h5-functions', 'functions-table');
      assert.deepEqual(await functionsShown(page), functionLines(report));
      assert.deepEqual(await latencyShown(page), latencyOf(report, report.functions[0].function));
      await page.click('[data-testid="function-row"][data-key="H5Dwrite"]');
      await page.locator('[data-testid="chart-latency"][data-function="H5Dwrite"]').waitFor();
      assert.deepEqual(await latencyShown(page), latencyOf(report, 'H5Dwrite'));
      assert.match(await page.evaluate(() => location.hash), /function=H5Dwrite/);

      await settled(page, 'h5-stragglers', 'stragglers-table');
      assert.equal(await page.getAttribute('[data-testid="stragglers-count"]', 'data-value'), String(report.straggler_calls));
      assert.deepEqual((await tableRows(page, 'stragglers-table')).map((r) => [r.cells.function.value, Number(r.cells.duration_ns.value)]),
        report.stragglers.map((s) => [s.function, s.duration_ns]));
      assert.deepEqual((await tableRows(page, 'slow-ranks-table')).map((r) => Number(r.cells.pid.value)), report.slow_ranks.map((s) => s.pid));

      // known_ops wrote a 2x3 hyperslab of ints and read the 6x8 dataset back, in each file.
      assert.deepEqual(await datasetsShown(page), datasetLines(report));
      assert.deepEqual(new Set(report.datasets.map((d) => [d.path, d.read_bytes, d.write_bytes].join())), new Set([[h5Dataset, h5ReadBytes, h5WrittenBytes].join()]));
      assert.deepEqual((await chartData(page, 'chart-datasets')).values, report.datasets.map((d) => d.read_bytes + d.write_bytes));

      const prov = await h5Lineage(binary, traces.h5, known);
      await page.click(`[data-testid="dataset-row"][data-key="${known}"]`);
      await page.locator('[data-testid="lineage-dataset"]').waitFor();
      await settled(page, 'h5-lineage', 'lineage-uses');
      assert.equal(await page.getAttribute('[data-testid="lineage-dataset"]', 'data-value'), known);
      const uses = await tableRows(page, 'lineage-uses');
      assert.deepEqual(uses.map((r) => [r.cells.relation.value, r.cells.dataset.value, r.cells.job.value, r.cells.host.value, Number(r.cells.pid.value), r.cells.time.value]),
        provUses(prov));
      assert.deepEqual(uses.map((r) => [r.cells.relation.value, r.cells.job.value, r.cells.uid.value]), [['generated', 'h5job', '0'], ['used', 'h5job', '0']]);
      const processes = await tableRows(page, 'lineage-processes');
      assert.deepEqual(processes.map((p) => p.key), Object.keys(prov.activity));
      const [activity] = Object.values(prov.activity);
      assert.deepEqual(['pid', 'start', 'end', 'command'].map((k) => processes[0].cells[k].value),
        [String(activity['fathom:pid']), activity['prov:startTime'], activity['prov:endTime'], activity['fathom:command']]);
      assert.deepEqual((await tableRows(page, 'lineage-datasets')).map((d) => d.cells.label.value), [known]);
      assert.deepEqual((await tableRows(page, 'lineage-files')).map((f) => f.cells.path.value), [traces.h5Files.h5job]);
      assert.deepEqual(await tableRows(page, 'lineage-derived'), []);
      assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), new RegExp(`dataset=${known}`));
      await screenshot(page, 'h5');
    });
  });

  it('hdf5: a token of uid 1000 sees its own traces only', async () => {
    const { binary, traces } = ctx.fixture;
    const report = await h5Report(binary, join(traces.h5, 'h5user'));
    const foreign = `${traces.h5Files.h5job}:${h5Dataset}`;
    const refusal = await apiClient(ctx.fixture.url, ctx.fixture.user)('h5/lineage', { dataset: foreign }).catch((e) => e);
    assert.equal(refusal.status, 404);
    await withPage(ctx, { token: ctx.fixture.user, route: '/h5', allow: ['404'] }, async (page) => {
      assert.deepEqual(await summaryShown(page), summaryOf(report));
      assert.equal(report.processes, 1);
      await settled(page, 'h5-functions', 'functions-table');
      assert.deepEqual(await functionsShown(page), functionLines(report));
      assert.deepEqual(await datasetsShown(page), datasetLines(report));
      assert.deepEqual((await datasetsShown(page)).map(([key]) => key), [`${traces.h5Files.h5user}:${h5Dataset}`]);
      await screenshot(page, 'h5-user');

      await go(page, `/h5?dataset=${encodeURIComponent(foreign)}`);
      await page.locator('[data-testid="notice"]:not([hidden])').waitFor();
      assert.equal(await page.textContent('[data-testid="notice"] span'), refusal.message);
      await settled(page, 'h5-lineage', 'unavailable');
    });
  });
}

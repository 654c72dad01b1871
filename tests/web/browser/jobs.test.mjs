// The jobs pages: the list of the I/O traces' jobs page by page, the storage targets in
// trouble, and a job's page (figures, layers, seconds by layer, phases, access sizes,
// processes, findings), each figure what fathom io report and fathom io anomalies give; a
// token of uid 1000 sees its own job only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { apiClient } from './api-client.mjs';
import { screenshot } from './browser.mjs';
import { anomalies, jobLine, jobReport, timelines } from './expect-traces.mjs';
import { cardValue, chartData, settled, tableRows } from './read-page.mjs';
import { go, withPage } from './session.mjs';
import { brokenJob, bytesPerInterval, ddBlocks, ddBlockSize, samplesIntervals, slowTarget, userUid } from './traces.mjs';

const uids = { rootjob: 0, userjob: userUid, mixjob: 0 };

// Darshan's access-size buckets, smallest first (docs/io.md).
const darshanBuckets = ['0_100', '100_1K', '1K_10K', '10K_100K', '100K_1M', '1M_4M', '4M_10M', '10M_100M', '100M_1G', '1G_PLUS'];

async function reports(ctx) {
  const { binary, traces } = ctx.fixture;
  return Object.fromEntries(await Promise.all(Object.keys(uids).map(async (job) => [job, await jobReport(binary, traces.io, job)])));
}

// A job's line as the table shows it, in the fields of jobLine.
function shownLine(row) {
  const c = row.cells;
  const n = (key) => Number(c[key].value);
  return { job: row.key, uid: n('uid'), hosts: JSON.parse(c.hosts.value), processes: n('processes'), first_ns: n('first_ns'),
    read_bytes: n('read_bytes'), write_bytes: n('write_bytes'), meta_ops: n('meta_ops'), mode: c.mode.value, findings: n('findings') };
}

async function anomaliesShown(page) {
  await settled(page, 'anomalies', 'anomalies-table');
  return (await tableRows(page, 'anomalies-table')).map((r) => Object.fromEntries(Object.entries(r.cells)
    .map(([k, v]) => [k, ['target', 'job', 'rule', 'duration'].includes(k) ? v.value : Number(v.value)])));
}

const anomalyFields = ({ target, job, rule, bytes, avg_bw, peak_bw, peers_mean_peak_bw, usecs_per_mib, peers_median_usecs_per_mib, z, peers, duration, first_ns, last_ns }) =>
  ({ target, job, rule, bytes, avg_bw, peak_bw, peers_mean_peak_bw, usecs_per_mib, peers_median_usecs_per_mib, z, peers, duration, first_ns, last_ns });

async function openJob(page, job) {
  await go(page, `/jobs/job?job=${encodeURIComponent(job)}`);
  await settled(page, 'job-summary');
}

export function jobsTests(ctx) {
  it('jobs: every job page by page, and the storage targets in trouble', async () => {
    const byJob = await reports(ctx);
    const expected = Object.values(byJob).sort((a, b) => b.last_ns - a.last_ns).map((r) => jobLine(r, uids[r.job]));
    await withPage(ctx, { route: '/jobs?limit=2' }, async (page) => {
      await settled(page, 'jobs', 'jobs-table');
      assert.equal((await tableRows(page, 'jobs-table')).length, 2);
      await page.click('[data-testid="jobs-more"]');
      await page.locator('[data-testid="jobs-more"]').waitFor({ state: 'hidden' });
      const rows = await tableRows(page, 'jobs-table');
      // The job whose traces cannot be read comes last, with why.
      assert.deepEqual(rows.map((r) => r.key), [...expected.map((j) => j.job), brokenJob]);
      assert.deepEqual(rows.slice(0, -1).map(shownLine), expected);
      const root = rows.find((r) => r.key === 'rootjob');
      assert.deepEqual([Number(root.cells.write_bytes.value), Number(root.cells.read_bytes.value)], [ddBlocks * ddBlockSize, 0]);
      assert.match(rows[rows.length - 1].cells.job.text, new RegExp(`${join(ctx.fixture.traces.io, brokenJob)}/\\S+ is not a fathom I/O trace`));
      assert.equal(await page.locator(`[data-testid="job-link"][data-job="${brokenJob}"]`).count(), 0);

      const flagged = (await anomalies(ctx.fixture.binary, ctx.fixture.traces.samples)).map(anomalyFields);
      assert.deepEqual(flagged.map((a) => [a.target, a.job, a.bytes, a.usecs_per_mib]),
        ['rootjob', 'userjob'].map((job) => [slowTarget, job, samplesIntervals * bytesPerInterval, 1e6]));
      assert.deepEqual(await anomaliesShown(page), flagged);
      await page.click('[data-testid="anomalies-window-1h"]');
      await page.locator('[data-testid="anomalies"][data-window="1h"]').waitFor();
      assert.deepEqual(await anomaliesShown(page), flagged);
      await screenshot(page, 'jobs');
    });
  });

  it('jobs: a job\'s page shows its report', async () => {
    const byJob = await reports(ctx);
    await withPage(ctx, { route: '/jobs' }, async (page) => {
      await settled(page, 'jobs', 'jobs-table');
      await page.click('[data-testid="job-link"][data-job="mixjob"]');
      await page.locator('[data-testid="job-name"]:text-is("mixjob")').waitFor();
      await settled(page, 'job-summary');
      const r = byJob.mixjob;
      const line = jobLine(r, 0);
      for (const [testid, value] of [['job-processes', line.processes], ['job-read-bytes', line.read_bytes], ['job-write-bytes', line.write_bytes],
        ['job-meta-ops', line.meta_ops], ['job-findings', line.findings], ['job-mode', r.mode], ['job-peak-bandwidth', r.peak_bandwidth],
        ['job-mean-bandwidth', r.mean_bandwidth], ['job-mean-iops', r.mean_iops]]) {
        assert.equal(await cardValue(page, testid), String(value), testid);
      }
      const layers = await tableRows(page, 'layers-table');
      assert.deepEqual(layers.map((l) => [l.key, ...['read_bytes', 'write_bytes', 'read_ops', 'write_ops', 'meta_ops', 'other_ops'].map((k) => Number(l.cells[k].value))]),
        ['posix', 'stdio', 'mpiio'].map((k) => [k, r[k].read_bytes, r[k].write_bytes, r[k].read_ops, r[k].write_ops, r[k].meta_ops, r[k].other_ops]));
      // 200 writes of 100 bytes, read back the next second: small, unaligned, read after write.
      assert.deepEqual((await tableRows(page, 'findings-table')).map((f) => [f.key, f.cells.text.value]), r.findings.map((f) => [f.kind, f.text]));
      assert.deepEqual(r.findings.map((f) => f.kind).sort(), ['read-after-write', 'small-io', 'unaligned-io']);

      const lines = timelines(r.series);
      assert.ok(lines['chart-bandwidth'].x.length >= 2, 'the job spans two seconds');
      assert.deepEqual(lines['chart-iops'].series.map((s) => s.label), ['POSIX data ops', 'STDIO data ops']);
      for (const [testid, want] of Object.entries(lines)) {
        assert.deepEqual(JSON.parse(await page.getAttribute(`[data-testid="${testid}"]`, 'data-series')), want, testid);
      }
      const phases = await tableRows(page, 'phases-table');
      assert.deepEqual(phases.map((p) => [Number(p.key), Number(p.cells.seconds.value), Number(p.cells.read_bytes.value), Number(p.cells.write_bytes.value),
        Number(p.cells.data_ops.value), Number(p.cells.meta_ops.value), p.cells.read_mode.value, p.cells.write_mode.value]),
      r.phases.map((p) => [p.first_second, p.last_second - p.first_second + 1, p.read_bytes, p.write_bytes, p.data_ops, p.meta_ops, p.read_mode.mode, p.write_mode.mode]));

      const sizes = await tableRows(page, 'sizes-table');
      const buckets = sizes.map((s) => s.key);
      assert.deepEqual(buckets, darshanBuckets);
      assert.deepEqual(sizes.map((s) => [Number(s.cells.reads.value), Number(s.cells.writes.value)]), buckets.map((b) => [r.read_sizes[b], r.write_sizes[b]]));
      assert.deepEqual(await chartData(page, 'chart-read-sizes'), { labels: buckets, values: buckets.map((b) => r.read_sizes[b]) });
      assert.deepEqual(await chartData(page, 'chart-write-sizes'), { labels: buckets, values: buckets.map((b) => r.write_sizes[b]) });
      assert.equal(r.write_sizes['0_100'], 200);

      const processes = await tableRows(page, 'processes-table');
      assert.deepEqual(processes.map((p) => [p.cells.pid.value, p.cells.exe.value, p.cells.read_bytes.value, p.cells.write_bytes.value, p.cells.data_ops.value, p.cells.io_ns.value].map(String)),
        r.per_process.map((p) => [p.pid, p.exe, p.read_bytes, p.write_bytes, p.data_ops, p.io_ns].map(String)));
      await screenshot(page, 'job');

      // dd's 256 writes of 4 KiB, in one second.
      await openJob(page, 'rootjob');
      const bytes = ddBlocks * ddBlockSize;
      assert.equal(await cardValue(page, 'job-write-bytes'), String(bytes));
      const bandwidth = JSON.parse(await page.getAttribute('[data-testid="chart-bandwidth"]', 'data-series'));
      assert.deepEqual(bandwidth, timelines(byJob.rootjob.series)['chart-bandwidth']);
      assert.deepEqual(bandwidth.series.find((s) => s.label === 'POSIX write').values.reduce((a, b) => a + b, 0), bytes);
      assert.equal((await tableRows(page, 'sizes-table')).find((s) => s.key === '1K_10K').cells.writes.value, String(ddBlocks));
      assert.equal((await tableRows(page, 'phases-table'))[0].cells.write_mode.value, '1-1');
    });
  });

  it('jobs: a token of uid 1000 sees its own job only', async () => {
    const asUser = apiClient(ctx.fixture.url, ctx.fixture.user);
    const refusal = await asUser('jobs/rootjob').catch((e) => e);
    assert.equal(refusal.status, 404);
    const userjob = jobLine(await jobReport(ctx.fixture.binary, ctx.fixture.traces.io, 'userjob'), userUid);
    await withPage(ctx, { token: ctx.fixture.user, route: '/jobs', allow: ['404'] }, async (page) => {
      assert.equal(await page.textContent('[data-testid="whoami-user"]'), String(userUid));
      await settled(page, 'jobs', 'jobs-table');
      assert.deepEqual((await tableRows(page, 'jobs-table')).map(shownLine), [userjob]);
      assert.deepEqual((await anomaliesShown(page)).map((a) => [a.target, a.job]), [[slowTarget, 'userjob']]);
      await screenshot(page, 'jobs-user');

      await openJob(page, 'userjob');
      assert.equal(await cardValue(page, 'job-write-bytes'), String(ddBlocks * ddBlockSize));
      await go(page, '/jobs/job?job=rootjob');
      await page.locator('[data-testid="notice"]:not([hidden])').waitFor();
      assert.equal(await page.textContent('[data-testid="notice"] span'), refusal.message);
      await settled(page, 'job-summary', 'unavailable');
    });
  });
}

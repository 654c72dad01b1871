// The traces the jobs and HDF5 pages are tested on: I/O jobs run under fathom io run (one as
// uid 1000) and a job whose trace is damaged, HDF5 traces of known_ops (one as uid 1000), and
// the storage servers' samples of four OSTs, one of them slow, taken by fathom io servers from
// an lctl that stands for them.
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fathom, runProgram } from './processes.mjs';

export const userUid = 1000;

// dd's writes: 256 blocks of 4 KiB.
export const ddBlocks = 256;
export const ddBlockSize = 4096;

// [job, uid, command]; mixjob writes 200 small blocks, waits for the next second, reads them
// back and writes lines through stdio (awk).
const jobs = (data) => [
  ['rootjob', 0, ['dd', 'if=/dev/zero', `of=${join(data, 'root.bin')}`, `bs=${ddBlockSize}`, `count=${ddBlocks}`, 'status=none']],
  ['userjob', userUid, ['dd', 'if=/dev/zero', `of=${join(data, 'user.bin')}`, `bs=${ddBlockSize}`, `count=${ddBlocks}`, 'status=none']],
  ['mixjob', 0, ['sh', '-c', `dd if=/dev/zero of=${data}/mix.bin bs=100 count=200 status=none; sleep 1; `
    + `dd if=${data}/mix.bin of=/dev/null bs=100 status=none; awk 'BEGIN { for (i = 0; i < 500; i++) print i }' > ${data}/mix.txt`]],
];

// A job whose only trace is not one.
export const brokenJob = 'broken';

// [job, uid, file]: known_ops writes a 2x3 hyperslab of ints into /grp/data (6x8) and reads it
// all back.
const h5Jobs = (data) => [['h5job', 0, join(data, 'known.h5')], ['h5user', userUid, join(data, 'user.h5')]];
export const h5Dataset = '/grp/data';
export const h5WrittenBytes = 2 * 3 * 4;
export const h5ReadBytes = 6 * 8 * 4;

// Runs [program, args...] as root or as uid.
function runAs(uid, command) {
  const [program, ...args] = uid ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...command] : command;
  return runProgram(program, args);
}

// An lctl printing the job_stats of OSTs 0 to 3 for rootjob and userjob, each grown by 4 MiB
// written per call; OST 3 takes 1 s per MiB, the others about 1 ms.
export const slowTarget = 'tfs-OST0003';
export const samplesIntervals = 3;
export const bytesPerInterval = 4 * 1024 * 1024;
function fakeLctl(dir) {
  const script = join(dir, 'lctl');
  writeFileSync(script, `#!/bin/sh
n=$(cat ${dir}/calls 2>/dev/null || echo 0); n=$((n + 1)); echo $n > ${dir}/calls
for ost in 0 1 2 3; do
  if [ $ost = 3 ]; then us=4000000; else us=$((4000 + ost * 400)); fi
  printf 'obdfilter.tfs-OST000%s.job_stats=\\njob_stats:\\n' $ost
  for job in rootjob userjob; do
    printf -- '- job_id:          %s\\n  snapshot_time:   100.000000000 secs.nsecs\\n  start_time:      50.000000000 secs.nsecs\\n' $job
    printf '  write_bytes:     { samples: %s, unit: bytes, min: 1048576, max: 1048576, sum: %s, sumsq: 1 }\\n' $((n * 4)) $((n * ${bytesPerInterval}))
    printf '  write:           { samples: %s, unit: usecs, min: 1, max: 1, sum: %s, sumsq: 1 }\\n' $((n * 4)) $((n * us))
  done
done
`, { mode: 0o755 });
  return script;
}

// Makes data/, io/ and h5/ under dir, open to uid 1000 (dir itself only to cross), and
// samples.db.
export async function makeTraces(binary, dir) {
  const data = join(dir, 'data');
  const io = join(dir, 'io');
  const h5 = join(dir, 'h5');
  for (const d of [data, io, h5]) {
    mkdirSync(d);
    chmodSync(d, 0o777);
  }
  chmodSync(dir, 0o711);
  for (const [job, uid, command] of jobs(data)) await runAs(uid, [binary, 'io', 'run', '--job', job, '--out', io, '--', ...command]);
  mkdirSync(join(io, brokenJob));
  writeFileSync(join(io, brokenJob, 'host.1.1.fio'), 'not a trace\n');
  const knownOps = join(dirname(binary), 'tests', 'h5-workloads', 'known_ops');
  for (const [job, uid, file] of h5Jobs(data)) await runAs(uid, [binary, 'h5', 'run', '--job', job, '--out', h5, '--', knownOps, file]);
  const samples = join(dir, 'samples.db');
  const lctl = join(dir, 'lctl.d');
  mkdirSync(lctl);
  await fathom(binary, ['io', 'servers', '--lctl', fakeLctl(lctl), '--param', 'obdfilter.*.job_stats', '--interval', '100ms',
    '--count', String(samplesIntervals), '--diskstats', '', '--mountstats', '', '--out', samples]);
  const h5Files = Object.fromEntries(h5Jobs(data).map(([job, , file]) => [job, realpathSync(file)]));
  return { data, io, h5, samples, h5Files };
}

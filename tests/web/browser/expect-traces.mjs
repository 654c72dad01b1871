// What the jobs and HDF5 pages must show, from fathom's own commands on the traces
// (fathom io report --json, fathom io anomalies --json, fathom h5 report --json, fathom h5
// lineage --prov-json), not from the server's answers.
import { join } from 'node:path';
import { fathom } from './processes.mjs';

export async function jobReport(binary, io, job) {
  return JSON.parse(await fathom(binary, ['io', 'report', '--json', join(io, job)]));
}

// A job's line of the list: bytes are POSIX's and STDIO's.
export function jobLine(report, uid) {
  return {
    job: report.job,
    uid,
    hosts: report.hosts,
    processes: report.processes,
    first_ns: report.first_ns,
    read_bytes: report.posix.read_bytes + report.stdio.read_bytes,
    write_bytes: report.posix.write_bytes + report.stdio.write_bytes,
    meta_ops: report.meta_ops,
    mode: report.mode,
    findings: report.findings.length,
  };
}

const layerLabels = { posix: 'POSIX', stdio: 'STDIO', mpiio: 'MPI-IO' };

// The lines of the three charts of a job's seconds: for each layer seen in a second, bytes read
// and written, data operations and metadata operations per second (0 where the layer was idle).
export function timelines(series) {
  const seen = Object.keys(layerLabels).filter((l) => series.some((s) => l in s.layers));
  const x = series.map((s) => s.second);
  const line = (layer, key, what) => ({ label: `${layerLabels[layer]} ${what}`, values: series.map((s) => (s.layers[layer] ? s.layers[layer][key] : 0)) });
  return {
    'chart-bandwidth': { x, series: seen.flatMap((l) => [line(l, 'read_bytes', 'read'), line(l, 'write_bytes', 'write')]) },
    'chart-iops': { x, series: seen.map((l) => line(l, 'data_ops', 'data ops')) },
    'chart-meta': { x, series: seen.map((l) => line(l, 'meta_ops', 'metadata ops')) },
  };
}

export async function anomalies(binary, samples) {
  return JSON.parse(await fathom(binary, ['io', 'anomalies', '--samples', samples, '--json']));
}

export async function h5Report(binary, dir) {
  return JSON.parse(await fathom(binary, ['h5', 'report', '--json', dir]));
}

export async function h5Lineage(binary, dir, dataset) {
  return JSON.parse(await fathom(binary, ['h5', 'lineage', '--prov-json', '--dataset', dataset, dir]));
}

// Every log2 bucket from the fastest call's to the slowest's: [bucket, calls].
export function latencyHistogram(log2) {
  const bs = Object.keys(log2).map(Number).sort((a, b) => a - b);
  const out = [];
  for (let b = bs[0]; b <= bs[bs.length - 1]; b += 1) out.push([b, log2[b] ?? 0]);
  return out;
}

// The generated and used relations of a PROV-JSON document as [relation, dataset label, job,
// host, pid, time], the process read from its id (fathom:process/JOB/HOST/PID).
export function provUses(prov) {
  const rows = [];
  for (const [kind, relation] of [['wasGeneratedBy', 'generated'], ['used', 'used']]) {
    for (const r of Object.values(prov[kind] ?? {})) {
      const [, job, host, pid] = r['prov:activity'].split('/');
      rows.push([relation, prov.entity[r['prov:entity']]['prov:label'], job, host, Number(pid), r['prov:time']]);
    }
  }
  return rows.sort((a, b) => a[5].localeCompare(b[5]));
}

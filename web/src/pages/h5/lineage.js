// A dataset's lineage (GET /api/v1/h5/lineage?dataset=FILE:/path): the datasets and files it
// involves, the processes that used them (job, host, pid, user, times), what each generated
// and used, and the datasets derived from others.
import { api } from '../../api.js';
import { h } from '../../dom.js';
import { fill } from '../../section.js';
import { dataTable } from '../../table.js';
import { readProv } from './prov.js';

const uid = (u) => (u === null || u === undefined ? '—' : `uid ${u}`);
const text = (key, label) => ({ key, label, value: (r) => r[key] });

function lists(answer) {
  const { processes, datasets, files, uses, derived } = readProv(answer.prov);
  const section = (title, table) => h('div', { class: 'lineage-part' }, h('h3', {}, title), h('div', { class: 'scroll' }, table));
  return [
    h('p', { class: 'muted', testid: 'lineage-dataset', dataset: { value: answer.dataset } }, 'Lineage of ', h('code', {}, answer.dataset), '.'),
    section('Generated and used', dataTable({
      testid: 'lineage-uses', rowTestid: 'lineage-use', rowKey: (r) => r.id, rows: uses, empty: 'nothing',
      columns: [text('relation', 'relation'), text('dataset', 'dataset'), text('job', 'job'), text('host', 'host'),
        { key: 'pid', label: 'pid', value: (r) => r.pid, num: true }, { key: 'uid', label: 'user', value: (r) => r.uid, format: uid }, text('time', 'first (UTC)')],
    })),
    section('Derived datasets', dataTable({
      testid: 'lineage-derived', rowTestid: 'lineage-derivation', rowKey: (r) => r.id, rows: derived, empty: 'derived from no other dataset, and into none',
      columns: [text('dataset', 'dataset'), text('from', 'derived from'), text('job', 'by job'), text('host', 'host'), { key: 'pid', label: 'pid', value: (r) => r.pid, num: true }],
    })),
    section('Processes', dataTable({
      testid: 'lineage-processes', rowTestid: 'lineage-process', rowKey: (r) => r.id, rows: processes,
      columns: [text('job', 'job'), text('host', 'host'), { key: 'pid', label: 'pid', value: (r) => r.pid, num: true },
        { key: 'rank', label: 'rank', value: (r) => r.rank, format: (r) => (r < 0 ? '—' : String(r)), num: true },
        { key: 'uid', label: 'user', value: (r) => r.uid, format: uid }, text('start', 'start (UTC)'), text('end', 'end (UTC)'), text('command', 'command')],
    })),
    section('Datasets', dataTable({
      testid: 'lineage-datasets', rowTestid: 'lineage-entity', rowKey: (r) => r.id, rows: datasets,
      columns: [text('label', 'dataset'), { key: 'address', label: 'header address', value: (r) => r.address, num: true }],
    })),
    section('Files', dataTable({
      testid: 'lineage-files', rowTestid: 'lineage-file', rowKey: (r) => r.id, rows: files,
      columns: [text('path', 'file'), { key: 'dev', label: 'device', value: (r) => r.dev, num: true }, { key: 'ino', label: 'inode', value: (r) => r.ino, num: true }],
    })),
  ];
}

export function showLineage(body, dataset) {
  fill(body, () => api('h5/lineage', { params: { dataset } }), lists);
}

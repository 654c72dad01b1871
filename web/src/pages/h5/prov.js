// A PROV-JSON document of fathom h5 lineage read as lists: its datasets and files, its
// processes with their job and user, what each process generated and used, and the datasets
// derived from others.

const entries = (map) => Object.entries(map ?? {});

// The agents of each process: {job, uid}.
function agentsOf(prov) {
  const out = new Map();
  for (const [, r] of entries(prov.wasAssociatedWith)) {
    const agent = prov.agent?.[r['prov:agent']] ?? {};
    const a = out.get(r['prov:activity']) ?? {};
    if ('fathom:job' in agent) a.job = agent['fathom:job'];
    if ('fathom:uid' in agent) a.uid = agent['fathom:uid'];
    out.set(r['prov:activity'], a);
  }
  return out;
}

export function readProv(prov) {
  const agents = agentsOf(prov);
  const processes = entries(prov.activity).map(([id, a]) => ({
    id,
    job: agents.get(id)?.job ?? null,
    uid: agents.get(id)?.uid ?? null,
    host: a['fathom:host'],
    pid: a['fathom:pid'],
    rank: a['fathom:rank'],
    start: a['prov:startTime'],
    end: a['prov:endTime'],
    command: a['fathom:command'],
  }));
  const byId = new Map(processes.map((p) => [p.id, p]));
  const entity = (id) => prov.entity?.[id] ?? {};
  const label = (id) => entity(id)['prov:label'] ?? entity(id)['fathom:path'] ?? id;
  const datasets = entries(prov.entity).filter(([, e]) => e['prov:type'] === 'fathom:dataset')
    .map(([id, e]) => ({ id, label: e['prov:label'], file: e['fathom:file'], path: e['fathom:path'], address: e['fathom:address'] }));
  const files = entries(prov.entity).filter(([, e]) => e['prov:type'] === 'fathom:file')
    .map(([id, e]) => ({ id, path: e['fathom:path'], dev: e['fathom:dev'], ino: e['fathom:ino'] }));
  const relation = (name, kind) => entries(prov[kind]).map(([id, r]) => {
    const p = byId.get(r['prov:activity']) ?? {};
    return { id, relation: name, dataset: label(r['prov:entity']), process: r['prov:activity'], job: p.job, host: p.host, pid: p.pid, uid: p.uid, time: r['prov:time'] };
  });
  const uses = [...relation('generated', 'wasGeneratedBy'), ...relation('used', 'used')]
    .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''));
  const derived = entries(prov.wasDerivedFrom).map(([id, r]) => {
    const p = byId.get(r['prov:activity']) ?? {};
    return { id, dataset: label(r['prov:generatedEntity']), from: label(r['prov:usedEntity']), process: r['prov:activity'], job: p.job, host: p.host, pid: p.pid };
  });
  return { processes, datasets, files, uses, derived };
}

// A dry run of a policy (GET /api/v1/policies/{name}/preview): what a run would do, in its
// order, the entries it would leave and why, and the catalog's counts per rule. Nothing is
// changed.
import { api } from '../../api.js';
import { card, cardRow } from '../../cards.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount } from '../../format.js';
import { fill } from '../../section.js';
import { dataTable } from '../../table.js';

const count = (key, label) => ({ key, label, value: (r) => r[key], format: formatCount, num: true });

function render(p) {
  const t = p.totals;
  return [
    h('p', { class: 'muted', testid: 'preview-of', dataset: { policy: p.policy, truncated: p.truncated } },
      `What a run of ${p.policy}${p.target ? ` on ${p.target}` : ''} would do now`, p.truncated ? ' (the first actions only)' : '', '.'),
    cardRow(
      card('selected', t.selected, { format: formatCount, testid: 'preview-selected' }),
      card('out of scope', t.out_of_scope, { format: formatCount, testid: 'preview-out-of-scope' }),
      card('ignored', t.ignored, { format: formatCount, testid: 'preview-ignored' }),
      card('no rule', t.no_rule, { format: formatCount, testid: 'preview-no-rule' })),
    h('h3', {}, 'per rule'),
    dataTable({
      testid: 'preview-rules', rowTestid: 'preview-rule', rowKey: (r) => r.rule, rows: t.rules,
      columns: [{ key: 'rule', label: 'rule', value: (r) => r.rule }, count('act', 'acts on'),
        { key: 'volume', label: 'volume', value: (r) => r.volume, format: formatBytes, num: true }, count('condition_false', 'condition false')],
    }),
    h('h3', {}, 'actions'),
    h('div', { class: 'scroll' }, dataTable({
      testid: 'preview-actions', rowTestid: 'preview-action', rowKey: (a) => a.path, rows: p.actions, empty: 'nothing to do',
      columns: [{ key: 'path', label: 'path', value: (a) => a.path }, { key: 'rule', label: 'rule', value: (a) => a.rule },
        { key: 'action', label: 'action', value: (a) => a.action }, { key: 'destination', label: 'destination', value: (a) => a.destination },
        { key: 'size', label: 'size', value: (a) => a.size, format: formatBytes, num: true },
        { key: 'uid', label: 'uid', value: (a) => a.uid, num: true }, { key: 'gid', label: 'gid', value: (a) => a.gid, num: true }],
    })),
    h('h3', {}, 'left alone'),
    dataTable({
      testid: 'preview-skipped', rowTestid: 'preview-skip', rowKey: (s) => s.path, rows: p.skipped, empty: 'nothing',
      columns: [{ key: 'path', label: 'path', value: (s) => s.path }, { key: 'why', label: 'why', value: (s) => s.why }],
    }),
  ];
}

export function showPreview(body, policy) {
  fill(body, () => api(`policies/${encodeURIComponent(policy)}/preview`), render);
}

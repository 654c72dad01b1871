// The rules of the rules file (and those only the outbox still knows), each with its
// deliveries counted by state, its newest outcome and whether it is held.
import { h } from '../../dom.js';
import { formatCount } from '../../format.js';
import { routeHref } from '../../router.js';
import { dataTable } from '../../table.js';

const deliveryStates = ['pending', 'running', 'waiting', 'succeeded', 'dead', 'retried'];

const held = (r) => [r.paused && `paused since ${r.paused.since}: ${r.paused.reason}`, r.webhook_disabled && `webhook disabled since ${r.webhook_disabled.since}: ${r.webhook_disabled.reason}`]
  .filter(Boolean).join('; ');

export function rulesTable(rules, chosen) {
  const table = dataTable({
    testid: 'rules-table',
    rowTestid: 'rule-row',
    rowKey: (r) => r.name,
    rows: rules,
    empty: 'no rule',
    columns: [
      { key: 'name', label: 'rule', value: (r) => r.name, render: (r) => h('a', { href: routeHref('/rules', { rule: r.name }), testid: 'rule-link', dataset: { rule: r.name } }, r.name) },
      { key: 'defined', label: 'in the file', value: (r) => r.defined, format: (d) => (d ? 'yes' : 'no longer') },
      { key: 'kinds', label: 'kinds', value: (r) => r.kinds, format: (k) => k.join(' ') || 'any' },
      { key: 'paths', label: 'paths', value: (r) => r.paths, format: (p) => p.join(' ') },
      { key: 'condition', label: 'condition', value: (r) => r.condition, format: (c) => h('code', {}, c) },
      { key: 'action', label: 'action', value: (r) => r.action },
      { key: 'max_attempts', label: 'attempts', value: (r) => r.max_attempts, num: true },
      ...deliveryStates.map((s) => ({ key: s, label: s, value: (r) => r.counts[s], format: formatCount, num: true })),
      { key: 'last_event', label: 'last event', value: (r) => r.last_event, num: true },
      { key: 'last_result', label: 'last result', value: (r) => r.last_result },
      { key: 'held', label: 'held', value: held, format: (text) => text || '' },
    ],
  });
  table.querySelector(`tr[data-key="${CSS.escape(chosen ?? '')}"]`)?.classList.add('selected');
  return table;
}

// A policy's definition: its scope, what it ignores, its order, limits and triggers, and its
// rules with their fileclasses, conditions and actions.
import { h } from '../../dom.js';
import { dataTable } from '../../table.js';
import { describeAction, describeLimits, describeTrigger } from './describe.js';

const item = (term, value, testid) => [h('dt', {}, term), h('dd', { testid }, value)];

export function definitionView(p) {
  return [
    h('dl', { class: 'definition', testid: 'policy-definition' },
      item('default action', describeAction(p.default_action), 'policy-default-action'),
      item('scope', p.scope ?? 'everything', 'policy-scope'),
      item('ignores', [...p.ignore, ...p.ignore_fileclasses.map((c) => `fileclass ${c}`)].join('; ') || 'nothing', 'policy-ignore'),
      item('order', p.sort, 'policy-sort'),
      item('limits', describeLimits(p.limits), 'policy-limits'),
      item('triggers', p.triggers.map(describeTrigger).join('; ') || 'none: run by hand', 'policy-triggers')),
    dataTable({
      testid: 'policy-rules',
      rowTestid: 'policy-rule',
      rowKey: (r) => r.name,
      rows: p.rules,
      columns: [
        { key: 'name', label: 'rule', value: (r) => r.name },
        { key: 'target_fileclasses', label: 'fileclasses', value: (r) => r.target_fileclasses, format: (c) => c.join(' ') || 'any' },
        { key: 'condition', label: 'condition', value: (r) => r.condition, format: (c) => h('code', {}, c) },
        { key: 'action', label: 'action', value: (r) => r.action, format: describeAction },
      ],
    }),
  ];
}

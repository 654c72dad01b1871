// The policies of the file, each with its triggers, last run and next run, a link to its
// details and a button previewing what a run would do.
import { h } from '../../dom.js';
import { formatIso } from '../../format.js';
import { routeHref } from '../../router.js';
import { dataTable } from '../../table.js';
import { describeAction, describeTrigger } from './describe.js';
import { runColumns } from './runs.js';

// The last run's state, start, actions, failures and volume.
const lastRun = runColumns.filter((c) => c.key !== 'finished' && c.key !== 'skipped')
  .map((c) => ({ ...c, key: `last_${c.key}`, label: c.key === 'state' ? 'last run' : c.label, value: (p) => (p.last_run ? c.value(p.last_run) : undefined) }));

export function policiesTable(policies, onPreview) {
  return dataTable({
    testid: 'policies-table',
    rowTestid: 'policy-row',
    rowKey: (p) => p.name,
    rows: policies,
    empty: 'no policy in the file',
    columns: [
      { key: 'name', label: 'policy', value: (p) => p.name, render: (p) => h('a', { href: routeHref('/policies', { policy: p.name }), testid: 'policy-link', dataset: { policy: p.name } }, p.name) },
      { key: 'default_action', label: 'action', value: (p) => p.default_action, format: describeAction },
      { key: 'rules', label: 'rules', value: (p) => p.rules.length, num: true },
      { key: 'triggers', label: 'triggers', value: (p) => p.triggers, format: (ts) => ts.map(describeTrigger).join('; ') || 'by hand' },
      ...lastRun,
      { key: 'next_run', label: 'next run (UTC)', value: (p) => p.next_run, format: formatIso },
      { key: 'preview', label: '', render: (p) => h('button', { type: 'button', class: 'small', testid: 'preview-button', dataset: { policy: p.name }, onclick: () => onPreview(p.name) }, 'Preview') },
    ],
  });
}

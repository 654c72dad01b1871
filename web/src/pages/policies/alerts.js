// The alerts of the policies file with how many are open, and the open ones: raised by the
// last check and not cleared, with whether their sinks took them.
import { h } from '../../dom.js';
import { formatCount, formatIso } from '../../format.js';
import { dataTable } from '../../table.js';
import { describeTrigger } from './describe.js';

export function alertsView({ alerts, open_alerts: open, open_alerts_total: total }) {
  return [
    dataTable({
      testid: 'alerts-table',
      rowTestid: 'alert-row',
      rowKey: (a) => a.name,
      rows: alerts,
      empty: 'no alert in the file',
      columns: [
        { key: 'name', label: 'alert', value: (a) => a.name },
        { key: 'condition', label: 'condition', value: (a) => a.condition, format: (c) => h('code', {}, c) },
        { key: 'usage', label: 'on usage', value: (a) => a.usage, format: describeTrigger },
        { key: 'sinks', label: 'sinks', value: (a) => a.sinks, format: (s) => s.join(' ') },
        { key: 'open', label: 'open', value: (a) => a.open, format: formatCount, num: true },
      ],
    }),
    h('h3', { testid: 'open-alerts-total', dataset: { value: total } },
      `${formatCount(total)} open${total > open.length ? `, the first ${open.length} listed` : ''}`),
    h('div', { class: 'scroll' }, dataTable({
      testid: 'open-alerts-table',
      rowTestid: 'open-alert',
      rowKey: (a) => `${a.alert} ${a.key}`,
      rows: open,
      empty: 'no alert open',
      columns: [
        { key: 'alert', label: 'alert', value: (a) => a.alert },
        { key: 'key', label: 'entry or usage', value: (a) => a.key },
        { key: 'detail', label: 'detail', value: (a) => a.detail },
        { key: 'raised', label: 'raised (UTC)', value: (a) => a.raised, format: formatIso },
        { key: 'notified', label: 'notified', value: (a) => a.notified, format: (n) => (n ? 'yes' : 'no') },
      ],
    })),
  ];
}

// The events search form: path prefix, kinds, time range and page size, read from and
// written to the address's parameters (#/events?prefix=/data&kinds=CREATE,DELETE).
import { h } from '../../dom.js';
import { localInputToIso } from '../../format.js';
import { eventKinds } from '../../kinds.js';

function isoToLocalInput(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
  return local.toISOString().slice(0, 19);
}

export function searchForm(params, onSearch) {
  const chosen = new Set((params.get('kinds') ?? '').split(',').filter(Boolean));
  const prefix = h('input', { type: 'text', name: 'prefix', placeholder: '/data/project', value: params.get('prefix') ?? '', testid: 'events-prefix' });
  const since = h('input', { type: 'datetime-local', name: 'since', step: '1', value: isoToLocalInput(params.get('since')), testid: 'events-since' });
  const until = h('input', { type: 'datetime-local', name: 'until', step: '1', value: isoToLocalInput(params.get('until')), testid: 'events-until' });
  const limit = h('input', { type: 'number', name: 'limit', min: '1', max: '1000', value: params.get('limit') ?? '100', testid: 'events-limit' });
  const kinds = eventKinds.map((k) => h('input', { type: 'checkbox', name: 'kinds', value: k, checked: chosen.has(k), testid: `events-kind-${k}` }));
  const form = h('form', { class: 'search', testid: 'events-form' },
    h('label', { class: 'grow' }, 'path prefix', prefix),
    h('label', {}, 'since', since),
    h('label', {}, 'until', until),
    h('label', {}, 'limit', limit),
    h('fieldset', { class: 'kinds' }, h('legend', {}, 'kinds (none: all)'),
      kinds.map((box) => h('label', { class: 'kind' }, box, box.value))),
    h('div', { class: 'actions' }, h('button', { type: 'submit', testid: 'events-search' }, 'Search')));
  const values = () => ({
    prefix: prefix.value.trim(),
    kinds: kinds.filter((b) => b.checked).map((b) => b.value).join(','),
    since: localInputToIso(since.value),
    until: localInputToIso(until.value),
    limit: limit.value,
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onSearch(values());
  });
  return { form, values };
}

// One event's JSON as the server holds it (GET /api/v1/events/{id}), every digit kept.
import { api } from '../../api.js';
import { h } from '../../dom.js';
import { indentJson } from '../../json-text.js';
import { fill, panel } from '../../section.js';

export function detailPanel() {
  const { el, body } = panel('Event', { testid: 'event-detail' });
  body.append(h('p', { class: 'muted' }, 'Click an event to see it whole.'));
  return {
    el,
    show(id) {
      fill(body, () => api(`events/${encodeURIComponent(id)}`, { text: true }),
        (text) => h('pre', { class: 'json', testid: 'event-json', dataset: { id } }, indentJson(text)));
    },
  };
}

// A titled panel of a page, and filling it from the API: "loading…", then what the answer
// renders to, or the reason it is unavailable (the banner shows the server's message too).
// Only the newest load of a panel renders, whatever order the answers come in.
import { ApiError } from './api.js';
import { h, replace } from './dom.js';

export function panel(title, { testid, controls, wide = false } = {}) {
  const body = h('div', { class: 'panel-body' });
  const el = h('section', { class: wide ? 'panel wide' : 'panel', testid },
    h('header', { class: 'panel-head' }, h('h2', {}, title), controls), body);
  return { el, body };
}

const generations = new WeakMap();

export async function fill(body, load, render) {
  const generation = (generations.get(body) ?? 0) + 1;
  generations.set(body, generation);
  body.setAttribute('aria-busy', 'true');
  if (!body.childElementCount) replace(body, h('p', { class: 'muted' }, 'loading…'));
  let data;
  try {
    data = await load();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (generations.get(body) !== generation) return;
    body.removeAttribute('aria-busy');
    replace(body, h('p', { class: 'muted', testid: 'unavailable' }, `unavailable: ${error.message}`));
    return;
  }
  if (generations.get(body) !== generation) return;
  replace(body, render(data));
  body.removeAttribute('aria-busy');
}

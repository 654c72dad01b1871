// Figures in boxes: a label over a value, the raw value in data-value.
import { h } from './dom.js';

export function card(label, value, { format = String, testid, title } = {}) {
  const shown = value === null || value === undefined ? '—' : format(value);
  return h('div', { class: 'card', testid, dataset: value === null || value === undefined ? {} : { value }, title },
    h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, shown));
}

export function cardRow(...cards) {
  return h('div', { class: 'cards' }, cards);
}

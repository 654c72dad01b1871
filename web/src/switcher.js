// A row of buttons choosing one of a few views (by user / group / type, mtime / atime).
import { h } from './dom.js';

export function switcher(choices, current, onChange, testid) {
  const buttons = choices.map((choice) => h('button', {
    type: 'button',
    class: 'switch',
    testid: `${testid}-${choice}`,
    'aria-pressed': String(choice === current),
    onclick: () => {
      for (const b of buttons) b.setAttribute('aria-pressed', String(b.textContent === choice));
      onChange(choice);
    },
  }, choice));
  return h('div', { class: 'switcher', role: 'group', testid }, buttons);
}

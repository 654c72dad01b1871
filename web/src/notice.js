// The banner under the header that says what went wrong (the server's "error" message).
import { h, replace } from './dom.js';

const banner = h('div', { class: 'notice', role: 'alert', testid: 'notice', hidden: true });

export function noticeElement() {
  return banner;
}

export function showNotice(message) {
  replace(banner, h('span', {}, message), h('button', { class: 'link', onclick: clearNotice, 'aria-label': 'dismiss' }, '×'));
  banner.hidden = false;
}

export function clearNotice() {
  banner.hidden = true;
  banner.replaceChildren();
}

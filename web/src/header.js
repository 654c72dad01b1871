// The top bar: who the session belongs to and what it may see (GET /api/v1/whoami).
import { h, replace } from './dom.js';
import { endSession } from './session.js';

export function headerElement() {
  return h('header', { class: 'top' },
    h('a', { class: 'brand', href: '#/overview' }, 'fathom'),
    h('div', { class: 'who', testid: 'whoami' }));
}

export function showCaller(header, caller, onSignOut) {
  const who = header.querySelector('.who');
  replace(who,
    h('span', { class: 'user', testid: 'whoami-user' }, caller.user),
    caller.admin ? h('span', { class: 'badge', testid: 'whoami-admin' }, 'admin') : null,
    h('span', { class: 'grants', testid: 'whoami-paths', title: 'paths this session may see', dataset: { paths: JSON.stringify(caller.paths) } },
      `sees ${caller.paths.join(' ')}`),
    h('button', { class: 'link', testid: 'sign-out', onclick: async () => {
      await endSession().catch(() => {});
      onSignOut();
    } }, 'sign out'));
}

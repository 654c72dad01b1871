// The form shown when the server answers 401: a token, exchanged for the session cookie.
import { h } from './dom.js';
import { startSession } from './session.js';

let shown = null;

// Resolves once a token was accepted; one form at a time, however many calls were refused.
export function askForToken() {
  if (shown) return shown;
  shown = new Promise((resolve) => {
    const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, placeholder: 'fathom_…', testid: 'login-token' });
    const error = h('p', { class: 'error', testid: 'login-error', hidden: true });
    const form = h('form', { class: 'login', testid: 'login-form' },
      h('h2', {}, 'Sign in to fathom'),
      h('label', {}, 'Token', input),
      h('p', { class: 'muted' }, 'fathom serve prints one at start-up; `fathom token create` makes more.'),
      error,
      h('button', { type: 'submit', testid: 'login-submit' }, 'Sign in'));
    const overlay = h('div', { class: 'overlay' }, form);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      error.hidden = true;
      try {
        await startSession(input.value.trim());
      } catch (failure) {
        error.textContent = failure.status === 401 ? 'This token is not known.' : failure.message;
        error.hidden = false;
        return;
      }
      overlay.remove();
      shown = null;
      resolve();
    });
    document.body.append(overlay);
    input.focus();
  });
  return shown;
}

// The session cookie: a token from the start-up URL (#token=...) or the login form is
// exchanged for it (POST /api/v1/session); DELETE ends it.
import { api } from './api.js';

// The token of a URL like http://host:port/#token=fathom_..., removed from the address bar
// (and so from the history) before it is used.
export function takeTokenFromUrl() {
  const match = location.hash.match(/^#token=([^&]+)/);
  if (!match) return null;
  history.replaceState(null, '', `${location.pathname}${location.search}#/overview`);
  return decodeURIComponent(match[1]);
}

export function startSession(token) {
  return api('session', { method: 'POST', body: { token }, quiet: true });
}

export function endSession() {
  return api('session', { method: 'DELETE', quiet: true });
}

export function whoami() {
  return api('whoami');
}

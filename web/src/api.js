// Every call to /api/v1/: JSON in and out, the server's "error" message shown when a call
// fails, and a 401 handed to the login form.
import { showNotice } from './notice.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let unauthorized = () => {};

export function onUnauthorized(handler) {
  unauthorized = handler;
}

// Parameters left empty are left out; lists are sent comma-separated (kinds=CREATE,DELETE).
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      if (value.length) query.set(name, value.join(','));
    } else {
      query.set(name, String(value));
    }
  }
  const text = query.toString();
  return `api/v1/${path}${text ? `?${text}` : ''}`;
}

async function errorMessage(response) {
  try {
    const body = await response.json();
    if (body && typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: the status line says enough.
  }
  return `${response.status} ${response.statusText}`;
}

// api('catalog/usage', {params: {by: 'user'}}) resolves to the parsed answer (null for 204),
// or with text to the answer's text as it came. With quiet, failures are thrown without the banner nor the login form (the login form's own
// POST shows its error itself).
export async function api(path, { params, method = 'GET', body, quiet = false, text = false } = {}) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(apiUrl(path, params), init);
  } catch (error) {
    const message = `fathom serve did not answer: ${error.message}`;
    if (!quiet) showNotice(message);
    throw new ApiError(0, message);
  }
  if (!response.ok) {
    const message = await errorMessage(response);
    if (!quiet) {
      if (response.status === 401) unauthorized();
      else showNotice(message);
    }
    throw new ApiError(response.status, message);
  }
  if (response.status === 204) return null;
  return text ? response.text() : response.json();
}

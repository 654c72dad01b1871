// The server's answers as the tests read them (with the token in a header, not the cookie). A
// refusal throws an Error holding the status and the server's own message.
export function apiClient(url, token) {
  return async (path, params = {}, { method = 'GET', body } = {}) => {
    const query = new URLSearchParams(params).toString();
    const headers = { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
    const response = await fetch(new URL(`api/v1/${path}${query ? `?${query}` : ''}`, url),
      { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) {
      throw Object.assign(new Error(`${method} ${path}?${query}: ${response.status} ${text}`), { status: response.status, message: JSON.parse(text).error });
    }
    return JSON.parse(text);
  };
}

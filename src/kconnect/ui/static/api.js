// Calls to Kafka Connect's REST API and the dashboard's /ui/api on this page's origin. The
// browser sends the credentials it was given at the basic-auth prompt with every call.

// The page lives at <root>/ui/: the REST API is at <root>/ (a reverse proxy may add a prefix).
export const ROOT = location.pathname.replace(/\/ui(\/.*)?$/, '');

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(ROOT + path, init);
  } catch (e) {
    throw new ApiError(0, `The worker did not answer (${e.message}); is it running?`);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) {
    let message = data && data.message ? data.message : `HTTP ${response.status}`;
    if (response.status === 401) message = 'Sign in: this cluster needs a user name and password (reload the page).';
    throw new ApiError(response.status, message);
  }
  return data;
}

export const get = (path) => call('GET', path);
export const enc = encodeURIComponent;

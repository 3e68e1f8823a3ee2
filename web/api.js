// api.js — talking to the daemon (web/README.md): JSON in and out, the CSRF header on every
// POST. A failed request throws an Error that carries the HTTP status and the parsed body.

/** '/api/page' + {path, page: 3, end: undefined} → '/api/page?path=…&page=3' (undefined keys left out). */
export function query(base, params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `${base}?${text}` : base;
}

/** GET `url`, or POST `body` to it as JSON when a body is given. */
export async function api(url, body) {
  const init = { credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['Content-Type'] = 'application/json';
    init.headers['X-PDFTrapper-CSRF'] = '1';   // a cross-origin page cannot send this header
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw Object.assign(new Error('The PDFTrapper daemon does not answer.'), { status: 0, data: null });
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    let message = (data && data.error) || `${response.status} ${response.statusText}`;
    if (response.status === 401) message = 'Not signed in: open the address pdftrapper printed (the one with ?token=).';
    throw Object.assign(new Error(message), { status: response.status, data });
  }
  return data;
}

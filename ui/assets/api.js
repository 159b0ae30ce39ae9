// The public HTTP API, as the CLI uses it: every request carries the ACL
// token kept in this browser's localStorage as X-Nomad-Token.

const TOKEN_KEY = "nomadish.token";

export function getToken() {
  try { return localStorage.getItem(TOKEN_KEY) || ""; } catch { return ""; }
}

export function setToken(secret) {
  if (secret) localStorage.setItem(TOKEN_KEY, secret);
  else localStorage.removeItem(TOKEN_KEY);
}

// APIError carries the HTTP status and the agent's plain-text message.
export class APIError extends Error {
  constructor(status, message, path) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.path = path;
  }
}

// request sends one call and returns {body, index}. A non-2xx answer
// throws an APIError with the server's message.
export async function request(path, { method = "GET", signal, body } = {}) {
  const headers = {};
  const token = getToken();
  if (token) headers["X-Nomad-Token"] = token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, {
    method, signal, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  if (!resp.ok) throw new APIError(resp.status, text.trim(), path);
  const index = Number(resp.headers.get("X-Nomad-Index") || 0);
  let parsed = null;
  if (text) {
    try { parsed = JSON.parse(text); } catch { parsed = text; }
  }
  return { body: parsed, index };
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});

// watch calls onData with each new answer of a blocking query on path
// (?index= the last X-Nomad-Index seen, wait 5 minutes) until signal
// aborts; onError gets failures, and the query retries with a backoff.
export async function watch(path, { signal, onData, onError }) {
  let index = 0;
  let fetched = false;
  let backoff = 500;
  const sep = path.includes("?") ? "&" : "?";
  while (!signal.aborted) {
    const url = fetched ? `${path}${sep}index=${index}&wait=300s` : path;
    try {
      const res = await request(url, { signal });
      backoff = 500;
      if (!fetched || res.index !== index) onData(res.body, res.index);
      fetched = true;
      index = res.index; // lower than before after a restore: follow it
      if (!index) return; // an answer without an index can't block
    } catch (err) {
      if (signal.aborted) return;
      onError?.(err);
      if (err instanceof APIError && err.status >= 400 && err.status < 500) return;
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, 30000);
    }
  }
}

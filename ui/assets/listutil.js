// Helpers shared by the list pages (evaluations, deployments, servers,
// variables, services): tables, links, times, paged reads and polling.
import { APIError, getToken, request } from "./api.js";
import { el, shortID } from "./dom.js";

// table returns a <table> labelled by its heading id, and its <tbody>.
export function table(labelledBy, headers) {
  const body = el("tbody");
  const t = el("table", { "aria-labelledby": labelledBy },
    el("thead", {}, el("tr", {}, headers.map((h) => {
      const [text, cls] = Array.isArray(h) ? h : [h];
      return el("th", { scope: "col", class: cls }, text);
    }))), body);
  return { table: t, body };
}

// fill replaces a tbody's rows, or shows one muted row saying empty.
export function fill(body, rows, cols, empty) {
  if (!rows.length) rows = [el("tr", {}, el("td", { colspan: cols, class: "muted" }, empty))];
  body.replaceChildren(...rows);
}

export const nsQuery = (ns) => (ns && ns !== "default" ? `?namespace=${encodeURIComponent(ns)}` : "");

export function jobLink(jobID, ns) {
  if (!jobID) return "";
  return el("a", { href: `/ui/jobs/${encodeURIComponent(jobID)}${nsQuery(ns)}` }, jobID);
}
export function allocLink(id) {
  return id ? el("a", { href: `/ui/allocations/${encodeURIComponent(id)}`, title: id }, el("code", {}, shortID(id))) : "";
}
export function nodeLink(id, name) {
  return id ? el("a", { href: `/ui/clients/${encodeURIComponent(id)}`, title: id }, name ? name : el("code", {}, shortID(id))) : "";
}
export function evalLink(id) {
  return id ? el("a", { href: `/ui/evaluations/${encodeURIComponent(id)}`, title: id }, el("code", {}, shortID(id))) : "";
}

// nanoTime shows a Unix-nanoseconds time in the browser's locale.
export function nanoTime(ns) {
  if (!ns) return "";
  const d = new Date(Number(ns) / 1e6);
  return el("time", { datetime: d.toISOString() }, d.toLocaleString());
}

// duration shows Go nanoseconds as 1h2m3s.
export function duration(ns) {
  let s = Math.round(Number(ns || 0) / 1e9);
  if (!s) return "0s";
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}`;
}

// facts builds a <dl> of [label, value] pairs (empty values skipped).
export function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "")
    .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

// pagedRequest GETs one page of a paginated list: {body, next} where
// next is the X-Nomad-NextToken header ("" on the last page).
export async function pagedRequest(path, signal) {
  const headers = {};
  const token = getToken();
  if (token) headers["X-Nomad-Token"] = token;
  const resp = await fetch(path, { signal, headers, credentials: "same-origin" });
  const text = await resp.text();
  if (!resp.ok) throw new APIError(resp.status, text.trim(), path);
  return { body: text ? JSON.parse(text) : [], next: resp.headers.get("X-Nomad-NextToken") || "",
    index: Number(resp.headers.get("X-Nomad-Index") || 0) };
}

// watchPaged is watch() for the first page of a paginated list: onData
// gets (rows, nextToken) each time the list changes.
export async function watchPaged(path, { signal, onData, onError }) {
  let index = 0;
  let backoff = 500;
  const sep = path.includes("?") ? "&" : "?";
  while (!signal.aborted) {
    try {
      const res = await pagedRequest(index ? `${path}${sep}index=${index}&wait=300s` : path, signal);
      backoff = 500;
      if (!index || res.index !== index) onData(res.body || [], res.next);
      index = res.index;
      if (!index) return;
    } catch (err) {
      if (signal.aborted) return;
      onError?.(err);
      if (err instanceof APIError && err.status >= 400 && err.status < 500) return;
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 30000);
    }
  }
}

// poll calls load every ms until signal aborts (for answers that can't
// block); load's errors go to onError.
export async function poll(load, ms, { signal, onError }) {
  while (!signal.aborted) {
    try { await load(); } catch (err) { if (!signal.aborted) onError(err); }
    await new Promise((r) => {
      const t = setTimeout(r, ms);
      signal.addEventListener("abort", () => { clearTimeout(t); r(); }, { once: true });
    });
  }
}

export { request };

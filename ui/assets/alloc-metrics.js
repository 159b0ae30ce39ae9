// The placement metrics of an allocation (alloc.Metrics, what the scheduler
// saw when it placed it): nodes evaluated, filtered and exhausted and why,
// and the scores of the nodes it ranked.
import { el, shortID } from "./dom.js";

const countTable = (caption, m) => {
  const entries = Object.entries(m || {}).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return null;
  return el("table", { class: "compact" }, el("caption", {}, caption),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Reason"), el("th", { scope: "col", class: "num" }, "Nodes"))),
    el("tbody", {}, entries.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", { class: "num" }, v)))));
};

const fmtDuration = (ns) => {
  if (!ns) return "0";
  if (ns < 1e3) return `${ns} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(2)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
};

export function metricsSection(a) {
  const m = a.Metrics;
  const h = el("h2", { id: "metrics-h" }, "Placement");
  if (!m) return el("section", { "aria-labelledby": "metrics-h" }, h, el("p", { class: "muted" }, "No placement metrics."));
  const dl = el("dl", { class: "facts" });
  const add = (k, v) => dl.append(el("dt", {}, k), el("dd", {}, v));
  add("Nodes evaluated", m.NodesEvaluated ?? 0);
  if (m.NodesInPool) add("Nodes in pool", m.NodesInPool);
  add("Nodes filtered", m.NodesFiltered ?? 0);
  add("Nodes exhausted", m.NodesExhausted ?? 0);
  const avail = Object.entries(m.NodesAvailable || {});
  if (avail.length) add("Nodes available", avail.map(([dc, n]) => `${dc}: ${n}`).join(", "));
  if (m.QuotaExhausted?.length) add("Quota exhausted", m.QuotaExhausted.join(", "));
  if (m.CoalescedFailures) add("Coalesced failures", m.CoalescedFailures);
  add("Time to place", fmtDuration(m.AllocationTime));

  const scores = (m.ScoreMetaData || []).slice().sort((x, y) => (y.NormScore || 0) - (x.NormScore || 0));
  const scorers = [...new Set(scores.flatMap((s) => Object.keys(s.Scores || {})))].sort();
  const scoreTable = scores.length ? el("table", { class: "compact" },
    el("caption", {}, "Scores of the ranked nodes (best first)"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Node"),
      scorers.map((s) => el("th", { scope: "col", class: "num" }, s)), el("th", { scope: "col", class: "num" }, "Final score"))),
    el("tbody", {}, scores.map((s) => el("tr", { class: s.NodeID === a.NodeID ? "chosen" : "" },
      el("th", { scope: "row" }, el("a", { href: `/ui/clients/${encodeURIComponent(s.NodeID)}` }, el("code", { title: s.NodeID }, shortID(s.NodeID))),
        s.NodeID === a.NodeID ? " (chosen)" : ""),
      scorers.map((k) => el("td", { class: "num" }, s.Scores?.[k] === undefined ? "" : s.Scores[k].toFixed(3))),
      el("td", { class: "num" }, (s.NormScore ?? 0).toFixed(3)))))) : null;

  return el("section", { class: "alloc-metrics", "aria-labelledby": "metrics-h" }, h, dl,
    el("div", { class: "metric-tables" },
      countTable("Filtered by class", m.ClassFiltered),
      countTable("Filtered by constraint", m.ConstraintFiltered),
      countTable("Exhausted by class", m.ClassExhausted),
      countTable("Exhausted dimension", m.DimensionExhausted)),
    scoreTable);
}

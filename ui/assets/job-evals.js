// The job page's Evaluations section: the job's evaluations (GET
// /v1/job/<id>/evaluations, live), newest first, with status, what
// triggered them and a summary of their failed placements.
import { watch } from "./api.js";
import { el, shortID, statusBadge } from "./dom.js";
import { when } from "./job-versions.js";

const top = (m) => Object.entries(m || {}).sort(([, a], [, b]) => b - a).map(([k, n]) => `${k} (${n})`).join(", ");

// failureSummary says, per group, why placements failed: nodes evaluated,
// filtered by which constraints, exhausted on which dimensions.
export function failureSummary(failed) {
  const groups = Object.entries(failed || {});
  if (!groups.length) return null;
  return el("ul", { class: "plain" }, groups.map(([g, m]) => {
    const parts = [`${m.NodesEvaluated ?? 0} nodes evaluated`];
    if (m.NodesFiltered) parts.push(`${m.NodesFiltered} filtered${m.ConstraintFiltered ? `: ${top(m.ConstraintFiltered)}` : ""}${m.ClassFiltered ? `; classes ${top(m.ClassFiltered)}` : ""}`);
    if (m.NodesExhausted) parts.push(`${m.NodesExhausted} exhausted${m.DimensionExhausted ? `: ${top(m.DimensionExhausted)}` : ""}`);
    if ((m.QuotaExhausted || []).length) parts.push(`quota: ${m.QuotaExhausted.join(", ")}`);
    if (m.CoalescedFailures) parts.push(`${m.CoalescedFailures + 1} allocations unplaced`);
    return el("li", {}, el("strong", {}, g), ": ", parts.join("; "));
  }));
}

export function evalsSection(root, ctx) {
  const rows = el("tbody");
  root.replaceChildren(el("table", { "aria-label": "Evaluations" }, el("thead", {}, el("tr", {},
    el("th", { scope: "col" }, "ID"), el("th", { scope: "col" }, "Created"), el("th", { scope: "col" }, "Triggered by"),
    el("th", { scope: "col" }, "Status"), el("th", { scope: "col" }, "Placement failures"))), rows));
  watch(`${ctx.base}/evaluations${ctx.q}`, {
    signal: ctx.signal, onError: ctx.showError,
    onData: (evals) => {
      const list = (evals || []).slice().sort((a, b) => (b.CreateIndex || 0) - (a.CreateIndex || 0)).map((e) => {
        const queued = Object.entries(e.QueuedAllocations || {}).filter(([, n]) => n).map(([g, n]) => `${g}: ${n} queued`);
        return el("tr", {},
          el("td", {}, el("a", { href: `/ui/evaluations?currentEval=${encodeURIComponent(e.ID)}`, title: e.ID },
            el("code", {}, shortID(e.ID)))), el("td", {}, when(e.CreateTime)),
          el("td", {}, e.TriggeredBy),
          el("td", {}, statusBadge(e.Status), e.StatusDescription ? el("div", { class: "muted" }, e.StatusDescription) : "",
            e.BlockedEval ? el("div", { class: "muted" }, "blocked eval ", el("code", {}, shortID(e.BlockedEval))) : ""),
          el("td", {}, failureSummary(e.FailedTGAllocs) || el("span", { class: "muted" }, queued.join(", ") || "none")));
      });
      if (!list.length) list.push(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No evaluations.")));
      rows.replaceChildren(...list);
    },
  });
}

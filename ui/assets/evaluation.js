// /ui/evaluations/<id>: one evaluation's fields, why its placements
// failed (FailedTGAllocs: nodes evaluated, filtered by constraint or
// class, exhausted by dimension), its allocations and related evaluations
// (previous, next, blocked, and the job's others). Live.
import { watch } from "./api.js";
import { el, errorBox, statusBadge } from "./dom.js";
import { allocLink, duration, evalLink, facts, fill, jobLink, nanoTime, nodeLink, table } from "./listutil.js";

const byCount = (m) => Object.entries(m || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

function countList(title, m) {
  const entries = byCount(m);
  if (!entries.length) return null;
  return el("div", { class: "metric-list" }, el("h4", {}, title),
    el("ul", {}, entries.map(([k, v]) => el("li", {}, el("code", {}, k), `: ${v}`))));
}

// failedGroup explains one group's failed placements.
export function failedGroup(name, m) {
  return el("section", { class: "failed-tg", "data-group": name },
    el("h3", {}, `Group "${name}"`, m.CoalescedFailures ? ` (${m.CoalescedFailures + 1} placements failed)` : ""),
    facts([
      ["Nodes in pool", m.NodesInPool ?? ""], ["Nodes evaluated", m.NodesEvaluated ?? 0],
      ["Nodes filtered", m.NodesFiltered ?? 0], ["Nodes exhausted", m.NodesExhausted ?? 0],
      ["Quota exhausted", (m.QuotaExhausted || []).join(", ")],
      ["Available per datacenter", byCount(m.NodesAvailable).map(([k, v]) => `${k}: ${v}`).join(", ")],
    ]),
    el("div", { class: "metric-lists" },
      countList("Constraint filtered", m.ConstraintFiltered), countList("Class filtered", m.ClassFiltered),
      countList("Dimension exhausted", m.DimensionExhausted), countList("Class exhausted", m.ClassExhausted)),
    m.NodesEvaluated === 0 ? el("p", { class: "muted" }, "No node was evaluated: none is ready and eligible in the job's datacenters and pool.") : null);
}

export function evaluationPage(main, { params, signal }) {
  const id = params[0];
  const errors = el("div");
  const info = el("div");
  const failed = el("div");
  const a = table("eval-allocs-h", ["ID", "Group", "Node", "Desired", "Status", "Created"]);
  const r = table("eval-related-h", ["ID", "Relation", "Triggered by", "Status", "Created"]);
  main.replaceChildren(el("p", {}, el("a", { href: "/ui/evaluations" }, "← Evaluations")),
    el("h1", {}, "Evaluation ", el("code", {}, id)), errors, info,
    el("h2", {}, "Placement failures"), failed,
    el("h2", { id: "eval-allocs-h" }, "Allocations"), a.table,
    el("h2", { id: "eval-related-h" }, "Related evaluations"), r.table);

  const onError = (err) => errors.replaceChildren(errorBox(err));
  let ev = null;
  let jobWatch = null;
  let jobEvals = null;
  const drawRelated = (list) => {
    if (list) jobEvals = list;
    if (!ev || !jobEvals) return;
    const rel = (e) => (e.ID === ev.PreviousEval ? "previous" : e.ID === ev.NextEval ? "next"
      : e.ID === ev.BlockedEval ? "blocked" : e.PreviousEval === ev.ID ? "follow-up" : "same job");
    const rows = (jobEvals || []).filter((e) => e.ID !== ev.ID)
      .sort((x, y) => (y.CreateIndex || 0) - (x.CreateIndex || 0))
      .map((e) => el("tr", {}, el("td", {}, evalLink(e.ID)), el("td", {}, rel(e)), el("td", {}, e.TriggeredBy),
        el("td", {}, statusBadge(e.Status)), el("td", {}, nanoTime(e.CreateTime))));
    fill(r.body, rows, 5, "No related evaluations.");
  };
  watch(`/v1/evaluation/${encodeURIComponent(id)}`, {
    signal, onError,
    onData: (e) => {
      ev = e;
      errors.replaceChildren();
      info.replaceChildren(facts([
        ["Status", statusBadge(e.Status)], ["Status description", e.StatusDescription],
        ["Job", jobLink(e.JobID, e.Namespace)], ["Namespace", e.Namespace], ["Type", e.Type],
        ["Priority", e.Priority], ["Triggered by", e.TriggeredBy], ["Node", nodeLink(e.NodeID)],
        ["Blocked evaluation", evalLink(e.BlockedEval)], ["Previous evaluation", evalLink(e.PreviousEval)],
        ["Next evaluation", evalLink(e.NextEval)], ["Wait", e.Wait ? duration(e.Wait) : ""],
        ["Queued allocations", Object.entries(e.QueuedAllocations || {}).map(([g, n]) => `${g}: ${n}`).join(", ")],
        ["Plan attempts", e.PlanAttempts || ""], ["Created", nanoTime(e.CreateTime)], ["Modified", nanoTime(e.ModifyTime)],
      ]));
      const groups = Object.entries(e.FailedTGAllocs || {});
      failed.replaceChildren(...(groups.length ? groups.map(([g, m]) => failedGroup(g, m))
        : [el("p", { class: "muted" }, "None: every placement this evaluation tried succeeded.")]));
      if (!jobWatch && e.JobID) {
        jobWatch = true;
        watch(`/v1/job/${encodeURIComponent(e.JobID)}/evaluations?namespace=${encodeURIComponent(e.Namespace)}`,
          { signal, onError, onData: drawRelated });
      }
      drawRelated();
    },
  });
  watch(`/v1/evaluation/${encodeURIComponent(id)}/allocations`, {
    signal, onError,
    onData: (list) => fill(a.body, (list || []).map((x) => el("tr", {},
      el("td", {}, allocLink(x.ID)), el("td", {}, x.TaskGroup), el("td", {}, nodeLink(x.NodeID, x.NodeName)),
      el("td", {}, x.DesiredStatus), el("td", {}, statusBadge(x.ClientStatus)), el("td", {}, nanoTime(x.CreateTime)))),
    6, "This evaluation placed no allocations."),
  });
  return `Evaluation ${id.slice(0, 8)}`;
}

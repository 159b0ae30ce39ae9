// The CLI's wording of placement explanations (cli/explain_format.go),
// for the "Why not here?" page: the same sentences in the browser as in
// the terminal.
import { el, shortID } from "./dom.js";

const sorted = (m) => Object.keys(m || {}).sort();

// formatScore: three significant digits, as the CLI prints scores.
export function formatScore(v) {
  return typeof v === "number" ? Number(v.toPrecision(3)).toString() : "–";
}

// nodeLabel is `"name" (short id)`, or the quoted ID for a nameless node.
export function nodeLabel(v) {
  if (!v.NodeName || v.NodeName === v.NodeID) return JSON.stringify(v.NodeID);
  return `${JSON.stringify(v.NodeName)} (${shortID(v.NodeID)})`;
}

// verdictScores is "0.466 (binpack 0.466, ...)".
export function verdictScores(scores) {
  const parts = sorted(scores).filter((k) => k !== "final").map((k) => `${k} ${formatScore(scores[k])}`);
  const final = formatScore(scores.final);
  return parts.length ? `${final} (${parts.join(", ")})` : final;
}

// metricLines are the reasons in one AllocMetric, in the CLI's order.
export function metricLines(m) {
  const out = [`Nodes evaluated: ${m.NodesEvaluated || 0} (of ${m.NodesInPool || 0} in pool), filtered: ${m.NodesFiltered || 0}, exhausted: ${m.NodesExhausted || 0}`];
  const avail = sorted(m.NodesAvailable);
  if (avail.length) out.push(`Nodes available per datacenter: ${avail.map((dc) => `${dc}=${m.NodesAvailable[dc]}`).join(", ")}`);
  if (!m.NodesEvaluated) out.push("No nodes were eligible for evaluation");
  for (const dc of avail) if (m.NodesAvailable[dc] === 0) out.push(`No nodes are available in datacenter ${JSON.stringify(dc)}`);
  for (const k of sorted(m.ClassFiltered)) out.push(`Class ${JSON.stringify(k)}: ${m.ClassFiltered[k]} nodes excluded by filter`);
  for (const k of sorted(m.ConstraintFiltered)) out.push(`Constraint ${JSON.stringify(k)}: ${m.ConstraintFiltered[k]} nodes excluded by filter`);
  if (m.NodesExhausted > 0) out.push(`Resources exhausted on ${m.NodesExhausted} nodes`);
  for (const k of sorted(m.ClassExhausted)) out.push(`Class ${JSON.stringify(k)} exhausted on ${m.ClassExhausted[k]} nodes`);
  for (const k of sorted(m.DimensionExhausted)) out.push(`Dimension ${JSON.stringify(k)} exhausted on ${m.DimensionExhausted[k]} nodes`);
  for (const x of m.QuotaExhausted || []) out.push(`Quota limit hit ${JSON.stringify(x)}`);
  return out;
}

// latestFailedEval is the newest evaluation with failed placements while
// one of evals is blocked (its placements still owed), as `job status`
// decides; null otherwise.
export function latestFailedEval(evals) {
  let latest = null;
  let blocked = false;
  for (const e of evals) {
    if (Object.keys(e.FailedTGAllocs || {}).length && (!latest || latest.CreateIndex < e.CreateIndex)) latest = e;
    if (e.Status === "blocked") blocked = true;
  }
  return blocked ? latest : null;
}

// failureSection shows the placement failures of the job's latest failed
// evaluation, null when there are none.
export function failureSection(evals) {
  const e = latestFailedEval(evals);
  if (!e) return null;
  return el("section", { class: "wn-failures", "aria-labelledby": "wn-fail-h" },
    el("h2", { id: "wn-fail-h" }, "Placement failures"),
    el("p", { class: "muted" }, `From evaluation `, el("code", { title: e.ID }, shortID(e.ID)), ` (${e.TriggeredBy || "?"}, ${e.Status}).`),
    sorted(e.FailedTGAllocs).map((g) => {
      const m = e.FailedTGAllocs[g] || {};
      const n = (m.CoalescedFailures || 0) + 1;
      return el("div", { class: "wn-verdict wn-no", "data-group": g },
        el("h3", {}, `Task Group ${JSON.stringify(g)} (failed to place ${n} allocation${n > 1 ? "s" : ""}):`),
        el("ul", {}, metricLines(m).map((l) => el("li", {}, l))));
    }));
}

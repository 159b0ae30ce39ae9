// /ui/jobs/<id>/why-not (?namespace=&node=&group=): "Why not here?". With
// a node, the node's whole verdict for each group, the same as
// `job plan -why-not-node` (POST /v1/job/<id>/plan with WhyNotNode and
// WhyNotGroup): every failed constraint, every exhausted dimension, the
// preemptions that would make room, or the scores. Without one, the
// job's placement failures (its latest failed evaluation, as `job status`
// shows them) and every node with its reasons (one plan per node).
import { request } from "./api.js";
import { el, errorBox, shortID } from "./dom.js";
import { failureSection, formatScore as fmt, nodeLabel, verdictScores } from "./whynot-format.js";

const MAX_NODES = 50; // nodes checked one by one when no node is picked
const PARALLEL = 4;

export function whyNotPage(main, { params, query, signal }) {
  const id = params[0];
  const ns = query.get("namespace") || "default";
  const nodeArg = query.get("node") || "";
  const groupArg = query.get("group") || "";
  const q = `?namespace=${encodeURIComponent(ns)}`;
  const base = `/v1/job/${encodeURIComponent(id)}`;
  const jobHref = `/ui/jobs/${encodeURIComponent(id)}${ns !== "default" ? q : ""}`;
  const errors = el("div");
  const nodeSel = el("select", { id: "wn-node" }, el("option", { value: "" }, "Every node (list reasons)"));
  const groupSel = el("select", { id: "wn-group" }, el("option", { value: "" }, "Every group"));
  const again = el("button", { type: "button" }, "Check again");
  const out = el("div", { "aria-live": "polite" });
  const go = () => {
    const u = new URLSearchParams();
    if (ns !== "default") u.set("namespace", ns);
    if (nodeSel.value) u.set("node", nodeSel.value);
    if (groupSel.value) u.set("group", groupSel.value);
    const s = u.toString();
    history.replaceState(null, "", `${location.pathname}${s ? `?${s}` : ""}`);
    run(nodeSel.value, groupSel.value);
  };
  nodeSel.addEventListener("change", go);
  groupSel.addEventListener("change", go);
  again.addEventListener("click", go);

  main.replaceChildren(
    el("p", {}, el("a", { href: jobHref }, `← Job ${id}`)),
    el("h1", {}, "Why not here? ", el("span", { class: "muted" }, id)),
    el("p", { class: "muted" }, "The scheduler's verdict for the job's groups on a node, as ",
      el("code", {}, "nomadish job plan -why-not-node"), " prints it. Nothing is changed."),
    errors,
    el("div", { class: "wn-pickers" }, el("label", { for: "wn-node" }, "Node", nodeSel),
      el("label", { for: "wn-group" }, "Group", groupSel), again),
    out);

  let job = null, nodes = [];
  const plan = async (nodeID, group) => {
    const { body } = await request(`${base}/plan${q}`, { method: "POST", signal,
      body: { Job: job, Diff: false, WhyNotNode: nodeID, WhyNotGroup: group } });
    return body?.NodeVerdicts || {};
  };

  async function run(nodeID, group) {
    if (!job) return;
    errors.replaceChildren();
    out.replaceChildren(el("p", { class: "muted" }, "Asking the scheduler…"));
    try {
      if (nodeID) await showNode(nodeID, group);
      else await showAll(group);
    } catch (err) {
      if (signal.aborted) return;
      out.replaceChildren();
      errors.replaceChildren(errorBox(err));
    }
  }

  async function showNode(nodeID, group) {
    const verdicts = await plan(nodeID, group);
    const names = Object.keys(verdicts).sort();
    if (!names.length) {
      out.replaceChildren(el("p", {}, `The server returned no verdict for node "${nodeID}".`));
      return;
    }
    out.replaceChildren(...names.map((g) => verdictBox(g, verdicts[g])));
  }

  async function showAll(group) {
    const sections = [];
    const { body: evals } = await request(`${base}/evaluations${q}`, { signal });
    const failed = failureSection(evals || []);
    if (failed) sections.push(failed);
    const list = nodes.slice(0, MAX_NODES);
    const progress = el("p", { class: "muted" }, `Checked 0 of ${list.length} nodes…`);
    const body = el("tbody");
    sections.push(el("h2", { id: "wn-nodes-h" }, "Nodes and their reasons"),
      nodes.length > MAX_NODES ? el("p", { class: "muted" }, `The first ${MAX_NODES} of ${nodes.length} nodes; pick a node above for any other.`) : null,
      progress,
      el("table", { "aria-labelledby": "wn-nodes-h" }, el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Node"), el("th", { scope: "col" }, "Status"), el("th", { scope: "col" }, "Group"),
        el("th", { scope: "col" }, "Verdict"), el("th", { scope: "col" }, "Reasons"))), body));
    out.replaceChildren(...sections.filter(Boolean));
    const rows = new Array(list.length);
    let done = 0, next = 0;
    const worker = async () => {
      while (next < list.length && !signal.aborted) {
        const i = next++;
        const n = list[i];
        let verdicts = null, err = null;
        try { verdicts = await plan(n.ID, group); } catch (e) { err = e; }
        rows[i] = nodeRows(n, verdicts, err);
        done++;
        progress.textContent = done === list.length ? `Checked ${done} nodes.` : `Checked ${done} of ${list.length} nodes…`;
        body.replaceChildren(...rows.filter(Boolean).flat());
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  }

  function nodeRows(n, verdicts, err) {
    const href = `/ui/jobs/${encodeURIComponent(id)}/why-not?${new URLSearchParams({ ...(ns !== "default" ? { namespace: ns } : {}), node: n.ID })}`;
    const nodeCell = () => el("td", {}, el("a", { href, "data-node": n.ID }, n.Name || shortID(n.ID)));
    if (err) return [el("tr", {}, nodeCell(), el("td", {}, n.Status), el("td", {}), el("td", {}, "error"), el("td", {}, err.message))];
    const groups = Object.keys(verdicts || {}).sort();
    if (!groups.length) return [el("tr", {}, nodeCell(), el("td", {}, n.Status), el("td", {}), el("td", {}, "no verdict"), el("td", {}))];
    return groups.map((g) => {
      const v = verdicts[g];
      const reasons = [...(v.Failures || []), ...(v.Exhausted || []).map((x) => `exhausted ${x}`)];
      if (v.Preemptions?.length) reasons.push(`would fit by preempting: ${v.Preemptions.join(", ")}`);
      const verdict = v.Feasible && v.Fits ? `placeable, score ${verdictScores(v.Scores || {})}` : v.Feasible ? "lacks resources" : "not feasible";
      return el("tr", { "data-node": n.ID, "data-group": g }, nodeCell(), el("td", {}, n.Status), el("td", {}, g),
        el("td", {}, verdict), el("td", {}, reasons.length ? el("ul", { class: "wn-reasons" }, reasons.map((r) => el("li", {}, r))) : "—"));
    });
  }

  // verdictBox is one group's verdict, worded as the CLI's printVerdicts.
  function verdictBox(g, v) {
    const name = nodeLabel(v);
    if (v.Feasible && v.Fits) {
      const scores = Object.keys(v.Scores || {}).sort().filter((k) => k !== "final");
      return el("section", { class: "wn-verdict wn-ok", "data-group": g },
        el("h3", {}, `node ${name} is feasible for group "${g}"; score ${verdictScores(v.Scores || {})}`),
        el("table", { "aria-label": `Scores of ${name} for group ${g}` },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Scorer"), el("th", { scope: "col", class: "num" }, "Score"))),
          el("tbody", {}, scores.map((k) => el("tr", {}, el("th", { scope: "row" }, k), el("td", { class: "num" }, fmt(v.Scores[k])))),
            el("tr", {}, el("th", { scope: "row" }, "final (normalized)"), el("td", { class: "num" }, fmt(v.Scores.final))))));
    }
    const head = v.Feasible ? `node ${name} is feasible for group "${g}" but lacks resources:` : `node ${name} is not feasible for group "${g}":`;
    const items = [...(v.Failures || []).map((f) => el("li", { class: "wn-failure" }, f)),
      ...(v.Exhausted || []).map((x) => el("li", { class: "wn-exhausted" }, `exhausted ${x}`))];
    if (v.Preemptions?.length) items.push(el("li", {}, `would fit by preempting: ${v.Preemptions.join(", ")}`));
    return el("section", { class: `wn-verdict ${v.Feasible ? "wn-full" : "wn-no"}`, "data-group": g },
      el("h3", {}, head), el("ul", {}, items));
  }

  (async () => {
    try {
      const [{ body: j }, { body: ns2 }] = await Promise.all([request(base + q, { signal }), request("/v1/nodes", { signal })]);
      job = j;
      nodes = (ns2 || []).slice().sort((a, b) => (a.Name || a.ID).localeCompare(b.Name || b.ID));
      for (const n of nodes) nodeSel.append(el("option", { value: n.ID, selected: n.ID === nodeArg || n.Name === nodeArg }, `${n.Name || n.ID} (${shortID(n.ID)}, ${n.Status})`));
      if (nodeArg && !nodes.some((n) => n.ID === nodeArg || n.Name === nodeArg)) {
        nodeSel.append(el("option", { value: nodeArg, selected: true }, nodeArg));
      }
      for (const g of job.TaskGroups || []) groupSel.append(el("option", { value: g.Name, selected: g.Name === groupArg }, g.Name));
      await run(nodeSel.value, groupSel.value);
    } catch (err) {
      if (!signal.aborted) { out.replaceChildren(); errors.replaceChildren(errorBox(err)); }
    }
  })();
  return `Why not here? ${id}`;
}

// The job page's Overview section: the job's facts, its task groups (count
// with the scale control, tasks with driver and resources, a summary bar)
// and its allocations, each linking to its own page. Live: the job (from
// the shell), GET /v1/job/<id>/summary and /allocations as blocking queries.
import { watch } from "./api.js";
import { el, shortID, statusBadge } from "./dom.js";
import { groupCounts, summaryCell } from "./jobs.js";
import { scaleControl } from "./job-scale.js";

// taskLine describes one task: "web (docker; 500 MHz, 256 MiB, 2 cores)".
export function taskLine(t) {
  const r = t.Resources || {};
  const res = [];
  if (r.Cores) res.push(`${r.Cores} cores`);
  else if (r.CPU) res.push(`${r.CPU} MHz`);
  if (r.MemoryMB) res.push(`${r.MemoryMB} MiB${r.MemoryMaxMB ? ` (max ${r.MemoryMaxMB})` : ""}`);
  if (r.DiskMB) res.push(`${r.DiskMB} MB disk`);
  return `${t.Name} (${t.Driver}${res.length ? `; ${res.join(", ")}` : ""})`;
}

// jobStatus is the status shown: a stopped job whose allocations still run
// is "stopping".
export function jobStatus(j) {
  return j.Stop && j.Status !== "dead" ? "stopping" : j.Status;
}

const th = (text, cls) => el("th", { scope: "col", class: cls }, text);

export function overviewSection(root, ctx) {
  const facts = el("dl", { class: "facts" });
  const groups = el("tbody");
  const allocs = el("tbody", { class: "allocs" });
  const controls = new Map(); // group name -> its scale control, kept across redraws
  let summary = null;

  const drawGroups = () => {
    const job = ctx.job;
    if (!job) return;
    groups.replaceChildren(...(job.TaskGroups || []).map((g) => {
      const c = groupCounts({ Summary: { [g.Name]: summary?.Summary?.[g.Name] || {} } });
      let ctl = controls.get(g.Name);
      if (!ctl) controls.set(g.Name, (ctl = scaleControl(ctx, g.Name)));
      ctl.update(g, job);
      return el("tr", {}, el("th", { scope: "row" }, g.Name), el("td", { class: "num" }, g.Count),
        el("td", {}, el("ul", { class: "plain" }, (g.Tasks || []).map((t) => el("li", {}, taskLine(t))))),
        el("td", {}, summaryCell(c)), el("td", {}, ctl.node));
    }));
  };

  root.replaceChildren(facts,
    el("h3", { id: "groups-h" }, "Task groups"),
    el("table", { "aria-labelledby": "groups-h" }, el("thead", {}, el("tr", {},
      th("Group"), th("Count", "num"), th("Tasks"), th("Allocations"), th("Scale"))), groups),
    el("h3", { id: "allocs-h" }, "Allocations"),
    el("table", { "aria-labelledby": "allocs-h" }, el("thead", {}, el("tr", {},
      th("ID"), th("Group"), th("Node"), th("Desired"), th("Status"), th("Version", "num"))), allocs));

  ctx.onJob((j) => {
    facts.replaceChildren(
      el("dt", {}, "Status"), el("dd", {}, statusBadge(jobStatus(j))),
      el("dt", {}, "Type"), el("dd", {}, j.Type),
      el("dt", {}, "Priority"), el("dd", {}, j.Priority),
      el("dt", {}, "Version"), el("dd", {}, j.Version ?? 0),
      el("dt", {}, "Namespace"), el("dd", {}, j.Namespace),
      el("dt", {}, "Node pool"), el("dd", {}, j.NodePool || "default"),
      el("dt", {}, "Datacenters"), el("dd", {}, (j.Datacenters || []).join(", ")));
    drawGroups();
  });
  const { base, q, signal } = ctx;
  watch(`${base}/summary${q}`, { signal, onError: ctx.showError, onData: (s) => { summary = s; drawGroups(); } });
  watch(`${base}/allocations${q}`, {
    signal, onError: ctx.showError,
    onData: (list) => {
      const rows = (list || []).slice().sort((a, b) => (b.CreateIndex || 0) - (a.CreateIndex || 0)).map((a) =>
        el("tr", {}, el("td", {}, el("a", { href: `/ui/allocations/${encodeURIComponent(a.ID)}`, title: a.ID },
          el("code", {}, shortID(a.ID)))), el("td", {}, a.TaskGroup),
        el("td", {}, a.NodeID ? el("a", { href: `/ui/clients/${encodeURIComponent(a.NodeID)}`, title: a.NodeID },
          a.NodeName || shortID(a.NodeID)) : ""),
        el("td", {}, a.DesiredStatus), el("td", {}, statusBadge(a.ClientStatus)),
        el("td", { class: "num" }, a.JobVersion ?? "")));
      if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No allocations.")));
      allocs.replaceChildren(...rows);
    },
  });
}

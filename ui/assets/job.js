// /ui/jobs/<id>: the job's facts, its groups with their summary counts,
// its allocations (live, blocking queries) and a Stop button.
import { request, watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { groupCounts, summaryCell } from "./jobs.js";

export function jobPage(main, { params, query, signal }) {
  const id = params[0];
  const ns = query.get("namespace") || "default";
  const base = `/v1/job/${encodeURIComponent(id)}`;
  const q = `?namespace=${encodeURIComponent(ns)}`;
  const errors = el("div");
  const facts = el("dl", { class: "facts" });
  const groups = el("tbody");
  const allocs = el("tbody");
  const stop = el("button", { type: "button", class: "danger", disabled: true }, "Stop job");
  const notice = el("p", { "aria-live": "polite", class: "muted" });
  let summary = null;
  let job = null;

  const drawGroups = () => {
    if (!job) return;
    groups.replaceChildren(...(job.TaskGroups || []).map((g) => {
      const c = groupCounts({ Summary: { [g.Name]: summary?.Summary?.[g.Name] || {} } });
      return el("tr", {}, el("td", {}, g.Name), el("td", { class: "num" }, g.Count),
        el("td", {}, (g.Tasks || []).map((t) => `${t.Name} (${t.Driver})`).join(", ")), el("td", {}, summaryCell(c)));
    }));
  };

  stop.addEventListener("click", async () => {
    if (!confirm(`Stop job "${id}"? Its allocations will be stopped.`)) return;
    stop.disabled = true;
    notice.textContent = "Stopping…";
    try {
      const { body } = await request(base + q, { method: "DELETE", signal });
      notice.textContent = `Stop requested (evaluation ${shortID(body?.EvalID)}).`;
    } catch (err) {
      notice.textContent = "";
      errors.replaceChildren(errorBox(err));
      stop.disabled = false;
    }
  });

  main.replaceChildren(
    el("p", {}, el("a", { href: "/ui/jobs" }, "← Jobs")),
    el("div", { class: "toolbar" }, el("h1", {}, id), stop, el("a", { href: `/ui/jobs/${encodeURIComponent(id)}/why-not${ns !== "default" ? q : ""}` }, "Why not here?")), notice, errors, facts,
    el("h2", { id: "groups-h" }, "Task groups"),
    el("table", { "aria-labelledby": "groups-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Group"), el("th", { scope: "col", class: "num" }, "Count"),
      el("th", { scope: "col" }, "Tasks"), el("th", { scope: "col" }, "Allocations"))), groups),
    el("h2", { id: "allocs-h" }, "Allocations"),
    el("table", { "aria-labelledby": "allocs-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "ID"), el("th", { scope: "col" }, "Group"), el("th", { scope: "col" }, "Node"),
      el("th", { scope: "col" }, "Desired"), el("th", { scope: "col" }, "Status"), el("th", { scope: "col", class: "num" }, "Version"))), allocs));

  const onError = (err) => errors.replaceChildren(errorBox(err));
  watch(base + q, {
    signal, onError,
    onData: (j) => {
      job = j;
      errors.replaceChildren();
      facts.replaceChildren(
        el("dt", {}, "Status"), el("dd", {}, statusBadge(j.Stop && j.Status !== "dead" ? "stopping" : j.Status)),
        el("dt", {}, "Type"), el("dd", {}, j.Type),
        el("dt", {}, "Priority"), el("dd", {}, j.Priority),
        el("dt", {}, "Namespace"), el("dd", {}, j.Namespace),
        el("dt", {}, "Version"), el("dd", {}, j.Version ?? 0),
        el("dt", {}, "Datacenters"), el("dd", {}, (j.Datacenters || []).join(", ")));
      stop.disabled = !!j.Stop;
      drawGroups();
    },
  });
  watch(`${base}/summary${q}`, { signal, onError, onData: (s) => { summary = s; drawGroups(); } });
  watch(`${base}/allocations${q}`, {
    signal, onError,
    onData: (list) => {
      const rows = (list || []).slice().sort((a, b) => (b.CreateIndex || 0) - (a.CreateIndex || 0)).map((a) =>
        el("tr", {}, el("td", {}, el("code", { title: a.ID }, shortID(a.ID))), el("td", {}, a.TaskGroup),
          el("td", {}, el("code", { title: a.NodeID }, a.NodeName || shortID(a.NodeID))),
          el("td", {}, a.DesiredStatus), el("td", {}, statusBadge(a.ClientStatus)),
          el("td", { class: "num" }, a.JobVersion ?? "")));
      if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No allocations.")));
      allocs.replaceChildren(...rows);
    },
  });
  return id;
}

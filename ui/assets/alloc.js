// /ui/allocations/<id>: one allocation, live (blocking query on
// /v1/allocation/<id>): its facts, actions, task states with their event
// timelines, resources allocated next to used, live logs, an exec terminal
// and the placement metrics.
import { watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { actionsBar } from "./alloc-actions.js";
import { execPanel } from "./alloc-exec.js";
import { logsPanel } from "./alloc-logs.js";
import { metricsSection } from "./alloc-metrics.js";
import { resourcesPanel } from "./alloc-resources.js";

// fmtTime shows a unix-nanosecond or RFC 3339 time in the browser's locale.
export function fmtTime(t) {
  if (!t) return "";
  const d = typeof t === "number" ? new Date(t / 1e6) : new Date(t);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 1971) return "";
  return d.toLocaleString();
}

const allocLink = (id) => el("a", { href: `/ui/allocations/${encodeURIComponent(id)}` }, el("code", { title: id }, shortID(id)));

export function taskNames(a) {
  const tg = a.Job?.TaskGroups?.find((g) => g.Name === a.TaskGroup);
  const names = tg ? tg.Tasks.map((t) => t.Name) : [];
  for (const n of Object.keys(a.TaskStates || {})) if (!names.includes(n)) names.push(n);
  return names;
}

function factsList(a) {
  const ns = encodeURIComponent(a.Namespace || "default");
  const dl = el("dl", { class: "facts" });
  const add = (k, ...v) => dl.append(el("dt", {}, k), el("dd", {}, ...v));
  add("Name", a.Name);
  add("Job", el("a", { href: `/ui/jobs/${encodeURIComponent(a.JobID)}?namespace=${ns}` }, a.JobID));
  add("Namespace", a.Namespace);
  add("Task group", a.TaskGroup);
  add("Node", el("a", { href: `/ui/clients/${encodeURIComponent(a.NodeID)}` }, a.NodeName || shortID(a.NodeID)),
    " ", el("code", { class: "muted", title: a.NodeID }, shortID(a.NodeID)));
  add("Desired", statusBadge(a.DesiredStatus), a.DesiredDescription ? ` (${a.DesiredDescription})` : "");
  add("Client status", statusBadge(a.ClientStatus), a.ClientDescription ? ` (${a.ClientDescription})` : "");
  add("Job version", a.Job?.Version ?? "");
  add("Created", fmtTime(a.CreateTime));
  add("Modified", fmtTime(a.ModifyTime));
  if (a.PreviousAllocation) add("Previous allocation", allocLink(a.PreviousAllocation));
  if (a.NextAllocation) add("Next allocation", allocLink(a.NextAllocation));
  if (a.PreemptedByAllocation) add("Preempted by", allocLink(a.PreemptedByAllocation));
  if (a.PreemptedAllocations?.length) add("Preempted", ...a.PreemptedAllocations.flatMap((p, i) => [i ? ", " : "", allocLink(p)]));
  if (a.DeploymentID) add("Deployment", el("code", { title: a.DeploymentID }, shortID(a.DeploymentID)),
    a.DeploymentStatus?.Healthy === true ? " healthy" : a.DeploymentStatus?.Healthy === false ? " unhealthy" : "");
  return dl;
}

// taskBadge shows a task's state; a dead task is "failed" or "complete"
// in colour, as its Failed flag says.
function taskBadge(st) {
  const state = st?.State || "pending";
  if (state !== "dead") return statusBadge(state);
  return el("span", { class: `status status-${st.Failed ? "failed" : "complete"}` }, st.Failed ? "dead (failed)" : "dead (complete)");
}

function taskCard(name, st) {
  const events = (st?.Events || []).slice().reverse(); // newest first
  const rows = events.map((e) => el("tr", {},
    el("td", { class: "nowrap" }, el("time", { datetime: new Date(e.Time / 1e6).toISOString() }, fmtTime(e.Time))),
    el("td", {}, e.Type),
    el("td", {}, e.DisplayMessage || e.Message || e.DriverError || e.KillError || e.RestartReason || "")));
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 3, class: "muted" }, "No events yet.")));
  const hid = `task-${name}-h`;
  return el("section", { class: "task-card", "aria-labelledby": hid },
    el("h3", { id: hid }, name, " ", taskBadge(st)),
    el("dl", { class: "facts inline" },
      el("dt", {}, "Restarts"), el("dd", {}, st?.Restarts ?? 0),
      el("dt", {}, "Started"), el("dd", {}, fmtTime(st?.StartedAt) || "—"),
      el("dt", {}, "Finished"), el("dd", {}, fmtTime(st?.FinishedAt) || "—"),
      st?.LastRestart && fmtTime(st.LastRestart) ? [el("dt", {}, "Last restart"), el("dd", {}, fmtTime(st.LastRestart))] : null),
    el("table", { class: "events", "aria-label": `Events of task ${name}, newest first` },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Time"), el("th", { scope: "col" }, "Type"), el("th", { scope: "col" }, "Message"))),
      el("tbody", {}, rows)));
}

export function allocPage(main, { params, signal }) {
  const id = params[0];
  const path = `/v1/allocation/${encodeURIComponent(id)}`;
  const errors = el("div");
  const header = el("div", { class: "toolbar" }, el("h1", {}, "Allocation ", el("code", { title: id }, shortID(id))));
  const facts = el("div");
  const tasks = el("div", { class: "task-cards" });
  const actions = actionsBar(id, signal);
  const resources = resourcesPanel(id, signal);
  const logs = logsPanel(id, signal);
  const exec = execPanel(id, signal);
  const metrics = el("div");
  let drawn = false;

  main.replaceChildren(header, errors, el("p", { class: "muted" }, "Loading…"));
  watch(path, {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (a) => {
      errors.replaceChildren();
      const names = taskNames(a);
      facts.replaceChildren(factsList(a));
      tasks.replaceChildren(...names.map((n) => taskCard(n, a.TaskStates?.[n])));
      actions.update(a, names);
      resources.update(a, names);
      logs.update(a, names);
      exec.update(a, names);
      metrics.replaceChildren(metricsSection(a));
      if (!drawn) {
        drawn = true;
        main.replaceChildren(
          el("p", {}, el("a", { href: `/ui/jobs/${encodeURIComponent(a.JobID)}?namespace=${encodeURIComponent(a.Namespace || "default")}` }, `← Job ${a.JobID}`)),
          header, actions.node, errors, facts,
          el("h2", { id: "tasks-h" }, "Tasks"), el("div", { "aria-labelledby": "tasks-h", role: "group" }, tasks),
          resources.node, logs.node, exec.node, metrics);
      }
    },
  });
  return `Allocation ${shortID(id)}`;
}

// /ui/deployments: every deployment, newest first, live.
// /ui/deployments/<id>: one deployment's groups (desired, placed, healthy,
// unhealthy, canaries, promoted, auto revert, progress deadline), Promote
// (all groups or one) and Fail through the API `deployment promote|fail`
// uses, and its allocations with their health.
import { request, watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { allocLink, duration, facts, fill, jobLink, nodeLink, table } from "./listutil.js";

const ACTIVE = new Set(["running", "paused", "pending", "blocked", "unblocking", "initializing"]);

function groupTotals(d) {
  const t = { desired: 0, placed: 0, healthy: 0, unhealthy: 0, canaries: 0 };
  for (const g of Object.values(d.TaskGroups || {})) {
    t.desired += g.DesiredTotal || 0; t.placed += g.PlacedAllocs || 0;
    t.healthy += g.HealthyAllocs || 0; t.unhealthy += g.UnhealthyAllocs || 0;
    t.canaries += g.DesiredCanaries || 0;
  }
  return t;
}

export function deploymentsPage(main, { signal }) {
  const errors = el("div");
  const live = el("span", { class: "live", "aria-live": "polite" });
  const { table: t, body } = table("deps-h", ["ID", "Job", "Namespace", ["Version", "num"], "Status",
    "Description", ["Desired", "num"], ["Placed", "num"], ["Healthy", "num"], ["Unhealthy", "num"], ["Canaries", "num"]]);
  main.replaceChildren(el("h1", { id: "deps-h" }, "Deployments"), live, errors, t);
  watch("/v1/deployments?namespace=*", {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (list) => {
      errors.replaceChildren();
      const rows = (list || []).slice().sort((a, b) => (b.CreateIndex || 0) - (a.CreateIndex || 0)).map((d) => {
        const c = groupTotals(d);
        return el("tr", { "data-deployment": d.ID },
          el("td", {}, el("a", { href: `/ui/deployments/${encodeURIComponent(d.ID)}`, title: d.ID }, el("code", {}, shortID(d.ID)))),
          el("td", {}, jobLink(d.JobID, d.Namespace)), el("td", {}, d.Namespace), el("td", { class: "num" }, d.JobVersion),
          el("td", {}, statusBadge(d.Status)), el("td", {}, d.StatusDescription),
          ...[c.desired, c.placed, c.healthy, c.unhealthy, c.canaries].map((n) => el("td", { class: "num" }, n)));
      });
      fill(body, rows, 11, "No deployments yet. A service job with an update block makes one.");
      live.textContent = `${rows.length} deployments`;
    },
  });
  return "Deployments";
}

function health(a) {
  const h = a.DeploymentStatus?.Healthy;
  if (h === true) return el("span", { class: "status status-running" }, "healthy");
  if (h === false) return el("span", { class: "status status-failed" }, "unhealthy");
  return el("span", { class: "muted" }, "pending");
}

export function deploymentPage(main, { params, signal }) {
  const id = params[0];
  const path = encodeURIComponent(id);
  const errors = el("div");
  const notice = el("p", { "aria-live": "polite", class: "muted" });
  const info = el("div");
  const promoteAll = el("button", { type: "button", class: "primary", hidden: true }, "Promote all groups");
  const fail = el("button", { type: "button", class: "danger", hidden: true }, "Fail deployment");
  const g = table("dep-groups-h", ["Group", ["Desired", "num"], ["Placed", "num"], ["Healthy", "num"],
    ["Unhealthy", "num"], ["Canaries (placed / desired)", "num"], "Promoted", "Auto revert", "Progress deadline", "Require progress by", "Action"]);
  const a = table("dep-allocs-h", ["ID", "Group", "Node", "Status", "Canary", "Health"]);
  main.replaceChildren(el("p", {}, el("a", { href: "/ui/deployments" }, "← Deployments")),
    el("div", { class: "toolbar" }, el("h1", {}, "Deployment ", el("code", {}, shortID(id))), promoteAll, fail),
    notice, errors, info, el("h2", { id: "dep-groups-h" }, "Task groups"), g.table,
    el("h2", { id: "dep-allocs-h" }, "Allocations"), a.table);

  const act = async (what, url, body, button) => {
    button.disabled = true;
    notice.textContent = `${what}…`;
    try {
      const res = await request(url, { method: "POST", body, signal });
      notice.textContent = `${what}: done${res.body?.EvalID ? ` (evaluation ${shortID(res.body.EvalID)})` : ""}.`;
      errors.replaceChildren();
    } catch (err) {
      notice.textContent = "";
      errors.replaceChildren(errorBox(err));
    } finally {
      button.disabled = false;
    }
  };
  promoteAll.addEventListener("click", () => act("Promote all groups", `/v1/deployment/promote/${path}`, { DeploymentID: id, All: true }, promoteAll));
  fail.addEventListener("click", () => {
    if (confirm(`Fail deployment ${shortID(id)}? With auto revert the job goes back to its last stable version.`)) {
      act("Fail deployment", `/v1/deployment/fail/${path}`, { DeploymentID: id }, fail);
    }
  });

  const onError = (err) => errors.replaceChildren(errorBox(err));
  watch(`/v1/deployment/${path}`, {
    signal, onError,
    onData: (d) => {
      const active = ACTIVE.has(d.Status);
      const groups = Object.entries(d.TaskGroups || {}).sort(([x], [y]) => x.localeCompare(y));
      const canPromote = (s) => active && s.DesiredCanaries > 0 && !s.Promoted;
      promoteAll.hidden = !groups.some(([, s]) => canPromote(s));
      fail.hidden = !active;
      info.replaceChildren(facts([["Status", statusBadge(d.Status)], ["Description", d.StatusDescription],
        ["Job", jobLink(d.JobID, d.Namespace)], ["Namespace", d.Namespace], ["Job version", d.JobVersion], ["ID", el("code", {}, d.ID)]]));
      fill(g.body, groups.map(([name, s]) => {
        const btn = canPromote(s) ? el("button", { type: "button", "aria-label": `Promote group ${name}` }, "Promote") : "";
        if (btn) btn.addEventListener("click", () => act(`Promote group ${name}`, `/v1/deployment/promote/${path}`, { DeploymentID: id, Groups: [name] }, btn));
        return el("tr", { "data-group": name }, el("td", {}, name),
          ...[s.DesiredTotal, s.PlacedAllocs, s.HealthyAllocs, s.UnhealthyAllocs].map((n) => el("td", { class: "num" }, n ?? 0)),
          el("td", { class: "num" }, `${(s.PlacedCanaries || []).length} / ${s.DesiredCanaries || 0}`),
          el("td", {}, s.DesiredCanaries ? (s.Promoted ? "yes" : "no") : "n/a"), el("td", {}, s.AutoRevert ? "yes" : "no"),
          el("td", {}, duration(s.ProgressDeadline)),
          el("td", {}, s.RequireProgressBy && !s.RequireProgressBy.startsWith("0001") ? new Date(s.RequireProgressBy).toLocaleString() : ""),
          el("td", {}, btn));
      }), 11, "No task groups.");
    },
  });
  watch(`/v1/deployment/allocations/${path}`, {
    signal, onError,
    onData: (list) => fill(a.body, (list || []).map((x) => el("tr", {},
      el("td", {}, allocLink(x.ID)), el("td", {}, x.TaskGroup), el("td", {}, nodeLink(x.NodeID, x.NodeName)),
      el("td", {}, statusBadge(x.ClientStatus)), el("td", {}, x.DeploymentStatus?.Canary ? "yes" : "no"), el("td", {}, health(x)))),
    6, "No allocations in this deployment."),
  });
  return `Deployment ${shortID(id)}`;
}

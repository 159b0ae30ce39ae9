// The job page's Deployments section: the latest deployment (GET
// /v1/job/<id>/deployment, live) with each group's desired / placed /
// healthy / unhealthy / canaries, Promote and Fail buttons (POST
// /v1/deployment/promote|fail/<id>, as `deployment promote|fail`), and the
// list of the job's deployments.
import { watch } from "./api.js";
import { el, shortID, statusBadge } from "./dom.js";

const th = (text, cls) => el("th", { scope: "col", class: cls }, text);
const num = (v) => el("td", { class: "num" }, v ?? 0);

function groupRows(d) {
  return Object.entries(d.TaskGroups || {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, s]) =>
    el("tr", {}, el("th", { scope: "row" }, name), num(s.DesiredTotal), num(s.PlacedAllocs),
      num(s.HealthyAllocs), num(s.UnhealthyAllocs),
      el("td", { class: "num" }, s.DesiredCanaries ? `${(s.PlacedCanaries || []).length} / ${s.DesiredCanaries}` : "–"),
      el("td", {}, s.DesiredCanaries ? (s.Promoted ? "yes" : "no") : "–"),
      el("td", {}, s.RequireProgressBy && !s.RequireProgressBy.startsWith("0001") ? new Date(s.RequireProgressBy).toLocaleString() : "")));
}

export function deploymentsSection(root, ctx) {
  const latest = el("div");
  const list = el("tbody");
  const promote = el("button", { type: "button", class: "primary" }, "Promote");
  const fail = el("button", { type: "button", class: "danger" }, "Fail");
  let current = null;

  const act = async (verb, button) => {
    if (!current) return;
    if (verb === "fail" && !confirm(`Fail deployment ${shortID(current.ID)}? ${current.TaskGroups ? "Groups with auto-revert go back to their last stable version." : ""}`)) return;
    button.disabled = true;
    ctx.notice(`${verb === "fail" ? "Failing" : "Promoting"} deployment ${shortID(current.ID)}…`);
    const body = verb === "promote" ? { DeploymentID: current.ID, All: true } : undefined;
    const reply = await ctx.write(`/v1/deployment/${verb}/${encodeURIComponent(current.ID)}${ctx.q}`, body);
    if (reply) ctx.notice(`Deployment ${shortID(current.ID)} ${verb === "fail" ? "failed" : "promoted"}.`);
    button.disabled = false;
  };
  promote.addEventListener("click", () => act("promote", promote));
  fail.addEventListener("click", () => act("fail", fail));

  root.replaceChildren(el("h3", {}, "Latest deployment"), latest,
    el("h3", { id: "deps-h" }, "All deployments"),
    el("table", { "aria-labelledby": "deps-h" }, el("thead", {}, el("tr", {},
      th("ID"), th("Version", "num"), th("Status"), th("Description"))), list));

  watch(`${ctx.base}/deployment${ctx.q}`, {
    signal: ctx.signal, onError: ctx.showError,
    onData: (d) => {
      current = d;
      if (!d) { latest.replaceChildren(el("p", { class: "muted" }, "This job has no deployment.")); return; }
      const active = ["running", "paused", "pending", "blocked", "unblocking", "initializing"].includes(d.Status);
      const needsPromotion = Object.values(d.TaskGroups || {}).some((s) => s.DesiredCanaries > 0 && !s.Promoted);
      promote.hidden = !(active && needsPromotion);
      fail.hidden = !active;
      latest.replaceChildren(
        el("div", { class: "toolbar" },
          el("p", {}, "Deployment ", el("code", { title: d.ID }, shortID(d.ID)), ` of version ${d.JobVersion}: `,
            statusBadge(d.Status), d.StatusDescription ? ` — ${d.StatusDescription}` : ""), promote, fail),
        el("table", { "aria-label": "Latest deployment's groups" }, el("thead", {}, el("tr", {},
          th("Group"), th("Desired", "num"), th("Placed", "num"), th("Healthy", "num"), th("Unhealthy", "num"),
          th("Canaries", "num"), th("Promoted"), th("Progress deadline"))), el("tbody", {}, groupRows(d))));
    },
  });
  watch(`${ctx.base}/deployments${ctx.q}`, {
    signal: ctx.signal, onError: ctx.showError,
    onData: (deps) => {
      const rows = (deps || []).map((d) => el("tr", {},
        el("td", {}, el("code", { title: d.ID }, shortID(d.ID))), el("td", { class: "num" }, d.JobVersion),
        el("td", {}, statusBadge(d.Status)), el("td", {}, d.StatusDescription || "")));
      if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 4, class: "muted" }, "No deployments.")));
      list.replaceChildren(...rows);
    },
  });
}

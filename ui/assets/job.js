// /ui/jobs/<id>: the page shell. A header with the job's status and its
// Stop / Start button, section tabs kept in the URL's hash (#overview,
// #versions, #deployments, #evaluations, #definition), and the blocking
// query on the job that every section shares through ctx.onJob.
import { request, watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { jobStatus, overviewSection } from "./job-overview.js";
import { versionsSection } from "./job-versions.js";
import { deploymentsSection } from "./job-deployments.js";
import { evalsSection } from "./job-evals.js";
import { definitionSection } from "./job-plan.js";

const sections = [
  ["overview", "Overview", overviewSection],
  ["versions", "Versions", versionsSection],
  ["deployments", "Deployments", deploymentsSection],
  ["evaluations", "Evaluations", evalsSection],
  ["definition", "Definition", definitionSection],
];

export function jobPage(main, { params, query, signal }) {
  const id = params[0];
  const ns = query.get("namespace") || "default";
  const errors = el("div");
  const notice = el("p", { "aria-live": "polite", class: "muted notice" });
  const listeners = [];
  const ctx = {
    id, ns, signal, job: null,
    base: `/v1/job/${encodeURIComponent(id)}`,
    q: `?namespace=${encodeURIComponent(ns)}`,
    onJob(fn) { listeners.push(fn); if (ctx.job) fn(ctx.job); },
    showError(err) { errors.replaceChildren(errorBox(err)); },
    clearError() { errors.replaceChildren(); },
    notice(text) { notice.textContent = text; },
    // write sends a change and reports it; false when it failed.
    async write(path, body, method = "POST") {
      try {
        const { body: reply } = await request(path, { method, body, signal });
        errors.replaceChildren();
        return reply || {};
      } catch (err) {
        notice.textContent = "";
        errors.replaceChildren(errorBox(err));
        return null;
      }
    },
  };

  const badge = el("span", { class: "job-badge" });
  const stop = el("button", { type: "button", class: "danger", disabled: true }, "Stop job");
  const start = el("button", { type: "button", class: "primary", hidden: true }, "Start job");
  stop.addEventListener("click", async () => {
    if (!confirm(`Stop job "${id}"? Its allocations will be stopped.`)) return;
    stop.disabled = true;
    ctx.notice("Stopping…");
    const reply = await ctx.write(ctx.base + ctx.q, undefined, "DELETE");
    if (reply) ctx.notice(`Stop requested (evaluation ${shortID(reply.EvalID)}).`);
    else stop.disabled = false;
  });
  // Start registers the stopped job again with Stop unset, as Nomad's UI does.
  start.addEventListener("click", async () => {
    if (!ctx.job) return;
    start.disabled = true;
    ctx.notice("Starting…");
    const job = { ...ctx.job, Stop: false };
    const reply = await ctx.write(ctx.base + ctx.q, { Job: job });
    if (reply) ctx.notice(`Start requested (evaluation ${shortID(reply.EvalID)}).`);
    start.disabled = false;
  });

  const tabs = el("ul", { class: "job-tabs" });
  const panels = el("div");
  const started = new Set();
  const select = (name, focus = false) => {
    if (!sections.some(([n]) => n === name)) name = "overview";
    for (const [n, , build] of sections) {
      const panel = panels.querySelector(`#${n}`);
      const link = tabs.querySelector(`a[href="#${n}"]`);
      const on = n === name;
      panel.hidden = !on;
      if (on) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
      if (on && !started.has(n)) {
        started.add(n);
        build(panel.querySelector(".job-section"), ctx);
      }
      if (on && focus) panel.focus();
    }
  };
  for (const [name, label] of sections) {
    tabs.append(el("li", {}, el("a", {
      href: `#${name}`,
      onclick: (e) => { // before app.js's router, which would reload the page
        e.preventDefault();
        history.replaceState(null, "", `${location.pathname}${location.search}#${name}`);
        select(name, true);
      },
    }, label)));
    panels.append(el("section", { id: name, tabindex: "-1", "aria-labelledby": `${name}-h`, class: "job-panel" },
      el("h2", { id: `${name}-h`, class: "visually-hidden" }, label), el("div", { class: "job-section" })));
  }

  main.replaceChildren(
    el("p", {}, el("a", { href: "/ui/jobs" }, "← Jobs")),
    el("div", { class: "toolbar job-head" }, el("h1", {}, id), badge, stop, start,
      el("a", { href: `/ui/jobs/${encodeURIComponent(id)}/why-not${ns !== "default" ? ctx.q : ""}` }, "Why not here?")),
    notice, errors,
    el("nav", { "aria-label": "Job sections" }, tabs), panels);

  watch(ctx.base + ctx.q, {
    signal, onError: ctx.showError,
    onData: (j) => {
      ctx.job = j;
      errors.replaceChildren();
      badge.replaceChildren(statusBadge(jobStatus(j)));
      stop.hidden = !!j.Stop;
      stop.disabled = !!j.Stop;
      start.hidden = !j.Stop;
      for (const fn of listeners) fn(j);
    },
  });
  select(location.hash.slice(1));
  return id;
}

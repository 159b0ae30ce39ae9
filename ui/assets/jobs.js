// /ui/jobs: every job the token may read, in all namespaces, with its
// groups' running/pending/failed counts, a filter box, and live updates
// through a blocking query on GET /v1/jobs.
import { watch } from "./api.js";
import { el, errorBox, statusBadge } from "./dom.js";

// groupCounts sums the job summary's groups: pending is queued + starting.
export function groupCounts(summary) {
  const c = { running: 0, pending: 0, failed: 0, complete: 0, lost: 0, groups: 0 };
  for (const g of Object.values(summary?.Summary || {})) {
    c.groups++;
    c.running += g.Running || 0;
    c.pending += (g.Queued || 0) + (g.Starting || 0);
    c.failed += g.Failed || 0;
    c.complete += g.Complete || 0;
    c.lost += (g.Lost || 0) + (g.Unknown || 0);
  }
  return c;
}

export function summaryCell(c) {
  const total = c.running + c.pending + c.failed + c.complete;
  const bar = el("div", { class: "bar", role: "img",
    "aria-label": `${c.running} running, ${c.pending} pending, ${c.failed} failed, ${c.complete} complete` });
  for (const k of ["running", "pending", "failed", "complete"]) {
    if (!c[k]) continue;
    const s = el("span", { class: k });
    s.style.width = `${(100 * c[k]) / total}%`;
    bar.append(s);
  }
  return el("div", { class: "summary" }, bar,
    el("div", { class: "counts", "aria-hidden": "true" },
      el("span", {}, `${c.running} running`), el("span", {}, `${c.pending} pending`), el("span", {}, `${c.failed} failed`)));
}

function matches(job, words) {
  const hay = `${job.ID} ${job.Name} ${job.Namespace} ${job.Type} ${job.Status}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function jobsPage(main, { query, signal }) {
  const filter = el("input", { type: "search", id: "job-filter", value: query.get("search") || "",
    placeholder: "ID, namespace, type or status", autocomplete: "off" });
  const live = el("span", { class: "live", "aria-live": "polite" });
  const body = el("tbody");
  const errors = el("div");
  const table = el("table", { "aria-describedby": "jobs-caption" },
    el("caption", { id: "jobs-caption", class: "muted", hidden: true }, "Jobs"),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "ID"), el("th", { scope: "col" }, "Namespace"), el("th", { scope: "col" }, "Type"),
      el("th", { scope: "col", class: "num" }, "Priority"), el("th", { scope: "col" }, "Status"),
      el("th", { scope: "col" }, "Groups"), el("th", { scope: "col" }, "Allocations"))),
    body);
  main.replaceChildren(el("h1", {}, "Jobs"),
    el("div", { class: "toolbar" }, el("label", { for: "job-filter" }, "Filter jobs", filter), live),
    errors, table);

  let jobs = null;
  const draw = () => {
    if (!jobs) return;
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = jobs.filter((j) => matches(j, words));
    const rows = shown.map((j) => {
      const c = groupCounts(j.JobSummary);
      const href = `/ui/jobs/${encodeURIComponent(j.ID)}${j.Namespace && j.Namespace !== "default" ? `?namespace=${encodeURIComponent(j.Namespace)}` : ""}`;
      return el("tr", { "data-job": j.ID },
        el("td", {}, el("a", { href }, j.ID)), el("td", {}, j.Namespace), el("td", {}, j.Type),
        el("td", { class: "num" }, j.Priority), el("td", {}, statusBadge(j.Stop && j.Status !== "dead" ? "stopping" : j.Status)),
        el("td", { class: "num" }, c.groups), el("td", {}, summaryCell(c)));
    });
    if (!rows.length) {
      rows.push(el("tr", {}, el("td", { colspan: 7, class: "muted" },
        jobs.length ? "No job matches the filter." : "No jobs yet. Run one with `nomadish job run <file>`.")));
    }
    body.replaceChildren(...rows);
    live.textContent = `${shown.length} of ${jobs.length} jobs`;
    // The browser test reads this mark: the time from navigation to the
    // first list drawn with the cluster's data.
    if (!performance.getEntriesByName("nomadish:jobs-drawn").length) performance.mark("nomadish:jobs-drawn");
  };
  filter.addEventListener("input", () => {
    const u = new URL(location.href);
    if (filter.value) u.searchParams.set("search", filter.value); else u.searchParams.delete("search");
    history.replaceState(null, "", u);
    draw();
  });

  watch("/v1/jobs?namespace=*", {
    signal,
    onData: (list) => {
      errors.replaceChildren();
      jobs = (list || []).slice().sort((a, b) => a.ID.localeCompare(b.ID) || a.Namespace.localeCompare(b.Namespace));
      draw();
    },
    onError: (err) => errors.replaceChildren(errorBox(err)),
  });
  return "Jobs";
}

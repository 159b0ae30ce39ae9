// Resources of an allocation: for each task and dimension what was
// allocated (alloc.AllocatedResources) next to what is used (GET
// /v1/client/allocation/<id>/stats, polled every 3 s while the page is
// open and the allocation runs), as meters with the numbers.
import { request } from "./api.js";
import { el } from "./dom.js";

const POLL = 3000;
const MB = 1024 * 1024;

function meterCell(label, used, allocated) {
  if (used === null || used === undefined || !allocated) return el("td", { class: "muted" }, used === null ? "not measured" : "");
  const pct = Math.round((used / allocated) * 100);
  return el("td", {}, el("meter", { min: 0, max: allocated, low: allocated * 0.8, high: allocated * 0.95, optimum: 0, value: Math.min(used, allocated), "aria-label": `${label}: ${pct}% of allocated` }),
    el("span", { class: "meter-pct" }, ` ${pct}%`));
}

function row(task, dim, allocated, used, unit, meter = true) {
  const fmt = (v) => (v === null || v === undefined ? "—" : `${Math.round(v).toLocaleString()} ${unit}`.trim());
  return el("tr", {}, el("th", { scope: "row" }, task), el("td", {}, dim),
    el("td", { class: "num" }, typeof allocated === "string" ? allocated : fmt(allocated)),
    el("td", { class: "num" }, typeof used === "string" ? used : fmt(used)),
    meter ? meterCell(`${task} ${dim}`, used, allocated) : el("td", { class: "muted" }, ""));
}

export function resourcesPanel(id, signal) {
  const body = el("tbody");
  const note = el("p", { class: "muted live", "aria-live": "polite" });
  let alloc = null;
  let names = [];
  let stats = null;
  let timer = 0;
  let polling = false;

  const draw = () => {
    if (!alloc) return;
    const res = alloc.AllocatedResources || { Tasks: {}, Shared: {} };
    const rows = [];
    for (const n of names) {
      const r = res.Tasks?.[n];
      if (!r) continue;
      const u = stats?.Tasks?.[n]?.ResourceUsage;
      const mem = u?.MemoryStats;
      const memUsed = mem ? (mem.RSS || mem.Usage || 0) / MB : undefined;
      const cpuUsed = u?.CpuStats ? u.CpuStats.TotalTicks : undefined;
      rows.push(row(n, "CPU", r.Cpu?.CpuShares, cpuUsed, "MHz"));
      const cores = r.Cpu?.ReservedCores || [];
      if (cores.length) {
        rows.push(row(n, "Cores", `${cores.length} (${cores.join(", ")})`,
          u?.CpuStats ? `${Math.round(u.CpuStats.Percent)}% of one core` : "—", "", false));
      }
      rows.push(row(n, "Memory", r.Memory?.MemoryMB, memUsed, "MB"));
      if (r.Memory?.MemoryMaxMB) rows.push(row(n, "Memory max", r.Memory.MemoryMaxMB, memUsed, "MB"));
    }
    if (res.Shared?.DiskMB) rows.push(row("(group)", "Disk", res.Shared.DiskMB, null, "MB"));
    if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No allocated resources.")));
    body.replaceChildren(...rows);
  };

  const running = () => alloc && alloc.DesiredStatus === "run" && !["complete", "failed", "lost"].includes(alloc.ClientStatus);

  async function poll() {
    polling = true;
    while (!signal.aborted && running()) {
      try {
        ({ body: stats } = await request(`/v1/client/allocation/${encodeURIComponent(id)}/stats`, { signal }));
        note.textContent = stats?.Timestamp ? `Usage as of ${new Date(stats.Timestamp / 1e6).toLocaleTimeString()}, refreshed every ${POLL / 1000} s.` : "";
        draw();
      } catch (err) {
        if (signal.aborted) break;
        note.textContent = `Usage unavailable: ${err.message}`;
      }
      await new Promise((r) => { timer = setTimeout(r, POLL); signal.addEventListener("abort", r, { once: true }); });
    }
    clearTimeout(timer);
    polling = false;
    if (!signal.aborted && !running()) note.textContent = "The allocation is not running: no usage.";
  }

  const update = (a, taskNames) => {
    alloc = a;
    names = taskNames;
    draw();
    if (!polling && running()) poll();
  };

  const node = el("section", { class: "alloc-resources", "aria-labelledby": "res-h" },
    el("h2", { id: "res-h" }, "Resources: allocated and used"),
    el("table", { "aria-labelledby": "res-h" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Task"), el("th", { scope: "col" }, "Dimension"),
        el("th", { scope: "col", class: "num" }, "Allocated"), el("th", { scope: "col", class: "num" }, "Used"),
        el("th", { scope: "col" }, "Use of allocated"))), body),
    note);
  return { node, update };
}

// /ui/topology: the whole cluster at a glance. A summary per datacenter
// (nodes, allocations, memory and cpu allocated of capacity), the map of
// every node filled by its allocations (topology-canvas.js), and, as its
// text alternative, the selected node's allocations in a table. Live:
// blocking queries on GET /v1/nodes and GET /v1/allocations, both with
// ?resources=true.
import { watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { navigate } from "./app.js";
import { buildModel, jobColor, pct } from "./topology-model.js";
import { topologyCanvas } from "./topology-canvas.js";

const fmtMem = (mb) => (mb >= 10240 ? `${(mb / 1024).toFixed(1)} GiB` : `${mb} MiB`);
const fmtCpu = (mhz) => (mhz >= 10000 ? `${(mhz / 1000).toFixed(1)} GHz` : `${mhz} MHz`);
const nodeHref = (n) => `/ui/clients/${encodeURIComponent(n.ID)}`;
const allocHref = (a) => `/ui/allocations/${encodeURIComponent(a.ID)}`;

function swatch(jobID) {
  const s = el("span", { class: "topo-swatch", "aria-hidden": "true" });
  s.style.background = jobColor(jobID, matchMedia("(prefers-color-scheme: dark)").matches);
  return s;
}

// describe is the tooltip's text for a node and, when hovered, one alloc.
function describe(node, alloc) {
  const n = node.n;
  const lines = [el("strong", {}, n.Name || n.ID),
    el("div", {}, `${n.Status} · ${n.SchedulingEligibility} · ${n.Datacenter} / ${n.NodePool || "default"}`),
    el("div", {}, `memory ${fmtMem(node.used.mem)} of ${fmtMem(node.cap.mem)} (${pct(node.used.mem, node.cap.mem)})`),
    el("div", {}, `cpu ${fmtCpu(node.used.cpu)} of ${fmtCpu(node.cap.cpu)} (${pct(node.used.cpu, node.cap.cpu)})`),
    el("div", {}, `${node.allocs.length} allocation${node.allocs.length === 1 ? "" : "s"}`)];
  if (alloc) {
    lines.push(el("hr"), el("div", {}, swatch(alloc.a.JobID), " ", el("strong", {}, alloc.a.Name)),
      el("div", {}, `${alloc.a.ClientStatus} · ${fmtMem(alloc.mem)} · ${fmtCpu(alloc.cpu)}`),
      el("div", { class: "muted" }, "Click to open the allocation"));
  } else {
    lines.push(el("div", { class: "muted" }, "Click to open the node"));
  }
  return lines;
}

function summaryTable(m) {
  const row = (label, t, head) => el("tr", {},
    el(head ? "th" : "td", head ? { scope: "row" } : {}, label),
    el("td", { class: "num" }, `${t.ready} / ${t.nodes}`), el("td", { class: "num" }, t.allocs),
    el("td", { class: "num" }, `${fmtMem(t.mem)} / ${fmtMem(t.memCap)} (${pct(t.mem, t.memCap)})`),
    el("td", { class: "num" }, `${fmtCpu(t.cpu)} / ${fmtCpu(t.cpuCap)} (${pct(t.cpu, t.cpuCap)})`));
  return el("table", { class: "topo-summary", "aria-labelledby": "topo-sum-h" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Datacenter"),
      el("th", { scope: "col", class: "num" }, "Nodes ready / total"), el("th", { scope: "col", class: "num" }, "Allocations"),
      el("th", { scope: "col", class: "num" }, "Memory allocated / capacity"), el("th", { scope: "col", class: "num" }, "CPU allocated / capacity"))),
    el("tbody", {}, m.dcs.map((d) => row(d.dc || "(none)", d, true))),
    el("tfoot", {}, row("All", m.totals, true)));
}

function legend(m) {
  const count = new Map();
  for (const node of m.byID.values()) for (const s of node.allocs) count.set(s.a.JobID, (count.get(s.a.JobID) || 0) + 1);
  const jobs = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = jobs.slice(0, 16);
  return el("ul", { class: "topo-legend", "aria-label": "Jobs by colour" },
    shown.map(([id, n]) => el("li", {}, swatch(id), ` ${id} (${n})`)),
    jobs.length > shown.length ? el("li", { class: "muted" }, `and ${jobs.length - shown.length} more jobs`) : null);
}

export function topologyPage(main, { query, signal }) {
  let by = query.get("by") === "cpu" ? "cpu" : "mem";
  const errors = el("div");
  const summary = el("div", {}, el("p", { class: "muted" }, "Loading…"));
  const legendBox = el("div");
  const status = el("p", { class: "live", "aria-live": "polite" });
  const selBox = el("section", { class: "topo-selected", "aria-labelledby": "topo-sel-h", "aria-live": "polite" });
  const radios = ["mem", "cpu"].map((v) => {
    const input = el("input", { type: "radio", name: "topo-by", id: `topo-by-${v}`, value: v, checked: by === v });
    input.addEventListener("change", () => {
      by = v;
      const u = new URL(location.href);
      if (v === "cpu") u.searchParams.set("by", "cpu"); else u.searchParams.delete("by");
      history.replaceState(null, "", u);
      map.setBy(by);
    });
    return el("label", { class: "topo-radio", for: `topo-by-${v}` }, input, v === "mem" ? "by memory" : "by cpu");
  });
  const showSelected = (node) => {
    if (!node) { selBox.replaceChildren(el("h2", { id: "topo-sel-h" }, "Selected node"), el("p", { class: "muted" }, "No node selected.")); return; }
    const n = node.n;
    const rows = node.allocs.map((s) => el("tr", { "data-alloc": s.a.ID, "data-job": s.a.JobID },
      el("td", {}, el("a", { href: allocHref(s.a) }, el("code", {}, shortID(s.a.ID)))),
      el("td", {}, swatch(s.a.JobID), " ", el("a", { href: `/ui/jobs/${encodeURIComponent(s.a.JobID)}${s.a.Namespace && s.a.Namespace !== "default" ? `?namespace=${encodeURIComponent(s.a.Namespace)}` : ""}` }, s.a.JobID)),
      el("td", {}, s.a.TaskGroup), el("td", {}, statusBadge(s.a.ClientStatus)),
      el("td", { class: "num" }, fmtMem(s.mem)), el("td", { class: "num" }, fmtCpu(s.cpu))));
    if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No allocations on this node.")));
    selBox.replaceChildren(
      el("h2", { id: "topo-sel-h" }, "Node ", el("a", { href: nodeHref(n), "data-node": n.ID }, n.Name || n.ID)),
      el("p", { class: "muted" }, `${n.Status}, ${n.SchedulingEligibility}, ${n.Datacenter} / pool ${n.NodePool || "default"}: `,
        `memory ${fmtMem(node.used.mem)} of ${fmtMem(node.cap.mem)} (${pct(node.used.mem, node.cap.mem)}), `,
        `cpu ${fmtCpu(node.used.cpu)} of ${fmtCpu(node.cap.cpu)} (${pct(node.used.cpu, node.cap.cpu)}).`),
      el("table", { "aria-label": `Allocations on ${n.Name || n.ID}` },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Allocation"), el("th", { scope: "col" }, "Job"),
          el("th", { scope: "col" }, "Group"), el("th", { scope: "col" }, "Status"),
          el("th", { scope: "col", class: "num" }, "Memory"), el("th", { scope: "col", class: "num" }, "CPU"))),
        el("tbody", {}, rows)));
  };
  const map = topologyCanvas({
    signal,
    describe,
    onSelect: showSelected,
    onOpen: (node, alloc) => navigate(alloc ? allocHref(alloc.a) : nodeHref(node.n)),
    onDraw: (ms, drawn) => { status.dataset.drawMs = ms.toFixed(2); status.title = `last draw ${ms.toFixed(1)} ms, ${drawn} nodes on screen`; },
  });

  main.replaceChildren(el("h1", {}, "Topology"), errors,
    el("h2", { id: "topo-sum-h" }, "Summary"), summary,
    el("div", { class: "toolbar topo-toolbar" },
      el("fieldset", { class: "topo-by" }, el("legend", {}, "Size allocations"), ...radios), status),
    legendBox, map.element,
    el("p", { class: "muted" }, "Hover a node for its details; click a node or an allocation to open it. ",
      "With the map focused, arrow keys select a node (its allocations are listed below) and Enter opens it."),
    selBox);
  showSelected(null);

  let nodes = null, allocs = null;
  const update = () => {
    if (!nodes || !allocs) return;
    const t0 = performance.now();
    const m = buildModel(nodes, allocs);
    summary.replaceChildren(summaryTable(m));
    legendBox.replaceChildren(legend(m));
    status.textContent = `${m.totals.nodes} node${m.totals.nodes === 1 ? "" : "s"}, ${m.totals.allocs} live allocation${m.totals.allocs === 1 ? "" : "s"}`;
    map.setModel(m, by);
    status.dataset.updateMs = (performance.now() - t0).toFixed(2); // model, summary and first draw
  };
  const onError = (err) => errors.replaceChildren(errorBox(err));
  watch("/v1/nodes?resources=true", { signal, onError, onData: (l) => { errors.replaceChildren(); nodes = l || []; update(); } });
  watch("/v1/allocations?resources=true&namespace=*", { signal, onError, onData: (l) => { errors.replaceChildren(); allocs = l || []; update(); } });
  return "Topology";
}

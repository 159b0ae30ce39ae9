// /ui/clients: every node with its status, eligibility, drain, pool, class,
// datacenter, address, running allocations and, per dimension, what is
// allocated next to what the host uses (Nomad #8939). Live: a blocking
// query on GET /v1/nodes?resources=true (a node's GET /v1/node/<id> when
// the rows come without NodeResources) and one on GET /v1/allocations (a
// node whose allocations changed has them fetched again); host stats are
// polled every 10 s.
import { request, watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { meter } from "./meter.js";
import { allocated, capacity, used } from "./node-resources.js";

const STATS_EVERY = 10000;

export const DIMS = [
  ["cpu", "CPU", "MHz"], ["memory", "Memory", "MB"], ["disk", "Disk", "MB"], ["cores", "Cores", ""],
];

function matches(n, words) {
  const hay = `${n.ID} ${n.Name} ${n.Status} ${n.SchedulingEligibility} ${n.NodePool} ${n.NodeClass} ${n.Datacenter} ${n.Address} ${n.Drain ? "draining" : ""}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function clientsPage(main, { query, signal }) {
  const filter = el("input", { type: "search", id: "client-filter", value: query.get("search") || "",
    placeholder: "name, ID, status, pool, class, datacenter", autocomplete: "off" });
  const live = el("span", { class: "live", "aria-live": "polite" });
  const body = el("tbody");
  const errors = el("div");
  const head = el("tr", {},
    ["Name", "Status", "Eligibility", "Pool", "Class", "Datacenter", "Address"].map((h) => el("th", { scope: "col" }, h)),
    el("th", { scope: "col", class: "num" }, "Allocs"),
    DIMS.map(([, h, unit]) => el("th", { scope: "col" }, `${h}${unit ? ` (${unit})` : ""}`)));
  main.replaceChildren(el("h1", {}, "Clients"),
    el("div", { class: "toolbar" }, el("label", { for: "client-filter" }, "Filter clients", filter), live),
    el("p", { class: "muted" }, "Each dimension shows what the scheduler allocated (sum of the live allocations) and what the host uses (its client's stats), against what the node offers."),
    errors,
    el("div", { class: "table-scroll" }, el("table", { class: "clients" },
      el("caption", { class: "visually-hidden" }, "Clients"), el("thead", {}, head), body)));

  let nodes = null;
  const full = new Map(); // node ID -> {index, node}
  const allocs = new Map(); // node ID -> allocations
  const stats = new Map(); // node ID -> host stats, or an Error

  const draw = () => {
    if (!nodes) return;
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = nodes.filter((n) => matches(n, words));
    const rows = shown.map((n) => {
      const node = full.get(n.ID)?.node;
      const cap = node ? capacity(node) : {};
      const al = allocs.has(n.ID) ? allocated(allocs.get(n.ID)) : {};
      const st = stats.get(n.ID);
      const u = st instanceof Error ? {} : used(st);
      const running = (allocs.get(n.ID) || []).filter((a) => a.ClientStatus === "running").length;
      return el("tr", { "data-node": n.ID },
        el("td", {}, el("a", { href: `/ui/clients/${encodeURIComponent(n.ID)}` }, n.Name || shortID(n.ID)),
          el("div", { class: "muted mono" }, shortID(n.ID))),
        el("td", {}, statusBadge(n.Status)),
        el("td", {}, n.SchedulingEligibility, n.Drain ? el("div", {}, el("strong", {}, "draining")) : null),
        el("td", {}, n.NodePool), el("td", {}, n.NodeClass || el("span", { class: "muted" }, "none")),
        el("td", {}, n.Datacenter), el("td", { class: "mono" }, n.Address),
        el("td", { class: "num" }, allocs.has(n.ID) ? running : "…"),
        DIMS.map(([k, label, unit]) => el("td", { "data-dim": k, title: st instanceof Error ? `host stats: ${st.message}` : undefined },
          meter({ label, unit, allocated: al[k], used: k === "cores" ? undefined : u[k], capacity: cap[k], compact: true }))));
    });
    if (!rows.length) {
      rows.push(el("tr", {}, el("td", { colspan: 7 + 1 + DIMS.length, class: "muted" },
        nodes.length ? "No client matches the filter." : "No clients have registered.")));
    }
    body.replaceChildren(...rows);
    live.textContent = `${shown.length} of ${nodes.length} clients`;
  };
  filter.addEventListener("input", () => {
    const url = new URL(location.href);
    if (filter.value) url.searchParams.set("search", filter.value); else url.searchParams.delete("search");
    history.replaceState(null, "", url);
    draw();
  });

  const onError = (err) => { if (!signal.aborted) errors.replaceChildren(errorBox(err)); };
  let sigs = new Map(); // node ID -> its allocations' IDs and indexes, from the alloc list
  const fetched = new Map(); // node ID -> the signature its allocations were fetched at
  const refreshAllocs = async () => {
    for (const n of nodes || []) {
      const sig = sigs.get(n.ID) || "";
      if (allocs.has(n.ID) && fetched.get(n.ID) === sig) continue;
      fetched.set(n.ID, sig);
      try {
        const { body: list } = await request(`/v1/node/${encodeURIComponent(n.ID)}/allocations`, { signal });
        allocs.set(n.ID, list || []);
      } catch (err) { onError(err); return; }
    }
    draw();
  };
  let pending = null; // debounces alloc refreshes
  const scheduleAllocs = () => {
    clearTimeout(pending);
    pending = setTimeout(refreshAllocs, 250);
  };
  const refreshStats = async () => {
    for (const n of nodes || []) {
      if (n.Status !== "ready") { stats.delete(n.ID); continue; }
      try {
        const { body: s } = await request(`/v1/client/stats?node_id=${encodeURIComponent(n.ID)}`, { signal });
        stats.set(n.ID, s);
      } catch (err) {
        if (signal.aborted) return;
        stats.set(n.ID, err);
      }
    }
    draw();
  };
  const timer = setInterval(refreshStats, STATS_EVERY);
  signal.addEventListener("abort", () => { clearInterval(timer); clearTimeout(pending); });

  watch("/v1/nodes?resources=true", {
    signal, onError,
    onData: async (list) => {
      errors.replaceChildren();
      const first = nodes === null;
      nodes = (list || []).slice().sort((a, b) => (a.Name || a.ID).localeCompare(b.Name || b.ID));
      draw();
      for (const n of nodes) {
        if (full.get(n.ID)?.index === n.ModifyIndex) continue;
        if (n.NodeResources) { // ?resources=true answered, as Nomad's does: no need to fetch the node
          full.set(n.ID, { index: n.ModifyIndex, node: n });
          continue;
        }
        try {
          const { body: node } = await request(`/v1/node/${encodeURIComponent(n.ID)}`, { signal });
          full.set(n.ID, { index: n.ModifyIndex, node });
        } catch (err) { onError(err); }
      }
      draw();
      if (first) refreshStats();
      scheduleAllocs();
    },
  });
  // Only the nodes whose allocations changed are fetched again.
  watch("/v1/allocations?namespace=*", {
    signal, onError,
    onData: (list) => {
      const by = new Map();
      for (const a of list || []) by.set(a.NodeID, `${by.get(a.NodeID) || ""}${a.ID}@${a.ModifyIndex};`);
      sigs = by;
      if (nodes) scheduleAllocs();
    },
  });
  return "Clients";
}

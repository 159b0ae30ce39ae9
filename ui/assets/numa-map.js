// numaMap({node, allocs}) draws the node's CPU topology: each NUMA node a
// box of its cores (SMT siblings grouped), each core a cell that is free,
// held by an allocation's task (linked, coloured per allocation, with a
// legend), reserved by the client's config, or disabled. Cells carry
// data-core, data-state and, when held, data-alloc and data-task.
import { el, shortID } from "./dom.js";
import { coreState, heldCores, topologyOf } from "./node-resources.js";

// Colours that keep white text at AA contrast.
const PALETTE = ["#0b5cad", "#7b2fd6", "#b3261e", "#0e7a5f", "#9a4a1e", "#5b4a9f", "#00695c", "#ad1457", "#3d5a80", "#6b5b00"];

function coreCell(node, core, held, colours) {
  const h = held.get(core.ID);
  const base = coreState(node, core);
  const state = h ? "held" : base === "usable" ? "free" : base;
  const sib = (core.Siblings || []).filter((s) => s !== core.ID);
  const extra = sib.length ? `, SMT sibling of ${sib.join(", ")}` : "";
  let label;
  if (h) label = `Core ${core.ID}: held by allocation ${shortID(h.alloc.ID)} (${h.alloc.JobID}), task ${h.task}${extra}`;
  else if (state === "reserved") label = `Core ${core.ID}: reserved by the client configuration${extra}`;
  else if (state === "disabled") label = `Core ${core.ID}: disabled (offline or not reservable)${extra}`;
  else label = `Core ${core.ID}: free${extra}`;
  const cell = el("li", {
    class: `core core-${state}`, "data-core": core.ID, "data-state": state,
    "data-alloc": h?.alloc.ID, "data-task": h?.task, title: label, "aria-label": label,
  }, el("span", { class: "core-id", "aria-hidden": "true" }, core.ID));
  if (h) {
    cell.style.setProperty("--alloc-colour", colours.get(h.alloc.ID));
    cell.append(el("a", { class: "core-alloc", href: `/ui/allocations/${h.alloc.ID}`, "aria-label": label }, shortID(h.alloc.ID)),
      el("span", { class: "core-task", "aria-hidden": "true" }, h.task));
  } else {
    cell.append(el("span", { class: "core-what", "aria-hidden": "true" }, state));
  }
  return cell;
}

// physical groups a NUMA node's cores by their sibling set.
function physical(cores) {
  const groups = new Map();
  for (const c of cores) {
    const key = (c.Siblings?.length ? c.Siblings : [c.ID]).slice().sort((a, b) => a - b).join(",");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  return [...groups.values()];
}

export function numaMap({ node, allocs }) {
  const topo = topologyOf(node);
  const held = heldCores(allocs);
  const colours = new Map();
  for (const { alloc } of held.values()) {
    if (!colours.has(alloc.ID)) colours.set(alloc.ID, PALETTE[colours.size % PALETTE.length]);
  }
  const counts = { held: 0, free: 0, reserved: 0, disabled: 0 };
  const boxes = topo.numa.map((n) => {
    const cores = topo.cores.filter((c) => c.NodeID === n.id);
    const sockets = [...new Set(cores.map((c) => c.SocketID))];
    const groups = physical(cores).map((g) => {
      const cells = g.map((c) => coreCell(node, c, held, colours));
      for (const c of cells) counts[c.dataset.state]++;
      return g.length > 1
        ? el("li", { class: "phys", "aria-label": `Physical core with threads ${g.map((c) => c.ID).join(", ")}` }, el("ul", { class: "cores" }, cells))
        : cells[0];
    });
    const facts = [`${cores.length} cores`];
    if (sockets.length) facts.push(`socket ${sockets.join(", ")}`);
    if (n.memoryMB) facts.push(`${n.memoryMB.toLocaleString("en-US")} MB`);
    if (n.distances?.length > 1) facts.push(`distances ${n.distances.join(" ")}`);
    return el("section", { class: "numa-node", "data-numa": n.id, "aria-label": `NUMA node ${n.id}` },
      el("h3", {}, `NUMA node ${n.id}`, el("span", { class: "muted" }, ` · ${facts.join(" · ")}`)),
      el("ul", { class: "cores" }, groups));
  });
  const legend = el("ul", { class: "numa-legend", "aria-label": "Legend" },
    [...colours].map(([id, colour]) => {
      const a = [...held.values()].find((h) => h.alloc.ID === id).alloc;
      const sw = el("span", { class: "swatch", "aria-hidden": "true" });
      sw.style.background = colour;
      return el("li", {}, sw, el("a", { href: `/ui/allocations/${id}` }, shortID(id)), ` ${a.JobID} / ${a.TaskGroup}`);
    }),
    ["free", "reserved", "disabled"].map((s) => el("li", {}, el("span", { class: `swatch core-${s}`, "aria-hidden": "true" }), s)));
  const allocCount = colours.size;
  const summary = `${topo.numa.length} NUMA node${topo.numa.length === 1 ? "" : "s"}, ${topo.cores.length} cores: ` +
    `${counts.held} held by ${allocCount} allocation${allocCount === 1 ? "" : "s"}, ${counts.reserved} reserved, ` +
    `${counts.disabled} disabled, ${counts.free} free.`;
  return el("div", { class: "numa-map" }, el("p", { class: "numa-summary" }, summary), legend,
    topo.cores.length ? el("div", { class: "numa-nodes" }, boxes) : el("p", { class: "muted" }, "This node reports no CPU cores."));
}

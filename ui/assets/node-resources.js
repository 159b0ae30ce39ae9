// What a node offers, what its live allocations hold and what its host
// uses, from the public API's JSON (GET /v1/node/<id>,
// /v1/node/<id>/allocations, /v1/client/stats?node_id=).

// liveAlloc: an allocation that still holds its resources on the node.
export function liveAlloc(a) {
  return a.DesiredStatus === "run" && !["complete", "failed", "lost"].includes(a.ClientStatus);
}

// capacity: what the scheduler may place, after the client's reserved
// resources (cpu MHz, memory MB, disk MB, cores).
export function capacity(node) {
  const r = node?.NodeResources || {};
  const res = node?.ReservedResources || {};
  const cores = topologyOf(node).cores.filter((c) => coreState(node, c) !== "reserved" && coreState(node, c) !== "disabled").length;
  return {
    cpu: (r.Cpu?.CpuShares || 0) - (res.Cpu?.CpuShares || 0),
    memory: (r.Memory?.MemoryMB || 0) - (res.Memory?.MemoryMB || 0),
    disk: (r.Disk?.DiskMB || 0) - (res.Disk?.DiskMB || 0),
    cores,
  };
}

// allocated sums the live allocations' AllocatedResources.
export function allocated(allocs) {
  const out = { cpu: 0, memory: 0, disk: 0, cores: 0, count: 0 };
  for (const a of allocs || []) {
    if (!liveAlloc(a)) continue;
    out.count++;
    const ar = a.AllocatedResources || {};
    for (const t of Object.values(ar.Tasks || {})) {
      out.cpu += t.Cpu?.CpuShares || 0;
      out.memory += t.Memory?.MemoryMB || 0;
      out.cores += (t.Cpu?.ReservedCores || []).length;
    }
    out.disk += ar.Shared?.DiskMB || 0;
  }
  return out;
}

// used: the host's use from its client's stats (cpu MHz, memory and alloc
// dir disk in MB); undefined figures are unknown.
export function used(stats) {
  if (!stats) return {};
  const mb = (b) => (b === undefined ? undefined : Math.round(b / 1048576));
  return {
    cpu: stats.CPUTicksConsumed === undefined ? undefined : Math.round(stats.CPUTicksConsumed),
    memory: mb(stats.Memory?.Used),
    disk: mb(stats.AllocDirStats?.Used),
    cores: (stats.CPU || []).filter((c) => c.Total >= 50).length,
  };
}

// numaIDs decodes Topology.Nodes: Go encodes the []uint8 as base64.
function numaIDs(nodes) {
  if (Array.isArray(nodes)) return nodes;
  if (typeof nodes === "string" && nodes) {
    try { return Array.from(atob(nodes), (ch) => ch.charCodeAt(0)); } catch { return []; }
  }
  return [];
}

// topologyOf returns {numa: [{id, memoryMB, distances}], cores}: the
// fingerprinted topology, or NUMA node 0 holding the reservable cores.
export function topologyOf(node) {
  const t = node?.NodeResources?.Processors?.Topology;
  if (t && (t.Cores || []).length) {
    const ids = numaIDs(t.Nodes);
    for (const c of t.Cores) if (!ids.includes(c.NodeID)) ids.push(c.NodeID);
    return {
      numa: ids.map((id, i) => ({ id, memoryMB: t.NodeMemoryMB?.[i], distances: t.Distances?.[i] || [] })),
      cores: t.Cores.slice().sort((a, b) => a.ID - b.ID),
    };
  }
  const ids = node?.NodeResources?.Cpu?.ReservableCpuCores || [];
  return { numa: [{ id: 0, distances: [] }], cores: ids.map((id) => ({ ID: id, NodeID: 0, SocketID: 0, Siblings: [id] })) };
}

// coreState: "reserved" (the client's reserved { cores }), "disabled"
// (offline or not reservable) or "usable".
export function coreState(node, core) {
  if ((node?.ReservedResources?.Cpu?.ReservedCpuCores || []).includes(core.ID)) return "reserved";
  const rc = node?.NodeResources?.Cpu?.ReservableCpuCores || [];
  if (core.Disable || (rc.length && !rc.includes(core.ID))) return "disabled";
  return "usable";
}

// heldCores maps core ID to {alloc, task} for the live allocations.
export function heldCores(allocs) {
  const held = new Map();
  for (const a of allocs || []) {
    if (!liveAlloc(a)) continue;
    for (const [task, r] of Object.entries(a.AllocatedResources?.Tasks || {})) {
      for (const id of r.Cpu?.ReservedCores || []) held.set(id, { alloc: a, task });
    }
  }
  return held;
}

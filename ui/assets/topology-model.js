// The topology page's data: nodes (GET /v1/nodes?resources=true) and their
// live allocations (GET /v1/allocations?resources=true), grouped by
// datacenter then node pool, with per-node and per-datacenter totals.

const terminal = new Set(["complete", "failed", "lost"]);

// allocSize is an allocation's cpu (MHz) and memory (MB): the sum of its
// tasks' AllocatedResources.
export function allocSize(a) {
  let cpu = 0;
  let mem = 0;
  for (const t of Object.values(a.AllocatedResources?.Tasks || {})) {
    cpu += t.Cpu?.CpuShares || 0;
    mem += t.Memory?.MemoryMB || 0;
  }
  return { cpu, mem };
}

// nodeCapacity is what the scheduler may hand out on a node: its
// resources minus what the client reserves.
export function nodeCapacity(n) {
  const r = n.NodeResources || {};
  const res = n.ReservedResources || {};
  return {
    cpu: Math.max(0, (r.Cpu?.CpuShares || 0) - (res.Cpu?.CpuShares || 0)),
    mem: Math.max(0, (r.Memory?.MemoryMB || 0) - (res.Memory?.MemoryMB || 0)),
  };
}

// buildModel joins the two lists. It returns {groups, byID, dcs, totals}:
// groups are [{dc, pool, nodes}] sorted by name; each node is
// {n, cap, used: {cpu, mem}, allocs: [{a, cpu, mem}]}.
export function buildModel(nodes, allocs) {
  const byID = new Map();
  for (const n of nodes || []) {
    byID.set(n.ID, { n, cap: nodeCapacity(n), used: { cpu: 0, mem: 0 }, allocs: [] });
  }
  let live = 0;
  for (const a of allocs || []) {
    if (terminal.has(a.ClientStatus)) continue;
    const node = byID.get(a.NodeID);
    if (!node) continue;
    const s = allocSize(a);
    node.allocs.push({ a, cpu: s.cpu, mem: s.mem });
    node.used.cpu += s.cpu;
    node.used.mem += s.mem;
    live++;
  }
  const groupMap = new Map();
  const dcs = new Map();
  const totals = { nodes: 0, ready: 0, allocs: live, cpu: 0, cpuCap: 0, mem: 0, memCap: 0 };
  for (const node of byID.values()) {
    node.allocs.sort((x, y) => x.a.JobID.localeCompare(y.a.JobID) || x.a.Name.localeCompare(y.a.Name));
    const dc = node.n.Datacenter || "";
    const pool = node.n.NodePool || "default";
    const key = `${dc}\u0000${pool}`;
    if (!groupMap.has(key)) groupMap.set(key, { dc, pool, nodes: [] });
    groupMap.get(key).nodes.push(node);
    if (!dcs.has(dc)) dcs.set(dc, { dc, nodes: 0, ready: 0, allocs: 0, cpu: 0, cpuCap: 0, mem: 0, memCap: 0 });
    for (const t of [dcs.get(dc), totals]) {
      t.nodes++;
      if (node.n.Status === "ready") t.ready++;
      t.cpu += node.used.cpu; t.cpuCap += node.cap.cpu;
      t.mem += node.used.mem; t.memCap += node.cap.mem;
    }
    dcs.get(dc).allocs += node.allocs.length;
  }
  const groups = [...groupMap.values()].sort((x, y) => x.dc.localeCompare(y.dc) || x.pool.localeCompare(y.pool));
  for (const g of groups) g.nodes.sort((x, y) => (x.n.Name || x.n.ID).localeCompare(y.n.Name || y.n.ID));
  return { groups, byID, dcs: [...dcs.values()].sort((x, y) => x.dc.localeCompare(y.dc)), totals };
}

// jobColor is a stable colour per job ID (a hue from a string hash), with
// a lightness that reads on the light and the dark background.
const colorCache = new Map();
export function jobColor(jobID, dark) {
  const key = `${dark ? 1 : 0}${jobID}`;
  let c = colorCache.get(key);
  if (!c) {
    let h = 2166136261;
    for (let i = 0; i < jobID.length; i++) h = Math.imul(h ^ jobID.charCodeAt(i), 16777619);
    h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
    const hue = ((h >>> 0) % 24) * 15; // 24 hues 15° apart
    const light = (h >>> 8) & 1 ? 0 : 8; // and two lightnesses
    c = `hsl(${hue} ${dark ? 60 : 55}% ${(dark ? 56 : 38) + light}%)`;
    colorCache.set(key, c);
  }
  return c;
}

export function pct(used, cap) {
  return cap > 0 ? `${Math.round((100 * used) / cap)}%` : "–";
}

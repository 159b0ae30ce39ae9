// /ui/clients/<id>: one node: its facts, eligibility and drain actions,
// allocated vs used meters, the CPU/NUMA topology map with the cores each
// allocation's task holds, the allocations on it, its events, drivers,
// host volumes, attributes and meta. Live: blocking queries on GET
// /v1/node/<id> and /v1/node/<id>/allocations; host stats every 5 s.
import { request, watch } from "./api.js";
import { el, errorBox, shortID, statusBadge } from "./dom.js";
import { DIMS } from "./clients.js";
import { attributesSection, driversSection, eventsSection, metaSection, volumesSection } from "./client-details.js";
import { meter } from "./meter.js";
import { allocated, capacity, liveAlloc, used } from "./node-resources.js";
import { numaMap } from "./numa-map.js";

const STATS_EVERY = 5000;
const DRAIN_DEADLINE_NS = 3600 * 1e9; // one hour, the CLI's default

export function clientPage(main, { params, signal }) {
  const idParam = params[0];
  const errors = el("div");
  const title = el("h1", {}, shortID(idParam));
  const facts = el("dl", { class: "facts" });
  const notice = el("p", { "aria-live": "polite", class: "muted" });
  const elig = el("button", { type: "button", disabled: true }, "Eligibility");
  const drain = el("button", { type: "button", disabled: true }, "Drain");
  const meters = el("div", { class: "meters" });
  const map = el("div");
  const allocBody = el("tbody");
  const sections = [eventsSection(), driversSection(), volumesSection(), attributesSection(), metaSection()];
  let node = null;
  let allocs = null;
  let stats = null;
  let statsErr = null;

  main.replaceChildren(
    el("p", {}, el("a", { href: "/ui/clients" }, "← Clients")),
    el("div", { class: "toolbar client-head" }, title, el("div", { class: "actions" }, elig, drain)), notice, errors, facts,
    el("h2", { id: "res-h" }, "Resources: allocated and used"), meters,
    el("h2", { id: "topo-h" }, "CPU and NUMA topology"), map,
    el("h2", { id: "allocs-h" }, "Allocations"),
    el("table", { "aria-labelledby": "allocs-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "ID"), el("th", { scope: "col" }, "Job"), el("th", { scope: "col" }, "Group"),
      el("th", { scope: "col" }, "Desired"), el("th", { scope: "col" }, "Status"),
      el("th", { scope: "col", class: "num" }, "CPU (MHz)"), el("th", { scope: "col", class: "num" }, "Memory (MB)"),
      el("th", { scope: "col" }, "Cores"))), allocBody),
    ...sections);

  const onError = (err) => { if (!signal.aborted) errors.replaceChildren(errorBox(err)); };

  const drawFacts = () => {
    const n = node;
    title.textContent = n.Name || n.ID;
    const ds = n.DrainStrategy;
    facts.replaceChildren(
      el("dt", {}, "ID"), el("dd", { class: "mono" }, n.ID),
      el("dt", {}, "Status"), el("dd", {}, statusBadge(n.Status), n.StatusDescription ? ` ${n.StatusDescription}` : ""),
      el("dt", {}, "Eligibility"), el("dd", { "data-fact": "eligibility" }, n.SchedulingEligibility),
      el("dt", {}, "Drain"), el("dd", { "data-fact": "drain" }, n.Drain ? `draining${ds?.ForceDeadline && !ds.ForceDeadline.startsWith("0001") ? ` (deadline ${new Date(ds.ForceDeadline).toLocaleString()})` : ""}` : "no"),
      el("dt", {}, "Node pool"), el("dd", {}, n.NodePool),
      el("dt", {}, "Class"), el("dd", {}, n.NodeClass || "none"),
      el("dt", {}, "Datacenter"), el("dd", {}, n.Datacenter),
      el("dt", {}, "Address"), el("dd", { class: "mono" }, n.HTTPAddr || n.Attributes?.["unique.network.ip-address"] || ""),
      el("dt", {}, "Version"), el("dd", {}, n.Attributes?.["nomad.version"] || ""));
    const eligible = n.SchedulingEligibility === "eligible";
    elig.textContent = eligible ? "Mark ineligible" : "Mark eligible";
    elig.disabled = false;
    drain.textContent = n.Drain ? "Stop drain" : "Drain";
    drain.className = n.Drain ? "" : "danger";
    drain.disabled = false;
    for (const s of sections) s.redraw(n);
  };

  const drawUsage = () => {
    if (!node) return;
    const cap = capacity(node);
    const al = allocs ? allocated(allocs) : {};
    const u = used(stats);
    meters.replaceChildren(...DIMS.map(([k, label, unit]) =>
      el("div", { "data-dim": k }, meter({ label, unit, allocated: al[k], used: k === "cores" ? undefined : u[k], capacity: cap[k] }))),
    el("p", { class: "muted" }, statsErr ? `Host stats unavailable: ${statsErr.message}`
      : "Used is the whole host's use (GET /v1/client/stats), allocated the sum of the live allocations."));
    if (allocs) map.replaceChildren(numaMap({ node, allocs }));
  };

  const drawAllocs = () => {
    const list = (allocs || []).slice().sort((a, b) => Number(liveAlloc(b)) - Number(liveAlloc(a)) || (b.CreateIndex || 0) - (a.CreateIndex || 0));
    const rows = list.map((a) => {
      const tasks = Object.entries(a.AllocatedResources?.Tasks || {});
      const sum = (f) => tasks.reduce((s, [, t]) => s + (f(t) || 0), 0);
      const cores = tasks.flatMap(([name, t]) => (t.Cpu?.ReservedCores || []).map((c) => `${c} (${name})`));
      return el("tr", { "data-alloc": a.ID },
        el("td", {}, el("a", { href: `/ui/allocations/${a.ID}`, class: "mono" }, shortID(a.ID))),
        el("td", {}, el("a", { href: `/ui/jobs/${encodeURIComponent(a.JobID)}${a.Namespace && a.Namespace !== "default" ? `?namespace=${encodeURIComponent(a.Namespace)}` : ""}` }, a.JobID)),
        el("td", {}, a.TaskGroup), el("td", {}, a.DesiredStatus), el("td", {}, statusBadge(a.ClientStatus)),
        el("td", { class: "num" }, sum((t) => t.Cpu?.CpuShares)), el("td", { class: "num" }, sum((t) => t.Memory?.MemoryMB)),
        el("td", {}, cores.join(", ")));
    });
    allocBody.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 8, class: "muted" }, "No allocations on this node."))]));
  };

  const act = async (what, path, body, busy) => {
    elig.disabled = drain.disabled = true;
    notice.textContent = busy;
    try {
      await request(path, { method: "PUT", body, signal });
      notice.textContent = `${what}: done.`;
      errors.replaceChildren();
    } catch (err) {
      notice.textContent = "";
      onError(err);
      elig.disabled = drain.disabled = false;
    }
  };
  elig.addEventListener("click", () => {
    const to = node.SchedulingEligibility === "eligible" ? "ineligible" : "eligible";
    act(`Marked ${to}`, `/v1/node/${node.ID}/eligibility`, { NodeID: node.ID, Eligibility: to }, "Updating eligibility…");
  });
  drain.addEventListener("click", () => {
    if (node.Drain) {
      act("Drain stopped", `/v1/node/${node.ID}/drain`, { NodeID: node.ID, DrainSpec: null, MarkEligible: true }, "Stopping the drain…");
      return;
    }
    if (!confirm(`Drain node "${node.Name}"? Its allocations will be migrated away (deadline 1 hour) and it becomes ineligible.`)) return;
    act("Drain started", `/v1/node/${node.ID}/drain`, { NodeID: node.ID, DrainSpec: { Deadline: DRAIN_DEADLINE_NS, IgnoreSystemJobs: false } }, "Starting the drain…");
  });

  const pollStats = async () => {
    if (!node) return;
    try {
      ({ body: stats } = await request(`/v1/client/stats?node_id=${encodeURIComponent(node.ID)}`, { signal }));
      statsErr = null;
    } catch (err) {
      if (signal.aborted) return;
      statsErr = err;
    }
    drawUsage();
  };
  const timer = setInterval(pollStats, STATS_EVERY);
  signal.addEventListener("abort", () => clearInterval(timer));

  let started = false;
  watch(`/v1/node/${encodeURIComponent(idParam)}`, {
    signal, onError,
    onData: (n) => {
      node = n;
      errors.replaceChildren();
      drawFacts();
      drawUsage();
      if (started) return;
      started = true;
      pollStats();
      watch(`/v1/node/${encodeURIComponent(n.ID)}/allocations`, {
        signal, onError,
        onData: (list) => { allocs = list || []; drawAllocs(); drawUsage(); },
      });
    },
  });
  return `Client ${shortID(idParam)}`;
}

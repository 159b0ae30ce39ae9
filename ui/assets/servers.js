// /ui/servers: the leader, raft peers (GET /v1/operator/raft/configuration),
// serf members (GET /v1/agent/members) and autopilot health, polled every
// few seconds (these answers can't block). /ui/servers/<name>: one
// member's address, status, protocol versions and tags.
import { request } from "./api.js";
import { el, errorBox, statusBadge } from "./dom.js";
import { facts, fill, poll, table } from "./listutil.js";

const POLL_MS = 3000;

async function load(signal) {
  const get = (p) => request(p, { signal }).then((r) => r.body);
  const [leader, raft, members, health] = await Promise.all([
    get("/v1/status/leader"), get("/v1/operator/raft/configuration"), get("/v1/agent/members"),
    get("/v1/operator/autopilot/health").catch(() => null), // older or unreachable: leave it out
  ]);
  return { leader, raft, members: members?.Members || [], health };
}

const memberAddr = (m) => `${m.Addr}:${m.Tags?.port || m.Port}`;
const leaderMark = () => el("span", { class: "leader-mark" }, "★ leader");

export function serversPage(main, { params, signal }) {
  if (params[0]) return serverPage(main, params[0], signal);
  const errors = el("div");
  const summary = el("p", { "aria-live": "polite" });
  const peers = table("raft-h", ["ID", "Node", "Address", "Leader", "Voter", "Raft protocol", "Autopilot"]);
  const serf = table("serf-h", ["Name", "Address", ["Port", "num"], "Status", "Region", "Datacenter", "Build", "Raft version", "Leader"]);
  main.replaceChildren(el("h1", {}, "Servers"), errors, summary,
    el("h2", { id: "raft-h" }, "Raft peers"), peers.table, el("h2", { id: "serf-h" }, "Serf members"), serf.table);

  poll(async () => {
    const { leader, raft, members, health } = await load(signal);
    errors.replaceChildren();
    const hs = new Map((health?.Servers || []).map((s) => [s.ID, s]));
    summary.replaceChildren("Leader: ", el("code", {}, leader || "none"),
      health ? ` · autopilot: ${health.Healthy ? "healthy" : "unhealthy"}, failure tolerance ${health.FailureTolerance}` : "");
    fill(peers.body, (raft?.Servers || []).map((s) => {
      const h = hs.get(s.ID);
      return el("tr", { class: s.Leader ? "is-leader" : undefined, "data-peer": s.Node },
        el("td", {}, el("code", {}, s.ID)), el("td", {}, s.Node), el("td", {}, el("code", {}, s.Address)),
        el("td", {}, s.Leader ? leaderMark() : "no"), el("td", {}, s.Voter ? "yes" : "no"), el("td", {}, s.RaftProtocol),
        el("td", {}, h ? statusBadge(h.Healthy ? "healthy" : "unhealthy") : ""));
    }), 7, "No raft peers.");
    fill(serf.body, members.slice().sort((a, b) => a.Name.localeCompare(b.Name)).map((m) => {
      const isLeader = memberAddr(m) === leader;
      return el("tr", { class: isLeader ? "is-leader" : undefined, "data-member": m.Name },
        el("td", {}, el("a", { href: `/ui/servers/${encodeURIComponent(m.Name)}` }, m.Name)),
        el("td", {}, el("code", {}, m.Addr)), el("td", { class: "num" }, m.Port), el("td", {}, statusBadge(m.Status)),
        el("td", {}, m.Tags?.region || ""), el("td", {}, m.Tags?.dc || ""), el("td", {}, m.Tags?.build || ""),
        el("td", {}, m.Tags?.raft_vsn || ""), el("td", {}, isLeader ? leaderMark() : ""));
    }), 9, "No serf members.");
  }, POLL_MS, { signal, onError: (err) => errors.replaceChildren(errorBox(err)) });
  return "Servers";
}

function serverPage(main, name, signal) {
  const errors = el("div");
  const info = el("div");
  const tags = table("tags-h", ["Tag", "Value"]);
  main.replaceChildren(el("p", {}, el("a", { href: "/ui/servers" }, "← Servers")), el("h1", {}, name), errors, info,
    el("h2", { id: "tags-h" }, "Tags"), tags.table);
  poll(async () => {
    const { leader, members, health } = await load(signal);
    const m = members.find((x) => x.Name === name);
    if (!m) { errors.replaceChildren(errorBox({ status: 404, message: `No serf member named ${name}` })); return; }
    errors.replaceChildren();
    const h = (health?.Servers || []).find((s) => `${s.Name}.${m.Tags?.region}` === name || s.Address === memberAddr(m));
    info.replaceChildren(facts([["Status", statusBadge(m.Status)], ["Leader", memberAddr(m) === leader ? leaderMark() : "no"],
      ["Address", el("code", {}, `${m.Addr}:${m.Port}`)], ["Region", m.Tags?.region], ["Datacenter", m.Tags?.dc],
      ["Protocol (min/max/current)", `${m.ProtocolMin}/${m.ProtocolMax}/${m.ProtocolCur}`],
      ["Autopilot", h ? `${h.Healthy ? "healthy" : "unhealthy"}, last contact ${h.LastContact}, term ${h.LastTerm}, index ${h.LastIndex}, version ${h.Version}` : ""]]));
    fill(tags.body, Object.entries(m.Tags || {}).sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, el("code", {}, v)))), 2, "No tags.");
  }, POLL_MS, { signal, onError: (err) => errors.replaceChildren(errorBox(err)) });
  return name;
}

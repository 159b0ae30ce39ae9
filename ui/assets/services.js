// /ui/services: every Nomad-native service (GET /v1/services, all
// namespaces) with its tags, live. /ui/services/<name>?namespace=: its
// instances (GET /v1/service/<name>): allocation, node, address, port,
// tags, datacenter, live.
import { watch } from "./api.js";
import { el, errorBox } from "./dom.js";
import { allocLink, fill, jobLink, nodeLink, nsQuery, table } from "./listutil.js";

export function servicesPage(main, { params, query, signal }) {
  if (params[0]) return servicePage(main, params[0], query.get("namespace") || "default", signal);
  const errors = el("div");
  const live = el("span", { class: "live", "aria-live": "polite" });
  const { table: t, body } = table("svcs-h", ["Name", "Namespace", "Tags"]);
  main.replaceChildren(el("h1", { id: "svcs-h" }, "Services"), live, errors, t);
  watch("/v1/services?namespace=*", {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (list) => {
      errors.replaceChildren();
      const rows = (list || []).flatMap((ns) => (ns.Services || []).map((s) => ({ ...s, Namespace: ns.Namespace })))
        .sort((a, b) => a.ServiceName.localeCompare(b.ServiceName) || a.Namespace.localeCompare(b.Namespace))
        .map((s) => el("tr", { "data-service": s.ServiceName },
          el("td", {}, el("a", { href: `/ui/services/${encodeURIComponent(s.ServiceName)}${nsQuery(s.Namespace)}` }, s.ServiceName)),
          el("td", {}, s.Namespace), el("td", {}, tagList(s.Tags))));
      fill(body, rows, 3, "No services registered. A job's service block with provider = \"nomad\" registers one.");
      live.textContent = `${rows.length} services`;
    },
  });
  return "Services";
}

function tagList(tags) {
  return el("span", { class: "tags" }, (tags || []).map((t) => el("span", { class: "tag" }, t)));
}

function servicePage(main, name, ns, signal) {
  const errors = el("div");
  const live = el("span", { class: "live", "aria-live": "polite" });
  const { table: t, body } = table("svc-h", ["Allocation", "Job", "Node", "Address", ["Port", "num"], "Tags", "Datacenter"]);
  main.replaceChildren(el("p", {}, el("a", { href: "/ui/services" }, "← Services")),
    el("h1", {}, name), el("p", { class: "muted" }, `Namespace ${ns}. `, live), errors,
    el("h2", { id: "svc-h" }, "Instances"), t);
  watch(`/v1/service/${encodeURIComponent(name)}?namespace=${encodeURIComponent(ns)}`, {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (list) => {
      errors.replaceChildren();
      const rows = (list || []).map((r) => el("tr", { "data-instance": r.ID },
        el("td", {}, allocLink(r.AllocID)), el("td", {}, jobLink(r.JobID, r.Namespace)), el("td", {}, nodeLink(r.NodeID)),
        el("td", {}, el("code", {}, r.Address)), el("td", { class: "num" }, r.Port), el("td", {}, tagList(r.Tags)),
        el("td", {}, r.Datacenter)));
      fill(body, rows, 7, "No instances: the service has no live registration.");
      live.textContent = `${rows.length} instances`;
    },
  });
  return name;
}

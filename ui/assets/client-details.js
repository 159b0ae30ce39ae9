// The client page's reference tables: attributes (filterable), meta,
// drivers with their health, host volumes. Each function returns an
// element with a redraw(node) method.
import { el } from "./dom.js";

function kvRows(obj, words) {
  return Object.keys(obj || {}).sort()
    .filter((k) => words.every((w) => `${k} ${obj[k]}`.toLowerCase().includes(w)))
    .map((k) => el("tr", {}, el("th", { scope: "row", class: "mono" }, k), el("td", { class: "mono" }, obj[k])));
}

function kvTable(id, caption, colKey, colVal) {
  const body = el("tbody");
  const table = el("table", { class: "kv", "aria-labelledby": id },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, colKey), el("th", { scope: "col" }, colVal))), body);
  return { body, table, heading: el("h2", { id }, caption) };
}

export function attributesSection() {
  const filter = el("input", { type: "search", id: "attr-filter", placeholder: "name or value", autocomplete: "off" });
  const t = kvTable("attrs-h", "Attributes", "Name", "Value");
  let node = null;
  const draw = () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const rows = kvRows(node?.Attributes, words);
    t.body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 2, class: "muted" }, "No attribute matches."))]));
  };
  filter.addEventListener("input", draw);
  const sec = el("section", {}, t.heading, el("div", { class: "toolbar" }, el("label", { for: "attr-filter" }, "Filter attributes", filter)), t.table);
  sec.redraw = (n) => { node = n; draw(); };
  return sec;
}

export function metaSection() {
  const t = kvTable("meta-h", "Meta", "Key", "Value");
  const sec = el("section", {}, t.heading, t.table);
  sec.redraw = (n) => {
    const rows = kvRows(n.Meta, []);
    t.body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 2, class: "muted" }, "No meta."))]));
  };
  return sec;
}

export function driversSection() {
  const body = el("tbody");
  const sec = el("section", {}, el("h2", { id: "drivers-h" }, "Drivers"),
    el("table", { "aria-labelledby": "drivers-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Driver"), el("th", { scope: "col" }, "Detected"), el("th", { scope: "col" }, "Healthy"),
      el("th", { scope: "col" }, "Health"), el("th", { scope: "col" }, "Updated"))), body));
  sec.redraw = (n) => {
    const rows = Object.keys(n.Drivers || {}).sort().map((name) => {
      const d = n.Drivers[name];
      return el("tr", { "data-driver": name }, el("th", { scope: "row" }, name),
        el("td", {}, d.Detected ? "yes" : "no"),
        el("td", {}, el("span", { class: d.Healthy ? "status status-running" : "status status-failed" }, d.Healthy ? "healthy" : "unhealthy")),
        el("td", {}, d.HealthDescription || ""),
        el("td", { class: "muted" }, d.UpdateTime ? new Date(d.UpdateTime).toLocaleString() : ""));
    });
    body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No drivers."))]));
  };
  return sec;
}

export function volumesSection() {
  const body = el("tbody");
  const sec = el("section", {}, el("h2", { id: "volumes-h" }, "Host volumes"),
    el("table", { "aria-labelledby": "volumes-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Path"), el("th", { scope: "col" }, "Read only"))), body));
  sec.redraw = (n) => {
    const rows = Object.keys(n.HostVolumes || {}).sort().map((k) => {
      const v = n.HostVolumes[k];
      return el("tr", {}, el("th", { scope: "row" }, v.Name || k), el("td", { class: "mono" }, v.Path), el("td", {}, v.ReadOnly ? "yes" : "no"));
    });
    body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 3, class: "muted" }, "No host volumes."))]));
  };
  return sec;
}

export function eventsSection() {
  const body = el("tbody");
  const sec = el("section", {}, el("h2", { id: "events-h" }, "Events"),
    el("table", { "aria-labelledby": "events-h" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Time"), el("th", { scope: "col" }, "Subsystem"), el("th", { scope: "col" }, "Message"))), body));
  sec.redraw = (n) => {
    const rows = (n.Events || []).slice().reverse().map((e) => el("tr", {},
      el("td", { class: "muted" }, e.Timestamp ? new Date(e.Timestamp).toLocaleString() : ""),
      el("td", {}, e.Subsystem || ""),
      el("td", {}, e.Message || "", Object.keys(e.Details || {}).length
        ? el("div", { class: "muted mono" }, Object.entries(e.Details).map(([k, v]) => `${k}=${v}`).join(" ")) : null)));
    body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 3, class: "muted" }, "No events."))]));
  };
  return sec;
}

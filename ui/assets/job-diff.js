// Job diffs, readable: diffJobs compares two job objects (any two versions)
// field by field, per group and task; planDiff draws the server's JobDiff
// (the plan's answer, structs.JobDiff) the same way.
import { el } from "./dom.js";

// Bookkeeping that changes with every version and says nothing of the spec.
const SKIP = new Set(["Status", "StatusDescription", "Stable", "Version", "SubmitTime",
  "CreateIndex", "ModifyIndex", "JobModifyIndex"]);

const show = (v) => (v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));

// flatten maps every leaf of obj to its path; arrays of named objects
// (groups, tasks, services) are keyed by name, other arrays are one leaf.
function flatten(obj, path, out) {
  if (obj === null || typeof obj !== "object") {
    if (obj !== null && obj !== "" && obj !== undefined) out.set(path, obj);
    return out;
  }
  if (Array.isArray(obj)) {
    if (obj.length && obj.every((x) => x && typeof x === "object" && typeof x.Name === "string")) {
      for (const x of obj) flatten(x, `${path}[${x.Name}]`, out);
    } else if (obj.length) out.set(path, obj);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    if (SKIP.has(k) || (k === "Name" && path)) continue;
    flatten(v, path ? `${path}.${k}` : k, out);
  }
  return out;
}

// section names the part of the job a path is in: "Job", "Group web",
// "Task web / server"; rest is the field's path inside it.
function split(path) {
  const m = /^TaskGroups\[([^\]]*)\](?:\.Tasks\[([^\]]*)\])?\.?(.*)$/.exec(path);
  if (!m) return { section: "Job", rest: path };
  if (m[2] !== undefined) return { section: `Task ${m[1]} / ${m[2]}`, rest: m[3] || "(task)" };
  return { section: `Group ${m[1]}`, rest: m[3] || "(group)" };
}

// diffJobs returns [{section, field, type: added|removed|changed, old, new}].
export function diffJobs(a, b) {
  const fa = flatten(a || {}, "", new Map());
  const fb = flatten(b || {}, "", new Map());
  const out = [];
  for (const key of new Set([...fa.keys(), ...fb.keys()])) {
    const va = fa.get(key);
    const vb = fb.get(key);
    if (show(va) === show(vb)) continue;
    const type = va === undefined ? "added" : vb === undefined ? "removed" : "changed";
    const { section, rest } = split(key);
    out.push({ section, field: rest, type, old: show(va), new: show(vb) });
  }
  const order = (s) => (s === "Job" ? "0" : `1${s}`);
  return out.sort((x, y) => order(x.section).localeCompare(order(y.section)) || x.field.localeCompare(y.field));
}

const mark = { added: "+", removed: "−", changed: "~", Added: "+", Deleted: "−", Edited: "~" };
const kind = { Added: "added", Deleted: "removed", Edited: "changed" };

function changeRow(type, field, oldV, newV) {
  return el("tr", { class: `diff-${type}` },
    el("td", { class: "diff-mark" }, el("span", { "aria-hidden": "true" }, mark[type] || ""),
      el("span", { class: "visually-hidden" }, kind[type] || type)),
    el("th", { scope: "row" }, el("code", {}, field)),
    el("td", {}, oldV === "" ? "" : el("code", { class: "diff-old" }, oldV)),
    el("td", {}, newV === "" ? "" : el("code", { class: "diff-new" }, newV)));
}

function diffTable(caption, rows) {
  return el("table", { class: "diff" },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Change")),
      el("th", { scope: "col" }, "Field"), el("th", { scope: "col" }, "Before"), el("th", { scope: "col" }, "After"))),
    el("tbody", {}, rows));
}

// diffView draws diffJobs' list, one table per section.
export function diffView(changes) {
  if (!changes.length) return el("p", { class: "muted" }, "No differences.");
  const bySection = new Map();
  for (const c of changes) {
    if (!bySection.has(c.section)) bySection.set(c.section, []);
    bySection.get(c.section).push(changeRow(c.type, c.field, c.old, c.new));
  }
  return el("div", { class: "diff-view" }, [...bySection].map(([s, rows]) => diffTable(s, rows)));
}

// serverRows flattens a FieldDiff/ObjectDiff tree into rows.
function serverRows(d, prefix, rows) {
  for (const f of d.Fields || []) {
    if (f.Type === "None") continue;
    const t = kind[f.Type] || "changed";
    rows.push(changeRow(t, prefix + f.Name, f.Type === "Added" ? "" : f.Old, f.Type === "Deleted" ? "" : f.New));
  }
  for (const o of d.Objects || []) {
    if (o.Type === "None") continue;
    serverRows(o, `${prefix}${o.Name}.`, rows);
  }
  return rows;
}

const UPDATE_ORDER = ["create", "destroy", "migrate", "in-place update", "create/destroy update", "canary", "ignore"];

// planDiff draws a plan's JobDiff: the job's fields, then each group with
// its update counts and its tasks.
export function planDiff(diff) {
  if (!diff || diff.Type === "None") {
    return el("p", { class: "muted" }, "No changes to the job's specification.");
  }
  const parts = [];
  const jobRows = serverRows(diff, "", []);
  if (jobRows.length) parts.push(diffTable(`Job ${diff.ID || ""} (${diff.Type})`, jobRows));
  for (const g of diff.TaskGroups || []) {
    const updates = Object.entries(g.Updates || {}).filter(([, n]) => n)
      .sort(([a], [b]) => UPDATE_ORDER.indexOf(a) - UPDATE_ORDER.indexOf(b));
    const box = el("div", { class: "diff-group" },
      el("h4", {}, `${mark[g.Type] || ""} Group ${g.Name} `, el("span", { class: "muted" }, `(${g.Type})`)),
      updates.length ? el("ul", { class: "updates" }, updates.map(([k, n]) => el("li", {}, el("strong", {}, n), ` ${k}`)))
        : null);
    const rows = serverRows(g, "", []);
    if (rows.length) box.append(diffTable(`Group ${g.Name}`, rows));
    for (const t of g.Tasks || []) {
      if (t.Type === "None") continue;
      const trows = serverRows(t, "", []);
      box.append(diffTable(`Task ${t.Name} (${t.Type})${(t.Annotations || []).length ? ` — ${t.Annotations.join(", ")}` : ""}`,
        trows.length ? trows : [el("tr", {}, el("td", { colspan: 4, class: "muted" }, t.Type))]));
    }
    parts.push(box);
  }
  return el("div", { class: "diff-view" }, parts);
}

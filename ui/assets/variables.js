// /ui/variables: every variable the token may list (GET /v1/vars,
// all namespaces), a prefix filter, and a form to create one.
// /ui/variables/<path>?namespace=: its items with values hidden until
// "Show", edit (PUT /v1/var/<path>?cas=<ModifyIndex>) and delete.
import { request, watch } from "./api.js";
import { el, errorBox } from "./dom.js";
import { facts, fill, nanoTime, table } from "./listutil.js";

const varHref = (v) => `/ui/variables/${v.Path.split("/").map(encodeURIComponent).join("/")}` +
  (v.Namespace && v.Namespace !== "default" ? `?namespace=${encodeURIComponent(v.Namespace)}` : "");
const varAPI = (path, ns, extra = "") =>
  `/v1/var/${path.split("/").map(encodeURIComponent).join("/")}?namespace=${encodeURIComponent(ns)}${extra}`;

export function variablesPage(main, { params, query, signal }) {
  if (params[0]) return variablePage(main, params[0], query.get("namespace") || "default", signal);
  const prefix = el("input", { type: "search", id: "var-prefix", value: query.get("prefix") || "", autocomplete: "off" });
  const create = el("button", { type: "button", class: "primary" }, "Create variable");
  const editor = el("div");
  const errors = el("div");
  const live = el("span", { class: "live", "aria-live": "polite" });
  const { table: t, body } = table("vars-h", ["Path", "Namespace", "Modified", ["Modify index", "num"]]);
  main.replaceChildren(el("h1", { id: "vars-h" }, "Variables"),
    el("div", { class: "toolbar" }, el("label", { for: "var-prefix" }, "Path prefix", prefix), create, live), editor, errors, t);
  create.addEventListener("click", () => {
    editor.replaceChildren(variableForm({ signal, onDone: () => editor.replaceChildren() }));
    editor.querySelector("input")?.focus();
  });
  let vars = [];
  const draw = () => {
    const p = prefix.value.trim();
    const shown = vars.filter((v) => v.Path.startsWith(p));
    fill(body, shown.map((v) => el("tr", { "data-var": v.Path },
      el("td", {}, el("a", { href: varHref(v) }, v.Path)), el("td", {}, v.Namespace),
      el("td", {}, nanoTime(v.ModifyTime)), el("td", { class: "num" }, v.ModifyIndex))),
    4, vars.length ? "No variable has that prefix." : "No variables yet.");
    live.textContent = `${shown.length} of ${vars.length} variables`;
  };
  prefix.addEventListener("input", () => {
    const u = new URL(location.href);
    if (prefix.value) u.searchParams.set("prefix", prefix.value); else u.searchParams.delete("prefix");
    history.replaceState(null, "", u);
    draw();
  });
  watch("/v1/vars?namespace=*", {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (list) => {
      errors.replaceChildren();
      vars = (list || []).slice().sort((a, b) => a.Path.localeCompare(b.Path) || a.Namespace.localeCompare(b.Namespace));
      draw();
    },
  });
  return "Variables";
}

let fieldSeq = 0;

// go routes to another page of the app (app.js listens to popstate).
function go(href) {
  history.pushState(null, "", href);
  dispatchEvent(new PopStateEvent("popstate"));
}

// variableForm edits a variable's items; v (absent to create) gives the
// path, namespace and the ModifyIndex the write is checked against.
function variableForm({ v, signal, onDone }) {
  const n = ++fieldSeq;
  const path = el("input", { type: "text", id: `var-path-${n}`, value: v?.Path || "", required: true, readonly: !!v });
  const ns = el("input", { type: "text", id: `var-ns-${n}`, value: v?.Namespace || "default", required: true, readonly: !!v });
  const rows = el("div", { class: "var-items" });
  const errors = el("div");
  let k = 0;
  const addRow = (key = "", value = "") => {
    const i = ++k;
    const kid = `var-k-${n}-${i}`;
    const vid = `var-v-${n}-${i}`;
    const row = el("div", { class: "var-item" },
      el("label", { for: kid }, "Key", el("input", { type: "text", id: kid, value: key, class: "var-key", required: true })),
      el("label", { for: vid }, "Value", el("input", { type: "password", id: vid, value, class: "var-value", autocomplete: "off" })));
    row.append(el("button", { type: "button", "aria-label": `Remove item ${i}`, onclick: () => row.remove() }, "Remove"));
    rows.append(row);
  };
  for (const [key, value] of Object.entries(v?.Items || {})) addRow(key, value);
  if (!v) addRow();
  const form = el("form", { class: "var-form", "aria-label": v ? "Edit variable" : "Create variable" },
    el("div", { class: "toolbar" }, el("label", { for: path.id }, "Path", path), el("label", { for: ns.id }, "Namespace", ns)),
    rows, el("div", { class: "toolbar" },
      el("button", { type: "button", onclick: () => addRow() }, "Add item"),
      el("button", { type: "submit", class: "primary" }, v ? "Save" : "Create"),
      el("button", { type: "button", onclick: onDone }, "Cancel")), errors);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const items = {};
    for (const row of rows.querySelectorAll(".var-item")) {
      items[row.querySelector(".var-key").value.trim()] = row.querySelector(".var-value").value;
    }
    const p = path.value.trim().replace(/^\/+|\/+$/g, "");
    try {
      // cas: a create must not overwrite, an edit must not lose a newer write.
      await request(varAPI(p, ns.value.trim(), `&cas=${v ? v.ModifyIndex : 0}`),
        { method: "PUT", signal, body: { Namespace: ns.value.trim(), Path: p, Items: items } });
      onDone();
      if (!v) go(varHref({ Path: p, Namespace: ns.value.trim() }));
    } catch (err) {
      errors.replaceChildren(err.status === 409
        ? el("div", { class: "alert", role: "alert" }, el("h2", {}, "Conflict (409)"),
          el("p", {}, v ? "Someone changed this variable since you opened it. Reload to see their change." : "A variable already exists at that path."))
        : errorBox(err));
    }
  });
  return form;
}

function variablePage(main, path, ns, signal) {
  const errors = el("div");
  const info = el("div");
  const editor = el("div");
  const notice = el("p", { "aria-live": "polite", class: "muted" });
  const edit = el("button", { type: "button", disabled: true }, "Edit");
  const del = el("button", { type: "button", class: "danger", disabled: true }, "Delete");
  const { table: t, body } = table("items-h", ["Key", "Value", "Action"]);
  main.replaceChildren(el("p", {}, el("a", { href: "/ui/variables" }, "← Variables")),
    el("div", { class: "toolbar" }, el("h1", {}, path), edit, del), notice, errors, info, editor,
    el("h2", { id: "items-h" }, "Items"), t);
  let cur = null;
  edit.addEventListener("click", () => {
    editor.replaceChildren(variableForm({ v: cur, signal, onDone: () => editor.replaceChildren() }));
    editor.querySelector(".var-key")?.focus();
  });
  del.addEventListener("click", async () => {
    if (!confirm(`Delete variable "${path}" in namespace ${ns}?`)) return;
    try {
      await request(varAPI(path, ns, `&cas=${cur.ModifyIndex}`), { method: "DELETE", signal });
      go("/ui/variables");
    } catch (err) {
      errors.replaceChildren(errorBox(err));
    }
  });
  watch(varAPI(path, ns), {
    signal,
    onError: (err) => errors.replaceChildren(errorBox(err)),
    onData: (v) => {
      cur = v;
      errors.replaceChildren();
      edit.disabled = del.disabled = false;
      info.replaceChildren(facts([["Namespace", v.Namespace], ["Created", nanoTime(v.CreateTime)],
        ["Modified", nanoTime(v.ModifyTime)], ["Modify index", v.ModifyIndex], ["Lock", v.Lock ? "held" : ""]]));
      fill(body, Object.entries(v.Items || {}).sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => {
        const out = el("code", { class: "secret" }, "••••••••");
        const show = el("button", { type: "button", "aria-label": `Show value of ${key}`, "aria-pressed": "false" }, "Show");
        show.addEventListener("click", () => {
          const on = show.getAttribute("aria-pressed") !== "true";
          show.setAttribute("aria-pressed", String(on));
          show.textContent = on ? "Hide" : "Show";
          out.textContent = on ? value : "••••••••";
        });
        return el("tr", { "data-item": key }, el("th", { scope: "row" }, el("code", {}, key)), el("td", {}, out), el("td", {}, show));
      }), 3, "No items.");
    },
  });
  return path;
}

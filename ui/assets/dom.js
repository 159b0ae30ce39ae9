// Small DOM helpers: el builds elements without innerHTML (text is never
// parsed as markup).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// errorBox shows a failed API call plainly; a 403 says what to do.
export function errorBox(err) {
  if (err?.status === 403) {
    return el("div", { class: "alert", role: "alert" },
      el("h2", {}, "Not authorized (403)"),
      el("p", {}, "Your ACL token can't read this: ", err.message || "Permission denied", ". "),
      el("p", {}, el("a", { href: "/ui/settings/tokens" }, "Set an ACL token"), " with the right policy."));
  }
  const title = err?.status ? `Error ${err.status}` : "Can't reach the agent";
  return el("div", { class: "alert", role: "alert" },
    el("h2", {}, title), el("p", {}, err?.message || String(err)));
}

export function statusBadge(status) {
  return el("span", { class: `status status-${status || "unknown"}` }, status || "unknown");
}

export function shortID(id) { return (id || "").slice(0, 8); }

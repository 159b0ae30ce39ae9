// /ui/settings/tokens: the ACL token this browser sends (localStorage).
import { getToken, request, setToken } from "./api.js";
import { el, errorBox } from "./dom.js";

export function tokenPage(main, { signal }) {
  const input = el("input", { type: "password", id: "token-secret", autocomplete: "off", value: getToken() });
  const result = el("div", { "aria-live": "polite" });
  const save = async (e) => {
    e.preventDefault();
    setToken(input.value.trim());
    result.replaceChildren();
    if (!input.value.trim()) {
      result.append(el("p", {}, "Token cleared: requests are anonymous."));
      return;
    }
    try {
      const { body } = await request("/v1/acl/token/self", { signal });
      result.append(el("p", {}, "Signed in as ", el("strong", {}, body?.Name || body?.AccessorID || "token"),
        ` (${body?.Type || "client"}).`));
    } catch (err) {
      if (err.status === 400 || err.status === 404) result.append(el("p", {}, "Token saved (ACLs may be off on this cluster)."));
      else result.append(errorBox(err));
    }
  };
  main.replaceChildren(el("h1", {}, "ACL token"),
    el("p", { class: "muted" }, "The secret ID is kept in this browser's local storage and sent as X-Nomad-Token with every request."),
    el("form", { class: "toolbar", onsubmit: save },
      el("label", { for: "token-secret" }, "Secret ID", input),
      el("button", { type: "submit", class: "primary" }, "Save"),
      el("button", { type: "button", onclick: (e) => { input.value = ""; save(e); } }, "Clear")),
    result);
  return "ACL token";
}

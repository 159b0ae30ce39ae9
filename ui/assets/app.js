// The app shell: routes /ui/<path> to a page in the browser (the agent
// answers index.html for every page path), marks the current nav link,
// and aborts a page's live queries when the user leaves it.
import { el } from "./dom.js";
import { jobsPage } from "./jobs.js";
import { jobPage } from "./job.js";
import { tokenPage } from "./token.js";
import { topologyPage } from "./topology.js";
import { whyNotPage } from "./whynot.js";

const comingSoon = (title) => (main) => {
  main.replaceChildren(el("h1", {}, title),
    el("p", { class: "muted" }, "Coming soon. Until then, the CLI and the HTTP API show it."));
  return title;
};

// routes: the first match wins; params are the regexp's groups, decoded.
const routes = [
  [/^\/?$/, () => navigate("/ui/jobs", true)],
  [/^\/jobs\/?$/, jobsPage, "jobs"],
  [/^\/jobs\/([^/]+)\/why-not\/?$/, whyNotPage, "jobs"],
  [/^\/jobs\/([^/]+)\/?$/, jobPage, "jobs"],
  [/^\/clients(\/.*)?$/, comingSoon("Clients"), "clients"],
  [/^\/topology\/?$/, topologyPage, "topology"],
  [/^\/evaluations\/?$/, comingSoon("Evaluations"), "evaluations"],
  [/^\/servers(\/.*)?$/, comingSoon("Servers"), "servers"],
  [/^\/settings\/tokens\/?$/, tokenPage, "settings"],
];

let current = null; // the AbortController of the page on screen

function render() {
  current?.abort();
  current = new AbortController();
  const main = document.getElementById("main");
  const rest = location.pathname.replace(/^\/ui/, "");
  let nav = null;
  let title = "Not found";
  const route = routes.find(([re]) => re.test(rest));
  if (route) {
    const [re, page, navKey] = route;
    nav = navKey;
    const params = re.exec(rest).slice(1).map((p) => (p === undefined ? p : decodeURIComponent(p)));
    title = page(main, { params, query: new URLSearchParams(location.search), signal: current.signal }) || title;
  } else {
    main.replaceChildren(el("h1", {}, "Not found"),
      el("p", {}, "No page at ", el("code", {}, location.pathname), ". ", el("a", { href: "/ui/jobs" }, "Go to jobs")));
  }
  document.title = `${title} · nomadish`;
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  render();
  if (!replace) document.getElementById("main").focus();
}

// Same-origin links under /ui/ route in the page; others load normally.
document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[href]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith("/ui/") || url.pathname.startsWith("/ui/assets/")) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", render);
render();

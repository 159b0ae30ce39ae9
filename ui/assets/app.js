// The app shell: routes /ui/<path> to a page in the browser (the agent
// answers index.html for every page path), marks the current nav link,
// and aborts a page's live queries when the user leaves it.
import { el } from "./dom.js";

// page(module, name) loads a page's module when the page is first shown:
// the jobs page, the first one opened, fetches only its own modules.
const page = (module, name) => async () => (await import(module))[name];

// routes: the first match wins; params are the regexp's groups, decoded.
// The second member loads the page function (main, ctx) => title.
const routes = [
  [/^\/?$/, async () => () => navigate("/ui/jobs", true)],
  [/^\/jobs\/?$/, page("./jobs.js", "jobsPage"), "jobs"],
  [/^\/jobs\/([^/]+)\/why-not\/?$/, page("./whynot.js", "whyNotPage"), "jobs"],
  [/^\/jobs\/([^/]+)\/?$/, page("./job.js", "jobPage"), "jobs"],
  [/^\/allocations\/([^/]+)\/?$/, page("./alloc.js", "allocPage"), "jobs"],
  [/^\/clients\/?$/, page("./clients.js", "clientsPage"), "clients"],
  [/^\/clients\/([^/]+)\/?$/, page("./client.js", "clientPage"), "clients"],
  [/^\/topology\/?$/, page("./topology.js", "topologyPage"), "topology"],
  [/^\/evaluations\/?$/, page("./evaluations.js", "evaluationsPage"), "evaluations"],
  [/^\/evaluations\/([^/]+)\/?$/, page("./evaluation.js", "evaluationPage"), "evaluations"],
  [/^\/deployments\/?$/, page("./deployments.js", "deploymentsPage"), "deployments"],
  [/^\/deployments\/([^/]+)\/?$/, page("./deployments.js", "deploymentPage"), "deployments"],
  [/^\/servers(?:\/([^/]+))?\/?$/, page("./servers.js", "serversPage"), "servers"],
  [/^\/variables(?:\/(.+?))?\/?$/, page("./variables.js", "variablesPage"), "variables"],
  [/^\/services(?:\/([^/]+))?\/?$/, page("./services.js", "servicesPage"), "services"],
  [/^\/settings\/tokens\/?$/, page("./token.js", "tokenPage"), "settings"],
];

let current = null; // the AbortController of the page on screen

async function render() {
  current?.abort();
  const ctl = new AbortController();
  current = ctl;
  const main = document.getElementById("main");
  const rest = location.pathname.replace(/^\/ui/, "");
  let nav = null;
  let title = "Not found";
  const route = routes.find(([re]) => re.test(rest));
  if (route) {
    const [re, load, navKey] = route;
    nav = navKey;
    const params = re.exec(rest).slice(1).map((p) => (p === undefined ? p : decodeURIComponent(p)));
    let show;
    try {
      show = await load();
    } catch (err) {
      if (ctl.signal.aborted) return;
      main.replaceChildren(el("h1", {}, "Can't load the page"), el("p", {}, String(err?.message || err)));
      return;
    }
    if (ctl.signal.aborted) return; // the user moved on while it loaded
    title = show(main, { params, query: new URLSearchParams(location.search), signal: ctl.signal }) || title;
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
  navigate(url.pathname + url.search + url.hash);
});
window.addEventListener("popstate", render);
render();

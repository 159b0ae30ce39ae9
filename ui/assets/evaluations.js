// /ui/evaluations: every evaluation, newest first, 50 a page (?per_page=; "Load
// more" follows X-Nomad-NextToken), narrowed by a go-bexpr filter the
// server applies (?filter=), the first page live through blocking queries.
import { el, errorBox, statusBadge } from "./dom.js";
import { evaluationPage } from "./evaluation.js";
import { evalLink, fill, jobLink, nanoTime, nodeLink, pagedRequest, table, watchPaged } from "./listutil.js";

const PER_PAGE = 50; // ?per_page= on the page's URL changes it

function evalRow(e) {
  return el("tr", { "data-eval": e.ID },
    el("td", {}, evalLink(e.ID)), el("td", {}, jobLink(e.JobID, e.Namespace)), el("td", {}, e.Namespace),
    el("td", { class: "num" }, e.Priority), el("td", {}, e.TriggeredBy), el("td", {}, e.Type),
    el("td", {}, statusBadge(e.Status)), el("td", {}, e.StatusDescription || ""),
    el("td", {}, nodeLink(e.NodeID)), el("td", {}, nanoTime(e.CreateTime)));
}

export function evaluationsPage(main, { query, signal }) {
  // Nomad's UI links one evaluation as /ui/evaluations?currentEval=<id>.
  if (query.get("currentEval")) return evaluationPage(main, { params: [query.get("currentEval")], signal });
  const perPage = Math.max(1, Math.min(1000, Number(query.get("per_page")) || PER_PAGE));
  const filter = el("input", { type: "text", id: "eval-filter", value: query.get("filter") || "",
    placeholder: 'Status == "blocked"', autocomplete: "off", spellcheck: "false" });
  const form = el("form", { class: "toolbar", role: "search" },
    el("label", { for: "eval-filter" }, "Filter (go-bexpr, e.g. Status == \"blocked\" or JobID == \"web\")", filter),
    el("button", { type: "submit" }, "Apply"));
  const live = el("span", { class: "live", "aria-live": "polite" });
  const errors = el("div");
  const more = el("button", { type: "button", hidden: true }, "Load more");
  const { table: t, body } = table("evals-h", ["ID", "Job", "Namespace", ["Priority", "num"], "Triggered by",
    "Type", "Status", "Status description", "Node", "Created"]);
  main.replaceChildren(el("h1", { id: "evals-h" }, "Evaluations"), form, live, errors, t, el("p", {}, more));

  let first = [];
  let extra = [];
  let next = "";
  const base = () => {
    const p = new URLSearchParams({ namespace: "*", per_page: String(perPage), reverse: "true" });
    if (filter.value.trim()) p.set("filter", filter.value.trim());
    return `/v1/evaluations?${p}`;
  };
  const draw = () => {
    const seen = new Set(first.map((e) => e.ID));
    const rows = first.concat(extra.filter((e) => !seen.has(e.ID))).map(evalRow);
    fill(body, rows, 10, filter.value.trim() ? "No evaluation matches the filter." : "No evaluations yet.");
    more.hidden = !next;
    live.textContent = `${rows.length} evaluations shown${next ? ", more to load" : ""}`;
  };

  let ctl = null;
  const start = () => {
    ctl?.abort();
    ctl = new AbortController();
    signal.addEventListener("abort", () => ctl.abort(), { once: true });
    const s = ctl.signal;
    first = []; extra = []; next = "";
    watchPaged(base(), {
      signal: s,
      onData: (rows, token) => {
        errors.replaceChildren();
        first = rows;
        if (!extra.length) next = token;
        draw();
      },
      onError: (err) => errors.replaceChildren(errorBox(err)),
    });
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const u = new URL(location.href);
    if (filter.value.trim()) u.searchParams.set("filter", filter.value.trim()); else u.searchParams.delete("filter");
    history.replaceState(null, "", u);
    start();
  });
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const res = await pagedRequest(`${base()}&next_token=${encodeURIComponent(next)}`, signal);
      extra = extra.concat(res.body || []);
      next = res.next;
      draw();
    } catch (err) {
      if (!signal.aborted) errors.replaceChildren(errorBox(err));
    } finally {
      more.disabled = false;
    }
  });
  start();
  return "Evaluations";
}

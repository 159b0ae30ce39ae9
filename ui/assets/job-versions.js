// The job page's Versions section: the kept versions (GET
// /v1/job/<id>/versions?diffs=true, live), a choice of any two versions and
// the difference between them, and "Revert to this version" (POST
// /v1/job/<id>/revert with EnforcePriorVersion, like `job revert`).
import { watch } from "./api.js";
import { el, shortID } from "./dom.js";
import { diffJobs, diffView } from "./job-diff.js";

// when formats a Nomad time (nanoseconds since the epoch).
export function when(ns) {
  if (!ns) return "";
  return new Date(Number(ns) / 1e6).toLocaleString();
}

export function versionsSection(root, ctx) {
  const rows = el("tbody");
  const from = el("select", { id: "diff-from" });
  const to = el("select", { id: "diff-to" });
  const out = el("div", { class: "diff-out", "aria-live": "polite" });
  let versions = [];

  const drawDiff = () => {
    const a = versions.find((v) => String(v.Version) === from.value);
    const b = versions.find((v) => String(v.Version) === to.value);
    if (!a || !b) { out.replaceChildren(); return; }
    out.replaceChildren(el("h3", {}, `Changes from version ${a.Version} to version ${b.Version}`),
      diffView(diffJobs(a, b)));
  };
  let chosen = false; // the user picked versions: keep them across updates
  for (const s of [from, to]) s.addEventListener("change", () => { chosen = true; drawDiff(); });

  const revert = async (v, current) => {
    if (!confirm(`Revert job "${ctx.id}" to version ${v}? This registers version ${v}'s specification as a new version.`)) return;
    ctx.notice(`Reverting to version ${v}…`);
    const reply = await ctx.write(`${ctx.base}/revert${ctx.q}`, {
      JobID: ctx.id, JobVersion: v, EnforcePriorVersion: current,
    });
    if (reply) ctx.notice(`Reverted to version ${v} (evaluation ${shortID(reply.EvalID)}).`);
  };

  root.replaceChildren(
    el("table", { "aria-label": "Versions" }, el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, "Version"), el("th", { scope: "col" }, "Submitted"),
      el("th", { scope: "col" }, "Stable"), el("th", { scope: "col" }, "Changes from the one before"),
      el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Actions")))), rows),
    el("h3", {}, "Compare two versions"),
    el("div", { class: "toolbar" },
      el("label", { for: "diff-from" }, "From version", from),
      el("label", { for: "diff-to" }, "To version", to)),
    out);

  watch(`${ctx.base}/versions${ctx.q}&diffs=true`, {
    signal: ctx.signal, onError: ctx.showError,
    onData: (reply) => {
      const keepFrom = from.value;
      const keepTo = to.value;
      versions = (reply?.Versions || []).slice().sort((a, b) => b.Version - a.Version);
      const diffs = reply?.Diffs || [];
      const current = versions[0]?.Version;
      rows.replaceChildren(...versions.map((v, i) => {
        const prev = versions[i + 1];
        const n = prev ? diffJobs(prev, v).length : null;
        const serverDiff = diffs[i];
        const label = n === null ? "first version" : n === 0 ? "none" : `${n} field${n === 1 ? "" : "s"}`;
        return el("tr", {},
          el("td", { class: "num" }, v.Version, v.Version === current ? el("span", { class: "muted" }, " (current)") : ""),
          el("td", {}, when(v.SubmitTime)), el("td", {}, v.Stable ? "yes" : "no"),
          el("td", { title: serverDiff?.Type || "" }, label),
          el("td", {}, v.Version === current ? "" : el("button", {
            type: "button", onclick: () => revert(v.Version, current),
            "aria-label": `Revert to version ${v.Version}`,
          }, "Revert to this version")));
      }));
      const opts = () => versions.map((v) => el("option", { value: v.Version }, `Version ${v.Version}`));
      from.replaceChildren(...opts());
      to.replaceChildren(...opts());
      const has = (val) => versions.some((v) => String(v.Version) === val);
      const keep = chosen && has(keepFrom) && has(keepTo);
      from.value = keep ? keepFrom : String(versions[1]?.Version ?? versions[0]?.Version ?? "");
      to.value = keep ? keepTo : String(versions[0]?.Version ?? "");
      drawDiff();
    },
  });
}

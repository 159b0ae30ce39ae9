// The job page's Definition section: the job's specification in a text
// area, edited, planned and run like `job plan` then `job run -check-index`.
// When the job's current version was submitted with its source (GET
// /v1/job/<id>/submission?version=N, job-source.js), the area starts with
// that HCL; otherwise with the job's JSON. HCL goes through POST
// /v1/jobs/parse (with the submission's variables) before the plan. Plan:
// POST /v1/job/<id>/plan {Job, Diff: true}; Run: POST /v1/job/<id> {Job,
// EnforceIndex, JobModifyIndex from the plan, Submission: the text}.
import { request } from "./api.js";
import { el, errorBox, shortID } from "./dom.js";
import { planDiff } from "./job-diff.js";
import { failureSummary } from "./job-evals.js";
import { fetchSubmission, parseVariables, submissionFor } from "./job-source.js";

// Bookkeeping the server sets; left out of the editable JSON.
const SERVER_SET = ["Status", "StatusDescription", "Stable", "Version", "SubmitTime",
  "CreateIndex", "ModifyIndex", "JobModifyIndex"];

export function editableJSON(job) {
  const j = { ...job };
  for (const k of SERVER_SET) delete j[k];
  return JSON.stringify(j, null, 2);
}

export function definitionSection(root, ctx) {
  const area = el("textarea", { id: "job-spec", rows: 24, spellcheck: "false", class: "spec",
    "aria-describedby": "job-spec-source job-spec-help" });
  const origin = el("p", { id: "job-spec-source", class: "muted spec-source" });
  const plan = el("button", { type: "submit", class: "primary" }, "Plan");
  const run = el("button", { type: "button", disabled: true }, "Run");
  const reset = el("button", { type: "button" }, "Reset to the current job");
  const out = el("div", { class: "plan-out", "aria-live": "polite" });
  let loaded = false;
  let planned = null; // {job, index, submission} of the last plan, until the text changes
  let source = null; // the submission the text was loaded from, or null (JSON)
  let loading = 0; // a newer load wins over an older one still fetching

  const load = async () => {
    const job = ctx.job;
    if (!job) return;
    loaded = true;
    planned = null;
    run.disabled = true;
    const mine = ++loading;
    let sub = null;
    try {
      sub = await fetchSubmission(ctx, job.Version);
    } catch (err) {
      if (err.name === "AbortError") return;
      out.replaceChildren(errorBox(err));
    }
    if (mine !== loading) return;
    source = sub;
    if (sub) {
      area.value = sub.Source;
      const fmt = sub.Format === "json" ? "JSON" : "HCL";
      const flags = Object.entries(sub.VariableFlags || {}).map(([k, v]) => `-var ${k}=${v}`);
      if (sub.Variables) flags.push("a variables file");
      origin.textContent = `${fmt} as submitted, version ${job.Version}${flags.length ? `, with ${flags.join(", ")}` : ""}.`;
    } else {
      area.value = editableJSON(job);
      origin.textContent = `JSON of version ${job.Version}: no source was kept for it (submitted as JSON, or too large).`;
    }
  };
  ctx.onJob(() => { if (!loaded) load(); });
  reset.addEventListener("click", () => { load(); out.replaceChildren(); });
  area.addEventListener("input", () => { planned = null; run.disabled = true; });

  // parse turns the text into {job, format}: JSON as is ({"Job": …} or the
  // job), anything else as HCL through the agent's parser, with the
  // variables of the submission it was loaded from.
  const parse = async (text) => {
    const t = text.trim();
    if (t.startsWith("{")) {
      const v = JSON.parse(t);
      return { job: v && v.Job && typeof v.Job === "object" ? v.Job : v, format: "json" };
    }
    const { body } = await request(`/v1/jobs/parse${ctx.q}`, {
      method: "POST", signal: ctx.signal,
      body: { JobHCL: text, Variables: parseVariables(source), Canonicalize: true },
    });
    return { job: body, format: "hcl2" };
  };

  const form = el("form", { class: "plan-form" },
    el("label", { for: "job-spec" }, "Job specification (HCL or JSON)"), origin, area,
    el("p", { id: "job-spec-help", class: "muted" },
      "Edit the job, then Plan to see what would change. Run submits exactly the planned job, ",
      "with its text as the new version's source, and fails if the job changed since the plan."),
    el("div", { class: "toolbar" }, plan, run, reset));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    plan.disabled = true;
    run.disabled = true;
    out.replaceChildren(el("p", { class: "muted" }, "Planning…"));
    try {
      const text = area.value;
      const { job, format } = await parse(text);
      if (job && job.ID && job.ID !== ctx.id) throw new Error(`The job's ID is "${job.ID}", not "${ctx.id}".`);
      const { body } = await request(`${ctx.base}/plan${ctx.q}`, {
        method: "POST", signal: ctx.signal, body: { Job: job, Diff: true },
      });
      planned = { job, index: body.JobModifyIndex, submission: submissionFor(text, format, source) };
      run.disabled = false;
      out.replaceChildren(...planView(body));
    } catch (err) {
      out.replaceChildren(err instanceof SyntaxError ? errorBox({ message: `Not valid JSON: ${err.message}` }) : errorBox(err));
    } finally {
      plan.disabled = false;
    }
  });
  run.addEventListener("click", async () => {
    if (!planned) return;
    run.disabled = true;
    ctx.notice("Submitting the job…");
    const reply = await ctx.write(ctx.base + ctx.q, {
      Job: planned.job, EnforceIndex: true, JobModifyIndex: planned.index, Submission: planned.submission,
    });
    if (reply) {
      ctx.notice(`Job submitted (evaluation ${shortID(reply.EvalID)}).`);
      out.replaceChildren(el("p", {}, `Submitted: evaluation ${shortID(reply.EvalID)}, job modify index ${reply.JobModifyIndex}.`));
      loaded = false; // take the new version (and its source) when it arrives
      planned = null;
    } else run.disabled = false;
  });
  root.replaceChildren(form, out);
}

function planView(p) {
  const parts = [el("h3", {}, "Plan")];
  if (p.Warnings) parts.push(el("div", { class: "alert warn" }, el("h4", {}, "Warnings"), el("pre", {}, p.Warnings)));
  parts.push(planDiff(p.Diff));
  const failed = failureSummary(p.FailedTGAllocs);
  if (failed) parts.push(el("h4", {}, "Placement failures"), failed);
  else parts.push(el("p", {}, "All tasks can be placed."));
  const pre = p.Annotations?.PreemptedAllocs || [];
  if (pre.length) parts.push(el("p", {}, `Would preempt ${pre.length} allocation(s): `,
    pre.map((a) => shortID(a.ID)).join(", ")));
  parts.push(el("p", { class: "muted" }, `Job modify index: ${p.JobModifyIndex}. `,
    "Running checks it, like ", el("code", {}, `job run -check-index ${p.JobModifyIndex}`), "."));
  return parts;
}

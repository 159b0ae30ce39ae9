// The job's source as submitted (GET /v1/job/<id>/submission?version=N,
// Nomad >= 1.6): what the Definition section edits when there is one, and
// what Run sends back as the new version's Submission.
import { APIError, request } from "./api.js";

// fetchSubmission returns the submission of the job's version, or null when
// none is kept (404: registered as JSON without a source, too large, or
// pruned). Other errors are thrown.
export async function fetchSubmission(ctx, version) {
  try {
    const { body } = await request(`${ctx.base}/submission${ctx.q}&version=${version}`, { signal: ctx.signal });
    return body && typeof body.Source === "string" ? body : null;
  } catch (err) {
    if (err instanceof APIError && err.status === 404) return null;
    throw err;
  }
}

// parseVariables is the variables text /v1/jobs/parse takes for a
// submission: its var-files' text, then each -var flag not set there as
// `name = "value"` (a string; HCL converts it to the variable's type).
export function parseVariables(sub) {
  let text = sub?.Variables || "";
  for (const [k, v] of Object.entries(sub?.VariableFlags || {})) {
    const set = new RegExp(`^\\s*${k.replace(/[^A-Za-z0-9_-]/g, "")}\\s*=`, "m");
    if (set.test(text)) continue;
    text += `${text && !text.endsWith("\n") ? "\n" : ""}${k} = ${JSON.stringify(v)}\n`;
  }
  return text;
}

// submissionFor is the Submission Run sends with the job planned from text:
// its format, and the variables of the submission it was edited from.
export function submissionFor(text, format, from) {
  const sub = { Source: text, Format: format };
  if (format === "hcl2" && from) {
    if (from.Variables) sub.Variables = from.Variables;
    if (from.VariableFlags) sub.VariableFlags = from.VariableFlags;
  }
  return sub;
}

// A task group's scale control: a count input bounded by the group's
// scaling block (min/max) and a Scale button sending
// POST /v1/job/<id>/scale {Count, Target: {Group}} as `job scale` does.
import { el } from "./dom.js";

export function scaleControl(ctx, group) {
  const inputID = `scale-${group}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const input = el("input", { type: "number", id: inputID, min: 0, step: 1, class: "count-input", inputmode: "numeric" });
  const button = el("button", { type: "submit" }, "Scale");
  const hint = el("span", { class: "muted hint", id: `${inputID}-hint` });
  let dirty = false;
  input.setAttribute("aria-describedby", hint.id);
  input.addEventListener("input", () => { dirty = true; });
  const node = el("form", { class: "scale" },
    el("label", { for: inputID, class: "visually-hidden" }, `Count for group ${group}`), input, button, hint);
  node.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!input.reportValidity()) return;
    const count = Number(input.value);
    button.disabled = true;
    ctx.notice(`Scaling ${group} to ${count}…`);
    const reply = await ctx.write(`${ctx.base}/scale${ctx.q}`, {
      Count: count, Target: { Group: group }, Message: "scaled from the web UI",
    });
    button.disabled = false;
    if (reply) {
      dirty = false;
      ctx.notice(`Scaled ${group} to ${count}.`);
    }
  });
  return {
    node,
    update(g, job) {
      const s = g.Scaling;
      const min = s && s.Min >= 0 ? s.Min : 0;
      input.min = String(min);
      if (s && s.Max > 0) input.max = String(s.Max);
      else input.removeAttribute("max");
      hint.textContent = s ? `min ${min}${s.Max > 0 ? `, max ${s.Max}` : ""}` : "";
      if (!dirty && document.activeElement !== input) input.value = String(g.Count);
      input.disabled = button.disabled = !!job.Stop;
    },
  };
}

// The allocation page's actions, through the API the CLI uses:
// `alloc restart` (PUT /v1/client/allocation/<id>/restart), `alloc signal`
// (PUT .../signal) and `alloc stop` (PUT /v1/allocation/<id>/stop).
import { request } from "./api.js";
import { el, errorBox, shortID } from "./dom.js";

const SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGKILL"];

export function actionsBar(id, signal) {
  const errors = el("div"); // its own: the live updates clear the page's
  const base = `/v1/client/allocation/${encodeURIComponent(id)}`;
  const task = el("select", { id: "alloc-action-task" }, el("option", { value: "" }, "All tasks"));
  const sig = el("select", { id: "alloc-action-signal" }, SIGNALS.map((s) => el("option", { value: s }, s)));
  const notice = el("p", { class: "muted", "aria-live": "polite" });
  const restart = el("button", { type: "button" }, "Restart");
  const send = el("button", { type: "button" }, "Send signal");
  const stop = el("button", { type: "button", class: "danger" }, "Stop allocation");
  const buttons = [restart, send, stop];
  let alloc = null;

  const run = async (label, path, body) => {
    buttons.forEach((b) => { b.disabled = true; });
    notice.textContent = `${label}…`;
    try {
      const { body: res } = await request(path, { method: "PUT", body, signal });
      errors.replaceChildren();
      notice.textContent = `${label}: done${res?.EvalID ? ` (evaluation ${shortID(res.EvalID)})` : ""}.`;
    } catch (err) {
      if (signal.aborted) return;
      notice.textContent = "";
      errors.replaceChildren(errorBox(err));
    } finally {
      update(alloc);
    }
  };
  restart.addEventListener("click", () => {
    const t = task.value;
    run(t ? `Restarting task ${t}` : "Restarting all tasks", `${base}/restart`, t ? { TaskName: t } : {});
  });
  send.addEventListener("click", () => {
    const t = task.value;
    run(`Sending ${sig.value} to ${t ? `task ${t}` : "all tasks"}`, `${base}/signal`, t ? { Task: t, Signal: sig.value } : { Signal: sig.value });
  });
  stop.addEventListener("click", () => {
    if (!confirm(`Stop allocation ${shortID(id)}? The scheduler may place a replacement.`)) return;
    run("Stopping the allocation", `/v1/allocation/${encodeURIComponent(id)}/stop`);
  });

  const update = (a, names) => {
    alloc = a;
    if (!a) return;
    if (names) {
      const keep = task.value;
      task.replaceChildren(el("option", { value: "" }, "All tasks"), ...names.map((n) => el("option", { value: n }, n)));
      task.value = names.includes(keep) ? keep : "";
    }
    const terminal = a.DesiredStatus !== "run" || ["complete", "failed", "lost"].includes(a.ClientStatus);
    restart.disabled = send.disabled = terminal;
    stop.disabled = a.DesiredStatus !== "run";
  };

  const node = el("div", { class: "alloc-actions" },
    el("div", { class: "toolbar" },
      el("label", { for: "alloc-action-task" }, "Task", task), restart,
      el("label", { for: "alloc-action-signal" }, "Signal", sig), send, stop),
    notice, errors);
  return { node, update };
}

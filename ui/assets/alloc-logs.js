// Live logs of one task of an allocation: the last 50 KB of stdout or
// stderr, then what is appended, from GET /v1/client/fs/logs/<alloc>
// (plain=true&follow=true&origin=end), the path `alloc logs -f` uses. The
// stream is aborted when the task, the type or the page changes.
import { getToken } from "./api.js";
import { el } from "./dom.js";

const TAIL = 50000;        // bytes shown from before the end
const KEEP = 400000;       // characters kept on screen

export function logsPanel(id, pageSignal) {
  const task = el("select", { id: "logs-task" });
  const type = el("select", { id: "logs-type" }, el("option", { value: "stdout" }, "stdout"), el("option", { value: "stderr" }, "stderr"));
  const follow = el("input", { type: "checkbox", id: "logs-follow", checked: true });
  const status = el("span", { class: "muted live", "aria-live": "polite" });
  const out = el("pre", { class: "log-view", tabindex: "0", "aria-label": "Log output" });
  let ctl = null;
  let key = "";
  let terminal = false; // the allocation is done: a finished stream stays finished

  const stop = () => { ctl?.abort(); ctl = null; };
  pageSignal.addEventListener("abort", stop, { once: true });

  async function stream(signal) {
    const url = `/v1/client/fs/logs/${encodeURIComponent(id)}?task=${encodeURIComponent(task.value)}` +
      `&type=${type.value}&follow=true&origin=end&offset=${TAIL}&plain=true`;
    let backoff = 1000;
    while (!signal.aborted) {
      status.textContent = "Connecting…";
      try {
        const headers = {};
        const token = getToken();
        if (token) headers["X-Nomad-Token"] = token;
        const resp = await fetch(url, { signal, headers, credentials: "same-origin" });
        if (!resp.ok) {
          const msg = (await resp.text()).trim();
          status.textContent = `Can't read the logs (${resp.status}): ${msg}`;
          if (resp.status === 403) return;
        } else {
          out.textContent = "";
          status.textContent = "Following";
          const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const atBottom = out.scrollHeight - out.scrollTop - out.clientHeight < 40;
            let text = out.textContent + value;
            if (text.length > KEEP) text = text.slice(text.length - KEEP);
            out.textContent = text;
            if (atBottom) out.scrollTop = out.scrollHeight;
          }
          if (terminal) { status.textContent = "End of the log (the allocation has stopped)."; return; }
          status.textContent = "The log stream ended; reconnecting…";
          backoff = 1000;
        }
      } catch (err) {
        if (signal.aborted) return;
        status.textContent = `Log stream failed: ${err.message}; retrying…`;
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 15000);
    }
  }

  const restart = () => {
    stop();
    if (!task.value) { status.textContent = "No task."; return; }
    if (!follow.checked) { status.textContent = "Paused"; return; }
    ctl = new AbortController();
    stream(ctl.signal);
  };
  task.addEventListener("change", restart);
  type.addEventListener("change", restart);
  follow.addEventListener("change", restart);

  const update = (a, names) => {
    terminal = ["complete", "failed", "lost"].includes(a.ClientStatus);
    const keep = task.value;
    if (names.join("\n") !== key) {
      key = names.join("\n");
      task.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
      task.value = names.includes(keep) ? keep : names[0] || "";
    }
    if (!ctl && follow.checked && task.value && !pageSignal.aborted) restart();
  };

  const node = el("section", { class: "alloc-logs", "aria-labelledby": "logs-h" },
    el("h2", { id: "logs-h" }, "Logs"),
    el("div", { class: "toolbar" },
      el("label", { for: "logs-task" }, "Task", task),
      el("label", { for: "logs-type" }, "Stream", type),
      el("label", { for: "logs-follow", class: "check" }, follow, "Follow"), status),
    out);
  return { node, update };
}

// An exec terminal in the browser over the agent's WebSocket
// (GET /v1/client/allocation/<id>/exec?task=&command=[...]&tty=true, as
// `alloc exec`): input frames {stdin:{data:base64}} and {tty_size:{...}},
// output frames {stdout:{data}}, {stderr:{data}} and {exited, result}.
// With an ACL token the URL adds ws_handshake=true and the first frame is
// {version:1, auth_token}, as Nomad's UI (a WebSocket can't carry headers).
// A <pre> shows the output (escape sequences removed); an input line
// sends what is typed with Enter.
import { getToken } from "./api.js";
import { el } from "./dom.js";

// ANSI/VT escape sequences (colours, cursor moves, titles) and bells.
const ESC = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x07|\r/g;
const KEEP = 200000;

const b64encode = (text) => {
  let s = "";
  for (const b of new TextEncoder().encode(text)) s += String.fromCharCode(b);
  return btoa(s);
};
const b64decode = (data) => Uint8Array.from(atob(data || ""), (c) => c.charCodeAt(0));

export function execPanel(id, pageSignal) {
  const task = el("select", { id: "exec-task" });
  const command = el("input", { type: "text", id: "exec-command", value: "/bin/sh", spellcheck: "false", autocomplete: "off" });
  const connect = el("button", { type: "button", class: "primary" }, "Connect");
  const close = el("button", { type: "button", disabled: true }, "Disconnect");
  const interrupt = el("button", { type: "button", disabled: true, title: "Send Ctrl-C" }, "Ctrl-C");
  const status = el("span", { class: "muted live", "aria-live": "polite" }, "Not connected");
  const out = el("pre", { class: "exec-view", tabindex: "0", "aria-label": "Terminal output", "aria-live": "off" });
  const line = el("input", { type: "text", id: "exec-input", disabled: true, spellcheck: "false", autocomplete: "off" });
  const decoder = new TextDecoder();
  let ws = null;
  let key = "";

  const write = (bytes) => {
    const text = decoder.decode(bytes, { stream: true }).replace(ESC, "");
    let all = out.textContent + text;
    if (all.length > KEEP) all = all.slice(all.length - KEEP);
    out.textContent = all;
    out.scrollTop = out.scrollHeight;
  };
  const send = (frame) => { if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame)); };
  const sendText = (text) => send({ stdin: { data: b64encode(text) } });
  const setConnected = (on) => {
    connect.disabled = on; close.disabled = !on; interrupt.disabled = !on; line.disabled = !on;
    task.disabled = on; command.disabled = on;
  };

  connect.addEventListener("click", () => {
    let argv;
    try {
      argv = command.value.trim().startsWith("[") ? JSON.parse(command.value) : command.value.trim().split(/\s+/);
    } catch (err) { status.textContent = `The command is not a JSON array: ${err.message}`; return; }
    if (!argv.length || !argv[0]) { status.textContent = "Name a command to run."; return; }
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const token = getToken();
    const url = `${proto}//${location.host}/v1/client/allocation/${encodeURIComponent(id)}/exec` +
      `?task=${encodeURIComponent(task.value)}&tty=true&command=${encodeURIComponent(JSON.stringify(argv))}${token ? "&ws_handshake=true" : ""}`;
    out.textContent = "";
    status.textContent = "Connecting…";
    let exited = false;
    const sock = new WebSocket(url);
    ws = sock;
    setConnected(true);
    sock.addEventListener("open", () => {
      if (token) send({ version: 1, auth_token: token });
      status.textContent = `Connected to ${task.value}`;
      send({ tty_size: { height: 40, width: 120 } });
      line.focus();
    });
    sock.addEventListener("message", (e) => {
      let f;
      try { f = JSON.parse(e.data); } catch { return; }
      if (f.stdout?.data) write(b64decode(f.stdout.data));
      if (f.stderr?.data) write(b64decode(f.stderr.data));
      if (f.exited) {
        exited = true;
        status.textContent = `The command exited with code ${f.result?.exit_code ?? 0}.`;
      }
    });
    sock.addEventListener("close", (e) => {
      if (ws !== sock) return;
      ws = null;
      setConnected(false);
      if (exited) return;
      if (e.code >= 4000 && e.code < 5000) status.textContent = `Refused (${e.code - 4000}): ${e.reason}`;
      else if (e.reason) status.textContent = `Closed: ${e.reason}`;
      else status.textContent = `Disconnected (${e.code === 1006 ? "the agent refused or dropped the connection" : `code ${e.code}`}).`;
    });
  });
  close.addEventListener("click", () => {
    const s = ws;
    ws = null;
    setConnected(false);
    status.textContent = "Disconnected.";
    s?.close(1000);
  });
  interrupt.addEventListener("click", () => { sendText("\x03"); line.focus(); });
  line.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); sendText(`${line.value}\n`); line.value = ""; }
    else if (e.ctrlKey && (e.key === "c" || e.key === "d") && !line.value) {
      e.preventDefault(); sendText(e.key === "c" ? "\x03" : "\x04");
    }
  });
  pageSignal.addEventListener("abort", () => { const s = ws; ws = null; s?.close(1000); }, { once: true });

  const update = (a, names) => {
    const running = names.filter((n) => a.TaskStates?.[n]?.State === "running");
    const list = running.length ? running : names;
    if (list.join("\n") !== key) {
      key = list.join("\n");
      const keep = task.value;
      task.replaceChildren(...list.map((n) => el("option", { value: n }, n)));
      task.value = list.includes(keep) ? keep : list[0] || "";
    }
    if (!ws) connect.disabled = !running.length;
    if (!running.length && !ws) status.textContent = "No running task to exec into.";
    else if (!ws && status.textContent === "No running task to exec into.") status.textContent = "Not connected";
  };

  const node = el("section", { class: "alloc-exec", "aria-labelledby": "exec-h" },
    el("h2", { id: "exec-h" }, "Exec"),
    el("div", { class: "toolbar" },
      el("label", { for: "exec-task" }, "Task", task),
      el("label", { for: "exec-command" }, "Command", command),
      connect, close, interrupt, status),
    out,
    el("label", { for: "exec-input", class: "exec-line" }, "Input (Enter sends the line)", line));
  return { node, update };
}

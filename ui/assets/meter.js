// meter({label, used, allocated, capacity, unit}) shows what the
// scheduler handed out next to what the host really uses, each against
// the capacity: two bars, so "dimension cpu exhausted" with an idle CPU
// (Nomad #8939) is plain to see. An undefined figure is shown as "—".
// The root carries data-allocated, data-used and data-capacity.
import { el } from "./dom.js";

const fmt = (n) => (n === undefined || n === null || Number.isNaN(n) ? "—" : Math.round(n).toLocaleString("en-US"));
const pct = (n, cap) => (cap > 0 && n !== undefined && n !== null ? Math.round((100 * n) / cap) : undefined);

function bar(kind, n, cap, unit, compact) {
  const p = pct(n, cap);
  const fill = el("span", { class: `meter-fill meter-${kind}` });
  fill.style.width = `${Math.min(100, p || 0)}%`;
  if (p > 100) fill.classList.add("meter-over");
  const text = compact ? `${fmt(n)}${p === undefined ? "" : ` (${p}%)`}`
    : `${fmt(n)} / ${fmt(cap)} ${unit}${p === undefined ? "" : ` (${p}%)`}`;
  return el("div", { class: "meter-row" },
    el("span", { class: "meter-key" }, kind === "alloc" ? (compact ? "alloc" : "allocated") : "used"),
    el("span", { class: "meter-track", "aria-hidden": "true" }, fill),
    el("span", { class: "meter-val" }, text));
}

export function meter({ label, used, allocated, capacity, unit = "", compact = false }) {
  const aria = `${label}: ${fmt(allocated)} ${unit} allocated, ${fmt(used)} ${unit} used, of ${fmt(capacity)} ${unit}`;
  return el("div", {
    class: compact ? "meter meter-compact" : "meter", role: "group", "aria-label": aria, title: compact ? aria : undefined,
    "data-allocated": allocated ?? "", "data-used": used ?? "", "data-capacity": capacity ?? "",
  },
  compact ? null : el("div", { class: "meter-label" }, label),
  bar("alloc", allocated, capacity, unit, compact), bar("used", used, capacity, unit, compact),
  compact ? el("div", { class: "meter-cap" }, `of ${fmt(capacity)}`) : null);
}

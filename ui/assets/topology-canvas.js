// The topology map: every node a block, filled by its allocations (a
// segment each, sized by memory or cpu, coloured by job), drawn on one
// <canvas> the size of the viewport. Only the rows on screen are drawn
// (the scroll area holds a spacer of the full height), and hover, click
// and the keyboard find their node and allocation by arithmetic on the
// layout (hit-testing), so thousands of nodes stay smooth.
import { el } from "./dom.js";
import { jobColor } from "./topology-model.js";

const CELL_W = 148, CELL_H = 50, GAP = 8, PAD = 8, HEAD_H = 30, BAR_Y = 22;

export function topologyCanvas({ signal, onOpen, onSelect, onDraw, describe }) {
  const canvas = el("canvas", { class: "topo-canvas", tabindex: "0", role: "img",
    "aria-label": "Cluster map. Arrow keys move between nodes, Enter opens the selected node." });
  const spacer = el("div", { class: "topo-spacer" });
  const tip = el("div", { class: "topo-tip", role: "tooltip", hidden: true });
  const scroller = el("div", { class: "topo-scroll" }, canvas, spacer);
  const wrap = el("div", { class: "topo-wrap" }, scroller, tip);
  const ctx = canvas.getContext("2d");

  let model = null, by = "mem", rows = [], flat = [], pos = new Map(), total = 0;
  let selected = null, hoverID = null, frame = 0, perRow = 1;

  function layout() {
    const width = scroller.clientWidth || 800;
    perRow = Math.max(1, Math.floor((width - 2 * PAD + GAP) / (CELL_W + GAP)));
    rows = []; flat = []; pos = new Map();
    let y = PAD;
    let lastDC = null;
    for (const g of model?.groups || []) {
      const title = g.dc === lastDC ? `pool ${g.pool}` : `${g.dc || "(no datacenter)"} · pool ${g.pool}`;
      lastDC = g.dc;
      rows.push({ kind: "head", y, h: HEAD_H, text: `${title} — ${g.nodes.length} node${g.nodes.length === 1 ? "" : "s"}` });
      y += HEAD_H;
      for (let i = 0; i < g.nodes.length; i += perRow) {
        const nodes = g.nodes.slice(i, i + perRow);
        const r = rows.length;
        nodes.forEach((node, col) => { pos.set(node.n.ID, { r, col, i: flat.length }); flat.push(node); });
        rows.push({ kind: "nodes", y, h: CELL_H + GAP, nodes });
        y += CELL_H + GAP;
      }
    }
    total = y + PAD;
    const view = Math.min(total, Math.max(240, Math.round(window.innerHeight * 0.62)));
    scroller.style.height = `${view}px`;
    spacer.style.height = `${Math.max(0, total - view)}px`;
    if (selected && !model.byID.has(selected)) selected = null;
  }

  const rowAt = (y) => { // binary search: the row holding content y
    let lo = 0, hi = rows.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (rows[m].y + rows[m].h <= y) lo = m + 1; else if (rows[m].y > y) hi = m - 1; else return m;
    }
    return -1;
  };

  // segments of a node's bar: [{x, w, alloc}] in bar coordinates.
  function segments(node, barW) {
    const key = by === "cpu" ? "cpu" : "mem";
    const scale = Math.max(node.cap[key], node.used[key], 1);
    const out = [];
    let x = 0;
    for (const s of node.allocs) {
      const w = Math.max(2, (s[key] / scale) * barW);
      out.push({ x, w: Math.min(w, barW - x), s });
      x += w;
      if (x >= barW) break;
    }
    return out;
  }

  function draw() {
    frame = 0;
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const w = scroller.clientWidth, h = scroller.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    }
    const css = getComputedStyle(document.documentElement);
    const v = (n) => css.getPropertyValue(n).trim();
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = v("--bg"); ctx.fillRect(0, 0, w, h);
    const top = scroller.scrollTop;
    let drawn = 0;
    for (let r = Math.max(0, rowAt(top)); r >= 0 && r < rows.length && rows[r].y < top + h; r++) {
      const row = rows[r];
      const y = row.y - top;
      if (row.kind === "head") {
        ctx.fillStyle = v("--fg"); ctx.font = "600 13px system-ui, sans-serif";
        ctx.fillText(row.text, PAD, y + 20);
        continue;
      }
      row.nodes.forEach((node, col) => {
        drawn++;
        const x = PAD + col * (CELL_W + GAP);
        const down = node.n.Status !== "ready";
        ctx.fillStyle = v("--row"); ctx.fillRect(x, y, CELL_W, CELL_H);
        ctx.lineWidth = node.n.ID === selected ? 3 : 1;
        ctx.strokeStyle = node.n.ID === selected ? v("--focus") : down ? v("--fail") : v("--line");
        ctx.setLineDash(node.n.SchedulingEligibility === "ineligible" ? [4, 3] : []);
        ctx.strokeRect(x + 0.5, y + 0.5, CELL_W - 1, CELL_H - 1);
        ctx.setLineDash([]);
        ctx.fillStyle = down ? v("--muted") : v("--fg"); ctx.font = "11px system-ui, sans-serif";
        const label = (node.n.Name || node.n.ID).slice(0, 22) + (down ? ` (${node.n.Status})` : "");
        ctx.fillText(label, x + 6, y + 15, CELL_W - 12);
        const bx = x + 5, by0 = y + BAR_Y, bw = CELL_W - 10, bh = CELL_H - BAR_Y - 6;
        ctx.fillStyle = v("--bg"); ctx.fillRect(bx, by0, bw, bh);
        for (const seg of segments(node, bw)) {
          ctx.fillStyle = jobColor(seg.s.a.JobID, dark);
          ctx.fillRect(bx + seg.x, by0, Math.max(1, seg.w - 1), bh);
        }
        if (node.n.ID === hoverID) { ctx.strokeStyle = v("--fg"); ctx.lineWidth = 1; ctx.strokeRect(bx - 0.5, by0 - 0.5, bw + 1, bh + 1); }
      });
    }
    const ms = performance.now() - t0;
    canvas.dataset.drawMs = ms.toFixed(2);
    canvas.dataset.drawnNodes = String(drawn);
    onDraw?.(ms, drawn);
  }
  // redraw draws at the next frame (one draw per frame however many events
  // came); a hidden tab gets no frames, so it draws at once.
  const redraw = () => {
    if (document.hidden) draw();
    else if (!frame) frame = requestAnimationFrame(draw);
  };

  // hit finds {node, alloc} under the pointer (content coordinates).
  function hit(ev) {
    const rect = canvas.getBoundingClientRect();
    const x = ev.clientX - rect.left, y = ev.clientY - rect.top + scroller.scrollTop;
    const r = rowAt(y);
    if (r < 0 || rows[r].kind !== "nodes") return null;
    const col = Math.floor((x - PAD) / (CELL_W + GAP));
    const cx = x - PAD - col * (CELL_W + GAP), cy = y - rows[r].y;
    const node = rows[r].nodes[col];
    if (!node || cx < 0 || cx > CELL_W || cy > CELL_H) return null;
    let alloc = null;
    if (cy >= BAR_Y && cy <= CELL_H - 6) {
      const seg = segments(node, CELL_W - 10).find((s) => cx - 5 >= s.x && cx - 5 < s.x + s.w);
      alloc = seg?.s || null;
    }
    return { node, alloc };
  }

  canvas.addEventListener("mousemove", (ev) => {
    const h = hit(ev);
    const id = h?.node.n.ID || null;
    if (id !== hoverID) { hoverID = id; redraw(); }
    canvas.style.cursor = h ? "pointer" : "default";
    if (!h) { tip.hidden = true; return; }
    tip.replaceChildren(...describe(h.node, h.alloc));
    tip.hidden = false;
    const wr = wrap.getBoundingClientRect();
    const left = Math.min(ev.clientX - wr.left + 14, wr.width - tip.offsetWidth - 4);
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${ev.clientY - wr.top + 16}px`;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; hoverID = null; redraw(); });
  canvas.addEventListener("click", (ev) => {
    const h = hit(ev);
    if (h) onOpen(h.node, h.alloc);
  });
  canvas.addEventListener("keydown", (ev) => {
    if (!flat.length) return;
    const cur = selected && pos.has(selected) ? pos.get(selected) : null;
    let i = cur ? cur.i : -1;
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: perRow, ArrowUp: -perRow }[ev.key];
    if (step !== undefined) i = i < 0 ? 0 : Math.min(flat.length - 1, Math.max(0, i + step));
    else if (ev.key === "Home") i = 0;
    else if (ev.key === "End") i = flat.length - 1;
    else if (ev.key === "Enter" && cur) { onOpen(flat[cur.i], null); ev.preventDefault(); return; }
    else return;
    ev.preventDefault();
    select(flat[i].n.ID, true);
  });
  scroller.addEventListener("scroll", redraw, { passive: true });
  const ro = new ResizeObserver(() => { if (model) { layout(); redraw(); } });
  ro.observe(scroller);
  signal.addEventListener("abort", () => { ro.disconnect(); if (frame) cancelAnimationFrame(frame); });

  function select(id, scroll) {
    selected = id;
    const p = pos.get(id);
    if (p && scroll) {
      const row = rows[p.r];
      if (row.y < scroller.scrollTop) scroller.scrollTop = row.y - HEAD_H;
      else if (row.y + row.h > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = row.y + row.h - scroller.clientHeight;
    }
    redraw();
    onSelect(model?.byID.get(id) || null);
  }

  return {
    element: wrap,
    setModel(m, b) {
      model = m; by = b; layout();
      if (!selected && flat.length) selected = flat[0].n.ID;
      if (frame) { cancelAnimationFrame(frame); frame = 0; }
      draw(); // now, not at the next frame: a background tab gets none
      onSelect(model.byID.get(selected) || null);
    },
    setBy(b) { by = b; redraw(); },
    select,
    drawNow: draw,
  };
}

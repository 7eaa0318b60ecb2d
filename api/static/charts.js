// Brickyard's own SVG chart drawer (no library, no CDN). Every data point is an element with class "pt"
// and data-value, so the page (and its tests) can count what was drawn.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];

function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function fmt(v) { return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(2); }

// series: [{name, points: [{x: number (ms), y: number, title}]}]
function lineChart(svg, series, opts) {
  opts = opts || {};
  clear(svg);
  const rows = Math.max(1, Math.ceil(series.length / 3));
  const W = 640, H = 246 + 14 * rows, L = 56, R = 12, T = 12, B = 26 + 14 * rows;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const all = series.flatMap(s => s.points);
  if (!all.length) {
    el("text", {x: W / 2, y: H / 2, "text-anchor": "middle", class: "empty"}, svg).textContent = opts.empty || "no data yet";
    return 0;
  }
  let x0 = Math.min(...all.map(p => p.x)), x1 = Math.max(...all.map(p => p.x));
  if (x1 === x0) { x0 -= 1000; x1 += 1000; }
  const ymax = niceMax(Math.max(...all.map(p => p.y)));
  const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = y => H - B - y / ymax * (H - T - B);
  for (let i = 0; i <= 4; i++) {
    const y = ymax * i / 4;
    el("line", {x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: "grid"}, svg);
    el("text", {x: L - 6, y: sy(y) + 4, "text-anchor": "end", class: "tick"}, svg).textContent = fmt(y);
  }
  for (const t of [x0, (x0 + x1) / 2, x1]) {
    el("text", {x: sx(t), y: H - B + 16, "text-anchor": "middle", class: "tick"}, svg).textContent =
      new Date(t).toLocaleTimeString();
  }
  if (opts.yLabel) el("text", {x: 12, y: T + 4, class: "tick"}, svg).textContent = opts.yLabel;
  let drawn = 0;
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.points.slice().sort((a, b) => a.x - b.x);
    if (pts.length > 1) {
      el("polyline", {points: pts.map(p => `${sx(p.x)},${sy(p.y)}`).join(" "), fill: "none", stroke: color,
                      "stroke-width": 2, class: "series-line"}, svg);
    }
    for (const p of pts) {
      const c = el("circle", {cx: sx(p.x), cy: sy(p.y), r: 4, fill: color, class: "pt",
                              "data-series": s.name, "data-value": p.y}, svg);
      el("title", {}, c).textContent = p.title || `${s.name}: ${fmt(p.y)}`;
      drawn++;
    }
    const ly = H - B + 24 + Math.floor(i / 3) * 14;  // three legend entries a row
    el("rect", {x: L + 8 + (i % 3) * 190, y: ly, width: 10, height: 10, fill: color}, svg);
    el("text", {x: L + 22 + (i % 3) * 190, y: ly + 9, class: "legend"}, svg).textContent = s.name;
  });
  return drawn;
}

// bars: [{label, value, title}]
function barChart(svg, bars, opts) {
  opts = opts || {};
  clear(svg);
  const W = 640, rowH = 26, L = 120, R = 70, T = 8;
  const H = Math.max(60, T * 2 + rowH * bars.length);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  if (!bars.length) {
    el("text", {x: W / 2, y: H / 2, "text-anchor": "middle", class: "empty"}, svg).textContent = opts.empty || "no data yet";
    return 0;
  }
  const vmax = niceMax(Math.max(...bars.map(b => b.value)));
  bars.forEach((b, i) => {
    const y = T + i * rowH;
    const w = Math.max(1, b.value / vmax * (W - L - R));
    el("text", {x: L - 6, y: y + rowH / 2 + 4, "text-anchor": "end", class: "tick"}, svg).textContent = b.label;
    const r = el("rect", {x: L, y: y + 3, width: w, height: rowH - 6, fill: PALETTE[i % PALETTE.length],
                          class: "pt", "data-label": b.label, "data-value": b.value}, svg);
    el("title", {}, r).textContent = b.title || `${b.label}: ${fmt(b.value)}`;
    el("text", {x: L + w + 6, y: y + rowH / 2 + 4, class: "tick"}, svg).textContent =
      opts.format ? opts.format(b.value) : fmt(b.value);
  });
  return bars.length;
}

window.BrickyardCharts = {lineChart, barChart};

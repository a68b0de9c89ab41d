// SVG charts: lines over x, and horizontal bars. Each is drawn to a viewBox and
// scales to its container; the numbers behind it go in a <details> beside it.
import { s, seatColour } from "./ui.js";
import { t, num } from "./i18n.js";

function ticks(min, max, n = 4) {
  if (min === max) return [min];
  const step = (max - min) / n;
  return Array.from({ length: n + 1 }, (_, i) => min + i * step);
}

const fmt = (v) => num(Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v) : Number(v.toFixed(1)));

/**
 * series: [{name, colour, points: [[x, y], …]}]; xLabel(x) names an x tick.
 * `cursor` (an x) draws a vertical marker.
 */
export function lineChart({ series, title, xLabel = String, cursor = null, height = 200, yZero = false }) {
  const W = 360;
  const H = height;
  const L = 38, R = 8, T = 10, B = 26;
  const xs = series.flatMap((se) => se.points.map((p) => p[0]));
  const ys = series.flatMap((se) => se.points.map((p) => p[1]));
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title });
  if (!xs.length) {
    svg.append(s("text", { x: W / 2, y: H / 2, "text-anchor": "middle", "font-size": 12, fill: "#777" }, t("chart-no-data")));
    return svg;
  }
  let x0 = Math.min(...xs), x1 = Math.max(...xs);
  let y0 = Math.min(...ys, ...(yZero ? [0] : [])), y1 = Math.max(...ys, ...(yZero ? [0] : []));
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.08;
  y0 -= pad; y1 += pad;
  const X = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  svg.append(s("title", {}, title));
  for (const t of ticks(y0, y1)) {
    svg.append(s("line", { x1: L, x2: W - R, y1: Y(t), y2: Y(t), stroke: "#e5e1da" }));
    svg.append(s("text", { x: L - 4, y: Y(t) + 4, "text-anchor": "end", "font-size": 10, fill: "#555" }, fmt(t)));
  }
  const xt = [...new Set(xs)].sort((a, b) => a - b);
  const every = Math.max(1, Math.ceil(xt.length / 6));
  xt.forEach((x, i) => {
    if (i % every && i !== xt.length - 1) return;
    svg.append(s("text", { x: X(x), y: H - 8, "text-anchor": "middle", "font-size": 10, fill: "#555" }, xLabel(x)));
  });
  svg.append(s("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#999" }));
  if (cursor !== null) svg.append(s("line", { x1: X(cursor), x2: X(cursor), y1: T, y2: H - B, stroke: "#1a73e8", "stroke-width": 2, "stroke-dasharray": "4 3" }));
  series.forEach((se, i) => {
    const colour = se.colour ?? seatColour(i);
    const d = se.points.map((p, k) => `${k ? "L" : "M"}${X(p[0]).toFixed(1)} ${Y(p[1]).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, fill: "none", stroke: colour, "stroke-width": 2.2 }));
    if (series.length > 1) {
      const lx = L + 6;
      const ly = T + 12 + i * 14;
      svg.append(s("text", { x: lx, y: ly, "text-anchor": "start", "font-size": 11, fill: colour, "font-weight": 700, stroke: "#fff", "stroke-width": 3, "paint-order": "stroke" }, String(se.name).slice(0, 16)));
    }
    for (const p of se.points.length <= 40 ? se.points : []) svg.append(s("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2.6, fill: colour }, s("title", {}, `${se.name}: ${xLabel(p[0])} → ${fmt(p[1])}`)));
  });
  return svg;
}

/** bars: [{label, value, colour?, note?}], value in [0, max]. */
export function barChart({ bars, title, max = null, unit = "", percent = false }) {
  const W = 360;
  const row = 24;
  const L = 120;
  const H = Math.max(row, bars.length * row) + 8;
  const top = max ?? Math.max(...bars.map((b) => b.value), 1e-9);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title }, s("title", {}, title));
  bars.forEach((b, i) => {
    const y = 4 + i * row;
    const w = Math.max(0, (b.value / top) * (W - L - 60));
    const text = b.text ?? (percent ? num(b.value, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }) : `${fmt(b.value)}${unit}`);
    svg.append(
      s("text", { x: L - 6, y: y + 15, "text-anchor": "end", "font-size": 12 }, String(b.label).slice(0, 18)),
      s("rect", { x: L, y: y + 3, width: w, height: row - 8, rx: 3, fill: b.colour ?? seatColour(i) }),
      s("text", { x: L + w + 4, y: y + 15, "font-size": 12 }, text),
    );
  });
  return svg;
}

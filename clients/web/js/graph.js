// The evaluation graph: one point per ply that has an engine score, from one
// player's point of view, drawn as SVG. Heuristic scores are scaled to the
// largest one seen so far; proven wins and losses sit on the top and bottom
// edges (drawn as squares), proven draws on the middle line.

import { el } from "./svg.js";
import { t } from "./i18n.js";

const WIDTH = 400;
const HEIGHT = 140;
const PAD = 6;
// Smallest half-range of the vertical axis, so that a game of small scores
// does not blow tiny differences up into wild swings.
const MIN_RANGE = 10;

// points: [{ply, value}] with value a number or +/-Infinity; plies: moves so far.
// formatValue writes an axis value in the game's unit; current, if not null,
// is the ply shown on the board (marked with a vertical line); onPly(ply),
// if given, is called with the ply under a click.
export function drawGraph(container, points, plies, formatValue = String, current = null, onPly = null) {
  container.replaceChildren();
  const svg = el("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "graph-svg", role: "img",
    "aria-label": t("graph.label", { plies, scored: points.length }),
  });
  container.append(svg);
  const finite = points.filter((p) => Number.isFinite(p.value)).map((p) => Math.abs(p.value));
  const range = Math.max(MIN_RANGE, ...finite) * 1.1;
  const lastPly = Math.max(plies, 1, ...points.map((p) => p.ply));
  const x = (ply) => PAD + (ply / lastPly) * (WIDTH - 2 * PAD);
  const y = (value) => {
    const clipped = Math.max(-1, Math.min(1, value / range));
    return HEIGHT / 2 - clipped * (HEIGHT / 2 - PAD);
  };
  svg.append(el("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT / 2, class: "graph-ahead" }));
  svg.append(el("line", { x1: 0, x2: WIDTH, y1: HEIGHT / 2, y2: HEIGHT / 2, class: "graph-axis" }));
  svg.append(el("text", { x: WIDTH - PAD, y: 14, class: "graph-label", "text-anchor": "end" }, formatValue(Math.round(range))));
  svg.append(el("text", { x: WIDTH - PAD, y: HEIGHT - 4, class: "graph-label", "text-anchor": "end" }, formatValue(-Math.round(range))));
  if (current !== null) {
    svg.append(el("line", { x1: x(current), x2: x(current), y1: 0, y2: HEIGHT, class: "graph-current" }));
  }
  if (onPly) {
    svg.classList.add("clickable");
    svg.addEventListener("click", (event) => {
      const box = svg.getBoundingClientRect();
      const at = ((event.clientX - box.left) / box.width) * WIDTH;
      onPly(Math.max(0, Math.min(lastPly, Math.round(((at - PAD) / (WIDTH - 2 * PAD)) * lastPly))));
    });
  }
  const sorted = [...points].sort((a, b) => a.ply - b.ply);
  if (sorted.length > 1) {
    const line = sorted.map((p) => `${x(p.ply).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
    svg.append(el("polyline", { points: line, class: "graph-line" }));
  }
  for (const p of sorted) {
    if (Number.isFinite(p.value)) {
      svg.append(el("circle", { cx: x(p.ply), cy: y(p.value), r: 2.5, class: "graph-point" }));
    } else {
      svg.append(el("rect", { x: x(p.ply) - 3.5, y: y(p.value) - 3.5, width: 7, height: 7, class: "graph-proven" }));
    }
  }
}

// An 8x8 board of light and dark squares, shared by chess and checkers.
// Squares are addressed by (row, col) as drawn, row 0 at the top; a board
// module maps its own square names to and from these, flipping as needed.

import { el } from "../svg.js";

export const CELL = 60;
export const MARGIN = 26;
export const SIZE = 8 * CELL + 2 * MARGIN;

export function squareOrigin(row, col) {
  return { x: MARGIN + col * CELL, y: MARGIN + row * CELL };
}

export function centre(row, col) {
  const { x, y } = squareOrigin(row, col);
  return { cx: x + CELL / 2, cy: y + CELL / 2 };
}

// Draws the squares into `svg`; returns the <g> of each square by "row,col"
// so that callers can add marks, pieces and click handlers.
export function drawSquares(svg) {
  const groups = new Map();
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const { x, y } = squareOrigin(row, col);
      const group = el("g");
      group.append(el("rect", { x, y, width: CELL, height: CELL, class: (row + col) % 2 === 0 ? "sq-light" : "sq-dark" }));
      svg.append(group);
      groups.set(`${row},${col}`, group);
    }
  }
  return groups;
}

// Text labels in the margins: left (per row) and bottom (per column).
export function drawLabels(svg, rowLabel, colLabel) {
  for (let i = 0; i < 8; i++) {
    svg.append(el("text", { x: MARGIN / 2, y: MARGIN + i * CELL + CELL / 2, class: "coord" }, rowLabel(i)));
    svg.append(el("text", { x: MARGIN + i * CELL + CELL / 2, y: SIZE - MARGIN / 2, class: "coord" }, colLabel(i)));
  }
}

export function markSquare(group, row, col, className) {
  const { x, y } = squareOrigin(row, col);
  group.append(el("rect", { x, y, width: CELL, height: CELL, class: className }));
}

export function targetMark(group, row, col, occupied) {
  const { cx, cy } = centre(row, col);
  group.append(occupied
    ? el("circle", { cx, cy, r: CELL * 0.45, class: "target-ring" })
    : el("circle", { cx, cy, r: CELL * 0.14, class: "target-dot" }));
}

// Tic-tac-toe: cells a1 (bottom left) to c3 (top right); the position is nine
// characters, top row first, X, O or '.'.

import { t } from "../i18n.js";
import { describeRows } from "./describe.js";
import { canvas, el, fileLetter, onClick } from "../svg.js";

const CELL = 100;
const MARGIN = 30;

export default function create(container, hooks) {
  return {
    update(view) {
      const size = 3 * CELL + 2 * MARGIN;
      const marks = [...view.state.position];
      const svg = canvas(container, size, size, t("board.tictactoe"), describeRows(marks));
      const legal = new Set(view.state.legal_moves);
      for (let row = 0; row < 3; row++) {
        for (let col = 0; col < 3; col++) {
          const name = `${fileLetter(col)}${3 - row}`;
          const x = MARGIN + col * CELL;
          const y = MARGIN + row * CELL;
          const cell = el("g", { "data-move": name });
          cell.append(el("rect", { x, y, width: CELL, height: CELL, class: "ttt-cell" }));
          if (name === view.lastMove) cell.append(el("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, class: "sq-mark" }));
          const mark = marks[row * 3 + col];
          if (mark === "X") {
            cell.append(el("path", { d: `M ${x + 25} ${y + 25} L ${x + 75} ${y + 75} M ${x + 75} ${y + 25} L ${x + 25} ${y + 75}`, class: "ttt-x" }));
          } else if (mark === "O") {
            cell.append(el("circle", { cx: x + 50, cy: y + 50, r: 27, class: "ttt-o" }));
          } else if (view.interactive && legal.has(name)) {
            cell.append(el("circle", { cx: x + 50, cy: y + 50, r: 8, class: "target-dot" }));
          }
          onClick(cell, view, () => hooks.play(name));
          svg.append(cell);
        }
        svg.append(el("text", { x: MARGIN / 2, y: MARGIN + row * CELL + CELL / 2, class: "coord" }, String(3 - row)));
      }
      const line = winningLine(marks);
      if (line) {
        const [from, to] = [line[0], line[2]].map((index) => ({
          x: MARGIN + (index % 3) * CELL + CELL / 2, y: MARGIN + Math.floor(index / 3) * CELL + CELL / 2,
        }));
        svg.append(el("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: "ttt-win", "data-cells": line.join(",") }));
      }
      for (let col = 0; col < 3; col++) {
        svg.append(el("text", { x: MARGIN + col * CELL + CELL / 2, y: size - MARGIN / 2, class: "coord" }, fileLetter(col)));
      }
    },
  };
}

// The three cells (indexes in the position, top row first) of a completed
// line, or null.
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

function winningLine(marks) {
  return LINES.find(([a, b, c]) => (marks[a] === "X" || marks[a] === "O") && marks[a] === marks[b] && marks[a] === marks[c]) || null;
}

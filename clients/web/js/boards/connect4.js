// Connect Four: columns numbered 1..width from the left; the position is the
// columns played, in order, so the board is rebuilt by dropping each stone.

import { canvas, el, onClick } from "../svg.js";
import { playerTitle, t } from "../i18n.js";
import { describeColumns } from "./describe.js";

const CELL = 60;
const MARGIN = 30;
const COLOURS = ["#e03c31", "#f2c500"];
// Analysed lines marked in their columns (the page's lines menu offers up to 5).
const MAX_MARKS = 5;

export default function create(container, hooks) {
  return {
    update(view) {
      const { width, height } = view.state.options;
      const grid = dropStones(view.state.position, width, height);
      const names = [0, 1].map((player) => playerTitle(view.players[player] ?? String(player)).toLowerCase());
      const svg = canvas(container, width * CELL + 2 * MARGIN, height * CELL + 2 * MARGIN, t("board.connect4"), describeColumns(grid, names));
      const legal = new Set(view.state.legal_moves);
      const winning = winningCells(grid, width, height);
      svg.append(el("rect", { x: MARGIN, y: MARGIN, width: width * CELL, height: height * CELL, rx: 10, class: "c4-frame" }));
      const last = view.lastMove === null ? null : Number(view.lastMove) - 1;
      // The analysis's best moves (view.arrows, best first) as their ranks in
      // the holes their stones would fill, as Go marks its points; 1 in bold.
      const ranks = new Map((view.arrows || []).slice(0, MAX_MARKS).map((move, index) => [move, index + 1]));
      for (let col = 0; col < width; col++) {
        const column = el("g", { class: "c4-column", "data-move": String(col + 1) });
        column.append(el("rect", { x: MARGIN + col * CELL, y: MARGIN, width: CELL, height: height * CELL, class: "c4-hover" }));
        for (let row = 0; row < height; row++) {
          const owner = grid[col][row];
          const cx = MARGIN + col * CELL + CELL / 2;
          const cy = MARGIN + (height - 1 - row) * CELL + CELL / 2;
          const isLast = col === last && row === grid[col].filter((c) => c !== null).length - 1;
          column.append(el("circle", {
            cx, cy, r: CELL * 0.4,
            fill: owner === null ? "var(--board-hole)" : COLOURS[owner],
            class: ["c4-cell", isLast ? "last-move" : "", winning.has(`${col},${row}`) ? "winning" : ""].join(" "),
          }));
        }
        const rank = ranks.get(String(col + 1));
        const landing = grid[col].indexOf(null);
        if (rank && landing >= 0) {
          column.append(el("text", {
            x: MARGIN + col * CELL + CELL / 2, y: MARGIN + (height - 1 - landing) * CELL + CELL / 2,
            "font-size": CELL * 0.45, class: `c4-candidate${rank === 1 ? " best" : ""}`, "data-rank": rank,
          }, String(rank)));
        }
        if (view.interactive && legal.has(String(col + 1))) {
          column.append(el("path", {
            d: `M ${MARGIN + col * CELL + CELL / 2 - 8} ${MARGIN - 16} l 16 0 l -8 10 z`,
            fill: COLOURS[view.state.to_move], class: "legal-target",
          }));
        }
        onClick(column, view, () => hooks.play(String(col + 1)), t("board.c4.column", { column: col + 1 }));
        svg.append(column);
        svg.append(el("text", {
          x: MARGIN + col * CELL + CELL / 2, y: MARGIN + height * CELL + 20, class: "coord",
        }, String(col + 1)));
      }
    },
    // Digit keys drop a stone in that column.
    key(event, view) {
      if (!/^[1-9]$/.test(event.key) || !view.interactive) return false;
      hooks.play(event.key);
      return true;
    },
  };
}

// grid[col][row] = player index or null, row 0 at the bottom.
function dropStones(position, width, height) {
  const grid = Array.from({ length: width }, () => Array(height).fill(null));
  [...position].forEach((digit, ply) => {
    const column = grid[Number(digit) - 1];
    if (column === undefined) return;
    const row = column.indexOf(null);
    if (row >= 0) column[row] = ply % 2;
  });
  return grid;
}

// The cells of every line of four of one colour (to ring them at the end).
function winningCells(grid, width, height) {
  const cells = new Set();
  const steps = [[1, 0], [0, 1], [1, 1], [1, -1]];
  for (let col = 0; col < width; col++) {
    for (let row = 0; row < height; row++) {
      const owner = grid[col][row];
      if (owner === null) continue;
      for (const [dc, dr] of steps) {
        const line = [0, 1, 2, 3].map((k) => [col + k * dc, row + k * dr]);
        if (line.every(([c, r]) => c >= 0 && c < width && r >= 0 && r < height && grid[c][r] === owner)) {
          for (const [c, r] of line) cells.add(`${c},${r}`);
        }
      }
    }
  }
  return cells;
}

// Go: GTP vertices (columns A-T without I, row 1 at the bottom) and `pass`.
// The position is the rows from the top joined by '/', each cell '.', 'X'
// (black) or 'O' (white), then a space and the side to move. A click on an
// intersection plays it; the page's Pass button passes.
//
// Captures are not in the position: every stone placed is either still on
// the board or was captured, so a side's prisoners are the opponent's
// stones at the start plus the opponent's placements minus the opponent's
// stones now. At the end the Tromp-Taylor area is drawn: an empty region
// counts for a colour when it touches stones of that colour only.

import { canvas, el, onClick } from "../svg.js";
import { localNumber, playerTitle, t } from "../i18n.js";
import { describeStones } from "./describe.js";

export const COLUMNS = "ABCDEFGHJKLMNOPQRST";
// The whole board is drawn in a viewBox about this wide, whatever the size,
// so that 5x5 and 19x19 fill the same space with readable labels.
const EXTENT = 600;
// Width of the wood outside the outermost stones, where the coordinates are.
const LABEL_STRIP = 30;
const OTHER = { X: "O", O: "X" };
const NAMES = { X: "black", O: "white" };
// Analysed lines marked on their points (the page's lines menu offers up to 5).
const MAX_MARKS = 5;

// {size, cells (rows from the top, arrays of '.', 'X', 'O'), toMove} or null.
export function parsePosition(text) {
  if (typeof text !== "string") return null;
  const [board, side] = text.trim().split(/\s+/);
  if (!board || !(side === "X" || side === "O")) return null;
  const cells = board.split("/").map((row) => [...row]);
  const size = cells.length;
  if (size < 2 || size > COLUMNS.length || cells.some((row) => row.length !== size || row.some((c) => !".XO".includes(c)))) return null;
  return { size, cells, toMove: side };
}

// "D4" -> {row, col} with row 0 at the top, or null (pass, resign, nonsense).
export function vertexAt(move, size) {
  const match = /^([A-HJ-Ta-hj-t])(\d{1,2})$/.exec(move || "");
  if (!match) return null;
  const col = COLUMNS.indexOf(match[1].toUpperCase());
  const number = Number(match[2]);
  if (col < 0 || col >= size || number < 1 || number > size) return null;
  return { row: size - number, col };
}

export function vertexName(row, col, size) {
  return `${COLUMNS[col]}${size - row}`;
}

// Each colour's points by name, from the bottom row (1) up and left to right,
// the order a Go player reads coordinates in.
function stoneNames(cells) {
  const size = cells.length;
  const names = { X: [], O: [] };
  for (let row = size - 1; row >= 0; row--) {
    cells[row].forEach((cell, col) => {
      if (cell in names) names[cell].push(vertexName(row, col, size));
    });
  }
  return names;
}

function count(cells, colour) {
  return cells.reduce((sum, row) => sum + row.filter((c) => c === colour).length, 0);
}

// Prisoners taken by each colour: {X, O}. `start` is the position the moves
// were played from (null: the empty board, black to move).
export function captures(position, history, start) {
  const now = parsePosition(position);
  if (!now) return { X: 0, O: 0 };
  const first = parsePosition(start);
  const placed = { X: first ? count(first.cells, "X") : 0, O: first ? count(first.cells, "O") : 0 };
  let mover = first ? first.toMove : "X";
  for (const move of history) {
    if (vertexAt(move, now.size)) placed[mover]++;
    mover = OTHER[mover];
  }
  return {
    X: Math.max(0, placed.O - count(now.cells, "O")),
    O: Math.max(0, placed.X - count(now.cells, "X")),
  };
}

// Tromp-Taylor area: owner[row][col] is 'X', 'O' or null (an empty point
// reaching both colours, or none); score counts stones and owned points.
export function area(cells) {
  const size = cells.length;
  const owner = cells.map((row) => row.map((c) => (c === "." ? null : c)));
  const seen = cells.map((row) => row.map(() => false));
  const score = { X: count(cells, "X"), O: count(cells, "O") };
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (cells[r][c] !== "." || seen[r][c]) continue;
      const region = [];
      const touches = new Set();
      const stack = [[r, c]];
      seen[r][c] = true;
      while (stack.length) {
        const [y, x] = stack.pop();
        region.push([y, x]);
        for (const [ny, nx] of [[y - 1, x], [y + 1, x], [y, x - 1], [y, x + 1]]) {
          if (ny < 0 || nx < 0 || ny >= size || nx >= size) continue;
          const cell = cells[ny][nx];
          if (cell !== ".") touches.add(cell);
          else if (!seen[ny][nx]) {
            seen[ny][nx] = true;
            stack.push([ny, nx]);
          }
        }
      }
      const colour = touches.size === 1 ? [...touches][0] : null;
      if (colour) score[colour] += region.length;
      for (const [y, x] of region) owner[y][x] = colour;
    }
  }
  return { owner, score };
}

// Star points (hoshi) as {row, col}: the 3-3 points on boards up to 12, the
// 4-4 points from 13 up; the centre on odd boards; the side points on odd
// boards from 15 up (as on 19x19).
export function starPoints(size) {
  if (size < 5) return [];
  const centre = (size - 1) / 2;
  if (size < 7) return size % 2 ? [{ row: centre, col: centre }] : [];
  const edge = size >= 13 ? 3 : 2;
  const lines = [edge, size - 1 - edge];
  const points = [];
  for (const row of lines) for (const col of lines) points.push({ row, col });
  if (size % 2) {
    points.push({ row: centre, col: centre });
    if (size >= 15) {
      for (const line of lines) points.push({ row: line, col: centre }, { row: centre, col: line });
    }
  }
  return points;
}

export default function create(container, hooks) {
  return {
    update(view) {
      const state = view.state;
      const board = parsePosition(state.position);
      if (!board) {
        container.replaceChildren(Object.assign(document.createElement("pre"), { className: "generic-position", textContent: state.position }));
        return;
      }
      const { size, cells } = board;
      // The margin holds half a stone and a strip for the coordinates.
      const cell = (EXTENT - 2 * LABEL_STRIP) / size;
      const margin = cell / 2 + LABEL_STRIP;
      const full = (size - 1) * cell + 2 * margin;
      const at = (index) => margin + index * cell;
      const svg = canvas(container, full, full, t("board.go", { size }), describeStones(stoneNames(cells), "stones"));
      svg.classList.add("go-board");
      svg.append(gradients());
      svg.append(el("rect", { x: 0, y: 0, width: full, height: full, rx: cell * 0.2, class: "go-wood" }));

      // Grid, star points and coordinates.
      const lines = [];
      for (let i = 0; i < size; i++) {
        lines.push(`M ${at(0)} ${at(i)} H ${at(size - 1)}`, `M ${at(i)} ${at(0)} V ${at(size - 1)}`);
      }
      svg.append(el("path", { d: lines.join(" "), class: "go-grid", "stroke-width": Math.max(1, cell / 36) }));
      svg.append(el("rect", { x: at(0), y: at(0), width: at(size - 1) - at(0), height: at(size - 1) - at(0), class: "go-edge", "stroke-width": Math.max(1.5, cell / 22) }));
      for (const { row, col } of starPoints(size)) {
        svg.append(el("circle", { cx: at(col), cy: at(row), r: Math.max(3, cell * 0.09), class: "go-star" }));
      }
      const fontSize = LABEL_STRIP * 0.55;
      for (let i = 0; i < size; i++) {
        const letter = COLUMNS[i];
        const number = String(size - i);
        for (const y of [LABEL_STRIP / 2, full - LABEL_STRIP / 2]) {
          svg.append(el("text", { x: at(i), y, "font-size": fontSize, class: "go-coord" }, letter));
        }
        for (const x of [LABEL_STRIP / 2, full - LABEL_STRIP / 2]) {
          svg.append(el("text", { x, y: at(i), "font-size": fontSize, class: "go-coord" }, number));
        }
      }

      // Intersections: a stone, or an empty point to click (with a preview
      // of the stone under the pointer, drawn by CSS on hover).
      const legal = new Set(state.legal_moves);
      const last = vertexAt(view.lastMove, size);
      const radius = cell * 0.47;
      const mover = board.toMove;
      const ended = Boolean(state.result);
      const territory = ended && view.lastMove !== "resign" ? area(cells) : null;
      // The analysis's best moves (view.arrows, best first) as their ranks on
      // the points, as Go analysis tools show candidate moves; 1 in bold.
      const ranks = new Map((view.arrows || []).slice(0, MAX_MARKS).map((move, index) => [move, index + 1]));
      for (let row = 0; row < size; row++) {
        for (let col = 0; col < size; col++) {
          const name = vertexName(row, col, size);
          const x = at(col);
          const y = at(row);
          const stone = cells[row][col];
          const point = el("g", { "data-move": name, class: stone === "." ? "go-point" : "go-point occupied" });
          point.append(el("rect", { x: x - cell / 2, y: y - cell / 2, width: cell, height: cell, class: "go-hit" }));
          if (stone !== ".") {
            point.append(el("circle", { cx: x + cell * 0.03, cy: y + cell * 0.05, r: radius, class: "go-shadow" }));
            point.append(el("circle", { cx: x, cy: y, r: radius, class: `go-stone ${NAMES[stone]}`, fill: `url(#go-${NAMES[stone]})`, "data-stone": stone }));
            if (last && last.row === row && last.col === col) {
              point.append(el("circle", { cx: x, cy: y, r: radius * 0.42, class: `go-last on-${NAMES[stone]}`, "stroke-width": Math.max(1.5, cell * 0.07) }));
            }
          } else {
            const rank = ranks.get(name);
            // A rank on a star point or a line crossing was hard to read (the
            // tengen dot showed through a 2): it stands on a disc of the wood.
            if (rank) point.append(el("circle", { cx: x, cy: y, r: cell * 0.3, class: "go-candidate-ground" }));
            if (view.interactive && legal.has(name)) {
              point.classList.add("legal");
              point.append(el("circle", { cx: x, cy: y, r: radius, class: `go-preview ${NAMES[mover]}` }));
            }
            if (rank) {
              point.append(el("text", { x, y, "font-size": cell * 0.5, class: `go-candidate${rank === 1 ? " best" : ""}`, "data-rank": rank }, String(rank)));
            }
            const owner = territory ? territory.owner[row][col] : null;
            if (owner) {
              const side = cell * 0.34;
              point.append(el("rect", { x: x - side / 2, y: y - side / 2, width: side, height: side, class: `go-territory ${NAMES[owner]}`, "data-owner": owner }));
            }
          }
          // A taken point is sent too: the server's refusal says why, as it
          // does for a typed move (the review found a silent click).
          onClick(point, view, () => hooks.play(name));
          svg.append(point);
        }
      }

      hooks.note(noteText(state, view, board, territory));
    },
  };
}

// The line under the board: captures, the last move if it was a pass, and
// at the end the area count.
function noteText(state, view, board, territory) {
  const taken = captures(state.position, state.history, view.start ?? null);
  const parts = [t("board.go.captures", { black: taken.X, white: taken.O })];
  if (view.lastMove === "pass") {
    parts.push(t("board.go.passed", { name: playerTitle(NAMES[OTHER[board.toMove]]) }));
    // Tromp-Taylor: nothing is marked dead. A player who passed with the
    // engine's stones still in their area lost on the count, never told
    // (a review, 2026-12-07).
    if (!territory) parts.push(t("board.go.rules"));
  }
  if (territory) {
    const komi = Number(state.options?.komi ?? 0);
    const white = territory.score.O + komi;
    // In the reader's decimal mark, as the result above the board ("7,5" in Portuguese).
    const komiText = komi ? t("board.go.komi", { komi: localNumber(String(komi)), total: localNumber(String(white)) }) : "";
    parts.push(t("board.go.area", { black: territory.score.X, white: territory.score.O, komi: komiText }));
  }
  return `${parts.join(". ")}.`;
}

// Radial gradients: a highlight up and to the left gives the stones some roundness.
function gradients() {
  const defs = el("defs");
  const shades = {
    black: [["0%", "#6a6a6a"], ["45%", "#222"], ["100%", "#050505"]],
    white: [["0%", "#ffffff"], ["60%", "#ece9e2"], ["100%", "#b9b4aa"]],
  };
  for (const [name, stops] of Object.entries(shades)) {
    const gradient = el("radialGradient", { id: `go-${name}`, cx: "0.38", cy: "0.34", r: "0.7", fx: "0.32", fy: "0.28" });
    for (const [offset, colour] of stops) gradient.append(el("stop", { offset, "stop-color": colour }));
    defs.append(gradient);
  }
  return defs;
}

// Othello: columns a-h left to right, rows 1-8 top to bottom. The position is
// 64 characters (row 1 first; X black, O white, '-' or '.' empty), a space
// and the side to move. A forced pass is the page's Pass button.

import { canvas, el, fileLetter, onClick } from "../svg.js";
import { playerTitle, t } from "../i18n.js";
import { describeStones } from "./describe.js";

const CELL = 60;
const MARGIN = 28;

export default function create(container, hooks) {
  return {
    update(view) {
      const size = 8 * CELL + 2 * MARGIN;
      const cells = [...view.state.position.split(" ")[0]];
      const discs = { X: [], O: [] };
      cells.forEach((cell, index) => {
        if (cell in discs && index < 64) discs[cell].push(`${fileLetter(index % 8)}${Math.floor(index / 8) + 1}`);
      });
      const svg = canvas(container, size, size, t("board.othello"), describeStones(discs, "discs"));
      const legal = new Set(view.state.legal_moves);
      const counts = { X: 0, O: 0 };
      for (let row = 0; row < 8; row++) {
        for (let col = 0; col < 8; col++) {
          const name = `${fileLetter(col)}${row + 1}`;
          const x = MARGIN + col * CELL;
          const y = MARGIN + row * CELL;
          const square = el("g", { "data-move": name });
          square.append(el("rect", { x, y, width: CELL, height: CELL, class: "oth-square" }));
          const disc = cells[row * 8 + col];
          if (disc === "X" || disc === "O") {
            counts[disc]++;
            square.append(el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.4, class: `disc ${disc === "X" ? "black" : "white"}` }));
          } else if (view.interactive && legal.has(name)) {
            square.append(el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 7, class: "target-dot" }));
          }
          if (name === view.lastMove) square.append(el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 5, fill: "#e53935", "pointer-events": "none" }));
          onClick(square, view, () => hooks.play(name));
          svg.append(square);
        }
        svg.append(el("text", { x: MARGIN / 2, y: MARGIN + row * CELL + CELL / 2, class: "coord" }, String(row + 1)));
        svg.append(el("text", { x: MARGIN + row * CELL + CELL / 2, y: MARGIN / 2, class: "coord" }, fileLetter(row)));
      }
      let note = t(view.lastMove === "pass" ? "board.othello.discs.pass" : "board.othello.discs", { black: counts.X, white: counts.O });
      // A forced pass: the button alone did not say why (a review, 2026-12-07).
      const moves = view.state.legal_moves;
      if (!view.state.result && moves.length === 1 && moves[0] === "pass") {
        note += ` ${t("board.othello.nomove", { name: playerTitle(view.state.to_move === 0 ? "black" : "white") })}`;
      }
      hooks.note(note);
    },
  };
}

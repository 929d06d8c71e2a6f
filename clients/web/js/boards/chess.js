// Chess: squares a1-h8, moves in UCI (e2e4, e7e8q), positions in FEN. Click a
// piece, then its destination; a promotion asks for the piece. A move the
// server does not accept comes back with its error message.

import { canvas, el, fileLetter, onClick } from "../svg.js";
import { CELL, SIZE, centre, drawLabels, drawSquares, markSquare, squareOrigin, targetMark } from "./squares.js";
import { t } from "../i18n.js";
import { describeChess } from "./describe.js";

// Filled glyphs for both colours (white ones are drawn with a light fill);
// U+FE0E asks for the text form, never an emoji.
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F\uFE0E" };
const PROMOTIONS = ["q", "r", "b", "n"];
// Arrows drawn for an analysis's lines (the best ones; more would hide the board).
const MAX_ARROWS = 3;

export default function create(container, hooks) {
  let selected = null; // {square, position} while a piece is picked up
  let promotion = null; // {from, to, position} while the promotion piece is asked
  let lastView = null;

  function redraw() {
    if (lastView) draw(lastView);
  }

  function draw(view) {
    lastView = view;
    const position = view.state.position;
    if (selected && selected.position !== position) selected = null;
    if (promotion && promotion.position !== position) promotion = null;
    const pieces = parseBoard(position);
    const legal = view.state.legal_moves;
    const flipped = view.flipped;
    const toDisplay = (square) => {
      const file = square.charCodeAt(0) - 97;
      const rank = Number(square[1]) - 1;
      return flipped ? { row: rank, col: 7 - file } : { row: 7 - rank, col: file };
    };
    const fromDisplay = (row, col) => (flipped ? `${fileLetter(7 - col)}${row + 1}` : `${fileLetter(col)}${8 - row}`);

    // Drawn into the container itself, which canvas() empties: it keeps the
    // keyboard's square across the redraw (svg.js).
    const svg = canvas(container, SIZE, SIZE, t("board.chess"), describeChess(pieces));
    const groups = drawSquares(svg);
    drawLabels(svg, (row) => (flipped ? String(row + 1) : String(8 - row)), (col) => (flipped ? fileLetter(7 - col) : fileLetter(col)));

    const last = /^[a-h][1-8][a-h][1-8]/.test(view.lastMove || "") ? [view.lastMove.slice(0, 2), view.lastMove.slice(2, 4)] : [];
    for (const square of last) {
      const { row, col } = toDisplay(square);
      markSquare(groups.get(`${row},${col}`), row, col, "sq-mark");
    }
    if (selected) {
      const { row, col } = toDisplay(selected.square);
      markSquare(groups.get(`${row},${col}`), row, col, "sq-selected");
    }
    for (const [square, piece] of pieces) {
      const { row, col } = toDisplay(square);
      const { cx, cy } = centre(row, col);
      const white = piece === piece.toUpperCase();
      groups.get(`${row},${col}`).append(el("text", {
        x: cx, y: cy + 2, "font-size": 46, class: `piece ${white ? "white" : "black"}`, "data-piece": piece,
      }, GLYPHS[piece.toLowerCase()]));
    }
    if (selected && view.interactive) {
      for (const move of legal) {
        if (!move.startsWith(selected.square)) continue;
        const { row, col } = toDisplay(move.slice(2, 4));
        targetMark(groups.get(`${row},${col}`), row, col, pieces.has(move.slice(2, 4)));
      }
    }
    for (const [key, group] of groups) {
      const [row, col] = key.split(",").map(Number);
      const square = fromDisplay(row, col);
      group.dataset.square = square;
      onClick(group, view, () => clicked(square, view));
    }
    drawArrows(svg, view.arrows || [], toDisplay);
    if (promotion) container.append(promotionChooser(view, pieces, toDisplay(promotion.to)));
  }

  // The analysis's best moves as arrows, the best one boldest (drawn last, on top).
  function drawArrows(svg, moves, toDisplay) {
    const shown = moves.filter((move) => /^[a-h][1-8][a-h][1-8]/.test(move)).slice(0, MAX_ARROWS);
    if (!shown.length) return;
    const defs = el("defs");
    const head = el("marker", { id: "arrow-head", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse" });
    head.append(el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" }));
    defs.append(head);
    svg.append(defs);
    for (let rank = shown.length - 1; rank >= 0; rank--) {
      const from = toDisplay(shown[rank].slice(0, 2));
      const to = toDisplay(shown[rank].slice(2, 4));
      const a = centre(from.row, from.col);
      const b = centre(to.row, to.col);
      svg.append(el("line", {
        x1: a.cx, y1: a.cy, x2: b.cx, y2: b.cy, "marker-end": "url(#arrow-head)",
        class: `arrow${rank === 0 ? " arrow-best" : ""}`, "data-move": shown[rank],
        "stroke-width": rank === 0 ? 9 : 6,
      }));
    }
  }

  function clicked(square, view) {
    const legal = view.state.legal_moves;
    const position = view.state.position;
    const movesFrom = (from) => legal.filter((m) => m.startsWith(from));
    promotion = null;
    if (selected === null || selected.square === square) {
      selected = selected === null && movesFrom(square).length > 0 ? { square, position } : null;
      hooks.note(selected ? t("board.where", { square }) : "");
      redraw();
      return;
    }
    const from = selected.square;
    const matches = legal.filter((m) => m.startsWith(from + square));
    if (matches.length === 0 && movesFrom(square).length > 0) {
      selected = { square, position }; // picked up another piece instead
      hooks.note(t("board.where", { square }));
      redraw();
      return;
    }
    if (matches.length > 1) {
      promotion = { from, to: square, position };
      hooks.note(t("board.promote"));
      redraw();
      return;
    }
    selected = null;
    hooks.note("");
    redraw();
    hooks.play(matches.length === 1 ? matches[0] : from + square);
  }

  // The four pieces in a column over the board from the promotion square
  // inwards, the queen on the square itself (as lichess does). Below the
  // board, the chooser was out of sight on a laptop screen: the player saw
  // the pawn go back and nothing happen (a review, 2026-12-07). Placed in
  // shares of the board (the SVG fills .board, which is square).
  function promotionChooser(view, pieces, target) {
    const white = (pieces.get(promotion.from) || "P") === "P";
    const box = document.createElement("div");
    box.className = "promotion";
    const share = (units) => `${(100 * units) / SIZE}%`;
    const top = target.row < 4 ? target.row : target.row - 3;
    const { x, y } = squareOrigin(top, target.col);
    Object.assign(box.style, { left: share(x), top: share(y), width: share(CELL), height: share(4 * CELL) });
    if (target.row >= 4) box.classList.add("from-bottom"); // the queen lowest, on the square
    for (const letter of PROMOTIONS) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = GLYPHS[letter];
      button.title = t(`board.piece.${letter}`);
      // Named by the piece: a screen reader read the glyph as "black chess
      // queen" for White's promotion too (a review, 2026-12-07).
      button.setAttribute("aria-label", t(`board.piece.${letter}`));
      button.dataset.promotion = letter;
      button.className = white ? "white" : "black";
      button.addEventListener("click", () => {
        const move = promotion.from + promotion.to + letter;
        promotion = null;
        selected = null;
        hooks.note("");
        redraw();
        hooks.play(move);
      });
      box.append(button);
    }
    // Keyboard: the queen has the focus, arrows move it, Escape puts the
    // piece back (the chooser got no focus and no way out, a review of
    // 2026-12-07: keyboard users had to type b8=Q).
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", t("board.promote"));
    box.addEventListener("keydown", (event) => {
      const buttons = [...box.querySelectorAll("button")];
      const at = buttons.indexOf(document.activeElement);
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        promotion = null;
        selected = null;
        hooks.note("");
        redraw();
        // The focus back where the keyboard user left off: the move box.
        document.getElementById("move-input")?.focus();
      } else if (["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"].includes(event.key) && at >= 0) {
        event.preventDefault();
        event.stopPropagation();
        // Down moves down the column as drawn: the queen is at the bottom
        // when it opens upwards (ArrowDown went up: a review, 2026-12-07).
        const down = event.key === "ArrowRight" || event.key === "ArrowDown";
        const step = down !== box.classList.contains("from-bottom") ? 1 : -1;
        buttons[(at + step + buttons.length) % buttons.length].focus();
      }
    });
    requestAnimationFrame(() => box.querySelector("button")?.focus());
    // A press anywhere off the chooser puts the piece back, as a click on
    // the board does: off the board it stayed open, over the squares (a
    // review, 2026-12-07).
    const away = (event) => {
      if (!box.isConnected) {
        document.removeEventListener("pointerdown", away, true);
        return;
      }
      if (box.contains(event.target) || container.contains(event.target)) return;
      document.removeEventListener("pointerdown", away, true);
      promotion = null;
      selected = null;
      hooks.note("");
      redraw();
    };
    document.addEventListener("pointerdown", away, true);
    return box;
  }

  return { update: draw, flippable: true };
}

// The pieces of a FEN's first field: Map square -> FEN letter.
function parseBoard(fen) {
  const pieces = new Map();
  const ranks = fen.split(" ")[0].split("/");
  ranks.forEach((text, index) => {
    const rank = 8 - index;
    let file = 0;
    for (const ch of text) {
      if (/[1-8]/.test(ch)) file += Number(ch);
      else {
        pieces.set(`${fileLetter(file)}${rank}`, ch);
        file++;
      }
    }
  });
  return pieces;
}

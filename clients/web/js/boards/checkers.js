// English checkers: dark squares numbered 1-32 from Black's side (1-4 is
// Black's back row). Black (the first player) is drawn at the bottom, so
// square 1 is at the bottom right; flipped, White is at the bottom. moves 11-15, captures 22x15 and
// multi-jumps 22x15x24 listing every landing square; positions in PDN FEN
// (B:W21,...:B1,...; K before a king's square). Click a piece, then its
// landing squares in turn: a unique continuation is completed at once.

import { canvas, el, onClick } from "../svg.js";
import { CELL, SIZE, centre, drawSquares, markSquare, squareOrigin, targetMark } from "./squares.js";
import { t } from "../i18n.js";
import { describeCheckers } from "./describe.js";

const COLOURS = { B: "black", W: "white" };

export default function create(container, hooks) {
  let path = []; // squares clicked so far for the move being made
  let pathPosition = null;
  let lastView = null;

  function draw(view) {
    lastView = view;
    if (pathPosition !== view.state.position) path = [];
    const pieces = parsePosition(view.state.position);
    const legal = view.state.legal_moves.map((text) => ({ text, squares: text.split(/[-x]/).map(Number) }));
    const display = (square) => {
      const { row, col } = squareToGrid(square);
      // squareToGrid puts Black's side at the top: turn it round unless flipped.
      return view.flipped ? { row, col } : { row: 7 - row, col: 7 - col };
    };
    const svg = canvas(container, SIZE, SIZE, t("board.checkers"), describeCheckers(pieces));
    const groups = drawSquares(svg);
    const last = view.lastMove ? view.lastMove.split(/[-x]/).map(Number).filter((n) => n >= 1 && n <= 32) : [];
    for (let square = 1; square <= 32; square++) {
      const { row, col } = display(square);
      const group = groups.get(`${row},${col}`);
      group.dataset.square = String(square);
      if (last.includes(square)) markSquare(group, row, col, "sq-mark");
      if (path.includes(square)) markSquare(group, row, col, "sq-selected");
      const { x, y } = squareOrigin(row, col);
      group.append(el("text", { x: x + 4, y: y + 11, class: "square-number" }, String(square)));
      const piece = pieces.get(square);
      if (piece) drawPiece(group, row, col, piece);
      onClick(group, view, () => clicked(square, view, legal));
    }
    if (view.interactive) {
      const next = new Set();
      if (path.length === 0) {
        for (const move of legal) next.add(move.squares[0]);
      } else {
        for (const move of legal) {
          if (startsWith(move.squares, path) && move.squares.length > path.length) next.add(move.squares[path.length]);
        }
      }
      for (const square of next) {
        const { row, col } = display(square);
        targetMark(groups.get(`${row},${col}`), row, col, path.length === 0);
      }
    }
  }

  function clicked(square, view, legal) {
    const position = view.state.position;
    const startsHere = legal.some((m) => m.squares[0] === square);
    if (path.length === 0 || (path.length === 1 && path[0] === square)) {
      path = path.length === 0 && startsHere ? [square] : [];
      pathPosition = position;
      hooks.note(path.length ? t("board.landing", { square }) : (startsHere ? "" : t("board.nomove", { square })));
      draw(view);
      return;
    }
    const candidate = [...path, square];
    const exact = legal.find((m) => sameSquares(m.squares, candidate));
    const extending = legal.filter((m) => startsWith(m.squares, candidate));
    const ending = legal.filter((m) => m.squares[0] === path[0] && m.squares[m.squares.length - 1] === square);
    let move = null;
    if (exact) move = exact.text;
    else if (extending.length === 1) move = extending[0].text; // the rest of the jump is forced
    else if (extending.length === 0 && ending.length === 1 && path.length === 1) move = ending[0].text;
    if (move !== null) {
      path = [];
      hooks.note("");
      draw(view);
      hooks.play(move);
      return;
    }
    if (extending.length > 1) {
      path = candidate;
      hooks.note(t("board.landing.next", { square: candidate.join("x") }));
      draw(view);
      return;
    }
    if (path.length === 1 && startsHere) {
      path = [square]; // picked up another piece instead
      hooks.note(t("board.landing", { square }));
      draw(view);
      return;
    }
    // Not a legal move: let the server say why.
    const capture = legal.some((m) => /x/.test(m.text));
    path = [];
    draw(view);
    hooks.play(candidate.join(capture ? "x" : "-"));
  }

  return { update: draw, flippable: true };
}

function drawPiece(group, row, col, piece) {
  const { cx, cy } = centre(row, col);
  const colour = COLOURS[piece.colour];
  group.append(el("circle", { cx, cy, r: CELL * 0.38, class: `man ${colour}` }));
  group.append(el("circle", { cx, cy, r: CELL * 0.27, class: `man-rim ${colour}` }));
  if (piece.king) group.append(el("text", { x: cx, y: cy + 2, "font-size": 26, class: `crown ${colour}` }, "\u265B"));
}

// Square 1-32 to (row, col), row 0 at the top (Black's side): even rows hold
// their dark squares in columns 1, 3, 5, 7; odd rows in 0, 2, 4, 6.
function squareToGrid(square) {
  const row = Math.floor((square - 1) / 4);
  const index = (square - 1) % 4;
  return { row, col: 2 * index + (row % 2 === 0 ? 1 : 0) };
}

// PDN FEN: "B:W21,22,K30:B1-12" -> Map square -> {colour, king}.
function parsePosition(fen) {
  const pieces = new Map();
  for (const field of fen.split(":").slice(1)) {
    const colour = field[0].toUpperCase();
    if (!(colour in COLOURS)) continue;
    for (let item of field.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item.startsWith("K");
      const [low, high] = item.replace(/^K/, "").split("-").map(Number);
      for (let square = low; square <= (high || low); square++) pieces.set(square, { colour, king });
    }
  }
  return pieces;
}

function startsWith(squares, prefix) {
  return prefix.every((square, i) => squares[i] === square);
}

function sameSquares(a, b) {
  return a.length === b.length && startsWith(a, b);
}

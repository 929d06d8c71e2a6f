// The position in words, for a screen reader: each board is one SVG image
// to assistive technology (svg.js canvas), so without these a player who
// cannot see the board hears only "Chess board". The words name squares,
// points and columns as the game's moves do, so that what is heard can be
// typed straight into the move field. One function per game, each taking
// what its board module has already parsed.

import { t } from "../i18n.js";

// "a1, b2, c3": a list of names as a screen reader reads it best.
function list(names) {
  return names.join(", ");
}

// Chess squares in reading order: by rank from White's side, then by file.
function bySquare(a, b) {
  return a[1] === b[1] ? a.localeCompare(b) : Number(a[1]) - Number(b[1]);
}

// `pieces`: Map square -> FEN letter (upper case White).
export function describeChess(pieces) {
  const sides = [];
  for (const white of [true, false]) {
    const parts = [];
    for (const kind of "kqrbnp") {
      const letter = white ? kind.toUpperCase() : kind;
      const squares = [...pieces].filter(([, piece]) => piece === letter).map(([square]) => square).sort(bySquare);
      if (squares.length) parts.push(t(`board.say.${kind}`, { count: squares.length, squares: list(squares) }));
    }
    sides.push(t(white ? "board.say.white" : "board.say.black", { pieces: parts.join("; ") }));
  }
  return sides.join(" ");
}

// `pieces`: Map square number (1-32) -> {colour: "B" | "W", king}.
export function describeCheckers(pieces) {
  const sides = [];
  for (const colour of ["B", "W"]) {
    const own = [...pieces].filter(([, piece]) => piece.colour === colour).sort((a, b) => a[0] - b[0]);
    const men = own.filter(([, piece]) => !piece.king).map(([square]) => square);
    const kings = own.filter(([, piece]) => piece.king).map(([square]) => square);
    const parts = [];
    if (men.length) parts.push(t("board.say.men", { count: men.length, squares: list(men) }));
    if (kings.length) parts.push(t("board.say.kings", { count: kings.length, squares: list(kings) }));
    sides.push(t(colour === "B" ? "board.say.black" : "board.say.white", { pieces: parts.join("; ") }));
  }
  return sides.join(" ");
}

// Go and Othello: `stones` maps each colour ("X" black, "O" white) to the
// names of its points, in reading order.
export function describeStones(stones, kind) {
  return ["X", "O"].map((colour) => {
    const names = stones[colour];
    const key = colour === "X" ? `board.say.${kind}.black` : `board.say.${kind}.white`;
    return t(key, { count: names.length, points: list(names) });
  }).join(" ");
}

// Connect Four: `grid[col][row]` a player index or null, row 0 at the
// bottom; `names` the players' colours as the page shows them.
export function describeColumns(grid, names) {
  return grid.map((column, index) => {
    const stones = column.filter((owner) => owner !== null).map((owner) => names[owner]);
    return stones.length
      ? t("board.say.column", { column: index + 1, stones: list(stones) })
      : t("board.say.column.empty", { column: index + 1 });
  }).join(" ");
}

// Tic-tac-toe: `marks` nine characters, top row first.
export function describeRows(marks) {
  const rows = [];
  for (let row = 0; row < 3; row++) {
    const cells = [0, 1, 2].map((col) => {
      const mark = marks[row * 3 + col];
      const square = `${String.fromCharCode(97 + col)}${3 - row}`;
      return mark === "X" || mark === "O" ? `${square} ${mark}` : t("board.say.cell.empty", { square });
    });
    rows.push(`${list(cells)}.`);
  }
  return rows.join(" ");
}

// Nim: the heap sizes, heap 1 first.
export function describeHeaps(heaps) {
  return t("board.say.heaps", { heaps: list(heaps.map((size, index) => t("board.say.heap", { heap: index + 1, count: size }))) });
}

// Backgammon: `own` a player's 25 counts (points 1-24 numbered from that
// player's side, as its moves are written, then the bar), `name` how the
// page names the player.
export function describeCheckersOnPoints(own, name, total) {
  const points = [];
  own.slice(0, 24).forEach((count, index) => {
    if (count) points.push(t("board.say.point", { point: index + 1, count }));
  });
  const off = total - own.reduce((a, b) => a + b, 0);
  const parts = [list(points) || t("board.say.none")];
  if (own[24]) parts.push(t("board.say.bar", { count: own[24] }));
  if (off) parts.push(t("board.say.off", { count: off }));
  return t("board.say.player", { name, checkers: parts.join("; ") });
}

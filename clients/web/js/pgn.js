// Reading a pasted PGN (a whole chess game, as lichess, chess.com or any
// chess program exports it) into what the server's `new_game` takes: the
// start position (the FEN tag, if any) and the moves in SAN, which the
// server reads (protocol.md, chess). Comments, variations, NAGs, move
// numbers, annotation marks and the result are dropped; only the first game
// of a paste with several is read.

const RESULT = /^(1-0|0-1|1\/2-1\/2|\*)$/;
// Annotation glyphs some programs write as text instead of $n NAGs (±, ∓,
// ⩲, ⩱, +−, −+, =, ∞, □, ⨀ ...): a token of these alone is dropped, and
// they are stripped from the end of a move (a review of 2026-12-07: "±"
// was refused as a move).
const GLYPHS = /[±∓⩲⩱∞□⨀⇆⇄↑→⊥⟳⊕‼⁇⁉⁈=+\-−–]+$/u;
// Figurine SAN (♘f3): the piece letters.
const FIGURINES = { "♔": "K", "♕": "Q", "♖": "R", "♗": "B", "♘": "N", "♚": "K", "♛": "Q", "♜": "R", "♝": "B", "♞": "N", "♙": "", "♟": "" };

// Whether pasted text is a PGN rather than a FEN: it has tags or numbered moves.
export function looksLikePgn(text) {
  return /^\s*\[\w+\s+"/.test(text) || /(^|\s)1\.\s*\S/.test(text);
}

// {tags, position, moves} of the first game in `text`; throws an Error
// with a message for the page when there is no move and no position.
export function parsePgn(text) {
  const tags = {};
  let rest = text.replace(/\r/g, "");
  // Tags: [Name "value"], at the start of the game, one or several a line
  // (tags on one line were read as moves: a review of 2026-12-07).
  rest = rest.replace(/\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]/g, (whole, name, value) => {
    if (!(name in tags)) tags[name] = value.replace(/\\(.)/g, "$1");
    return "";
  });
  rest = rest.replace(/\{[^}]*\}/g, " ").replace(/;[^\n]*/g, " ").replace(/^%[^\n]*/gm, " ");
  // Variations, innermost first (they nest).
  let previous;
  do {
    previous = rest;
    rest = rest.replace(/\([^()]*\)/g, " ");
  } while (rest !== previous);
  const moves = [];
  for (let token of rest.split(/\s+/)) {
    token = token.replace(/^\d+\.(\.\.)?/, "").replace(/\$\d+/g, "").replace(/[!?]+$/, "");
    if (!token || /^\d+\.*$/.test(token)) continue;
    if (RESULT.test(token)) break; // the end of the first game
    // "exd6 e.p.": the en passant note some PGNs write (python-chess drops it too).
    if (/^e\.?p\.?$/i.test(token)) continue;
    token = token.replace(/[♔♕♖♗♘♚♛♜♝♞♙♟]/gu, (piece) => FIGURINES[piece]);
    if (GLYPHS.test(token) && token.replace(GLYPHS, "") === "") continue; // a glyph alone
    // A move's own trailing glyphs, but not a check's +, a promotion's =Q or a castling's dash.
    token = token.replace(/(?:\+[−–-]|[−–-]\+|[±∓⩲⩱∞□⨀‼⁇⁉⁈])+$/u, "").replace(/[!?]+$/, "");
    moves.push(token);
  }
  const position = tags.FEN && tags.SetUp !== "0" ? tags.FEN : null;
  if (moves.length === 0 && position === null) throw new Error("no moves");
  return { tags, position, moves };
}

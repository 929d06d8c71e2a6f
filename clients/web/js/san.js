// Chess moves from UCI (`g1f3`, what the server's `pv` holds) to SAN (`Nf3`,
// what the move list shows), so that a principal variation reads like the
// move list beside it. A small legal-move generator: enough to disambiguate
// (`Nbd7`), to mark check (`+`) and mate (`#`), castling (`O-O`), en passant
// and promotion (`e8=Q`). Standard chess only (the server has no Chess960).

const FILES = "abcdefgh";
const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const KING = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
const ROOK = [[1, 0], [0, 1], [-1, 0], [0, -1]];
const BISHOP = [[1, 1], [-1, 1], [-1, -1], [1, -1]];

// A position: board[file][rank] is a FEN letter or "" (rank 0 is White's first).
function parseFen(fen) {
  const [placement, side = "w", castling = "-", ep = "-"] = fen.trim().split(/\s+/);
  const rows = placement.split("/");
  if (rows.length !== 8) return null;
  const board = Array.from({ length: 8 }, () => Array(8).fill(""));
  for (let r = 0; r < 8; r++) {
    let f = 0;
    for (const ch of rows[r]) {
      if (/\d/.test(ch)) f += Number(ch);
      else if (f < 8) board[f++][7 - r] = ch;
      else return null;
    }
    if (f !== 8) return null;
  }
  return { board, white: side === "w", castling: castling === "-" ? "" : castling, ep: ep === "-" ? null : square(ep) };
}

function square(name) {
  return /^[a-h][1-8]$/.test(name) ? [FILES.indexOf(name[0]), Number(name[1]) - 1] : null;
}

function name([f, r]) {
  return `${FILES[f]}${r + 1}`;
}

const isWhite = (piece) => piece !== "" && piece === piece.toUpperCase();
const inside = (f, r) => f >= 0 && f < 8 && r >= 0 && r < 8;

// Whether `byWhite`'s pieces attack square [f, r].
function attacked(board, [f, r], byWhite) {
  const own = (piece, kind) => piece !== "" && isWhite(piece) === byWhite && piece.toLowerCase() === kind;
  const dir = byWhite ? -1 : 1; // a white pawn attacks from the rank below
  for (const df of [-1, 1]) if (inside(f + df, r + dir) && own(board[f + df][r + dir], "p")) return true;
  for (const [df, dr] of KNIGHT) if (inside(f + df, r + dr) && own(board[f + df][r + dr], "n")) return true;
  for (const [df, dr] of KING) if (inside(f + df, r + dr) && own(board[f + df][r + dr], "k")) return true;
  for (const [dirs, kinds] of [[ROOK, ["r", "q"]], [BISHOP, ["b", "q"]]]) {
    for (const [df, dr] of dirs) {
      let x = f + df;
      let y = r + dr;
      while (inside(x, y)) {
        const piece = board[x][y];
        if (piece !== "") {
          if (kinds.some((kind) => own(piece, kind))) return true;
          break;
        }
        x += df;
        y += dr;
      }
    }
  }
  return false;
}

function kingSquare(board, white) {
  for (let f = 0; f < 8; f++) for (let r = 0; r < 8; r++) if (board[f][r] === (white ? "K" : "k")) return [f, r];
  return null;
}

// Moves that follow the pieces' rules, not yet checked for leaving the king in check.
function pseudoMoves(pos) {
  const { board, white } = pos;
  const moves = [];
  const add = (from, to, promo = "") => moves.push({ from, to, promo });
  for (let f = 0; f < 8; f++) {
    for (let r = 0; r < 8; r++) {
      const piece = board[f][r];
      if (piece === "" || isWhite(piece) !== white) continue;
      const kind = piece.toLowerCase();
      const free = (x, y) => inside(x, y) && board[x][y] === "";
      const enemy = (x, y) => inside(x, y) && board[x][y] !== "" && isWhite(board[x][y]) !== white;
      if (kind === "p") {
        const dir = white ? 1 : -1;
        const last = white ? 7 : 0;
        const pawnTo = (x, y) => {
          if (y === last) for (const p of "qrbn") add([f, r], [x, y], p);
          else add([f, r], [x, y]);
        };
        if (free(f, r + dir)) {
          pawnTo(f, r + dir);
          if (r === (white ? 1 : 6) && free(f, r + 2 * dir)) add([f, r], [f, r + 2 * dir]);
        }
        for (const df of [-1, 1]) {
          const x = f + df;
          const y = r + dir;
          if (enemy(x, y)) pawnTo(x, y);
          else if (pos.ep && pos.ep[0] === x && pos.ep[1] === y) add([f, r], [x, y]);
        }
      } else if (kind === "n" || kind === "k") {
        for (const [df, dr] of kind === "n" ? KNIGHT : KING) {
          if (free(f + df, r + dr) || enemy(f + df, r + dr)) add([f, r], [f + df, r + dr]);
        }
      } else {
        const dirs = kind === "r" ? ROOK : kind === "b" ? BISHOP : [...ROOK, ...BISHOP];
        for (const [df, dr] of dirs) {
          let x = f + df;
          let y = r + dr;
          while (free(x, y)) {
            add([f, r], [x, y]);
            x += df;
            y += dr;
          }
          if (enemy(x, y)) add([f, r], [x, y]);
        }
      }
    }
  }
  // Castling: the rights, empty squares between, and no attacked square on the king's way.
  const rank = white ? 0 : 7;
  if (board[4][rank] === (white ? "K" : "k") && !attacked(board, [4, rank], !white)) {
    const rights = white ? pos.castling.replace(/[a-z]/g, "") : pos.castling.replace(/[A-Z]/g, "").toUpperCase();
    if (rights.includes("K") && board[5][rank] === "" && board[6][rank] === "" && !attacked(board, [5, rank], !white)) {
      add([4, rank], [6, rank]);
    }
    if (rights.includes("Q") && board[3][rank] === "" && board[2][rank] === "" && board[1][rank] === ""
      && !attacked(board, [3, rank], !white)) {
      add([4, rank], [2, rank]);
    }
  }
  return moves;
}

// The position after a move (a new object; the old one is kept).
function play(pos, move) {
  const board = pos.board.map((file) => file.slice());
  const [ff, fr] = move.from;
  const [tf, tr] = move.to;
  const piece = board[ff][fr];
  const kind = piece.toLowerCase();
  if (kind === "p" && pos.ep && tf === pos.ep[0] && tr === pos.ep[1] && board[tf][tr] === "") board[tf][fr] = "";
  if (kind === "k" && Math.abs(tf - ff) === 2) {
    const [rookFrom, rookTo] = tf === 6 ? [7, 5] : [0, 3];
    board[rookTo][fr] = board[rookFrom][fr];
    board[rookFrom][fr] = "";
  }
  board[tf][tr] = move.promo ? (pos.white ? move.promo.toUpperCase() : move.promo) : piece;
  board[ff][fr] = "";
  let castling = pos.castling;
  const lose = (letters) => { castling = castling.replace(new RegExp(`[${letters}]`, "g"), ""); };
  if (piece === "K") lose("KQ");
  if (piece === "k") lose("kq");
  for (const [f, r, letter] of [[0, 0, "Q"], [7, 0, "K"], [0, 7, "q"], [7, 7, "k"]]) {
    if ((ff === f && fr === r) || (tf === f && tr === r)) lose(letter);
  }
  const ep = kind === "p" && Math.abs(tr - fr) === 2 ? [ff, (fr + tr) / 2] : null;
  return { board, white: !pos.white, castling, ep };
}

function legalMoves(pos) {
  return pseudoMoves(pos).filter((move) => {
    const after = play(pos, move);
    const king = kingSquare(after.board, pos.white);
    return king !== null && !attacked(after.board, king, !pos.white);
  });
}

const same = (a, b) => a[0] === b[0] && a[1] === b[1];

// SAN of a legal move in `pos`.
function sanOf(pos, move, legal) {
  const piece = pos.board[move.from[0]][move.from[1]];
  const kind = piece.toLowerCase();
  const capture = pos.board[move.to[0]][move.to[1]] !== "" || (kind === "p" && move.from[0] !== move.to[0]);
  let text;
  if (kind === "k" && Math.abs(move.to[0] - move.from[0]) === 2) {
    text = move.to[0] === 6 ? "O-O" : "O-O-O";
  } else if (kind === "p") {
    text = `${capture ? `${FILES[move.from[0]]}x` : ""}${name(move.to)}${move.promo ? `=${move.promo.toUpperCase()}` : ""}`;
  } else {
    // Another piece of the same kind that can reach the square: say the file, else the rank, else both.
    const rivals = legal.filter((other) => !same(other.from, move.from) && same(other.to, move.to)
      && pos.board[other.from[0]][other.from[1]] === piece);
    let from = "";
    if (rivals.length > 0) {
      if (!rivals.some((other) => other.from[0] === move.from[0])) from = FILES[move.from[0]];
      else if (!rivals.some((other) => other.from[1] === move.from[1])) from = String(move.from[1] + 1);
      else from = name(move.from);
    }
    text = `${kind.toUpperCase()}${from}${capture ? "x" : ""}${name(move.to)}`;
  }
  const after = play(pos, move);
  const king = kingSquare(after.board, after.white);
  if (king !== null && attacked(after.board, king, pos.white)) text += legalMoves(after).length === 0 ? "#" : "+";
  return { text, after };
}

// The SAN of `uciMoves` played one after another from `fen`; null if the
// FEN or any move cannot be read (the caller then shows the UCI).
export function uciToSan(fen, uciMoves) {
  let pos = parseFen(fen);
  if (pos === null) return null;
  const out = [];
  for (const uci of uciMoves) {
    const match = /^([a-h][1-8])([a-h][1-8])([qrbn]?)$/.exec(uci);
    if (!match) return null;
    const from = square(match[1]);
    const to = square(match[2]);
    const legal = legalMoves(pos);
    const move = legal.find((m) => same(m.from, from) && same(m.to, to) && m.promo === match[3]);
    if (!move) return null;
    const { text, after } = sanOf(pos, move, legal);
    out.push(text);
    pos = after;
  }
  return out;
}

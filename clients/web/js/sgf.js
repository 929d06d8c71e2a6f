// Reads a pasted SGF game record (FF[4], Go) into what the Play page loads
// as a game: the setup of its first node and the moves of its main line, so
// that the moves can be stepped through and reviewed as a pasted PGN is.
// Until 2026-12-07 a pasted record was sent whole as a start position: the
// server played its moves into the board, and the page showed the last
// position with no move list (a review of that day).
//
// The server still checks everything: this module only splits the record.
// A record it cannot split faithfully into "a start position, then moves
// for alternating sides" (setup stones in a later node, two moves in a row
// by one colour, a node with both B and W, moves after two passes) is left
// to the server whole, as before, and gives null here.

// SGF points: a letter per column from the left and per row from the top;
// GTP vertices skip I and count rows from the bottom.
export const SGF_LETTERS = "abcdefghijklmnopqrs";
const COLUMNS = "ABCDEFGHJKLMNOPQRST";
const SETUP = ["AB", "AW", "AE"];
// Root properties a loaded record keeps in its export: players, event,
// round, date, place, game name, handicap.
export const KEPT_TAGS = ["PB", "PW", "EV", "RO", "DT", "PC", "GN", "HA"];

// A property value as SGF writes it: "\" and "]" escaped.
export function sgfEscape(text) {
  return String(text).replace(/\\/g, "\\\\").replace(/]/g, "\\]");
}

// The game tree as nested { nodes: [Map(name -> [values])], children: [tree] }.
// Throws an Error on text that is not SGF.
function parseTree(text) {
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const value = () => {
    // at is just past "[": read to the closing "]", "\" escaping the next character
    let out = "";
    while (at < text.length && text[at] !== "]") {
      if (text[at] === "\\") at++;
      out += text[at] ?? "";
      at++;
    }
    if (at >= text.length) throw new Error("an SGF value has no closing ]");
    at++;
    return out;
  };
  const node = () => {
    const props = new Map();
    for (;;) {
      skipSpace();
      const name = /^[A-Za-z]+/.exec(text.slice(at, at + 16));
      if (!name) return props;
      at += name[0].length;
      const values = [];
      skipSpace();
      while (text[at] === "[") {
        at++;
        values.push(value());
        skipSpace();
      }
      if (values.length === 0) throw new Error(`SGF property ${name[0]} has no value`);
      // Only the upper-case letters name a property (FF[1]'s lower-case ones are ignored).
      props.set(name[0].replace(/[a-z]/g, ""), values);
    }
  };
  const tree = () => {
    skipSpace();
    if (text[at] !== "(") throw new Error("an SGF game tree starts with (");
    at++;
    const nodes = [];
    const children = [];
    for (;;) {
      skipSpace();
      if (text[at] === ";") {
        if (children.length > 0) throw new Error("an SGF node after a variation");
        at++;
        nodes.push(node());
      } else if (text[at] === "(") {
        children.push(tree());
      } else if (text[at] === ")") {
        at++;
        return { nodes, children };
      } else {
        throw new Error("unexpected text in an SGF record");
      }
    }
  };
  return tree();
}

// The nodes of a record's main line (each first variation), or null when
// the text is not SGF.
function mainLine(text) {
  let tree;
  try {
    tree = parseTree(text.trim());
  } catch {
    return null;
  }
  const nodes = [];
  for (let at = tree; at; at = at.children[0]) nodes.push(...at.nodes);
  return nodes;
}

// The board size a record's first node gives (SGF's default is 19).
function boardSize(root) {
  return Number((root.get("SZ") ?? ["19"])[0].trim());
}

// A point's GTP vertex on a board of the given size ("pass" for an empty
// value, or "tt" on boards up to 19), or null when it is off the board.
export function sgfVertex(point, size) {
  if (point === "" || (point === "tt" && size <= 19)) return "pass";
  if (point.length !== 2) return null;
  const column = SGF_LETTERS.indexOf(point[0]);
  const row = SGF_LETTERS.indexOf(point[1]);
  if (column < 0 || row < 0 || column >= size || row >= size) return null;
  return `${COLUMNS[column]}${size - row}`;
}

// A GTP vertex's SGF point on a board of the given size ("" for a pass or
// anything else that is no vertex), the inverse of sgfVertex.
export function sgfPoint(vertex, size) {
  const match = /^([A-HJ-T])(\d+)$/i.exec(vertex);
  if (!match) return "";
  return SGF_LETTERS[COLUMNS.indexOf(match[1].toUpperCase())] + SGF_LETTERS[size - Number(match[2])];
}

// The board size and komi a record's first node gives (SZ, KM; SGF's
// default size is 19, and komi is null when KM is not given), or null when
// the text is not SGF. Read with the record's own parser, so that
// FF[1]'s long names (SiZe, KoMi) count as SZ and KM do.
export function sgfRules(text) {
  const root = mainLine(text)?.[0];
  if (!root) return null;
  const size = boardSize(root);
  const komiText = root.get("KM")?.[0]?.trim();
  const komi = komiText === undefined || komiText === "" ? null : Number(komiText);
  return {
    size: Number.isInteger(size) ? size : null,
    komi: komi !== null && Number.isFinite(komi) ? komi : null,
  };
}

// { setup, moves, size, tags } of a record whose main line has moves, or null
// (see the top). setup is an SGF record of the first node's stones and the
// first mover (null when the game starts from the empty board with Black).
export function readSgfGame(text) {
  const nodes = mainLine(text);
  if (!nodes || nodes.length === 0) return null;
  const root = nodes[0];
  const size = boardSize(root);
  if (!Number.isInteger(size) || size < 2 || size > 19) return null;
  const moves = [];
  let first = null;
  let colour = null;
  for (const [index, props] of nodes.entries()) {
    if (index > 0 && SETUP.some((name) => props.has(name))) return null;
    const played = ["B", "W"].filter((name) => props.has(name));
    if (played.length === 0) continue;
    if (played.length > 1) return null;
    const [name] = played;
    if (colour !== null && name === colour) return null; // not alternating
    const values = props.get(name);
    if (values.length !== 1) return null;
    const vertex = sgfVertex(values[0].trim(), size);
    if (vertex === null) return null;
    // Moves after two passes (a clean-up phase) are played on by the
    // server's own reader only: a game that ended takes no more moves.
    if (moves.length >= 2 && moves.at(-1) === "pass" && moves.at(-2) === "pass") return null;
    moves.push(vertex);
    first ??= name;
    colour = name;
  }
  if (moves.length === 0) return null;
  const declared = root.get("PL")?.[0]?.trim().toUpperCase();
  if (declared !== undefined && declared !== first) return null;
  // The record's names and event, kept by the page's export (it wrote
  // "Human" for both players and today's date: a review of 2026-12-07).
  const tags = {};
  for (const name of KEPT_TAGS) {
    const value = root.get(name)?.[0]?.trim();
    if (value) tags[name] = value;
  }
  const stones = SETUP.filter((name) => root.has(name));
  if (stones.length === 0 && first === "B") return { setup: null, moves, size, tags };
  const props = stones.map((name) => name + root.get(name).map((value) => `[${sgfEscape(value)}]`).join(""));
  return { setup: `(;SZ[${size}]${props.join("")}PL[${first}])`, moves, size, tags };
}

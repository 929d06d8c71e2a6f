// The server's own words, in the page's language: why a game ended, why a
// search ended and what a game's option means. A game's `result.reason` and
// an option's help are free text from the game (engine/games/*.py); the ones
// known here, word for word, and the few patterns below have translations,
// anything else (a new game's, a changed text, an outside program's) is
// shown as the server wrote it. A bestmove's `reason` is one of protocol.md's.

import { has, localNumber, t } from "./i18n.js";

// The server's name as welcome.server writes it, its engine build in the
// page's language: "alphabeta-arena 0.6.0 (compiled)" stayed English on
// the Portuguese pages (a review of 2026-12-07).
export function serverName(text) {
  const found = /^(.*) \((compiled|pure)\)$/.exec(text || "");
  return found ? `${found[1]} (${t(`server.build.${found[2]}`)})` : text;
}

// Fixed game-end reasons -> their key in strings.js.
const FIXED = {
  "three in a row": "result.three",
  "four in a row": "result.four",
  "board full": "result.full",
  "checkmate": "result.checkmate",
  "stalemate": "result.stalemate",
  "fifty-move rule": "result.fifty",
  "threefold repetition": "result.threefold",
  "insufficient material": "result.material",
  "no pieces left": "result.nopieces",
  "no legal move": "result.nomove",
  "40 moves each without capture or man move": "result.forty",
  "took the last object": "result.last",
  "the opponent took the last object": "result.last.opponent",
  "bore off all checkers": "result.boreoff",
  "gammon": "result.gammon",
  "backgammon": "result.backgammon",
};

// A game's reason in the page's language; `title(name)` writes a player's name.
export function resultReason(reason, title) {
  if (!reason) return "";
  if (FIXED[reason]) return t(FIXED[reason]);
  let match = /^(\d+)-(\d+) discs$/.exec(reason);
  if (match) return t("result.discs", { mine: match[1], theirs: match[2] });
  match = /^(\w+) wins by (\d+(?:\.\d+)?)$/.exec(reason);
  if (match) return t("result.winsby", { name: title(match[1]), margin: localNumber(match[2]) });
  match = /^(\w+) resigns$/.exec(reason);
  if (match) return t("result.resigns", { name: title(match[1]) });
  match = /^draw at (\d+(?:\.\d+)?) points each$/.exec(reason);
  if (match) return t("result.drawat", { points: localNumber(match[1]) });
  match = /^leaf (-?\d+(?:\.\d+)?)$/.exec(reason);
  if (match) return t("result.leaf", { value: localNumber(match[1]) });
  return reason;
}

// A bestmove's reason (protocol.md) in the page's language.
export function searchReason(reason) {
  const key = `reason.${reason}`;
  return reason && has(key) ? t(key) : String(reason ?? "");
}

// The games' option help (welcome's option_help), word for word -> key.
const OPTION_HELP = {
  "heap sizes": "option.heaps",
  "taking the last object loses": "option.misere",
  "number of columns": "option.width",
  "number of rows": "option.height",
  "board size (lines)": "option.size",
  "points given to White (a multiple of 0.5)": "option.komi",
};

// An option's help in the page's language (the server's text if not known).
export function optionHelp(text) {
  return text && OPTION_HELP[text] ? t(OPTION_HELP[text]) : text || "";
}

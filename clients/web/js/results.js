// The server's words for why a game ended and why a search ended, in the
// page's language. A game's `result.reason` is free text from the game
// (engine/games/*.py); the fixed ones and the few patterns below have
// translations, anything else (a new game's, an outside program's) is shown
// as the server wrote it. A bestmove's `reason` is one of protocol.md's.

import { has, t } from "./i18n.js";

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
  if (match) return t("result.winsby", { name: title(match[1]), margin: match[2] });
  match = /^(\w+) resigns$/.exec(reason);
  if (match) return t("result.resigns", { name: title(match[1]) });
  match = /^draw at (\d+(?:\.\d+)?) points each$/.exec(reason);
  if (match) return t("result.drawat", { points: match[1] });
  match = /^leaf (-?\d+(?:\.\d+)?)$/.exec(reason);
  if (match) return t("result.leaf", { value: match[1] });
  return reason;
}

// A bestmove's reason (protocol.md) in the page's language.
export function searchReason(reason) {
  const key = `reason.${reason}`;
  return reason && has(key) ? t(key) : String(reason ?? "");
}

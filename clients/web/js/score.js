// Scores (protocol.md section 3) as text and as numbers for the graph, and
// the engine's counters as text. The server sends every score from the side
// to move's point of view; the page shows all of them from the first
// player's (White's in chess, Red's in Connect Four), so that a number means
// the same in the summary, the table, the graph and the move annotations.

import { decimal, t } from "./i18n.js";

// Reports over less time than this give no rate: 30 nodes in 2 ms is not
// "15000 nodes/s" (the server's own nps is as noisy there).
export const MIN_RATE_MS = 10;

// What the server's eval_unit is shown as: chess centipawns as pawns, Go's
// tenths of a point as points, backgammon's thousandths as expected points;
// any other unit as the server names it.
function scale(unit = "") {
  if (/centipawn/.test(unit)) return { divide: 100, digits: 2, key: "unit.pawns" };
  if (/x 1000|× 1000/.test(unit)) return { divide: 1000, digits: 3, key: "unit.expected" };
  if (/^tenths of a point/.test(unit)) return { divide: 10, digits: 1, key: "unit.points" };
  return { divide: 1, digits: 0, key: null };
}

// The units the games name (engine/games/*.py eval_unit), word for word,
// and their translations: a unit written otherwise (a changed weight, a new
// game) is shown as the server names it, so a translation never states
// numbers the server no longer uses.
const NAMED_UNITS = {
  "open lines (lines with none of the opponent's marks)": "unit.tictactoe",
  "±100 when nim theory says the side to move wins/loses": "unit.nim",
  "points (a threat is worth 8 to 12)": "unit.connect4",
  "points (a corner is worth 100, one more legal move 10)": "unit.othello",
  "centi-men (a man is worth 100, a king 140)": "unit.checkers",
  "utility (the tree's own numbers)": "unit.tree",
};

// The unit's name as the page shows it (the server's name when it is not rescaled).
export function unitName(unit = "") {
  const { key } = scale(unit);
  if (key) return t(key);
  return NAMED_UNITS[unit] ? t(NAMED_UNITS[unit]) : unit;
}

// A heuristic value (already from the first player's view) in the shown unit, signed.
export function formatValue(value, unit = "") {
  const { divide, digits } = scale(unit);
  return signed(decimal(value / divide, digits));
}

// The score of a position whose side to move is `toMove`, from the first
// player's point of view. `names` are the players' display names; chess
// says mates in moves, other games wins in plies. With `winOddsScale` (the
// game's welcome.games[].win_odds_scale, given for a Monte Carlo report) a
// value is shown as the win rate it was made from: "Black 62%".
export function formatScore(score, toMove, gameName, unit, names, winOddsScale = null) {
  if (!score) return "";
  if ("value" in score && winOddsScale > 0) {
    return t("score.chance", { name: names[0], percent: percentText(firstPlayerChance(score.value, toMove, winOddsScale)) });
  }
  if ("draw" in score) return t("score.draw");
  if ("win_in" in score || "loss_in" in score) {
    const win = "win_in" in score;
    const plies = win ? score.win_in : score.loss_in;
    const winner = win === (toMove === 0) ? 0 : 1;
    const name = names[winner];
    if (gameName === "chess") return t("score.mates", { name, moves: Math.ceil(plies / 2) });
    return t("score.wins", { name, plies: t("score.plies", { count: plies }) });
  }
  return formatValue(toMove === 0 ? score.value : -score.value, unit);
}

// The first player's chance of winning that the side to move's value stands
// for (protocol.md, welcome: 1 / (1 + e^(-v/s))).
export function firstPlayerChance(value, toMove, winOddsScale) {
  const chance = 1 / (1 + Math.exp(-value / winOddsScale));
  return toMove === 0 ? chance : 1 - chance;
}

// A value already from the first player's view as their chance, "73%"
// (the graph's labels for Monte Carlo scores).
export function formatChance(value, winOddsScale) {
  return `${percentText(firstPlayerChance(value, 0, winOddsScale))}%`;
}

// A chance as a whole percentage; never "0" or "100" for what is not proven
// (the server clamps a win rate to 0.001..0.999).
export function percentText(chance) {
  const percent = Math.round(chance * 100);
  if (percent <= 0) return "<1";
  if (percent >= 100) return ">99";
  return String(percent);
}

export function isProven(score) {
  return Boolean(score) && !("value" in score);
}

function signed(text) {
  return text.startsWith("-") || /^0([.,]0+)?$/.test(text) ? text : `+${text}`;
}

// The score as a number for plotting, from the side to move's view:
// heuristic values as they are, proven results as +/-Infinity (the graph
// pins them to its edges) and draws as 0.
export function scoreNumber(score) {
  if ("win_in" in score) return Infinity;
  if ("loss_in" in score) return -Infinity;
  if ("draw" in score) return 0;
  return score.value;
}

// The same from the first player's view.
export function firstPlayerNumber(score, toMove) {
  const value = scoreNumber(score);
  return toMove === 0 ? value : -value;
}

export function formatCount(n) {
  if (n >= 1e9) return `${decimal(n / 1e9, 2)}G`;
  if (n >= 1e6) return `${decimal(n / 1e6, 2)}M`;
  if (n >= 1e4) return `${decimal(n / 1e3, 1)}k`;
  return String(n);
}

// Nodes per second of a report, by one rule for the summary and the table:
// the server's nps; none for a report without one or under MIN_RATE_MS.
export function formatRate(report) {
  if (!(report.time_ms >= MIN_RATE_MS) || typeof report.nps !== "number") return "–";
  return formatCount(report.nps);
}

// A search's time, the same in the summary and the table.
export function formatTime(ms) {
  return ms < 1000 ? `${ms} ms` : `${decimal(ms / 1000, 2)} s`;
}

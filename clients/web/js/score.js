// Scores (protocol.md section 3) as text and as numbers for the graph.

import { t } from "./i18n.js";

// Text for a score from the side to move's point of view.
// `unit` is the game's eval_unit: centipawn games are shown in pawns.
export function formatScore(score, gameName, unit = "") {
  if (!score) return "";
  if ("win_in" in score) return gameName === "chess" ? t("score.mate", { moves: Math.ceil(score.win_in / 2) }) : t("score.win", { plies: plies(score.win_in) });
  if ("loss_in" in score) return gameName === "chess" ? t("score.mated", { moves: Math.ceil(score.loss_in / 2) }) : t("score.loss", { plies: plies(score.loss_in) });
  if ("draw" in score) return t("score.draw");
  const value = score.value;
  if (/centipawn/.test(unit)) return signed((value / 100).toFixed(2));
  if (/x 1000|× 1000/.test(unit)) return signed((value / 1000).toFixed(3));
  if (/^tenths of a point/.test(unit)) return signed((value / 10).toFixed(1)); // Go: points
  return signed(String(value));
}

export function isProven(score) {
  return Boolean(score) && !("value" in score);
}

function plies(n) {
  return t("score.plies", { count: n });
}

function signed(text) {
  return text.startsWith("-") || /^0(\.0+)?$/.test(text) ? text : `+${text}`;
}

// The score as a number for plotting: heuristic values as they are, proven
// results as +/-Infinity (the graph pins them to its edges) and draws as 0.
export function scoreNumber(score) {
  if ("win_in" in score) return Infinity;
  if ("loss_in" in score) return -Infinity;
  if ("draw" in score) return 0;
  return score.value;
}

export function formatCount(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

// Scores (protocol.md section 3) as text and as numbers for the graph.

// Text for a score from the side to move's point of view.
// `unit` is the game's eval_unit: centipawn games are shown in pawns.
export function formatScore(score, gameName, unit = "") {
  if (!score) return "";
  if ("win_in" in score) return gameName === "chess" ? `mate in ${Math.ceil(score.win_in / 2)}` : `win in ${plies(score.win_in)}`;
  if ("loss_in" in score) return gameName === "chess" ? `mated in ${Math.ceil(score.loss_in / 2)}` : `loss in ${plies(score.loss_in)}`;
  if ("draw" in score) return "draw (proven)";
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
  return n === 1 ? "1 ply" : `${n} plies`;
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

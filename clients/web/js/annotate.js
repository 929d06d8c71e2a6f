// Move annotations from the engine's scores: a move that loses much of the
// mover's expected result is marked `?!` (dubious), `?` (a mistake) or `??`
// (a blunder), as chess books and lichess mark them. The loss is measured in
// expected score (0 = lost, 1 = won), not in pawns, so that a pawn thrown
// away in a level position counts, and one thrown away at +9 hardly does.
// Used for chess (the thresholds below are in its centipawns); docs/gui.md
// lists the thresholds.

import { firstPlayerNumber } from "./score.js";

// Centipawns that make an advantage worth 10x the odds: the usual logistic
// scale from centipawns to an expected score (400, as in the Elo formula, so
// +100 is an expected 0.64, +300 an expected 0.85).
const CENTIPAWNS_PER_DECADE = 400;

// Loss of expected score that earns each mark, the worst first: roughly
// half a pawn (?!), a pawn (?) and three pawns (??) from a level position.
export const MARKS = [
  { symbol: "??", kind: "blunder", loss: 0.3 },
  { symbol: "?", kind: "mistake", loss: 0.14 },
  { symbol: "?!", kind: "dubious", loss: 0.07 },
];

// Expected score of the first player for a score (mates are certain results).
function expected(score, toMove) {
  const cp = firstPlayerNumber(score, toMove);
  if (cp === Infinity) return 1;
  if (cp === -Infinity) return 0;
  return 1 / (1 + 10 ** (-cp / CENTIPAWNS_PER_DECADE));
}

// The mark of a move, from the engine's scores of the positions before and
// after it ({score, toMove}, as the page keeps them); null when either is
// missing or the move lost too little to mark. `mover` is 0 or 1.
export function moveMark(before, after, mover) {
  if (!before || !after) return null;
  const sign = mover === 0 ? 1 : -1;
  const loss = sign * (expected(before.score, before.toMove) - expected(after.score, after.toMove));
  const mark = MARKS.find((candidate) => loss >= candidate.loss);
  return mark ? { ...mark, lost: loss } : null;
}

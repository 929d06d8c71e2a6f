// Which of a search's scores the evaluation graph plots.
//
// A depth-limited search scores a position by the evaluation at its horizon,
// and a game's evaluation is not neutral about whose turn it is there
// (Connect Four's threat count favours the side that has just moved). The
// last iteration of successive searches ends at depths of either parity, and
// a position one ply later ends its search one ply later too, so the side to
// move at the horizon flips from point to point and the graph zig-zags
// (docs/gui.md gives the numbers). Each point is therefore the score of the
// search's deepest completed iteration whose horizon has the first player to
// move: all points are measured alike, one ply shallower at most. Proven
// results are exact at any depth, and Monte Carlo searches have no horizon:
// both keep the search's own answer.

import { isProven } from "./score.js";

// Notes a completed iteration of `think` (an `info` that is not `partial`).
export function noteIteration(think, info) {
  if (!think || info.partial || !info.score) return;
  if (info.playouts !== undefined && info.playouts !== null) return;
  if (!Number.isInteger(info.depth) || info.depth < 1) return;
  if (!think.iterations) think.iterations = new Map();
  think.iterations.set(info.depth, info.score);
}

// The score to plot for `think`, whose answer is the bestmove `best`.
export function graphScore(think, best) {
  if (!best.score || isProven(best.score) || (best.playouts !== undefined && best.playouts !== null)) return best.score;
  if (think.toMove !== 0 && think.toMove !== 1) return best.score;
  let chosen = null;
  let chosenDepth = 0;
  for (const [depth, score] of think.iterations || []) {
    const firstToMoveAtHorizon = (think.toMove + depth) % 2 === 0;
    if (firstToMoveAtHorizon && depth > chosenDepth && depth <= best.depth) {
      chosen = score;
      chosenDepth = depth;
    }
  }
  return chosen ?? best.score;
}

"""``UCI_LimitStrength`` and ``UCI_Elo``: a weaker engine on purpose.

A strength is three handicaps, all set from ``UCI_Elo`` by
:func:`strength_for`:

* a **depth cap** (the deepest iteration), from 1 ply at :data:`MIN_ELO` to
  7 plies at :data:`MAX_ELO`;
* a **node cap**, from 2,000 to 200,000 nodes, growing geometrically with
  the Elo (so each step of the scale costs about the same factor of
  search); 2,000 lets the one-ply search of four lines finish in chess
  (a cap it cannot finish under would play the move ordering's first move,
  not a noisy choice);
* **evaluation noise**: the search reports its best :data:`STRENGTH_LINES`
  root moves (MultiPV), each line's score gets Gaussian noise of
  ``noise_cp`` centipawns (300 at :data:`MIN_ELO`, none at
  :data:`MAX_ELO`, linear between), and the move of the highest noisy
  score is played. A mate found is never given away (its score is far
  beyond the noise); a blunder is limited to the engine's own top four.
  Without noise (:data:`MAX_ELO`) one line is searched, as usual.

The caps apply on top of the ``go`` command's limits (whichever ends the
search first), so a weak setting also plays fast.

**Calibration: measured roughly, not fitted.** The Elo numbers are
nominal: every handicap shrinks as the Elo grows, and small matches
(``python -m bench.uci_strength_match``, 10 games a band in pairs with
colours swapped from seeded 4-ply openings, 100 ms a move for both sides,
pure-Python engine, load average 24-31 on 2 cores, 2026-11-26; 95%
intervals) place the bands so:

================  =============================  ==============================
``UCI_Elo``       against ours at 800            against Stockfish 15.1 at 1350
================  =============================  ==============================
1100              6.5/10, +108 Elo [-41, +314]
1400              5.5/10, +35 Elo [-199, +313]   1.5/10, -301 Elo [-1200, -101]
2000              10/10 (no interval)            3.5/10, -108 Elo [-491, +103]
================  =============================  ==============================

So at this time control the scale is flat from 800 to about 1400 (the
noise, not the depth, decides those games), then rises steeply to 2000,
and the nominal numbers overstate: 2000 scores about 35% against
Stockfish's 1350 (Stockfish rates its own scale at a longer time control,
so this is a lower bound of the gap). A fitted scale needs more games per
band and noise that falls faster than linearly; until then read
``UCI_Elo`` as "weaker below, stronger above", not as a rating.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.search.results import Info
from engine.search.score import Score

#: Depth cap at the bottom and the top of the handicap levels (plies).
MIN_DEPTH: Final = 1
MAX_DEPTH_CAP: Final = 7
#: Node cap at the bottom and the top of the levels: 2,000 lets the one-ply search
#: of four lines finish; 10,000 is about half a second a move for the compiled
#: engine on the 2-core test machine (about 20,000 nodes a second), so that a
#: calibration match fits in minutes.
MIN_NODES: Final = 2_000
MAX_NODES_CAP: Final = 30_000
#: Standard deviation of the noise added to each line's score at the bottom (centipawns).
MAX_NOISE_CP: Final = 300
#: Root lines searched to choose among when the strength is limited.
STRENGTH_LINES: Final = 4
#: The score given to a proven win (a loss: its negation) when lines are compared,
#: beyond any noise; the distance to the end is subtracted so faster wins rank first.
DECIDED_CP: Final = 100_000

#: The calibration: (``UCI_Elo``, level) knots, both increasing; between knots the
#: level is interpolated linearly. PROVISIONAL (linear) while it is being measured.
CALIBRATION: Final[tuple[tuple[int, float], ...]] = ((800, 0.0), (2000, 1.0))
#: The scale's range (its first and last knots) and default (UCI's ``option name UCI_Elo``).
MIN_ELO: Final = CALIBRATION[0][0]
MAX_ELO: Final = CALIBRATION[-1][0]
DEFAULT_ELO: Final = 1400


@dataclass(frozen=True, slots=True)
class Strength:
    """The handicaps of one ``UCI_Elo`` setting (``level`` 0 weakest, 1 strongest)."""

    elo: int
    level: float
    depth: int
    nodes: int
    noise_cp: int


def level_for(elo: int) -> float:
    """The handicap level (0 to 1) that plays at ``elo`` (clamped to the scale)."""
    elo = max(MIN_ELO, min(MAX_ELO, elo))
    for (low_elo, low_level), (high_elo, high_level) in itertools.pairwise(CALIBRATION):
        if elo <= high_elo:
            share = (elo - low_elo) / (high_elo - low_elo)
            return low_level + share * (high_level - low_level)
    return CALIBRATION[-1][1]


def handicaps(level: float, elo: int = 0) -> Strength:
    """The depth and node caps and the noise at ``level`` (0 to 1)."""
    level = max(0.0, min(1.0, level))
    depth = MIN_DEPTH + round(level * (MAX_DEPTH_CAP - MIN_DEPTH))
    nodes = round(MIN_NODES * (MAX_NODES_CAP / MIN_NODES) ** level)
    # The noise falls faster than linearly: a linear fall left the lower half of
    # the old scale flat (the noise, not the search, decided those games).
    noise = round(MAX_NOISE_CP * (1.0 - level) ** 2)
    return Strength(elo, level, depth, nodes, noise)


def strength_for(elo: int) -> Strength:
    """The handicaps at ``elo`` (clamped to the scale)."""
    elo = max(MIN_ELO, min(MAX_ELO, elo))
    return handicaps(level_for(elo), elo)


def line_value(score: Score) -> int:
    """A line's score as one number for comparing lines (centipawns; decided far beyond)."""
    if score.win_in is not None:
        return DECIDED_CP - score.win_in
    if score.loss_in is not None:
        return score.loss_in - DECIDED_CP
    return score.value or 0


def choose(lines: Sequence[Info], noise_cp: int, rng: random.Random) -> str | None:
    """The move of the line whose score plus noise is highest; ``None`` without lines."""
    best: str | None = None
    best_value = 0.0
    for info in lines:
        if not info.pv:
            continue
        value = line_value(info.score) + (rng.gauss(0.0, noise_cp) if noise_cp > 0 else 0.0)
        if best is None or value > best_value:
            best, best_value = info.pv[0], value
    return best

"""``UCI_LimitStrength`` and ``UCI_Elo``: a weaker engine on purpose, on
Stockfish 15.1's ``UCI_Elo`` scale.

A strength is a **level** from 0 (weakest) to 1 (strongest) and three
handicaps set from it by :func:`handicaps`; :func:`strength_for` finds the
level of a ``UCI_Elo`` in :data:`CALIBRATION`:

* a **depth cap** (the deepest iteration), from 1 ply at level 0 to 7 at
  level 1;
* a **node cap**, from 2,000 to 30,000 nodes, growing geometrically with
  the level; 2,000 lets the one-ply search of four lines finish in chess
  (a cap it cannot finish under would play the move ordering's first move,
  not a noisy choice);
* **evaluation noise**: the search reports its best :data:`STRENGTH_LINES`
  root moves (MultiPV), each line's score gets Gaussian noise of
  ``noise_cp`` centipawns (300 at level 0, none at level 1, falling with
  the square of the distance to level 1), and the move of the highest
  noisy score is played. A mate found is never given away (its score is
  far beyond the noise); a blunder is limited to the engine's own top four.
  Without noise (level 1) one line is searched, as usual.

All three are counts, not times, so a level plays the same on any machine
*when the ``go`` gives it time enough* to reach its caps: about 0.1 s a move
at level 0.5 and up to about 1 s at level 1 for the compiled engine at
``nice -n 19`` beside other work on the 2-core test machine (about 30,000
nodes a second; a third of that on a free core, where it searches about
100,000; several times more for the pure-Python engine). A shorter
``go`` ends the search first and plays weaker than the number says. The
caps apply on top of the ``go``'s own limits, so a weak setting also plays
fast.

**Calibration** (issue 28). ``python -m bench.uci_strength_match``
played ``arena uci`` (compiled engine, 16 MB hash, ``--our-movetime 10000``
so that only the caps bound its searches) against Debian's Stockfish 15.1
at ``UCI_LimitStrength`` (one thread, ``--movetime 100``: its limited
strength picks its move at a fixed depth, which 100 ms reaches), 16 games a
match in pairs with colours swapped from seeded 4-ply random openings,
adjudicated on material at 160 plies; one match at a time under ``nice -n
19`` on the shared 2-core machine, 2026-11-26. The level was set through
the provisional linear scale ``UCI_Elo = 800 + 1200 * level`` before this
table replaced it (so ``--elos 1100`` then was level 0.25). Elo is
Stockfish's ``UCI_Elo`` plus the difference our score implies; intervals
are 95% (normal approximation over games); load is the one-minute load
average when the match ended:

=====  ==========  ======  =========  =======  =================  ====
level  ``--elos``  seed    Stockfish  score    Elo                load
=====  ==========  ======  =========  =======  =================  ====
0.25   1100        1       1350       6/16     1261 [1044, 1423]  7.1
0.25   1100        2       1350       2.5/16   1057 [--, 1226]    7.4
0.5    1400        1       1350       9/16     1394 [1212, 1606]  8.5
0.5    1400        2       1350       10/16    1439 [1277, 1656]  7.4
0.75   1700        1       1600       8/16     1600 [1406, 1794]  4.9
0.75   1700        2       1600       10.5/16  1712 [1560, 1931]  7.8
1      2000        1       1900       3.5/16   1679 [1436, 1810]  8.3
=====  ==========  ======  =========  =======  =================  ====

A straight line ``Elo = 1047 + 721 * level`` fitted to these by weighted least
squares (weights from each match's interval; chi-square 6.0 for 5 degrees
of freedom: the points agree with a line) gives the knots of
:data:`CALIBRATION` from level 0.25 up. Stockfish 15.1 accepts ``UCI_Elo``
from 1350 only, so the scale below level 0.25 is **extrapolated** from our
own levels' spacing (``--self``: the weaker level against the stronger):

======  ==========  ==========  ======  ================  ====  ====
level   ``--elos``  ``--self``  score   difference        Elo   load
======  ==========  ==========  ======  ================  ====  ====
0.125   950         1100        3.5/16  -221 [-550, -73]  1006  4.3
0       800         950         4.5/16  -163 [-470, 0]    843   4.2
0.0625  875         950         3/16    -255 [--, -81]    751   4.1
======  ==========  ==========  ======  ================  ====  ====

(the Elo of each is the stronger level's plus the difference; level 0.25
from the line, 1227). Levels 0 and 0.0625 came out in the wrong order, within
their noise: pooled (the monotone fit of the two) they play about 800, the
bottom knot, :data:`MIN_ELO`. Each step down the chain adds its interval, so
below 1350 the numbers are rough: about ±200 Elo at the bottom.

**Check of the fitted scale** (same set-up; ``--elos X --reference-elo X``:
ours at ``UCI_Elo`` X against Stockfish at X should score about 50%;
``--seed 3``, openings not used above):

======  =====  =======  ===================  =================  ====
X       level  score    difference           ours at            load
======  =====  =======  ===================  =================  ====
1350    0.42   6/16     -89 [-306, +73]      1261 [1044, 1423]  3.1
1450    0.56   8/16     0 [-194, +194]       1450 [1256, 1644]  4.0
1650    0.84   11.5/16  +163 [0, +470]       1813 [1650, 2120]  3.3
======  =====  =======  ===================  =================  ====

All three intervals hold 0 (1650's only just: it played stronger). The line
refitted with the checks as three more points (ten) is ``997 + 811 *
level``: 28 Elo lower at level 0.25 and 41 higher at level 1, within the
scale's error, so the knots stay those of the seven matches.

So read ``UCI_Elo`` as a rating on Stockfish 15.1's scale within about
±100 Elo (95%) from 1350 to :data:`MAX_ELO`, and as an extrapolation below
1350. :data:`MAX_ELO` is the line's value at level 1 (its own match alone
said 1679 [1436, 1810]); our full strength rated 1748 (1679-1818, 120
games) at 200 ms a move on the same scale (issue 29's ladder,
docs/benchmarks.md), so level 1 is about full strength at short time
controls, and a stronger setting would need more search than that.
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
#: of four lines finish; 30,000 is at most about a second a move for the compiled
#: engine on the 2-core test machine, so that a calibration match of 16 games
#: fits in about ten minutes; level 1 then plays about as well as full strength
#: at 200 ms a move (the module's docstring).
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
#: level is interpolated linearly. From level 0.25 up: the fitted line
#: ``Elo = 1047 + 721 * level`` (the module's docstring); below: extrapolated from
#: our own levels' spacing.
CALIBRATION: Final[tuple[tuple[int, float], ...]] = (
    (800, 0.0),
    (1006, 0.125),
    (1227, 0.25),
    (1767, 1.0),
)
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

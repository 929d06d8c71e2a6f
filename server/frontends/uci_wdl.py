"""``UCI_ShowWDL``: a score as the chances of a win, a draw and a loss, in permille.

The engine's scores are centipawns, not probabilities; the ``wdl`` a GUI
shows beside them comes from this model, a chosen shape that is **not
fitted** to this engine's games (not measured yet):

* the side to move wins with probability ``1 / (1 + exp(-(cp - m) / s))``
  and loses with ``1 / (1 + exp(-(-cp - m) / s))``; a draw is the rest;
* ``m`` (:data:`WIN_AT_CP`) is 100: a score of one pawn is an even chance
  of winning, the convention Stockfish adopted in 2022 for its own
  centipawns (its "100 cp = 50% win probability" normalisation);
* ``s`` (:data:`SPREAD_CP`) is 60: at 0 cp about 16% wins, 68% draws and
  16% losses, at +200 cp 84% wins and under 1% losses; a guess of the
  spread at fast time controls, to be replaced by a fit when game records
  of this engine exist.

Proven results are certain: a mate is ``1000 0 0`` (or ``0 0 1000``), a
proven draw ``0 1000 0``. The three numbers always add up to 1000.
"""

from __future__ import annotations

import math
from typing import Final

from engine.search.score import Score

#: Centipawns at which the side to move has an even chance of winning.
WIN_AT_CP: Final = 100
#: Centipawns per unit of log-odds around :data:`WIN_AT_CP` (the curve's spread).
SPREAD_CP: Final = 60
PERMILLE: Final = 1000


def _logistic(x: float) -> float:
    if x < -50:
        return 0.0  # exp would overflow; the chance is nil at this scale
    return 1.0 / (1.0 + math.exp(-x))


def wdl(score: Score) -> tuple[int, int, int]:
    """Win, draw and loss chances of the side to move in permille (adding up to 1000)."""
    if score.win_in is not None:
        return PERMILLE, 0, 0
    if score.loss_in is not None:
        return 0, 0, PERMILLE
    if score.draw:
        return 0, PERMILLE, 0
    cp = score.value or 0
    win = round(PERMILLE * _logistic((cp - WIN_AT_CP) / SPREAD_CP))
    loss = round(PERMILLE * _logistic((-cp - WIN_AT_CP) / SPREAD_CP))
    return win, PERMILLE - win - loss, loss

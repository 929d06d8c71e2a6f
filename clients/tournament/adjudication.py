"""Ending games early from the engines' own scores: rules only, no I/O.

Feed :class:`Adjudicator` every move's score (as the mover reported it);
it answers with a :class:`Verdict` when a draw, a resignation or the
maximum length ends the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from clients.tournament import reasons
from clients.tournament.config import Adjudication
from engine.search.score import Score

#: A proven win or loss counts as this many evaluation units, beyond any
#: heuristic value (``engine.game.EVAL_LIMIT`` is 100000).
PROVEN_SCORE = 1_000_000


@dataclass(frozen=True, slots=True)
class Verdict:
    """An adjudicated end: ``winner`` is a player index or ``None`` for a draw."""

    winner: int | None
    reason: str


def score_value(score: Score) -> int:
    """A score as one number from the same point of view (proven results at the extremes)."""
    if score.win_in is not None:
        return PROVEN_SCORE - score.win_in
    if score.loss_in is not None:
        return -PROVEN_SCORE + score.loss_in
    if score.draw:
        return 0
    return score.value or 0


class Adjudicator:
    """Tracks the scores of a game and decides when the rules end it."""

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        #: Scores from player 0's point of view, one per move played (rolls excluded).
        self.white_scores: list[int | None] = []
        #: Plies played: moves and (games of chance) the rolls of the dice.
        self.plies = 0

    def add(self, mover: int, score: Score | None) -> Verdict | None:
        """Record the score the mover reported for its move; the verdict, if any.

        ``score`` is from the mover's point of view; ``None`` (a move from an
        opening, or an engine that gave none) breaks every streak.
        """
        self.plies += 1
        if score is None:
            self.white_scores.append(None)
        else:
            value = score_value(score)
            self.white_scores.append(value if mover == 0 else -value)
        return self._resignation() or self._draw() or self._length()

    def add_roll(self) -> Verdict | None:
        """Count a roll of the dice: a ply (for the maximum length), but no score.

        Rolls neither break nor extend the engines' streaks of scores.
        """
        self.plies += 1
        return self._length()

    def _last(self, plies: int) -> list[int] | None:
        window = self.white_scores[-plies:]
        if len(window) < plies or any(value is None for value in window):
            return None
        return [value for value in window if value is not None]

    def _resignation(self) -> Verdict | None:
        rules = self.rules
        if rules.resign_count is None:
            return None
        window = self._last(2 * rules.resign_count)
        if window is None:
            return None
        if all(value >= rules.resign_score for value in window):
            return Verdict(0, reasons.ADJUDICATED_FIRST_WINS)
        if all(value <= -rules.resign_score for value in window):
            return Verdict(1, reasons.ADJUDICATED_SECOND_WINS)
        return None

    def _draw(self) -> Verdict | None:
        rules = self.rules
        if rules.draw_after is None or self.plies < rules.draw_after:
            return None
        window = self._last(2 * rules.draw_count)
        if window is not None and all(abs(value) <= rules.draw_score for value in window):
            return Verdict(None, reasons.ADJUDICATED_DRAW)
        return None

    def _length(self) -> Verdict | None:
        limit = self.rules.max_plies
        if limit is not None and self.plies >= limit:
            return Verdict(None, reasons.ADJUDICATED_LENGTH.format(limit=limit))
        return None

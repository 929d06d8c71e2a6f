"""What every registered game promises the searches, checked on random games.

A new game that breaks a promise gets a wrong answer from the search with
no error at all: the alpha-beta searches are negamax, and score a child from
the other side's point of view, so a move that left the same player to move
(Kalah's extra turn, written as a move of its own) made them return wrong
values, "proven" ones included (a contributor's review of 2026-12-07). This
file says so at once, for every game in :data:`engine.registry.GAMES`.
"""

from __future__ import annotations

from random import Random

import pytest

from engine.game import CHANCE
from engine.registry import GAMES, create_game

#: Random games played from each start, and their longest length: enough to
#: reach captures, passes, promotions and ends, a fraction of a second each.
GAMES_EACH = 6
MAX_PLIES = 160


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_move_hands_the_turn_over(name: str) -> None:
    game = create_game(name)
    rng = Random(name)
    for _ in range(GAMES_EACH):
        state = game.initial_state()
        mover: int | None = None  # the last decision's player
        for _ in range(MAX_PLIES):
            if game.outcome(state) is not None:
                assert game.legal_moves(state) == [], "a finished game has no moves"
                break
            outcomes = game.chance_outcomes(state)
            if outcomes is not None:
                assert game.to_move(state) == CHANCE
                state = game.play(state, rng.choice([outcome for outcome, _ in outcomes]))
                continue
            player = game.to_move(state)
            assert player in (0, 1)
            assert player != mover, (
                f"{name}: player {player} moves twice in a row; an extra turn must be part of "
                "one compound move (see Game.to_move)"
            )
            moves = game.legal_moves(state)
            assert moves, f"{name}: a game not over must have a move (a pass, if need be)"
            mover = player
            state = game.play(state, rng.choice(moves))

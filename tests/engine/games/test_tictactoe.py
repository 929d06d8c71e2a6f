"""Tic-tac-toe: rules checked by counting the whole game tree, and perfect play."""

from __future__ import annotations

from functools import cache

import pytest

from engine.errors import BadPositionError, IllegalMoveError
from engine.games.tictactoe import TicTacToe, TicTacToeState
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest

GAME = TicTacToe()


def test_complete_games_of_the_full_tree() -> None:
    # 255,168 games: X wins 131,184, O wins 77,904, draws 46,080
    # (Bottomley 2001; OEIS A061526; shared/refdata/README.md).
    counts = {0: 0, 1: 0, None: 0}

    def walk(state: TicTacToeState) -> None:
        outcome = GAME.outcome(state)
        if outcome is not None:
            counts[outcome.winner] += 1
            return
        for move in GAME.legal_moves(state):
            walk(GAME.play(state, move))

    walk(GAME.initial_state())
    assert sum(counts.values()) == 255_168
    assert counts == {0: 131_184, 1: 77_904, None: 46_080}


def reachable_positions() -> set[TicTacToeState]:
    seen: set[TicTacToeState] = set()
    stack = [GAME.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        stack.extend(GAME.play(state, m) for m in GAME.legal_moves(state))
    return seen


def test_legal_positions() -> None:
    positions = reachable_positions()
    assert len(positions) == 5_478
    assert sum(1 for p in positions if GAME.outcome(p) is not None) == 958


@cache
def exact_value(state: TicTacToeState) -> int:
    """Game-theoretic value for the side to move: +1 win, 0 draw, -1 loss."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == GAME.to_move(state) else -1)
    return max(-exact_value(GAME.play(state, m)) for m in GAME.legal_moves(state))


def test_empty_board_is_a_proven_draw() -> None:
    result = Searcher(GAME).think(SearchRequest(GAME.initial_state()))
    assert result.info.score.draw
    assert result.reason == "proven"


def test_engine_never_loses_from_any_reachable_position() -> None:
    """From every position not already lost, the engine's move keeps the value."""
    searcher = Searcher(GAME, tt_slots=1 << 14)
    for state in reachable_positions():
        if GAME.outcome(state) is not None:
            continue
        result = searcher.think(SearchRequest(state, Limits()))
        after = GAME.play(state, result.move_value)
        assert -exact_value(after) == exact_value(state), GAME.format_position(state)


def test_notation_round_trips() -> None:
    state = GAME.initial_state()
    for text in ("b2", "a1", "c3"):
        state = GAME.play_text(state, text)
    assert GAME.parse_position(GAME.format_position(state)) == state
    for move in GAME.legal_moves(state):
        assert GAME.parse_move(state, GAME.format_move(state, move)) == move


def test_position_layout() -> None:
    state = GAME.play_text(GAME.play_text(GAME.initial_state(), "a3"), "c1")
    assert GAME.format_position(state) == "X.......O"


@pytest.mark.parametrize(
    "text", ["", "XXXXXXXXX", "OO.......", "XXX.OO.OO", "XXXOOO...", "........Z", "XXXOO.O.."]
)
def test_bad_positions_are_rejected(text: str) -> None:
    with pytest.raises(BadPositionError):
        GAME.parse_position(text)


def test_illegal_move_lists_the_legal_moves() -> None:
    state = GAME.play_text(GAME.initial_state(), "b2")
    with pytest.raises(IllegalMoveError) as info:
        GAME.parse_move(state, "b2")
    assert "a1" in info.value.legal_moves and "b2" not in info.value.legal_moves
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "z9")


def test_evaluation_counts_open_lines() -> None:
    # X in the centre: X has 8 open lines, O has the 4 lines avoiding it.
    state = GAME.play_text(GAME.initial_state(), "b2")
    assert GAME.evaluate(state) == 4 - 8  # O to move

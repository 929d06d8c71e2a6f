"""The session state machine without sockets: requests in, records and jobs out."""

from __future__ import annotations

import dataclasses

import pytest

from engine.games.go import RESIGN_CONSECUTIVE
from engine.search.results import SearchResult
from engine.search.score import Score
from protocol.errors import ErrorCode, ProtocolError
from protocol.limits import MAX_MOVETIME_MS
from protocol.records import parse_request
from server.session import Session


def test_session_state_machine() -> None:
    session = Session()
    reaction = session.handle(parse_request({"type": "new_game", "game": "tictactoe"}), 0.0)
    assert reaction.replies[0].legal_moves[:3] == ("a3", "b3", "c3")
    reaction = session.handle(parse_request({"type": "think", "id": 5}), 100.0)
    assert reaction.start is not None and session.thinking
    assert reaction.start.deadline == 100.0 + MAX_MOVETIME_MS / 1000
    with pytest.raises(ProtocolError) as error:
        session.handle(parse_request({"type": "move", "move": "b2"}), 100.0)
    assert error.value.code is ErrorCode.BUSY
    assert session.handle(parse_request({"type": "stop", "id": 4}), 100.0).stop is False
    assert session.handle(parse_request({"type": "stop"}), 100.0).stop is True
    session.abandon_think()
    assert not session.thinking
    timed = session.handle(parse_request({"type": "think", "limits": {"movetime_ms": 250}}), 7.0)
    assert timed.start is not None and timed.start.deadline == pytest.approx(7.25)


def test_failed_new_game_keeps_the_old_one() -> None:
    session = Session()
    session.handle(parse_request({"type": "new_game", "game": "connect4", "moves": ["4"]}), 0.0)
    with pytest.raises(ProtocolError) as error:
        session.handle(
            parse_request({"type": "new_game", "game": "connect4", "moves": ["4", "8"]}), 0.0
        )
    assert error.value.code is ErrorCode.ILLEGAL_MOVE
    assert session.state_message().history == ("4",)


def _hopeless(move: str, pv: tuple[str, ...]) -> SearchResult:
    """Our Go search's answer after the worker's end-of-game rules: no chance left."""
    result = SearchResult.unsearched(move, "time", 0)
    info = dataclasses.replace(result.info, score=Score(value=-1000), pv=pv, playouts=600)
    return dataclasses.replace(result, info=info)


def _think(session: Session, algorithm: str = "mcts") -> None:
    request = {"type": "think", "algorithm": algorithm, "limits": {"nodes": 600}}
    assert session.handle(parse_request(request), 0.0).start is not None


def test_our_go_search_resigns_only_at_the_third_resigning_think_in_a_row() -> None:
    # issue 30: one search resigned at move 82 on a board GNU Go counted as
    # White's by 0.5; now a side resigns when its win rate *stays* low.
    session = Session()
    new_game = {"type": "new_game", "game": "go", "options": {"size": 5}}
    session.handle(parse_request(new_game), 0.0)
    answers = []
    for _ in range(RESIGN_CONSECUTIVE):
        _think(session)
        answers.append(session.finish_think(_hopeless("resign", ("C3", "D3")), 0))
    assert [a.move for a in answers] == ["C3"] * (RESIGN_CONSECUTIVE - 1) + ["resign"]
    assert answers[0].pv == ("C3", "D3") and answers[-1].pv == ("C3", "D3")
    # A think that does not resign starts the count again, for that side only.
    _think(session)
    assert session.finish_think(_hopeless("C3", ("C3",)), 0).move == "C3"
    _think(session)
    assert session.finish_think(_hopeless("resign", ("C3",)), 0).move == "C3"
    # The other side's thinks (an analysis of both sides) leave Black's count alone.
    session.handle(parse_request({"type": "move", "move": "C3"}), 0.0)
    _think(session)
    assert session.finish_think(_hopeless("B2", ("B2",)), 0).move == "B2"
    session.handle(parse_request({"type": "move", "move": "B2"}), 0.0)
    for expected in ["B3"] * (RESIGN_CONSECUTIVE - 2) + ["resign"]:
        _think(session)
        assert session.finish_think(_hopeless("resign", ("B3",)), 0).move == expected
    # A line that starts with no move: the position's first legal move instead.
    session.handle(parse_request(new_game), 0.0)
    _think(session)
    answer = session.finish_think(_hopeless("resign", ()), 0)
    assert answer.move == "A5" and answer.pv == ("A5",)


def test_a_resignation_not_from_our_monte_carlo_search_is_passed_on_at_once() -> None:
    # An external program's answer, say: its resignation is its own.
    session = Session()
    session.handle(parse_request({"type": "new_game", "game": "go", "options": {"size": 5}}), 0.0)
    _think(session, algorithm="alphabeta")
    assert session.finish_think(_hopeless("resign", ("C3",)), 0).move == "resign"

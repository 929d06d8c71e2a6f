"""The session state machine without sockets: requests in, records and jobs out."""

from __future__ import annotations

import pytest

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

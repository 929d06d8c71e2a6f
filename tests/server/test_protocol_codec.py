"""The sans-I/O core: decoding, validation and the session state machine, without sockets."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine.search.limits import Clock, Limits
from server.protocol import (
    MAX_DEPTH,
    MAX_MOVETIME_MS,
    Encoding,
    ErrorCode,
    Move,
    ProtocolError,
    Think,
    decode,
    encode,
    parse_request,
)
from server.session import Session


def test_round_trip_in_both_encodings() -> None:
    message = {"type": "move", "move": "4", "id": 3}
    for encoding in Encoding:
        assert decode(encode(message, encoding)) == (encoding, message)


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"\xc1",
        msgpack.packb("text"),
        msgpack.packb({b"bytes": 1}),
        msgpack.packb({"nested": {2: 3}}),
        "",
        "[]",
        "null",
        '{"a": Infinity}',
    ],
)
def test_undecodable_frames(frame: bytes | str) -> None:
    with pytest.raises(ProtocolError) as error:
        decode(frame)
    assert error.value.code is ErrorCode.BAD_MESSAGE


def test_deep_nesting_is_refused_not_crashing() -> None:
    with pytest.raises(ProtocolError):
        decode("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ProtocolError):
        decode(json.dumps({"type": "hello"})[:-1] + ', "x": ' + "[" * 50_000 + "]" * 50_000 + "}")


def test_limits_are_clamped_or_refused() -> None:
    think = parse_request(
        {"type": "think", "limits": {"movetime_ms": 10**12, "depth": 10**9, "nodes": 5}}
    )
    assert isinstance(think, Think)
    assert think.limits == Limits(movetime_ms=MAX_MOVETIME_MS, depth=MAX_DEPTH, nodes=5)
    clock = parse_request({"type": "think", "limits": {"clock": {"time_ms": 1000.0}}})
    assert isinstance(clock, Think) and clock.limits.clock == Clock(1000, 0, None)
    for limits in ({"movetime_ms": 0}, {"clock": {"time_ms": -1}}, {"depth": -3}):
        with pytest.raises(ProtocolError) as error:
            parse_request({"type": "think", "limits": limits})
        assert error.value.code is ErrorCode.LIMIT_EXCEEDED
    for bad in (True, 1.5, "9", [1]):
        with pytest.raises(ProtocolError) as error:
            parse_request({"type": "think", "limits": {"depth": bad}})
        assert error.value.code is ErrorCode.BAD_MESSAGE


def test_ids_are_echoed_only_when_valid() -> None:
    assert parse_request({"type": "move", "move": "a1", "id": "x"}) == Move("a1", "x")
    for bad_id in (True, 2**60, "x" * 65, 1.5, {}):
        with pytest.raises(ProtocolError) as error:
            parse_request({"type": "stop", "id": bad_id})
        assert error.value.code is ErrorCode.BAD_MESSAGE


def test_session_state_machine() -> None:
    session = Session()
    reaction = session.handle(parse_request({"type": "new_game", "game": "tictactoe"}), 0.0)
    assert reaction.replies[0]["legal_moves"][:3] == ["a3", "b3", "c3"]
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
    assert session.state_message()["history"] == ["4"]

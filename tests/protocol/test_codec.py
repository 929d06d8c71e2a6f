"""The codec and the request records, without sockets: decoding, validation, limits."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine.search.limits import MAX_DEPTH, Clock, Limits
from protocol.codec import Encoding, decode, decode_reply, encode
from protocol.errors import ErrorCode, ProtocolError, ProtocolViolation
from protocol.limits import MAX_MOVETIME_MS, ServerLimits
from protocol.records import Move, NewGame, Think, TraceRequest, parse_request


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


def test_a_huge_json_integer_is_refused_in_our_words() -> None:
    """A review of 2026-12-07: 5,000 digits were refused with Python's message,
    "Exceeds the limit (4300 digits) ... use sys.set_int_max_str_digits()"."""
    for frame in (
        '{"type": "hello", "id": ' + "9" * 5000 + "}",
        '{"type": "hello", "x": -' + "9" * 101 + "}",
    ):
        with pytest.raises(ProtocolError) as error:
            decode(frame)
        assert error.value.code is ErrorCode.BAD_MESSAGE
        assert "at most 100 are read" in str(error.value) and "sys." not in str(error.value)
    assert decode('{"type": "hello", "x": ' + "9" * 99 + "}")[1]["x"] == int("9" * 99)


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


def test_the_limits_in_force_are_the_limits_enforced() -> None:
    limits = ServerLimits(max_movetime_ms=2000, max_moves=3, max_position_chars=10)
    think = parse_request({"type": "think", "limits": {"movetime_ms": 5000}}, limits)
    assert isinstance(think, Think) and think.limits.movetime_ms == 2000
    with pytest.raises(ProtocolError) as error:
        parse_request({"type": "new_game", "game": "nim", "moves": ["1:1"] * 4}, limits)
    assert error.value.code is ErrorCode.LIMIT_EXCEEDED and "at most 3 moves" in error.value.message
    with pytest.raises(ProtocolError) as error:
        parse_request({"type": "new_game", "game": "nim", "position": "x" * 11}, limits)
    assert error.value.code is ErrorCode.LIMIT_EXCEEDED
    trace_limits = ServerLimits(max_trace_nodes=100)
    with pytest.raises(ProtocolError) as error:
        parse_request({"type": "trace", "max_nodes": 101}, trace_limits)
    assert error.value.code is ErrorCode.LIMIT_EXCEEDED
    assert parse_request({"type": "trace", "max_nodes": 100}, trace_limits) == TraceRequest(
        max_nodes=100
    )
    # the defaults are the protocol's constants
    default = parse_request({"type": "new_game", "game": "nim", "moves": ["1:1"] * 4})
    assert isinstance(default, NewGame) and len(default.moves) == 4


def test_replies_decode_leniently_but_only_maps() -> None:
    assert decode_reply('{"a": NaN}')["a"] != 0  # the record that holds it refuses it
    assert decode_reply(msgpack.packb({"type": "info"})) == {"type": "info"}
    for frame in (b"\xc1", "[]", "nope", msgpack.packb([1])):
        with pytest.raises(ProtocolViolation):
            decode_reply(frame)

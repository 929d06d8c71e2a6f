"""The records read back what they write, and write what clients have always sent."""

from __future__ import annotations

from typing import Any

import pytest

from engine.search.limits import Clock, Limits
from engine.search.score import Score
from engine.search.trace import Trace, TraceNode
from protocol.errors import BadMessage, LimitExceeded, ProtocolViolation
from protocol.limits import ServerLimits
from protocol.records import (
    REPLIES,
    REQUESTS,
    BestMove,
    ErrorMessage,
    GameResult,
    GameState,
    Hello,
    Info,
    Move,
    NewGame,
    Reply,
    Request,
    Roll,
    Stop,
    Think,
    TraceReply,
    TraceRequest,
    Welcome,
    parse_request,
)

REQUEST_EXAMPLES: list[Request] = [
    Hello(1, 1, "bot 1.0"),
    Hello(None, 1, "", "s3cret"),
    NewGame("connect4", 2, {"width": 7}, "44", ("3",), 5),
    NewGame("nim"),
    Move("e2e4", "m"),
    Roll(4),
    Think(Limits(1000, 20, 5000, Clock(60_000, 1000, 40)), 5, "mcts"),
    Think(Limits(), 6),
    Think(Limits(depth=4), 7, None, False, 3),
    TraceRequest(7, "alphabeta", 3, 500, None, None),
    TraceRequest(8, "mcts", None, None, 100, 9),
    Stop(9),
    Stop(),
]

REPLY_EXAMPLES: list[Reply] = [
    Welcome(1, "arena", ({"name": "nim"},), ServerLimits(max_queue=8), 1),
    GameState("nim", {"heaps": [1]}, "1 /0", 0, ("1:1",), (), None, id=2),
    GameState(
        "backgammon",
        {},
        "4HPwATDgc/ABMA opening",
        "chance",
        ("1-2",),
        (),
        None,
        (("1-2", 1.0),),
        seed=3,
        gnubg_id=None,
    ),
    GameState("chess", {}, "fen", 0, (), ("e2e4",), GameResult(None, "draw"), history_san=("e4",)),
    GameState("tree", {}, "3", 0, (), ("1", "1"), GameResult(0, "leaf 3", 3), seed=2, id=13),
    Info(3, 5, Score(value=12), ("a", "b"), 100, 14285, 7, 0.1235, True, None, 10),
    Info(3, 5, Score(draw=True), ("a",), 100, 1, 7, 0.0, False, 55, "q"),
    Info(3, 5, Score(value=-4), ("b",), 100, 1, 7, 0.0, False, None, 11, multipv=2),
    BestMove("a", Score(win_in=3), 3, 5, ("a", "b"), 100, 7, "time", 4, "alphabeta", None, 10),
    BestMove("a", Score(loss_in=2), 0, 0, ("a",), 0, 7, "overloaded", 7, "mcts", 0),
    ErrorMessage("illegal_move", "no", 4, ("1", "2")),
    ErrorMessage("overloaded", "full", "t", None, 250),
    TraceReply(
        Trace("alphabeta", 1, 3, "1", 2, 1, [TraceNode(0, None, None, "max", 0, 0, 1, value=3)]),
        "t",
    ),
]


@pytest.mark.parametrize("request_record", REQUEST_EXAMPLES, ids=repr)
def test_requests_read_back_what_they_write(request_record: Request) -> None:
    wire = request_record.to_wire()
    assert wire["type"] == request_record.type
    assert parse_request(wire) == request_record
    assert REQUESTS[wire["type"]](wire, ServerLimits()) == request_record


@pytest.mark.parametrize("reply", REPLY_EXAMPLES, ids=lambda reply: type(reply).__name__)
def test_replies_read_back_what_they_write(reply: Reply) -> None:
    wire = reply.to_wire()
    assert wire["type"] == reply.type
    again = REPLIES[wire["type"]](wire)
    if isinstance(reply, TraceReply):
        assert isinstance(again, TraceReply) and again.trace.to_dict() == reply.trace.to_dict()
    else:
        assert again == reply


def test_requests_are_written_as_the_client_always_wrote_them() -> None:
    """Same keys in the same order: ``id`` last, except a think's, which comes second."""

    def keys(message: dict[str, Any]) -> list[str]:
        return list(message)

    assert keys(Hello(3, client="x").to_wire()) == ["type", "protocol", "client", "id"]
    assert keys(NewGame("nim", 4, {"a": 1}, "p", ("m",), 7).to_wire()) == [
        "type",
        "game",
        "seed",
        "options",
        "position",
        "moves",
        "id",
    ]
    think = Think(Limits(100, 2, None, Clock(5, 0)), 9, "mcts").to_wire()
    assert keys(think) == ["type", "id", "limits", "algorithm"]
    assert think["limits"] == {"movetime_ms": 100, "depth": 2, "clock": {"time_ms": 5, "inc_ms": 0}}
    assert Stop(9).to_wire() == {"type": "stop", "id": 9}
    assert Roll().to_wire() == {"type": "roll"}


def test_multipv_is_written_only_above_one_and_bounded() -> None:
    assert "multipv" not in Think(Limits(), 1).to_wire()
    assert Think(Limits(), 1, multipv=3).to_wire()["multipv"] == 3
    wire = {"type": "think", "limits": {}, "multipv": 99}
    assert parse_request(wire) == Think(Limits(), None, multipv=16)  # clamped
    for bad, error in ((0, LimitExceeded), (-2, LimitExceeded), ("3", BadMessage)):
        with pytest.raises(error):
            parse_request({"type": "think", "multipv": bad})
    single = Info(1, 1, Score(value=0), ("a",), 1, 1, 1).to_wire()
    assert "multipv" not in single and Info.from_wire(single).multipv is None


def test_an_older_server_s_replies_get_defaults() -> None:
    best = BestMove.from_wire({"type": "bestmove", "move": "4", "score": {"value": 1}})
    assert (best.depth, best.queued_ms, best.algorithm, best.playouts, best.id) == (
        0,
        0,
        "",
        None,
        None,
    )
    welcome = Welcome.from_wire({"type": "welcome", "protocol": 1, "limits": {"max_queue": 3}})
    assert welcome.limits == ServerLimits(max_queue=3) and welcome.max_think_s == 600.0
    assert Welcome.from_wire({"type": "welcome", "protocol": 1}).limits == ServerLimits()
    with pytest.raises(ProtocolViolation, match="max_depth"):
        Welcome.from_wire({"type": "welcome", "protocol": 1, "limits": {"max_depth": "9"}})


def test_a_malformed_error_is_still_an_error() -> None:
    error = ErrorMessage.from_wire({"type": "error", "code": 7, "message": None, "id": True})
    assert error == ErrorMessage("error", "error")
    assert type(error.exception()).__name__ == "ProtocolError"

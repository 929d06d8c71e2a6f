"""The client library: against a real server, and against a scripted one that misbehaves."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from clients import client as client_module
from clients import connection as connection_module
from clients.client import (
    BadMessageError,
    BadOptionsError,
    BadPositionError,
    BestMove,
    BusyError,
    ChanceStateError,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GameOverError,
    GameState,
    IllegalMoveError,
    Info,
    InternalError,
    LimitExceededError,
    NoGameError,
    OverloadedError,
    ProtocolViolationError,
    UnknownAlgorithmError,
    UnknownGameError,
    UnknownTypeError,
    UnsupportedProtocolError,
    connect,
    error_from_message,
)
from engine.search.limits import Clock
from engine.search.score import Score
from tests.clients.fake_server import (
    FakeServer,
    Reply,
    Script,
    good_bestmove,
    good_info,
    good_state,
)
from tests.timing import UNIT, wait_until_async

LIVE = pytest.mark.asyncio(loop_scope="module")  # the shared server lives in the module's loop


@LIVE
@pytest.mark.parametrize("encoding", ["msgpack", "json"])
async def test_game_and_think(url: str, encoding: str) -> None:
    async with connect(url, encoding=encoding) as engine:  # type: ignore[arg-type]
        assert engine.server is not None and engine.server.protocol == 1
        assert engine.server.game("connect4") is not None
        state = await engine.new_game("connect4", options={"width": 7})
        assert isinstance(state, GameState) and state.legal_moves == tuple("1234567")
        state = await engine.move("4")
        assert state.history == ("4",) and state.to_move == 1 and not state.is_over
        infos: list[Info] = []
        best = await engine.think(depth=4, on_info=infos.append)
        assert best.move in state.legal_moves and best.depth == 4 and best.reason == "depth"
        assert isinstance(best.score, Score)
        assert [info.depth for info in infos if not info.partial] == [1, 2, 3, 4]
        best = await engine.think(movetime=0.1)
        assert best.reason == "time" and best.time_ms <= 100 + 50 * UNIT
        best = await engine.think(clock=Clock(time_ms=2000, inc_ms=100))
        assert best.move in state.legal_moves


@LIVE
async def test_think_with_an_algorithm_says_how_it_searched(url: str) -> None:
    async with connect(url) as engine:
        offered = engine.server.game("connect4")["algorithms"] if engine.server else []
        assert offered == ["alphabeta", "mcts"]
        await engine.new_game("connect4")
        reports: list[Info] = []
        best = await engine.think(movetime=0.3, algorithm="mcts", on_info=reports.append)
        assert best.algorithm == "mcts" and best.playouts is not None and best.playouts > 0
        assert reports and all(info.playouts is not None for info in reports)
        best = await engine.think(depth=2)
        assert best.algorithm == "alphabeta" and best.playouts is None
        with pytest.raises(UnknownAlgorithmError):
            await engine.think(depth=1, algorithm="expectiminimax")


@LIVE
async def test_trace_returns_typed_nodes_and_limit_errors(url: str) -> None:
    async with connect(url) as engine:
        await engine.new_game("tree", position="[[3,12,8],[2,4,6],[14,5,2]]")
        traced = await engine.trace("alphabeta")
        assert (traced.value, traced.best_move, traced.leaves) == (3, "1", 7)
        root, second = traced.nodes[0], traced.nodes[5]
        assert root.alpha_in == -math.inf and root.beta_in == math.inf
        assert second.pruned_after == ["2", "3"] and second.alpha_in == 3
        await engine.new_game("chess")
        with pytest.raises(LimitExceededError, match="more than"):
            await engine.trace("minimax", depth=4, max_nodes=100)
        assert (await engine.trace(depth=1)).visited == 21


@LIVE
async def test_analysis_exit_stops_the_search(url: str) -> None:
    async with connect(url) as engine:
        await engine.new_game("connect4")
        async with engine.analysis() as analysis:
            async for info in analysis:
                if info.depth >= 4 and not info.partial:
                    break
            with pytest.raises(BusyError):
                await engine.move("4")
        assert analysis.bestmove is not None and analysis.bestmove.reason == "stopped"
        # the search went on until the stop arrived: the answer is the last
        # move it reported, which may be in an info read only now
        later = [info async for info in analysis]
        last = later[-1] if later else analysis.info
        assert last is not None and analysis.bestmove.move == last.pv[0]
        # the connection is free again
        assert (await engine.move(analysis.bestmove.move)).history == (analysis.bestmove.move,)


@LIVE
async def test_analysis_with_limits_ends_by_itself(url: str) -> None:
    async with connect(url) as engine:
        await engine.new_game("tictactoe")
        async with engine.analysis(depth=3) as analysis:
            depths = [info.depth async for info in analysis]
        assert depths and analysis.bestmove is not None
        assert analysis.bestmove.move in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3")


@LIVE
async def test_analysis_of_several_lines(url: str) -> None:
    """multipv 3: three ranked lines per depth through a real server, best first."""
    async with connect(url) as engine:
        await engine.new_game("tictactoe", moves=["b2", "a1"])
        async with engine.analysis(depth=7, multipv=3) as analysis:
            infos = [info async for info in analysis]
        assert {info.multipv for info in infos} == {1, 2, 3}
        lines = analysis.lines
        assert [info.multipv for info in lines] == [1, 2, 3]
        assert len({info.pv[0] for info in lines}) == 3
        assert analysis.bestmove is not None and analysis.bestmove.move == lines[0].pv[0]
        ranked: list[Info] = []
        best = await engine.think(depth=7, multipv=2, on_info=ranked.append)
        assert {info.multipv for info in ranked} == {1, 2}
        assert best.move in {info.pv[0] for info in ranked if info.multipv == 1}


@LIVE
async def test_monte_carlo_analysis_of_several_lines(url: str) -> None:
    """Go's default search (mcts) gives its most-visited moves as the lines."""
    async with connect(url) as engine:
        await engine.new_game("go", options={"size": 9})
        async with engine.analysis(nodes=200, multipv=3) as analysis:
            infos = [info async for info in analysis]
        assert infos and {info.multipv for info in infos} == {1, 2, 3}
        lines = analysis.lines
        assert [info.multipv for info in lines] == [1, 2, 3]
        assert len({info.pv[0] for info in lines}) == 3
        assert analysis.bestmove is not None and analysis.bestmove.move == lines[0].pv[0]
        assert analysis.bestmove.algorithm == "mcts"


@LIVE
async def test_errors_are_typed_with_codes(url: str) -> None:
    async with connect(url) as engine:
        with pytest.raises(NoGameError) as no_game:
            await engine.think(depth=1)
        assert no_game.value.code == "no_game"
        with pytest.raises(UnknownGameError):
            await engine.new_game("hnefatafl")
        await engine.new_game("connect4")
        with pytest.raises(IllegalMoveError) as illegal:
            await engine.move("0")
        assert illegal.value.code == "illegal_move" and illegal.value.legal_moves[0] == "1"
        with pytest.raises(LimitExceededError):
            await engine.think(movetime_ms=0)
        await engine.stop()  # nothing running: ignored
        assert (await engine.move("1")).position == "1"
        assert (await engine.move("2")).gnubg_id is None  # backgammon only


@LIVE
async def test_games_of_chance(url: str) -> None:
    async with connect(url) as engine:
        state = await engine.new_game("backgammon", seed=7)
        assert state.is_chance and state.seed == 7
        assert state.gnubg_id is None  # the opening roll
        assert abs(sum(p for _, p in state.outcomes) - 1.0) < 1e-9
        first = await engine.roll()
        assert not first.is_chance and isinstance(first.to_move, int)
        assert first.gnubg_id is not None
        assert first.gnubg_id.split(":")[0] == first.position.split()[0]
        best = await engine.think(depth=1)
        assert best.move in first.legal_moves
        after = await engine.move(best.move)
        assert after.is_chance
        replay = await engine.new_game("backgammon", seed=7)
        assert (await engine.roll()).position == first.position and replay.seed == 7


@LIVE
async def test_bestmove_reports_queued_ms(url: str) -> None:
    async with connect(url) as engine:
        await engine.new_game("connect4")
        best = await engine.think(movetime_ms=50)
        assert isinstance(best.queued_ms, int) and best.queued_ms >= 0
        assert not best.overloaded or best.depth == 0


@LIVE
async def test_a_full_queue_refuses_thinks_with_overloaded(url: str) -> None:
    async with connect(url) as probe:
        assert probe.server is not None
        max_queue = probe.server.limits.max_queue
    if not isinstance(max_queue, int) or max_queue < 1:
        pytest.skip("this server does not bound its queue of thinks")
    workers = 2  # the shared server's
    async with contextlib.AsyncExitStack() as stack:
        engines = [
            await stack.enter_async_context(connect(url)) for _ in range(workers + max_queue + 3)
        ]
        for engine in engines:
            await engine.new_game("connect4")
        # analyses without limits: they hold the workers and the queue until stopped
        thinks = [asyncio.create_task(engine.think()) for engine in engines]
        done, _ = await asyncio.wait(thinks, timeout=30 * UNIT, return_when=asyncio.FIRST_COMPLETED)
        assert done, "some think was refused at once"
        for engine, think in zip(engines, thinks, strict=True):
            if not think.done():
                await engine.stop()
        results = await asyncio.wait_for(asyncio.gather(*thinks, return_exceptions=True), 30 * UNIT)
    refused = [result for result in results if isinstance(result, OverloadedError)]
    answered = [result for result in results if isinstance(result, BestMove)]
    assert refused and len(refused) + len(answered) == len(engines), results
    for error in refused:
        assert error.retry_after_ms is None or error.retry_after_ms >= 0


# ----------------------------------------------------------------------
# Against a scripted server: what the library does when the server misbehaves.


def answer_thinks_with(bestmove: dict[str, Any], *before: dict[str, Any]) -> Script:
    def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "think":
            return [*before, bestmove]
        if message["type"] in ("new_game", "move"):
            return [good_state()]
        return None

    return script


MALFORMED_BESTMOVES: list[dict[str, Any]] = [
    {"depth": "3"},
    {"depth": 3.5},
    {"depth": True},
    {"depth": -1},
    {"depth": None},
    {"depth": 2**60},
    {"seldepth": "1"},
    {"nodes": -4},
    {"time_ms": 1.0},
    {"score": {"value": math.nan}},
    {"score": {"value": math.inf}},
    {"score": {"value": -math.inf}},
    {"score": {"value": 1.5}},
    {"score": {"value": True}},
    {"score": {"value": 1, "draw": True}},
    {"score": {}},
    {"score": {"mate": 3}},
    {"score": {"draw": False}},
    {"score": {"win_in": -2}},
    {"score": "high"},
    {"score": None},
    {"pv": [1, 2]},
    {"pv": "1:3"},
    {"move": None},
    {"move": 13},
    {"move": ""},
    {"reason": 5},
    {"queued_ms": -1},
    {"queued_ms": "7"},
    {"queued_ms": math.nan},
]


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
@pytest.mark.parametrize("patch", MALFORMED_BESTMOVES, ids=repr)
async def test_a_malformed_bestmove_fails_that_think(patch: dict[str, Any], encoding: str) -> None:
    async with FakeServer(answer_thinks_with(good_bestmove(**patch))) as server:
        # strict: the think fails, and the connection is closed
        async with connect(server.url, encoding=encoding, strict=True) as engine:  # type: ignore[arg-type]
            await engine.new_game("nim")
            with pytest.raises(ProtocolViolationError) as raised:
                await asyncio.wait_for(engine.think(depth=1), 10 * UNIT)
            assert raised.value.code == "protocol_violation"
            await wait_until_async(lambda: engine.is_closed, 10 * UNIT, "the connection to close")
            with pytest.raises(ProtocolViolationError):
                await engine.move("1:1")
        # lenient: the think fails, the connection goes on
        async with connect(server.url, encoding=encoding) as engine:  # type: ignore[arg-type]
            await engine.new_game("nim")
            with pytest.raises(ProtocolViolationError):
                await asyncio.wait_for(engine.think(depth=1), 10 * UNIT)
            assert not engine.is_closed
            assert (await engine.move("1:1")).game == "nim"


def test_missing_required_fields_are_violations() -> None:
    for key in ("move", "score"):
        message = good_bestmove()
        del message[key]
        with pytest.raises(ProtocolViolationError, match=key):
            BestMove.from_wire(message)
    for key in ("depth", "score"):
        message = good_info()
        del message[key]
        with pytest.raises(ProtocolViolationError, match=key):
            Info.from_wire(message)


def test_valid_answers_are_read_with_their_new_fields() -> None:
    best = BestMove.from_wire(
        good_bestmove(
            queued_ms=87, reason="overloaded", depth=0, score={"value": -12}, extra="ignored"
        )
    )
    assert best.queued_ms == 87 and best.overloaded and best.depth == 0
    assert best.score == Score(value=-12)
    old = good_bestmove()  # a server that does not report queued_ms
    assert BestMove.from_wire(old).queued_ms == 0 and not BestMove.from_wire(old).overloaded
    assert BestMove.from_wire(good_bestmove(score={"draw": True})).score == Score(draw=True)
    assert BestMove.from_wire(good_bestmove(score={"loss_in": 4})).score == Score(loss_in=4)
    info = Info.from_wire(good_info(tt_hit_rate=1))
    assert info.tt_hit_rate == 1.0 and info.pv == ("1:3",)


@pytest.mark.parametrize(
    "patch",
    [
        {"depth": "1"},
        {"tt_hit_rate": math.nan},
        {"tt_hit_rate": math.inf},
        {"tt_hit_rate": 1.5},
        {"tt_hit_rate": "0.5"},
        {"partial": 1},
        {"nps": -1},
        {"pv": [None]},
        {"score": {"value": math.inf}},
    ],
    ids=repr,
)
def test_malformed_infos_are_violations(patch: dict[str, Any]) -> None:
    with pytest.raises(ProtocolViolationError):
        Info.from_wire(good_info(**patch))


async def test_a_malformed_info_is_dropped_when_lenient_and_fatal_when_strict() -> None:
    script = answer_thinks_with(
        good_bestmove(), good_info(score={"value": math.inf}), good_info(depth=2)
    )
    async with FakeServer(script) as server:
        async with connect(server.url) as engine:
            await engine.new_game("nim")
            infos: list[Info] = []
            best = await asyncio.wait_for(engine.think(depth=2, on_info=infos.append), 10 * UNIT)
            assert best.move == "1:3" and [info.depth for info in infos] == [2]
        async with connect(server.url, strict=True) as engine:
            await engine.new_game("nim")
            with pytest.raises(ProtocolViolationError, match="score value"):
                await asyncio.wait_for(engine.think(depth=2), 10 * UNIT)
            await wait_until_async(lambda: engine.is_closed, 10 * UNIT, "the connection to close")


async def test_a_malformed_state_fails_its_request() -> None:
    def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "move":
            return [good_state(legal_moves="1:1")]
        return [good_state(to_move=True)] if message.get("game") == "bad" else [good_state()]

    async with FakeServer(script) as server, connect(server.url) as engine:
        with pytest.raises(ProtocolViolationError, match="to_move"):
            await engine.new_game("bad")
        assert (await engine.new_game("nim")).to_move == 0
        with pytest.raises(ProtocolViolationError, match="legal_moves"):
            await engine.move("1:1")


async def test_an_on_info_callback_that_raises_does_not_break_the_connection() -> None:
    def explode(info: Info) -> None:
        raise RuntimeError("the caller's bug")

    script = answer_thinks_with(good_bestmove(), good_info())
    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        assert (
            await asyncio.wait_for(engine.think(depth=1, on_info=explode), 10 * UNIT)
        ).depth == 1
        assert not engine.is_closed


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        ("bad_message", BadMessageError),
        ("unknown_type", UnknownTypeError),
        ("unsupported_protocol", UnsupportedProtocolError),
        ("unknown_game", UnknownGameError),
        ("bad_options", BadOptionsError),
        ("bad_position", BadPositionError),
        ("illegal_move", IllegalMoveError),
        ("game_over", GameOverError),
        ("no_game", NoGameError),
        ("chance_state", ChanceStateError),
        ("unknown_algorithm", UnknownAlgorithmError),
        ("busy", BusyError),
        ("limit_exceeded", LimitExceededError),
        ("overloaded", OverloadedError),
        ("internal", InternalError),
        ("something_new", EngineError),
    ],
)
def test_every_error_code_has_its_exception(code: str, cls: type[EngineError]) -> None:
    error = error_from_message({"type": "error", "code": code, "message": "why"})
    assert type(error) is cls and error.code == code and error.message == "why"


def test_overloaded_carries_its_retry_hint() -> None:
    message = {"type": "error", "code": "overloaded", "message": "full", "retry_after_ms": 250}
    error = error_from_message(message)
    assert isinstance(error, OverloadedError) and error.retry_after_ms == 250
    for bad in (-1, "250", 2.5, True, None):
        error = error_from_message({**message, "retry_after_ms": bad})
        assert isinstance(error, OverloadedError) and error.retry_after_ms is None
    # an error that is itself malformed is still an error, not a crash
    odd = error_from_message({"type": "error", "code": 7, "message": None, "legal_moves": [1]})
    assert type(odd) is EngineError and odd.code == "error" and odd.legal_moves == []


async def test_a_refused_think_raises_overloaded_and_the_connection_goes_on() -> None:
    def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "think":
            return [
                {
                    "type": "error",
                    "code": "overloaded",
                    "message": "queue full",
                    "retry_after_ms": 120,
                }
            ]
        return [good_state()]

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        with pytest.raises(OverloadedError) as raised:
            await asyncio.wait_for(engine.think(movetime_ms=100), 10 * UNIT)
        assert raised.value.retry_after_ms == 120 and raised.value.code == "overloaded"
        assert (await engine.move("1:1")).game == "nim"


async def test_a_request_times_out_and_its_late_reply_is_ignored() -> None:
    moves = 0
    caller_gave_up = asyncio.Event()

    async def script(message: dict[str, Any]) -> Reply:
        nonlocal moves
        if message["type"] == "move":
            moves += 1
            if moves == 1:
                # the first reply comes only after the caller gave up
                await asyncio.wait_for(caller_gave_up.wait(), 10 * UNIT)
                return [good_state(position="late")]
        return [good_state()]

    async with FakeServer(script) as server, connect(server.url, request_timeout=0.3) as engine:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError) as raised:
            await engine.move("1:1")
        assert 0.25 <= time.monotonic() - started < 5 * UNIT
        caller_gave_up.set()
        assert raised.value.code == "timeout" and isinstance(raised.value, TimeoutError)
        # the late reply does not answer the next request
        state = await engine.move("1:2", timeout=10 * UNIT)
        assert state.position == "3 /0" and not engine.is_closed


async def test_hello_times_out_on_a_mute_server() -> None:
    async def mute(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                pass

    async with serve(mute, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="hello"):
            async with connect(f"ws://127.0.0.1:{port}/ws", request_timeout=0.3):
                pass
        assert time.monotonic() - started < 5 * UNIT


async def test_a_think_times_out_and_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "THINK_TIMEOUT_MARGIN_S", 0.3)

    def script(message: dict[str, Any]) -> Reply:
        return [good_state()] if message["type"] in ("new_game", "move") else None

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="think"):
            await engine.think(movetime_ms=100)  # 0.1 s budget + 0.3 s margin
        assert 0.35 <= time.monotonic() - started < 5 * UNIT
        await wait_until_async(lambda: bool(server.sent("stop")), 10 * UNIT, "the stop")
        think_id = server.sent("think")[0]["id"]
        assert server.sent("stop") == [{"type": "stop", "id": think_id}]
        # an explicit timeout wins over the budget
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            await engine.think(movetime_ms=60_000, timeout=0.2)
        assert time.monotonic() - started < 5 * UNIT
        assert (await engine.move("1:1")).game == "nim" and not engine.is_closed


async def test_after_a_think_timed_out_the_next_request_is_not_refused_busy() -> None:
    """A review of 2026-12-07: EngineTimeoutError said the think was stopped,
    but the stop was only on its way, and the next think or move, sent at
    once, was refused ``busy`` while the server still had the think. The
    error is raised once the stop is answered (the server answers it at once)."""
    pending: list[int] = []

    def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "think":
            if pending:
                return [{"type": "error", "code": "busy", "message": "a think is running"}]
            pending.append(message["id"])
            return None  # searches until stopped
        if message["type"] == "stop" and pending:
            pending.clear()
            return [good_bestmove(reason="stopped")]
        if message["type"] == "move" and pending:
            return [{"type": "error", "code": "busy", "message": "a think is running"}]
        return [good_state()] if message["type"] in ("new_game", "move") else None

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        for count in range(1, 4):
            with pytest.raises(EngineTimeoutError, match="stopped"):
                await engine.think(movetime_ms=60_000, timeout=0.1)
            # Raised once the stop was answered: the server has it already.
            assert len(server.sent("stop")) == count and not pending
            assert (await engine.move("1:1")).game == "nim"  # not busy


async def test_think_timeouts_follow_the_budget() -> None:
    async with (
        FakeServer(answer_thinks_with(good_bestmove())) as server,
        connect(server.url) as engine,
    ):
        margin = client_module.THINK_TIMEOUT_MARGIN_S
        assert engine.think_timeout({"movetime_ms": 1500}) == 1.5 + margin
        assert engine.think_timeout({"clock": {"time_ms": 3000, "inc_ms": 0}}) == 3 + margin
        assert (
            engine.think_timeout({"movetime_ms": 500, "clock": {"time_ms": 3000}}) == 0.5 + margin
        )
        # no time limit: the server's max_movetime_ms (2000 in the fake welcome)
        assert engine.think_timeout({"depth": 30}) == 2 + margin
        assert engine.think_timeout({}, timeout=7) == 7
        engine.server = None
        assert engine.think_timeout({}) == client_module.DEFAULT_MAX_THINK_S + margin


async def test_cancelling_a_think_stops_it_on_the_server() -> None:
    def script(message: dict[str, Any]) -> Reply:
        return [good_state()] if message["type"] == "new_game" else None

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(engine.think(movetime_ms=10_000), 0.2)
        await wait_until_async(lambda: bool(server.sent("stop")), 10 * UNIT, "the stop")
        assert server.sent("stop")[0]["id"] == server.sent("think")[0]["id"]


async def test_a_closed_connection_fails_every_pending_request_at_once() -> None:
    async def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "new_game":
            return [good_state()]
        return None  # think and move stay unanswered

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        think = asyncio.create_task(engine.think(movetime_ms=60_000))
        move = asyncio.create_task(engine.move("1:1", timeout=60 * UNIT))
        await wait_until_async(lambda: len(server.received) >= 4, 10 * UNIT, "four requests")
        started = time.monotonic()
        await server.connections[0].close()
        for task in (think, move):
            with pytest.raises(EngineTerminatedError):
                await asyncio.wait_for(task, 10 * UNIT)
        assert time.monotonic() - started < 5 * UNIT
        assert engine.is_closed
        with pytest.raises(EngineTerminatedError):
            await engine.new_game("nim")


async def test_an_analysis_whose_stop_is_never_answered_times_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The margin after a stop is the connection's (the think's first timeout is the client's).
    monkeypatch.setattr(connection_module, "THINK_TIMEOUT_MARGIN_S", 0.3)

    def script(message: dict[str, Any]) -> Reply:
        if message["type"] == "think":
            return [good_info()]
        return [good_state()] if message["type"] == "new_game" else None

    async with FakeServer(script) as server, connect(server.url) as engine:
        await engine.new_game("nim")
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            async with engine.analysis() as analysis:  # no limit: up to 2 s + margin
                async for info in analysis:
                    assert info.depth == 1
                    break
        # Not scaled: 2 s is the wait without the stop (the fake welcome's max_movetime_ms).
        assert time.monotonic() - started < 2, "the stop shortened the wait to the margin"


def test_state_gnubg_id_is_optional_and_a_string() -> None:
    message: dict[str, Any] = {
        "type": "state",
        "game": "backgammon",
        "position": "4HPwATDgc/ABMA 1 2-1",
        "to_move": 1,
        "legal_moves": ["13/11 6/5"],
        "history": ["1-2"],
        "result": None,
    }
    assert GameState.from_wire(message).gnubg_id is None
    message["gnubg_id"] = "4HPwATDgc/ABMA:cAkFAAAAAAAE"
    assert GameState.from_wire(message).gnubg_id == "4HPwATDgc/ABMA:cAkFAAAAAAAE"
    message["gnubg_id"] = 5
    with pytest.raises(ProtocolViolationError, match="gnubg_id"):
        GameState.from_wire(message)


async def test_a_move_time_that_is_not_positive_is_refused() -> None:
    """A review of 2026-12-07: think(movetime=-1) was searched for 1 ms and
    answered unsearched, where a depth of 0 is refused."""
    async with (
        FakeServer(answer_thinks_with(good_bestmove())) as server,
        connect(server.url) as engine,
    ):
        await engine.new_game("nim")
        for movetime in (-1, 0):
            with pytest.raises(ValueError, match="movetime must be positive"):
                await engine.think(movetime)
        assert server.sent("think") == []

"""The ``trace`` request: a search of the session's position, recorded node by node."""

from __future__ import annotations

import time
from typing import Any

import pytest

from engine.registry import GAMES
from engine.search.trace import (
    MAX_TRACE_NODES,
    MAX_TRACE_PLAYOUTS,
    MCTS,
    PROJECTION_AFTER_S,
    TRACE_ALGORITHMS,
)
from protocol.errors import ErrorCode, ProtocolError
from protocol.records import TraceRequest, parse_request
from server.app import ArenaServer
from server.session import Session
from tests.server.server_harness import ENCODINGS, UNIT, RawClient, raw_client, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

NOTES = "[[3,12,8],[2,4,6],[14,5,2]]"
#: Games with chance nodes, which the deterministic searches cannot enter.
CHANCE_GAMES = {"backgammon"}


async def new_game(client: RawClient, **fields: Any) -> dict[str, Any]:
    reply = await client.request({"type": "new_game", "id": "g", **fields})
    assert reply["type"] == "state", reply
    return reply


async def trace(client: RawClient, **fields: Any) -> dict[str, Any]:
    await client.send({"type": "trace", "id": "t", **fields})
    return await client.recv(15 * UNIT)


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_the_notes_tree_over_the_wire(shared_server: ArenaServer, encoding: str) -> None:
    async with raw_client(shared_server.port, encoding) as client:
        await new_game(client, game="tree", position=NOTES)
        minimax = await trace(client, algorithm="minimax")
        alphabeta = await trace(client, algorithm="alphabeta")
    assert minimax["type"] == "trace" and minimax["id"] == "t"
    assert (minimax["value"], minimax["best_move"], minimax["leaves"]) == (3, "1", 9)
    assert minimax["depth"] == 2  # the whole tree when no depth is named
    assert (alphabeta["value"], alphabeta["leaves"], alphabeta["visited"]) == (3, 7, 11)
    leaves = [n["value"] for n in alphabeta["nodes"] if n["kind"] == "terminal"]
    assert 4 not in leaves and 6 not in leaves
    second = alphabeta["nodes"][5]
    assert (second["player"], second["move"], second["pruned_after"]) == ("min", "2", ["2", "3"])
    assert (second["alpha_in"], second["beta_in"]) == (3, "inf")
    root = alphabeta["nodes"][0]
    assert root["parent"] is None and root["move"] is None and root["player"] == "max"


async def test_every_game_and_algorithm_traces(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port, "json") as client:
        for name in GAMES:
            await new_game(client, game=name)
            if name == "backgammon":
                await client.request({"type": "roll", "id": "r"})
            for algorithm in TRACE_ALGORITHMS:
                if algorithm == MCTS:
                    reply = await trace(client, algorithm=algorithm, playouts=20)
                    assert reply["type"] == "trace", (name, reply)
                    assert reply["playouts"] == reply["nodes"][0]["visits"] <= 20
                    continue
                chance_refused = name in CHANCE_GAMES and algorithm != "expectiminimax"
                # At depth 1 a game of chance is cut off before the next roll;
                # the deterministic searches meet the chance node at depth 2.
                depth = 2 if chance_refused else 1
                reply = await trace(client, algorithm=algorithm, depth=depth)
                if chance_refused:
                    assert reply["code"] == "unknown_algorithm", reply
                    assert "expectiminimax" in reply["message"]
                    continue
                assert reply["type"] == "trace", (name, algorithm, reply)
                root = reply["nodes"][0]
                assert reply["visited"] == len(reply["nodes"]) > 1
                assert reply["best_move"] == root["best_move"]
                assert all(n["depth"] <= 1 for n in reply["nodes"])


async def test_chance_nodes_carry_probabilities(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port) as client:
        await new_game(client, game="tree", position='[{"p":["1/3","2/3"],"c":[[1,5],[0,6]]},2]')
        reply = await trace(client)
    assert reply["algorithm"] == "expectiminimax"  # the default where chance nodes exist
    chance = reply["nodes"][1]
    assert chance["player"] == "chance"
    assert chance["value"] == pytest.approx(1 / 3)
    outcomes = [n for n in reply["nodes"] if n["parent"] == 1]
    assert [n["probability"] for n in outcomes] == pytest.approx([1 / 3, 2 / 3])
    assert reply["value"] == 2 and reply["best_move"] == "2"


async def test_an_mcts_trace_is_its_tree_after_the_playouts(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port, "msgpack") as client:
        await new_game(client, game="backgammon")
        unrolled = await trace(client, algorithm="mcts")
        assert unrolled["code"] == "chance_state" and "roll" in unrolled["message"]
        await new_game(client, game="connect4")
        first = await trace(client, algorithm="mcts", playouts=300, seed=7)
        again = await trace(client, algorithm="mcts", playouts=300, seed=7)
        small = await trace(client, algorithm="mcts", playouts=300, max_nodes=50)
        too_many = await trace(client, algorithm="mcts", playouts=MAX_TRACE_PLAYOUTS + 1)
    assert first == again, "one seed, one tree"
    assert (first["algorithm"], first["playouts"], first["nodes"][0]["visits"]) == (
        "mcts",
        300,
        300,
    )
    assert first["visited"] == len(first["nodes"]) and first["best_move"] in "1234567"
    assert all("alpha_in" not in node and node["wins"] <= node["visits"] for node in first["nodes"])
    assert small["code"] == "limit_exceeded" and "max_nodes (50)" in small["message"]
    assert too_many["code"] == "limit_exceeded" and "playouts" in too_many["message"]


async def test_limits_and_bad_requests_get_clear_errors(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port, "json") as client:
        nothing = await trace(client)
        assert nothing["code"] == "no_game"
        await new_game(client, game="tictactoe")
        too_big = await trace(client, algorithm="minimax", depth=3, max_nodes=100)
        assert too_big["code"] == "limit_exceeded"
        assert "586 nodes" in too_big["message"]
        over_cap = await trace(client, max_nodes=MAX_TRACE_NODES + 1)
        assert over_cap["code"] == "limit_exceeded" and "50000" in over_cap["message"]
        deep = await trace(client, depth=31)
        assert deep["code"] == "limit_exceeded"
        unknown = await trace(client, algorithm="pvs")
        assert unknown["code"] == "unknown_algorithm" and "minimax" in unknown["message"]
        mistyped = await trace(client, depth="3")
        assert mistyped["code"] == "bad_message"
        await new_game(client, game="tictactoe", position="XXXOO....")
        over = await trace(client)
        assert over["code"] == "game_over"
        welcome = await client.request({"type": "hello", "id": 1})
    assert welcome["limits"]["max_trace_nodes"] == MAX_TRACE_NODES
    assert welcome["limits"]["max_trace_ms"] > 0


async def test_a_trace_while_thinking_is_busy_and_the_think_goes_on(
    shared_server: ArenaServer,
) -> None:
    async with raw_client(shared_server.port) as client:
        await new_game(client, game="connect4")
        limits = {"movetime_ms": round(600 * UNIT)}
        await client.send({"type": "think", "id": "k", "limits": limits})
        await client.send({"type": "trace", "id": "t"})
        replies = []
        while not replies or replies[-1].get("type") != "bestmove":
            replies.append(await client.recv(15 * UNIT))
        busy = [reply for reply in replies if reply.get("id") == "t"]
        assert len(busy) == 1 and busy[0]["code"] == "busy"
        assert replies[-1]["id"] == "k" and replies[-1]["reason"] == "time"
        after = await trace(client, depth=2)
    assert after["type"] == "trace"


async def test_the_session_is_busy_while_a_trace_runs() -> None:
    session = Session()
    session.handle(parse_request({"type": "new_game", "game": "tree"}), 0.0)
    reaction = session.handle(TraceRequest("a", "alphabeta"), 0.0)
    job = reaction.trace
    assert job is not None and job.depth == 2 and job.max_nodes == 5000
    assert job.deadline == pytest.approx(10.0)
    for request in (
        parse_request({"type": "think", "id": 2}),
        parse_request({"type": "move", "move": "1", "id": 3}),
        TraceRequest("b"),
    ):
        with pytest.raises(ProtocolError) as refused:
            session.handle(request, 0.0)
        assert refused.value.code is ErrorCode.BUSY
        assert "trace is running" in refused.value.message
    session.finish_trace()
    assert session.handle(TraceRequest("c"), 0.0).trace is not None


async def test_impossible_traces_are_refused_before_a_worker_is_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seen (issue 26, item 8): a 19x19 Go MCTS trace of 20,000 playouts always ran its
    10 s on a worker and then answered ``limit_exceeded``; repeated, it starved others."""
    async with running_server(workers=1) as server, raw_client(server.port) as client:
        admitted: list[Any] = []
        admit = server.pool._admit
        monkeypatch.setattr(server.pool, "_admit", lambda t: (admitted.append(t), admit(t)))
        await new_game(client, game="go", options={"size": 19})
        # A tree too big to count: refused by the session's estimate, no worker.
        sent = time.monotonic()
        huge = await trace(client, algorithm="minimax", depth=3)
        assert huge["code"] == "limit_exceeded" and "smaller depth" in huge["message"]
        assert time.monotonic() - sent <= 0.5 * UNIT and not admitted
        # The trace: its worker stops once its playouts say it cannot finish...
        sent = time.monotonic()
        first = await trace(client, algorithm="mcts", playouts=20_000)
        assert first["code"] == "limit_exceeded" and "fewer playouts" in first["message"]
        assert time.monotonic() - sent <= PROJECTION_AFTER_S + 2 * UNIT
        assert len(admitted) == 1
        # ... and the same request again is refused at the measured speed, no worker.
        sent = time.monotonic()
        again = await trace(client, algorithm="mcts", playouts=20_000)
        assert again["code"] == "limit_exceeded" and "measured" in again["message"]
        assert time.monotonic() - sent <= 0.5 * UNIT and len(admitted) == 1
        # A trace that fits still runs.
        small = await trace(client, algorithm="mcts", playouts=20)
        assert small["type"] == "trace" and len(admitted) == 2

"""``think.algorithm``: each game's searches offered in ``welcome`` and used as asked."""

from __future__ import annotations

from typing import Any

import pytest

from engine.registry import create_game
from server.app import ArenaServer
from tests.server.server_harness import ENCODINGS, UNIT, RawClient, raw_client

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def new_game(client: RawClient, **fields: Any) -> dict[str, Any]:
    reply = await client.request({"type": "new_game", "id": "g", **fields})
    assert reply["type"] == "state", reply
    return reply


async def test_welcome_lists_each_games_algorithms_default_first(
    shared_server: ArenaServer,
) -> None:
    async with raw_client(shared_server.port) as client:
        welcome = await client.request({"type": "hello", "id": 1})
    offered = {game["name"]: game["algorithms"] for game in welcome["games"]}
    assert offered["connect4"] == ["alphabeta", "mcts"]
    assert offered["chess"] == ["alphabeta", "mcts"]
    assert offered["backgammon"] == ["expectiminimax", "mcts"]
    assert all("mcts" in names for names in offered.values())


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_mcts_think_streams_playouts_and_says_how_it_was_found(
    shared_server: ArenaServer, encoding: str
) -> None:
    async with raw_client(shared_server.port, encoding) as client:
        state = await new_game(client, game="connect4")
        infos, best = await client.think(2, {"movetime_ms": round(400 * UNIT)}, algorithm="mcts")
    assert best["algorithm"] == "mcts"
    assert best["move"] in state["legal_moves"]
    assert best["reason"] == "time"
    assert best["playouts"] > 0 and best["pv"][0] == best["move"]
    assert infos, "a Monte Carlo think reports progress"
    counts = [info["playouts"] for info in infos]
    assert counts == sorted(counts) and counts[-1] <= best["playouts"]
    assert all(len(info["score"]) == 1 for info in infos)


async def test_playouts_limit_the_mcts_search_by_nodes(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port) as client:
        await new_game(client, game="tictactoe")
        _, best = await client.think(1, {"nodes": 300}, algorithm="mcts")
    assert best["reason"] in {"nodes", "proven"}
    assert best["playouts"] <= 300


async def test_default_algorithm_is_named_in_bestmove(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port) as client:
        await new_game(client, game="connect4")
        _, best = await client.think(1, {"depth": 3})
        assert best["algorithm"] == "alphabeta" and "playouts" not in best
        _, best = await client.think(2, {"depth": 3}, algorithm="alphabeta")
        assert best["algorithm"] == "alphabeta" and best["depth"] == 3


@pytest.mark.parametrize(
    ("game", "algorithm"),
    [("connect4", "expectiminimax"), ("backgammon", "alphabeta"), ("connect4", "minimax")],
)
async def test_an_algorithm_the_game_does_not_offer_is_refused(
    shared_server: ArenaServer, game: str, algorithm: str
) -> None:
    async with raw_client(shared_server.port) as client:
        # backgammon: past the opening roll, so that a think is allowed
        await new_game(client, game=game, moves=["3-1"] if game == "backgammon" else [])
        reply = await client.request(
            {"type": "think", "id": 5, "limits": {"depth": 1}, "algorithm": algorithm}
        )
        assert reply["type"] == "error" and reply["code"] == "unknown_algorithm", reply
        assert reply["id"] == 5 and algorithm in reply["message"]
        # nothing runs: the session is free for a think it can do
        _, best = await client.think(6, {"depth": 1})
        assert best["type"] == "bestmove"


async def test_a_malformed_algorithm_is_a_bad_message(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port) as client:
        await new_game(client, game="connect4")
        for value in (7, ["mcts"], "x" * 100):
            reply = await client.request({"type": "think", "id": 1, "algorithm": value})
            assert reply["type"] == "error" and reply["code"] == "bad_message", reply


@pytest.mark.parametrize("game", ["go", "backgammon"])
async def test_an_mcts_think_with_multipv_answers_its_lines(
    shared_server: ArenaServer, game: str
) -> None:
    """multipv 3 from the tree search (Go's default, backgammon's second search):
    each report is 3 distinct lines, ranked, each legal, and bestmove is line 1."""
    options = {"size": 9} if game == "go" else {}
    moves = ["3-1"] if game == "backgammon" else []
    algorithm = "mcts" if game == "backgammon" else None
    async with raw_client(shared_server.port) as client:
        state = await new_game(client, game=game, options=options, moves=moves)
        request: dict[str, Any] = {"type": "think", "id": 7, "limits": {"nodes": 300}}
        if algorithm is not None:
            request["algorithm"] = algorithm
        await client.send({**request, "multipv": 3})
        infos, best = await client.collect(7, timeout=30 * UNIT)
    assert best["algorithm"] == "mcts" and best["move"] in state["legal_moves"]
    assert infos and all(info["multipv"] in (1, 2, 3) for info in infos)
    groups: list[list[dict[str, Any]]] = []
    for info in infos:
        if info["multipv"] == 1:
            groups.append([])
        groups[-1].append(info)
    for group in groups:
        assert [info["multipv"] for info in group] == list(range(1, len(group) + 1))
        firsts = [info["pv"][0] for info in group]
        assert len(set(firsts)) == len(firsts)
        assert all(move in state["legal_moves"] for move in firsts)
    final = groups[-1]
    assert len(final) == 3
    assert final[0]["pv"][0] == best["move"] and final[0]["score"] == best["score"]
    # Every line is legal to its end (the engine's own rules check it).
    engine_game = create_game(game, options)
    position = engine_game.initial_state()
    for move in moves:
        position = engine_game.play(position, engine_game.parse_move(position, move))
    for info in final:
        after = position
        for text in info["pv"]:
            after = engine_game.play(after, engine_game.parse_move(after, text))

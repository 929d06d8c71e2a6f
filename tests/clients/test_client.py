"""The client library against a real server."""

from __future__ import annotations

import pytest

from clients.client import (
    BusyError,
    GameState,
    IllegalMoveError,
    LimitExceededError,
    NoGameError,
    UnknownGameError,
    connect,
)
from engine.limits import Clock
from engine.score import Score

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
async def test_game_and_think(url: str, encoding: str) -> None:
    async with connect(url, encoding=encoding) as engine:  # type: ignore[arg-type]
        assert engine.server is not None and engine.server.protocol == 1
        assert engine.server.game("connect4") is not None
        state = await engine.new_game("connect4", options={"width": 7})
        assert isinstance(state, GameState) and state.legal_moves == tuple("1234567")
        state = await engine.move("4")
        assert state.history == ("4",) and state.to_move == 1 and not state.is_over
        infos = []
        best = await engine.think(depth=4, on_info=infos.append)
        assert best.move in state.legal_moves and best.depth == 4 and best.reason == "depth"
        assert isinstance(best.score, Score)
        assert [info.depth for info in infos if not info.partial] == [1, 2, 3, 4]
        best = await engine.think(movetime=0.1)
        assert best.reason == "time" and best.time_ms <= 150
        best = await engine.think(clock=Clock(time_ms=2000, inc_ms=100))
        assert best.move in state.legal_moves


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
        assert analysis.info is not None and analysis.bestmove.move == analysis.info.pv[0]
        # the connection is free again
        assert (await engine.move(analysis.bestmove.move)).history == (analysis.bestmove.move,)


async def test_analysis_with_limits_ends_by_itself(url: str) -> None:
    async with connect(url) as engine:
        await engine.new_game("tictactoe")
        async with engine.analysis(depth=3) as analysis:
            depths = [info.depth async for info in analysis]
        assert depths and analysis.bestmove is not None
        assert analysis.bestmove.move in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3")


async def test_errors_are_typed_with_codes(url: str) -> None:
    async with connect(url) as engine:
        with pytest.raises(NoGameError) as no_game:
            await engine.think(depth=1)
        assert no_game.value.code == "no_game"
        with pytest.raises(UnknownGameError):
            await engine.new_game("go")
        await engine.new_game("connect4")
        with pytest.raises(IllegalMoveError) as illegal:
            await engine.move("0")
        assert illegal.value.code == "illegal_move" and illegal.value.legal_moves[0] == "1"
        with pytest.raises(LimitExceededError):
            await engine.think(movetime_ms=0)
        await engine.stop()  # nothing running: ignored
        assert (await engine.move("1")).position == "1"


async def test_games_of_chance(url: str) -> None:
    async with connect(url) as engine:
        state = await engine.new_game("backgammon", seed=7)
        assert state.is_chance and state.seed == 7
        assert abs(sum(p for _, p in state.outcomes) - 1.0) < 1e-9
        first = await engine.roll()
        assert not first.is_chance and isinstance(first.to_move, int)
        best = await engine.think(depth=1)
        assert best.move in first.legal_moves
        after = await engine.move(best.move)
        assert after.is_chance
        replay = await engine.new_game("backgammon", seed=7)
        assert (await engine.roll()).position == first.position and replay.seed == 7

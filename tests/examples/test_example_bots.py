"""The example bots of examples/bots/ (docs/bots.md) play as ``cmd:`` engines, as shipped."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from engine.registry import create_game
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from server.external import ExternalEngine, program_searcher
from tests.timing import UNIT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
NODE = shutil.which("node")


def example(name: str, tmp_path: Path) -> ExternalEngine:
    if name.endswith(".js"):
        if NODE is None:
            pytest.skip("node is not installed: the JavaScript example cannot run")
        argv: tuple[str, ...] = (NODE, str(EXAMPLES / name))
    else:
        argv = (sys.executable, str(EXAMPLES / name))
    return ExternalEngine("connect4", name, "cmd", argv, (), True, str(tmp_path / f"{name}.log"))


@pytest.mark.parametrize("name", ["connect4.py", "connect4.js"])
def test_an_example_bot_wins_when_it_can_and_blocks_when_it_must(name: str, tmp_path: Path) -> None:
    game = create_game("connect4")
    searcher = program_searcher(example(name, tmp_path), game)
    try:
        for position, expected in (("445566", "3"), ("44556", "3"), ("", "4")):
            result = searcher.think(
                SearchRequest(game.parse_position(position), Limits(movetime_ms=int(3000 * UNIT)))
            )
            assert (result.move, result.reason) == (expected, "engine"), (position, result)
    finally:
        searcher.close()


def test_the_two_example_bots_play_a_whole_game(tmp_path: Path) -> None:
    game = create_game("connect4")
    players = [
        program_searcher(example(name, tmp_path), game) for name in ("connect4.py", "connect4.js")
    ]
    state = game.initial_state()
    try:
        while game.outcome(state) is None:
            player = players[game.to_move(state)]
            result = player.think(SearchRequest(state, Limits(movetime_ms=int(3000 * UNIT))))
            assert result.reason == "engine", result
            assert result.move is not None
            state = game.play_text(state, result.move)
    finally:
        for player in players:
            player.close()
    assert game.outcome(state) is not None

"""The two builds of the engine: how one is chosen, and that they agree.

``pip install -e .`` compiles the engine with mypyc where it can; these
tests compare it with the pure-Python sources, run in a child process with
``ARENA_PURE_PYTHON=1``: same moves, scores, depths and node counts at
fixed depth, same perft counts, same exact solves. Without a compiled
build the comparison skips, unless ``ARENA_REQUIRE_COMPILED=1`` (set by
``.ci/run``) makes a missing compiled build a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from random import Random
from typing import Any

import pytest

import engine
from engine import build
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.reference import perft
from engine.search.request import SearchRequest
from engine.search.solver import ExactSolver
from engine.searchers import searcher_for
from tests.timing import UNIT

ROOT = Path(__file__).resolve().parents[2]

#: (game, options, position or None for the start, depth): small enough
#: for the pure build to finish each in well under a second.
FIXED_DEPTH_CASES: list[tuple[str, dict[str, Any], str | None, int]] = [
    ("tictactoe", {}, None, 9),
    ("tictactoe", {}, "X...O....", 7),
    ("nim", {"heaps": [3, 4, 5]}, None, 12),
    ("nim", {"heaps": [1, 3, 5, 7], "misere": True}, None, 8),
    ("connect4", {}, None, 9),
    ("connect4", {}, "4453432", 10),
    ("othello", {}, None, 7),
    ("checkers", {}, None, 7),
    ("chess", {}, None, 4),
    ("chess", {}, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("chess", {}, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("backgammon", {}, "4HPwATDgc/ABMA 0 3-1", 2),
]
PERFT_CASES: list[tuple[str, int]] = [("chess", 3), ("othello", 5), ("checkers", 5)]
SOLVE_CASES = ["2252576253462244111563365343671351441", "7422341735647741166133573473242566"]
#: Go with the knowledge at work: Black's E5 is in atari and its escape
#: runs into a ladder, so the playouts' escape step and the priors read
#: ladders (engine.games.go_ladder, typed with machine integers).
GO_POSITION = (
    "/".join((".........",) * 3 + ("....O....", "...OXO...", ".....O...") + (".........",) * 3)
    + " X"
)
GO_PLAYOUTS = 30
GO_SEARCH_PLAYOUTS = 300


def probe() -> dict[str, Any]:
    """Everything both builds must agree on, as JSON-ready data."""
    answers: dict[str, Any] = {"build": engine.ENGINE_BUILD}
    for name, options, position, depth in FIXED_DEPTH_CASES:
        game = create_game(name, options)
        state = game.initial_state() if position is None else game.parse_position(position)
        result = searcher_for(game, tt_slots=1 << 16).think(
            SearchRequest(state, Limits(depth=depth))
        )
        answers[f"{name} {position} depth {depth}"] = [
            result.move,
            result.info.score.to_dict(),
            result.info.depth,
            result.info.nodes,
            list(result.info.pv),
        ]
    for name, depth in PERFT_CASES:
        game = create_game(name)
        answers[f"{name} perft {depth}"] = perft(game, game.initial_state(), depth)
    connect4 = create_game("connect4")
    for position in SOLVE_CASES:
        result = ExactSolver(connect4, 1 << 16).solve(connect4.parse_position(position))
        answers[f"solve {position}"] = [result.move, result.info.score.to_dict(), result.info.nodes]
    go = create_game("go")
    state = go.parse_position(GO_POSITION)
    rng = Random(5)
    answers["go playouts"] = [go.playout(state, rng, 1000) for _ in range(GO_PLAYOUTS)]
    result = MctsSearcher(go, seed=3).think(SearchRequest(state, Limits(nodes=GO_SEARCH_PLAYOUTS)))
    answers["go mcts"] = [result.move, result.info.score.to_dict(), result.info.playouts]
    return answers


def _run_child(pure: bool, code: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "ARENA_PURE_PYTHON"}
    if pure:
        env["ARENA_PURE_PYTHON"] = "1"
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300 * UNIT,
        check=True,
    )
    return completed.stdout


def _require_compiled() -> None:
    if engine.ENGINE_BUILD == "compiled":
        return
    message = f"the compiled engine is not running here: {engine.ENGINE_BUILD_NOTE}"
    required = os.environ.get("ARENA_REQUIRE_COMPILED", "") not in ("", "0")
    if required and not build.pure_requested():
        pytest.fail(f"ARENA_REQUIRE_COMPILED is set but {message}")
    pytest.skip(message)


def test_pure_and_compiled_builds_agree() -> None:
    _require_compiled()
    pure = json.loads(
        _run_child(True, "import json, tests.engine.test_build as t; print(json.dumps(t.probe()))")
    )
    compiled = json.loads(json.dumps(probe()))
    assert pure.pop("build") == "pure"
    assert compiled.pop("build") == "compiled"
    for case, answer in compiled.items():
        assert pure[case] == answer, case


def test_environment_variable_selects_the_pure_sources() -> None:
    code = "import engine, engine.search.alphabeta as s; print(engine.ENGINE_BUILD, s.__file__)"
    chosen, path = _run_child(True, code).split()
    assert chosen == "pure"
    assert path.endswith("alphabeta.py")


def test_installed_compiled_build_is_chosen_by_default() -> None:
    if not build.compiled_installed():
        pytest.skip("no compiled engine installed beside the sources")
    code = "import engine, engine.search.alphabeta as s; print(engine.ENGINE_BUILD, s.__file__)"
    chosen, path = _run_child(False, code).split()
    if chosen == "pure":
        pytest.skip(f"compiled engine present but not used: {engine.ENGINE_BUILD_NOTE}")
    assert chosen == "compiled"
    assert not path.endswith(".py")


@pytest.mark.parametrize(
    ("value", "pure"),
    [("", False), ("0", False), ("no", False), ("1", True), ("yes", True), ("true", True)],
)
def test_pure_requested_reads_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str, pure: bool
) -> None:
    monkeypatch.setenv("ARENA_PURE_PYTHON", value)
    assert build.pure_requested() is pure


def test_stale_compiled_build_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # An editable install edited after it was built: the digest recorded at
    # build time no longer matches the sources.
    monkeypatch.delenv("ARENA_PURE_PYTHON", raising=False)
    monkeypatch.setattr(build, "compiled_installed", lambda: True)
    monkeypatch.setattr(build, "_recorded_digest", lambda: "0" * 64)
    chosen, note = build.choose()
    assert chosen == "pure"
    assert "older than its sources" in note


def test_source_digest_covers_every_compiled_module() -> None:
    sources = build.compiled_sources()
    assert "engine/search/alphabeta.py" in sources
    assert "engine/games/chess/position.py" in sources
    assert not set(sources) & build.UNCOMPILED
    assert build.sources_digest(sources) != build.sources_digest(sources[1:])


def test_an_interpreted_subclass_of_a_game_is_searched_with_its_own_methods() -> None:
    # A student's evaluation, in a subclass defined outside the engine: the
    # compiled search must call the override, not the compiled original.
    from engine.games.connect4 import ConnectFour

    calls: list[int] = []

    class CountingConnectFour(ConnectFour):
        def evaluate(self, state: tuple[int, int, str]) -> int:
            calls.append(1)
            return 0

    game = CountingConnectFour()
    result = Searcher(game, 1 << 10).think(SearchRequest(game.initial_state(), Limits(depth=3)))
    assert calls, "the override was never called"
    assert result.value == 0  # every leaf scored 0 by the override


def test_a_compiled_engine_that_does_not_load_falls_back_to_pure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARENA_PURE_PYTHON", raising=False)
    monkeypatch.setattr(build, "compiled_installed", lambda: True)
    monkeypatch.setattr(
        build, "_recorded_digest", lambda: build.sources_digest(build.compiled_sources())
    )
    monkeypatch.setattr(build, "SHARED_LIBRARY", "engine__no_such_library")
    chosen, note = build.choose()
    assert chosen == "pure"
    assert "does not load" in note

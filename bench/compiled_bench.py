"""Compiled engine against pure Python, side by side in one run.

Run from the repository root after ``pip install -e .`` (which compiles the
engine when it can)::

    python -m bench.compiled_bench              # searches, perft, Connect Four solving
    python -m bench.compiled_bench --quick      # smaller depths and sets
    python -m bench.compiled_bench --only search

Each build runs in a child process of its own (``ARENA_PURE_PYTHON=1`` for
the pure one), one workload after the other, so each uses one core; times
are the child's CPU seconds (``time.process_time``). Both builds must find
the same move, score and node count at a fixed depth (and the same nodes
in every exact solve both finish): a difference is printed as an error,
since it would mean the builds disagree. The speed-up is the ratio of
nodes per second (of times, where both builds searched the same nodes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REFDATA = Path(__file__).resolve().parents[1].parent / "shared" / "refdata"

#: (game, options, position or None for the start, depth, repetitions):
#: each one to a few seconds in the pure build. Small games repeat the
#: search, each time with a fresh searcher (an empty table).
SEARCHES: list[tuple[str, dict[str, Any], str | None, int, int]] = [
    ("tictactoe", {}, None, 9, 100),
    ("nim", {"heaps": [2, 3, 4, 5, 6]}, None, 30, 10),
    ("connect4", {}, None, 12, 1),
    ("othello", {}, None, 11, 1),
    ("checkers", {}, None, 9, 1),
    ("chess", {}, "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", 7, 1),
    ("backgammon", {}, "4HPwATDgc/ABMA 0 3-1", 3, 1),
]
#: (game, depth) of a perft from the start through ``legal_moves``/``play``.
PERFTS: list[tuple[str, int]] = [("chess", 4), ("othello", 7), ("checkers", 7)]
#: Wall-clock cap per Test_L2_R2 position in the pure build, so the run
#: ends in bounded time; a capped position is reported as unsolved.
SOLVE_CAP_S = 20.0


# ----------------------------------------------------------------------
# The child: runs workloads in whichever build its environment selects.


def _searches(quick: bool) -> Iterator[dict[str, Any]]:
    from engine.registry import create_game
    from engine.search.limits import Limits
    from engine.search.request import SearchRequest
    from engine.searchers import searcher_for

    for name, options, position, depth, repetitions in SEARCHES:
        depth = max(1, depth - 2) if quick else depth
        game = create_game(name, options)
        state = game.initial_state() if position is None else game.parse_position(position)
        seconds = 0.0
        nodes = 0
        for _ in range(repetitions):
            searcher = searcher_for(game, tt_slots=1 << 20)
            started = time.process_time()
            result = searcher.think(SearchRequest(state, Limits(depth=depth)))
            seconds += time.process_time() - started
            nodes += result.info.nodes
        yield {
            "kind": "search",
            "label": f"{name} depth {depth}" + (f" x{repetitions}" if repetitions > 1 else ""),
            "nodes": nodes,
            "seconds": seconds,
            "answer": [result.move, str(result.info.score), result.info.depth, result.info.nodes],
        }


def _perfts(quick: bool) -> Iterator[dict[str, Any]]:
    from engine.registry import create_game
    from engine.search.reference import perft

    for name, depth in PERFTS:
        depth = depth - 1 if quick else depth
        game = create_game(name)
        started = time.process_time()
        leaves = perft(game, game.initial_state(), depth)
        seconds = time.process_time() - started
        yield {
            "kind": "perft",
            "label": f"{name} perft {depth}",
            "nodes": leaves,
            "seconds": seconds,
            "answer": [leaves],
        }


def _solves(quick: bool) -> Iterator[dict[str, Any]]:
    from engine.games.connect4 import ConnectFour
    from engine.search.solver import ExactSolver

    game = ConnectFour()
    sets = (("Test_L2_R1", 100 if quick else None), ("Test_L2_R2", 20 if quick else 100))
    for name, limit in sets:
        path = REFDATA / "connect4" / name
        if not path.exists():
            continue
        rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
        rows = rows[:limit] if limit else rows
        solver = ExactSolver(game, tt_slots=1 << 20)
        times: list[float] = []
        # Per position: its node count when solved exactly, None when the
        # cap stopped it (the two builds are compared where both finished).
        solved: list[int | None] = []
        nodes = wrong = 0
        for position, expected in rows:
            state = game.parse_position(position)
            started = time.process_time()
            result = solver.solve(state, deadline=time.monotonic() + SOLVE_CAP_S)
            times.append(time.process_time() - started)
            nodes += result.info.nodes
            if result.reason != "proven":
                solved.append(None)
                continue
            solved.append(result.info.nodes)
            if game.pons_score(state, result.info.score.win_in, result.info.score.loss_in) != int(
                expected
            ):
                wrong += 1
        yield {
            "kind": "solve",
            "label": f"{name} ({len(rows)})",
            "nodes": nodes,
            "seconds": sum(times),
            "median_ms": statistics.median(times) * 1000,
            "nodes_per_position": nodes / len(rows),
            "wrong": wrong,
            "unsolved": solved.count(None),
            "answer": solved,
        }


def child(only: str, quick: bool) -> None:
    import engine

    print(json.dumps({"kind": "build", "build": engine.ENGINE_BUILD}), flush=True)
    sections = {"search": _searches, "perft": _perfts, "solve": _solves}
    for section, run in sections.items():
        if only in ("all", section):
            for row in run(quick):
                print(json.dumps(row), flush=True)


# ----------------------------------------------------------------------
# The parent: runs both builds and prints them side by side.


def run_build(pure: bool, only: str, quick: bool) -> list[dict[str, Any]]:
    env = dict(os.environ)
    env.pop("ARENA_PURE_PYTHON", None)
    if pure:
        env["ARENA_PURE_PYTHON"] = "1"
    command = [sys.executable, "-m", "bench.compiled_bench", "--child", "--only", only]
    if quick:
        command.append("--quick")
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths and sets")
    parser.add_argument("--only", choices=("all", "search", "perft", "solve"), default="all")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.only, args.quick)
        return 0
    compiled = run_build(False, args.only, args.quick)
    if compiled[0]["build"] != "compiled":
        print("the compiled engine is not installed: run pip install -e . with a C compiler")
        return 1
    pure = run_build(True, args.only, args.quick)
    print(f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'workload':28} {'nodes':>10} {'pure s':>8} {'compiled s':>10} "
        f"{'pure n/s':>10} {'compiled n/s':>12} {'speed-up':>8}"
    )
    status = 0
    for slow, fast in zip(pure[1:], compiled[1:], strict=True):
        if not _agree(slow, fast):
            print(f"ERROR {fast['label']}: pure {slow['answer']} != compiled {fast['answer']}")
            status = 1
        slow_rate = slow["nodes"] / max(slow["seconds"], 1e-9)
        fast_rate = fast["nodes"] / max(fast["seconds"], 1e-9)
        print(
            f"{fast['label']:28} {fast['nodes']:>10} {slow['seconds']:>8.2f} "
            f"{fast['seconds']:>10.2f} {slow_rate:>10.0f} {fast_rate:>12.0f} "
            f"{fast_rate / slow_rate:>7.1f}x"
        )
        if fast["kind"] == "solve":
            count = len(fast["answer"])
            print(
                f"{'':28} compiled: {count - fast['unsolved'] - fast['wrong']} of {count} exact, "
                f"median {fast['median_ms']:.1f} ms, {fast['nodes_per_position']:.0f} "
                f"nodes/position; pure: {count - slow['unsolved'] - slow['wrong']} exact "
                f"({slow['unsolved']} stopped at {SOLVE_CAP_S:.0f} s), "
                f"median {slow['median_ms']:.1f} ms"
            )
    return status


def _agree(slow: dict[str, Any], fast: dict[str, Any]) -> bool:
    """Same answers; for exact solves, same nodes wherever both builds finished."""
    if fast["kind"] != "solve":
        return bool(slow["answer"] == fast["answer"])
    return all(
        a == b for a, b in zip(slow["answer"], fast["answer"], strict=True) if None not in (a, b)
    )


if __name__ == "__main__":
    sys.exit(main())

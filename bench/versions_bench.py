"""Two checkouts' compiled engines on the same fixed-depth searches, run alternately.

Each checkout (``--tree``) is a working copy with its own venv at
``TREE/.venv`` holding an editable compiled install (``pip install -e .``).
The searches are those of ``bench.compiled_bench`` (fewer repetitions of the
small games); each round runs every tree once, each tree in a child process
of its own (its venv's Python, its own directory), one core, timed in CPU
seconds (``time.process_time``); the best of the rounds is kept, since
other work on a shared machine only ever adds time. Every tree must visit
the same nodes and find the same move and score: a difference is printed
as an error. Comparing the engine of 0.5.0 with this one, from the
repository root::

    git worktree add --detach ../base <0.5.0 commit>   # then a compiled install there
    python -m bench.versions_bench --tree ../base --tree . --rounds 3

A tree that predates :class:`~engine.search.request.SearchRequest` (0.5.0)
is called the way it searched then: ``Searcher.think(state, limits)``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: (game, options, position or None for the start, depth, repetitions): the
#: searches of bench.compiled_bench, the small games repeated less (each
#: workload a tenth of a second to a second compiled).
SEARCHES: list[tuple[str, dict[str, Any], str | None, int, int]] = [
    ("tictactoe", {}, None, 9, 20),
    ("nim", {"heaps": [2, 3, 4, 5, 6]}, None, 30, 3),
    ("connect4", {}, None, 12, 1),
    ("othello", {}, None, 11, 1),
    ("checkers", {}, None, 9, 1),
]

#: The child: runs in the tree's own venv, prints one JSON line per search.
CHILD = """
import json, sys, time
import engine
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
try:
    from engine.search.request import SearchRequest
except ImportError:  # 0.5.0: think(state, limits)
    SearchRequest = None
print(json.dumps({"build": engine.ENGINE_BUILD}), flush=True)
for name, options, position, depth, repetitions in json.loads(sys.argv[1]):
    game = create_game(name, options)
    state = game.initial_state() if position is None else game.parse_position(position)
    seconds, nodes = 0.0, 0
    for _ in range(repetitions):
        searcher = Searcher(game, tt_slots=1 << 20)
        started = time.process_time()
        if SearchRequest is None:
            result = searcher.think(state, Limits(depth=depth))
            info = result
        else:
            result = searcher.think(SearchRequest(state, Limits(depth=depth)))
            info = result.info
        seconds += time.process_time() - started
        nodes += info.nodes
    print(json.dumps({
        "label": f"{name} depth {depth} x{repetitions}",
        "nodes": nodes,
        "seconds": seconds,
        "answer": [result.move, str(info.score), info.depth, info.nodes],
    }), flush=True)
"""


def run_tree(tree: Path) -> list[dict[str, Any]]:
    """One run of every search in ``tree``'s compiled engine."""
    python = tree / ".venv" / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key != "ARENA_PURE_PYTHON"}
    env["PYTHONPATH"] = str(tree)
    output = subprocess.run(
        [str(python), "-c", CHILD, json.dumps(SEARCHES)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = [json.loads(line) for line in output.splitlines()]
    if rows[0]["build"] != "compiled":
        raise SystemExit(f"{tree}: the compiled engine is not installed (pip install -e .)")
    return rows[1:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    trees: list[Path] = [tree.resolve() for tree in args.tree]
    best: list[list[dict[str, Any]]] = [[] for _ in trees]
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for index, tree in enumerate(trees):
            rows = run_tree(tree)
            if not best[index]:
                best[index] = rows
            for kept, row in zip(best[index], rows, strict=True):
                kept["seconds"] = min(kept["seconds"], row["seconds"])
        loads.append(os.getloadavg()[0])
    print(
        f"Python {sys.version.split()[0]}, best of {args.rounds} rounds, "
        f"load average {min(loads):.1f}-{max(loads):.1f}"
    )
    for index, tree in enumerate(trees):
        print(f"  tree {index}: {tree}")
    header = f"{'workload':26} {'nodes':>9}" + "".join(
        f" {f'tree {i} s':>9}" for i in range(len(trees))
    )
    print(header + "  change (last against first)")
    status = 0
    for rows in zip(*best, strict=True):
        first, last = rows[0], rows[-1]
        if any(row["answer"] != first["answer"] for row in rows):
            print(f"ERROR {first['label']}: " + " != ".join(str(row["answer"]) for row in rows))
            status = 1
        change = last["seconds"] / max(first["seconds"], 1e-9) - 1
        times = "".join(f" {row['seconds']:9.3f}" for row in rows)
        print(f"{first['label']:26} {first['nodes']:9,}{times}  {change:+.0%}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())

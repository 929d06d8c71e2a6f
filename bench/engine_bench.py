"""Engine benchmark: search statistics per game, Connect Four against easyAI and Pons' sets.

Run from the repository root (bench dependencies: ``pip install -e '.[bench]'``)::

    python -m bench.engine_bench            # everything
    python -m bench.engine_bench --quick    # smaller depths and sets, for a smoke test

Times are CPU seconds of this process (``time.process_time``), so figures stay
comparable when other work shares the machine; one core is used.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.search.solver import ExactSolver

REFDATA = Path(__file__).resolve().parent.parent.parent / "shared" / "refdata"

#: (label, game, options, position or None for the start, depth)
SEARCH_CASES: list[tuple[str, str, dict[str, Any], str | None, int]] = [
    ("tictactoe empty", "tictactoe", {}, None, 9),
    ("nim 3 4 5", "nim", {"heaps": [3, 4, 5]}, None, 12),
    ("nim 1 3 5 7 misère", "nim", {"heaps": [1, 3, 5, 7], "misere": True}, None, 8),
    ("connect4 empty", "connect4", {}, None, 10),
    ("connect4 empty", "connect4", {}, None, 12),
    ("connect4 middle game", "connect4", {}, "4453432", 12),
]


def search_row(label: str, game: Game[Any, Any], state: Any, depth: int) -> dict[str, Any]:
    searcher = Searcher(game, tt_slots=1 << 20)
    started = time.process_time()
    result = searcher.think(SearchRequest(state, Limits(depth=depth)))
    elapsed = time.process_time() - started
    return {
        "label": label,
        "depth": result.info.depth,
        "nodes": result.info.nodes,
        "seconds": elapsed,
        "nps": result.info.nodes / elapsed if elapsed else 0.0,
        "fmc": result.stats.first_move_cutoff_rate,
        "ebf": result.stats.effective_branching_factor,
        "move": result.move,
        "score": str(result.info.score),
    }


def print_search_table(quick: bool) -> None:
    print("## Search statistics (fixed positions, fixed depths, one core)")
    print(
        f"{'position':24} {'depth':>5} {'nodes':>10} {'CPU s':>7} {'nodes/s':>9} "
        f"{'1st-move cut':>12} {'EBF':>5}  move  score"
    )
    for label, name, options, position, depth in SEARCH_CASES:
        if quick:
            depth = min(depth, 8)
        game = create_game(name, options)
        state = game.initial_state() if position is None else game.parse_position(position)
        row = search_row(label, game, state, depth)
        print(
            f"{row['label']:24} {row['depth']:>5} {row['nodes']:>10} {row['seconds']:>7.2f} "
            f"{row['nps']:>9.0f} {row['fmc']:>12.1%} {row['ebf']:>5.2f}  {row['move']:>4}  "
            f"{row['score']}"
        )
    print()


# ----------------------------------------------------------------------
# easyAI, side by side.


def easyai_connect4(depth: int, moves: str) -> tuple[int, float, Any]:
    """easyAI's Negamax with its transposition table on its own Connect Four.

    easyAI's example game (numpy board, ``-100`` for a loss) is what a user
    of easyAI runs; we add the ``ttentry`` that its table needs and count
    the moves made as nodes.
    """
    from easyAI import AI_Player, Negamax, TranspositionTable  # type: ignore[import-untyped]
    from easyAI.games.ConnectFour import ConnectFour as EasyConnectFour  # type: ignore[import-untyped]

    class Counted(EasyConnectFour):  # type: ignore[misc]
        made = 0

        def make_move(self, column: int) -> None:
            Counted.made += 1
            super().make_move(column)

        def ttentry(self) -> bytes:
            return bytes(self.board.tobytes()) + bytes([self.current_player])

    ai = Negamax(depth, tt=TranspositionTable())
    game = Counted([AI_Player(ai), AI_Player(ai)])
    for column in moves:
        game.make_move(int(column) - 1)
        game.switch_player()
    Counted.made = 0
    started = time.process_time()
    move = ai(game)
    return Counted.made, time.process_time() - started, move + 1


def print_easyai_table(quick: bool) -> None:
    print("## Connect Four at equal depth: this engine vs easyAI Negamax + transposition table")
    print(
        f"{'position':10} {'depth':>5} {'our nodes':>10} {'our s':>7} {'easyAI nodes':>12} "
        f"{'easyAI s':>9} {'time ratio':>10}"
    )
    game = create_game("connect4")
    depths = (4, 6) if quick else (6, 8)
    for moves in ("", "4453432"):
        for depth in depths:
            ours = search_row("", game, game.parse_position(moves), depth)
            nodes, seconds, _ = easyai_connect4(depth, moves)
            ratio = seconds / ours["seconds"] if ours["seconds"] else float("inf")
            print(
                f"{moves or 'empty':10} {depth:>5} {ours['nodes']:>10} {ours['seconds']:>7.3f} "
                f"{nodes:>12} {seconds:>9.3f} {ratio:>9.1f}x"
            )
    print()


# ----------------------------------------------------------------------
# Pons' benchmark sets, solved exactly.


def solve_set(name: str, limit: int | None, seconds: float | None = None) -> None:
    path = REFDATA / "connect4" / name
    if not path.exists():
        print(f"{name}: skipped, {path} not found")
        return
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    rows = rows[:limit] if limit else rows
    game = create_game("connect4")
    solver = ExactSolver(game, tt_slots=1 << 20)
    times, wrong, nodes, unfinished = [], 0, 0, 0
    for position, expected in rows:
        state = game.parse_position(position)
        started = time.process_time()
        deadline = None if seconds is None else time.monotonic() + seconds
        result = solver.solve(state, deadline=deadline)
        times.append(time.process_time() - started)
        nodes += result.info.nodes
        if result.reason != "proven":
            unfinished += 1  # counted as not exact, at its capped time
        elif game.pons_score(state, result.info.score.win_in, result.info.score.loss_in) != int(
            expected
        ):
            wrong += 1
    times.sort()
    total = sum(times)
    p95 = times[max(0, int(0.95 * len(times)) - 1)]
    print(
        f"{name:12} {len(rows):>5} {len(rows) - wrong:>6} {total:>8.2f} "
        f"{statistics.median(times) * 1000:>9.1f} {p95 * 1000:>8.1f} {nodes / len(rows):>10.0f} "
        f"{nodes / total if total else 0:>9.0f}"
    )


#: Wall-clock cap per Test_L2_R2 position, so the benchmark ends in bounded
#: time; a capped position counts as not solved, at its capped time.
R2_CAP_S = 20.0


def print_solver_table(quick: bool) -> None:
    print("## Connect Four exact solves (Pons' sets; times in CPU seconds / ms)")
    print(
        f"{'set':12} {'count':>5} {'exact':>6} {'total s':>8} {'median ms':>9} {'p95 ms':>8} "
        f"{'nodes/pos':>10} {'nodes/s':>9}"
    )
    solve_set("Test_L3_R1", 100 if quick else None)
    solve_set("Test_L2_R1", 100 if quick else None)
    solve_set("Test_L2_R2", 20 if quick else 100, seconds=R2_CAP_S)
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths and sets")
    parser.add_argument(
        "--skip-easyai", action="store_true", help="leave out the easyAI comparison"
    )
    args = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]}")
    print()
    print_search_table(args.quick)
    if not args.skip_easyai:
        print_easyai_table(args.quick)
    print_solver_table(args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

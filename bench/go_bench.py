"""Go benchmark: playouts per second, and the rates of legal-move generation and ``play``.

Measures, on one core, from the empty board (9x9 unless ``--size``):

* ``playouts``: :meth:`Go.playout` (the Monte Carlo search's hot loop) to
  the end of the game, in playouts per second, with the mean plies;
* ``legal``: :meth:`Go.legal_moves` on positions of seeded random games;
* ``play``: :meth:`Go.play` of a legal move on the same positions.

With ``--sgf`` it measures instead what a search gets on positions of real
games (the records ``bench.gnugo_bench --sgf-dir`` writes): a Monte Carlo
search of ``--playouts`` playouts (tree, priors and playouts) at plies 16,
30 and 44 of each game, seeded, in playouts per second over all of them.

The engine build (compiled or pure) is printed first: compare the two with
``ARENA_PURE_PYTHON=1``. Usage::

    python -m bench.go_bench
    ARENA_PURE_PYTHON=1 python -m bench.go_bench --seconds 5
    python -m bench.go_bench --light    # the light playout policy (before the heavy one)
    python -m bench.go_bench --sgf DIR/game-0[1-6].sgf   # searches on real games' positions
"""

from __future__ import annotations

import argparse
import random
import time

import engine
from engine.games.go import Go, GoState, sgf_main_line
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest

#: The plies of a recorded game where ``--sgf`` searches: opening, middle
#: game, and where the games against GNU Go are decided.
SEARCH_PLIES = (16, 30, 44)


def sample_positions(game: Go, count: int, seed: int) -> list[GoState]:
    """Positions from seeded games played by the playout policy, all plies mixed."""
    rng = random.Random(seed)
    positions: list[GoState] = []
    while len(positions) < count:
        state = game.initial_state()
        while game.outcome(state) is None and len(positions) < count:
            positions.append(state)
            state = game.play(state, game.playout_move(state, rng))
    return positions


def bench_playouts(game: Go, seconds: float, seed: int) -> None:
    rng = random.Random(seed)
    start = game.initial_state()
    count = plies = 0
    black = 0.0
    began = time.perf_counter()
    while True:
        reward, moves = game.playout(start, rng, game.playout_limit)
        count += 1
        plies += len(moves)
        black += reward
        elapsed = time.perf_counter() - began
        if elapsed >= seconds:
            break
    print(
        f"playouts: {count / elapsed:,.0f}/s ({count} in {elapsed:.2f} s,"
        f" {plies / count:.1f} plies each, Black's mean reward {black / count:.3f})"
    )


def bench_moves(game: Go, seconds: float, seed: int) -> None:
    positions = sample_positions(game, 2000, seed)
    count = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        for state in positions:
            game.legal_moves(state)
        count += len(positions)
    elapsed = time.perf_counter() - began
    print(f"legal_moves: {count / elapsed:,.0f}/s ({count / elapsed * 1e-3:.1f} k positions/s)")
    rng = random.Random(seed)
    pairs = []
    for state in positions:
        moves = game.legal_moves(state)
        pairs.append((state, moves[rng.randrange(len(moves))]))
    count = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        for state, move in pairs:
            game.play(state, move)
        count += len(pairs)
    elapsed = time.perf_counter() - began
    print(f"play: {count / elapsed:,.0f}/s")


def bench_search(game: Go, paths: list[str], playouts: int, seed: int) -> None:
    searched = 0
    elapsed = 0.0
    for path in paths:
        with open(path, encoding="utf-8") as file:
            nodes = sgf_main_line(file.read())
        moves = [
            f";{prop}[{values[0] if values else ''}]"
            for node in nodes
            for prop, values in node
            if prop in ("B", "W")
        ]
        for ply in SEARCH_PLIES:
            if ply >= len(moves):
                continue
            state = game.parse_position(f"(;SZ[{game.size}]{''.join(moves[:ply])})")
            searcher = MctsSearcher(game, seed=seed + ply)
            began = time.perf_counter()
            result = searcher.think(SearchRequest(state, Limits(nodes=playouts)))
            elapsed += time.perf_counter() - began
            searched += result.info.playouts
    print(f"search playouts: {searched / elapsed:,.0f}/s ({searched} in {elapsed:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--light", action="store_true", help="the light playout policy")
    parser.add_argument("--sgf", nargs="+", default=[], help="searches on these games' positions")
    parser.add_argument("--playouts", type=int, default=1500, help="per search (--sgf)")
    args = parser.parse_args()
    game = Go(size=args.size)
    game.heavy_playouts = not args.light
    print(
        f"engine build: {engine.ENGINE_BUILD} ({engine.ENGINE_BUILD_NOTE});"
        f" Go {args.size}x{args.size}"
    )
    if args.sgf:
        bench_search(game, args.sgf, args.playouts, args.seed)
        return
    bench_playouts(game, args.seconds, args.seed)
    bench_moves(game, args.seconds, args.seed)


if __name__ == "__main__":
    main()

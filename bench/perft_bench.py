"""Othello and English checkers benchmark: perft speed, search speed, strength, endgame solving.

Run from the repository root::

    python -m bench.perft_bench perft [--depth 9]
    python -m bench.perft_bench search [--seconds 1]
    python -m bench.perft_bench random [--games 6] [--movetime-ms 100]
    python -m bench.perft_bench endgame [--empties 8 10 12 14] [--positions 3]
    python -m bench.perft_bench all [--quick]

``perft`` checks the counts against the published ones and prints nodes/s;
``search`` prints the depth and nodes/s of a search from the start;
``random`` plays games against a uniformly random mover; ``endgame`` times
the exact solving of Othello endgames by number of empty squares.

Perft times are CPU seconds of this process (``time.process_time``), so the
figures stay comparable when other work shares the machine. Two perft
speeds are reported per game: the game's own perft, which counts the moves
at the last ply without making them ("bulk counting": a popcount in
Othello, a popcount of the simple moves in checkers unless a capture is
due), and a perft through the public interface (``legal_moves`` and
``play`` at every node, the work a search does), at a smaller depth.
Searches run against the wall clock, as a user's would.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from engine.game import Game
from engine.games.checkers import Checkers
from engine.games.othello import Othello
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.reference import perft
from engine.search.request import SearchRequest

#: Published perft counts from the start position (Othello: Aart Bik,
#: "Reversi perft"; checkers: OEIS A133046). Depths 1-10.
PUBLISHED = {
    "othello": (4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284),
    "checkers": (7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564),
}
#: Depth of the perft through the public interface (a few seconds each).
INTERFACE_DEPTH = {"othello": 7, "checkers": 7}


def games() -> list[Othello | Checkers]:
    return [Othello(), Checkers()]


def timed(function: Callable[..., int], *args: Any) -> tuple[int, float]:
    """``function(*args)`` and the CPU seconds it took."""
    start = time.process_time()
    result = function(*args)
    return result, max(time.process_time() - start, 1e-9)


def bench_perft(max_depth: int) -> None:
    header = ("game", "kind", "depth", "leaves", "ok", "cpu s", "nodes/s")
    print("{:9} {:10} {:>5} {:>10} {:>3} {:>7} {:>9}".format(*header))
    for game in games():
        for depth in range(7, max_depth + 1):
            count, seconds = timed(game.perft, game.initial_state(), depth)
            ok = "yes" if count == PUBLISHED[game.name][depth - 1] else "NO"
            print(
                f"{game.name:9} {'bulk':10} {depth:5} {count:10} {ok:>3} {seconds:7.2f} "
                f"{count / seconds:9.0f}"
            )
        depth = INTERFACE_DEPTH[game.name]
        count, seconds = timed(perft, game, game.initial_state(), depth)
        ok = "yes" if count == PUBLISHED[game.name][depth - 1] else "NO"
        print(
            f"{game.name:9} {'interface':10} {depth:5} {count:10} {ok:>3} {seconds:7.2f} "
            f"{count / seconds:9.0f}"
        )


def bench_search(seconds: float) -> None:
    for game in games():
        result = Searcher(game).think(
            SearchRequest(game.initial_state(), Limits(movetime_ms=int(seconds * 1000)))
        )
        print(
            f"{game.name:9} {seconds:.1f} s from the start: depth {result.info.depth}, "
            f"{result.info.nodes} nodes, {result.info.nps} nodes/s, best {result.move} "
            f"score {result.info.score}, pv {' '.join(result.info.pv)}"
        )


def bench_random(games_per_game: int, movetime_ms: int, seed: int) -> None:
    """Games against a uniformly random mover, colours alternating."""
    for game in games():
        rng = random.Random(seed)
        searcher = Searcher(game)
        wins = draws = losses = 0
        nodes = elapsed = 0
        for index in range(games_per_game):
            engine_side = index % 2
            state: Any = game.initial_state()
            while game.outcome(state) is None:
                if game.to_move(state) == engine_side:
                    result = searcher.think(SearchRequest(state, Limits(movetime_ms=movetime_ms)))
                    nodes += result.info.nodes
                    elapsed += result.info.time_ms
                    move = result.move_value
                else:
                    move = rng.choice(game.legal_moves(state))
                state = game.play(state, move)
            outcome = game.outcome(state)
            assert outcome is not None
            if outcome.winner is None:
                draws += 1
            elif outcome.winner == engine_side:
                wins += 1
            else:
                losses += 1
            print(
                f"  {game.name} game {index + 1}: engine plays {game.players[engine_side]}, "
                f"{outcome.reason}, winner {_winner(game, outcome.winner)}"
            )
        nps = int(nodes * 1000 / elapsed) if elapsed else 0
        print(
            f"{game.name:9} vs random at {movetime_ms} ms/move: +{wins} ={draws} -{losses} "
            f"({nps} nodes/s while playing)"
        )


def _winner(game: Game[Any, Any], winner: int | None) -> str:
    return "none (draw)" if winner is None else game.players[winner]


def endgame_position(game: Othello, empties: int, rng: random.Random) -> Any:
    """A position with ``empties`` empty squares from a random game still going on."""
    while True:
        state = game.initial_state()
        while game.outcome(state) is None and 64 - (state[0] | state[1]).bit_count() > empties:
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is None and 64 - (state[0] | state[1]).bit_count() == empties:
            return state


def bench_endgame(empties_list: list[int], positions: int, seed: int, limit_s: float) -> None:
    """Time for the generic search to prove Othello endgames (win/draw/loss)."""
    game = Othello()
    for empties in empties_list:
        rng = random.Random(seed + empties)
        times = []
        proven = 0
        for _ in range(positions):
            state = endgame_position(game, empties, rng)
            start = time.monotonic()
            result = Searcher(game).think(
                SearchRequest(state, Limits(movetime_ms=int(limit_s * 1000)))
            )
            times.append(time.monotonic() - start)
            proven += result.reason == "proven"
            print(
                f"  {empties} empties: {result.reason} {result.info.score} "
                f"depth {result.info.depth} {result.info.nodes} nodes {times[-1]:.2f} s  "
                f"{game.format_position(state)}"
            )
        print(
            f"othello   {empties} empties: {proven}/{positions} proven within {limit_s:.0f} s, "
            f"median {sorted(times)[len(times) // 2]:.2f} s, max {max(times):.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("what", choices=["perft", "search", "random", "endgame", "all"])
    parser.add_argument("--depth", type=int, default=9, help="deepest bulk perft (7-10)")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--movetime-ms", type=int, default=100)
    parser.add_argument("--empties", type=int, nargs="+", default=[8, 10, 12, 14])
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--solve-limit", type=float, default=60.0, help="seconds per endgame")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smaller settings for a smoke test")
    args = parser.parse_args()
    if args.quick:
        args.depth, args.games, args.empties, args.positions = 7, 2, [8, 10], 2
    if args.what in ("perft", "all"):
        bench_perft(args.depth)
    if args.what in ("search", "all"):
        bench_search(args.seconds)
    if args.what in ("random", "all"):
        bench_random(args.games, args.movetime_ms, args.seed)
    if args.what in ("endgame", "all"):
        bench_endgame(args.empties, args.positions, args.seed, args.solve_limit)


if __name__ == "__main__":
    main()

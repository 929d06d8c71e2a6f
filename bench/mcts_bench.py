"""Monte Carlo tree search measured: playout speed, RAVE, and MCTS against alpha-beta.

Run from the repository root (build the compiled engine first, or the
figures are the pure engine's: ``python setup.py -q build_ext --inplace``)::

    python -m bench.mcts_bench                      # every section, default sizes
    python -m bench.mcts_bench --only playouts      # playouts/s and playout times
    python -m bench.mcts_bench --only rave --games 20 --playouts 2000
    python -m bench.mcts_bench --only versus --games 10 --movetimes 500,1000
    python -m bench.mcts_bench --only go --games 4 --movetimes 1000,5000
    python -m bench.mcts_bench --only hints --games 40
    python -m bench.mcts_bench --only rave --rave-games go --rave-movetime 500
    python -m bench.mcts_bench --only tune --tune-games connect4 --games 30
    python -m bench.mcts_bench --only tune --tune-games go --exploration= --rave-k 1000 --rave-c 0.1
    python -m bench.mcts_bench --only scales

Sections:

* ``playouts``: random playouts per second from varied positions of every
  registered game, and the mean and slowest playout (one playout is the
  step between two checks of the clock, so the slowest bounds how late a
  search can answer);
* ``rave``: RAVE on against RAVE off at equal playouts per move, or at
  equal time with ``--rave-movetime`` (Connect Four, Othello, Go 9x9 when
  registered; ``--rave-games`` picks);
* ``versus``: MCTS against alpha-beta at equal time per move (Connect
  Four, Othello);
* ``go``: the same on 9x9 Go, when Go is registered;
* ``hints``: Connect Four's playout move (win, else block) against plain
  random playouts (win only), at equal playouts;
* ``tune``: UCT's exploration constant and RAVE's (K, C) against the
  defaults, at equal playouts (Go on 9x9; an empty ``--exploration=``
  skips the settings without RAVE);
* ``scales``: each game's ``win_odds_scale`` fitted to the results of
  random playouts (the evaluation of random positions against the share
  of 16 playouts from each that the side to move wins).

Reading the MCTS against alpha-beta tables: alpha-beta is as good as its
evaluation and as deep as the branching factor lets it go; MCTS needs no
evaluation but as many playouts as it can get, and random playouts judge
a position well only where random play keeps its balance. Othello has a
good evaluation (corners, mobility) and about ten moves a position, so
alpha-beta looks nine or more plies deep in a second while random
playouts misjudge the corners: alpha-beta wins. 9x9 Go has about eighty
moves a position and no evaluation better than counting area, which
random playouts do far better than a static count: MCTS wins. Connect
Four sits between: a threat-counting evaluation and seven moves a
position serve alpha-beta, and playouts that take wins and block them
judge threats well.

A match plays ``--games`` games (rounded up to even): each opening (two
random plies, seeded) is played twice with the colours swapped, so neither
side profits from a lucky opening or from moving first. The table gives
wins, draws and losses of the first-named player (each game's result
is printed as it ends: + a win, = a draw, - a loss), its score ((wins +
draws / 2) / games) and a 95% Wilson interval on that score.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import engine
from engine.game import Game
from engine.registry import GAMES, create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.mcts import RAVE_EQUIVALENCE, MctsSearcher
from engine.search.request import SearchRequest

#: A player: given the state, its move.
Player = Callable[[Any], Any]
#: Builds a fresh player for one game of a match (a fresh tree, table, seed).
PlayerFactory = Callable[[Game[Any, Any], int], Player]

#: Random plies before a match game starts (each opening is played twice).
OPENING_PLIES = 2
#: z for a 95% interval.
Z95 = 1.96


def wilson(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``score`` over ``games``."""
    if games == 0:
        return 0.0, 1.0
    z2 = Z95 * Z95
    centre = (score + z2 / (2 * games)) / (1 + z2 / games)
    half = Z95 * math.sqrt(score * (1 - score) / games + z2 / (4 * games * games))
    half /= 1 + z2 / games
    return max(0.0, centre - half), min(1.0, centre + half)


def mcts_player(
    limits: Limits,
    rave: bool | None = None,
    exploration: float | None = None,
    rave_equivalence: int = RAVE_EQUIVALENCE,
) -> PlayerFactory:
    def make(game: Game[Any, Any], seed: int) -> Player:
        searcher = MctsSearcher(game, seed, rave, exploration, rave_equivalence)

        def play(state: Any) -> Any:
            return searcher.think(SearchRequest(state, limits)).move_value

        return play

    return make


def alphabeta_player(limits: Limits) -> PlayerFactory:
    def make(game: Game[Any, Any], seed: int) -> Player:
        searcher = Searcher(game, 1 << 18)

        def play(state: Any) -> Any:
            return searcher.think(SearchRequest(state, limits)).move_value

        return play

    return make


def _opening(game: Game[Any, Any], rng: random.Random) -> Any:
    state = game.initial_state()
    for _ in range(OPENING_PLIES):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.play(state, rng.choice(moves))
    return state


def match(
    game: Game[Any, Any], first: PlayerFactory, second: PlayerFactory, games: int, seed: int
) -> tuple[int, int, int]:
    """Wins, draws and losses of ``first`` against ``second`` over ``games`` games."""
    rng = random.Random(seed)
    wins = draws = losses = 0
    for pair in range((games + 1) // 2):
        opening = _opening(game, rng)
        for first_plays in (0, 1):
            players = [first(game, seed + pair), second(game, seed + pair + 1000)]
            if first_plays == 1:
                players.reverse()
            state = opening
            while game.outcome(state) is None:
                state = game.play(state, players[game.to_move(state)](state))
            outcome = game.outcome(state)
            assert outcome is not None
            if outcome.winner is None:
                draws += 1
                mark = "="
            elif outcome.winner == first_plays:
                wins += 1
                mark = "+"
            else:
                losses += 1
                mark = "-"
            print(mark, end="", flush=True)
    print()
    return wins, draws, losses


def _row(label: str, result: tuple[int, int, int], seconds: float) -> str:
    wins, draws, losses = result
    games = wins + draws + losses
    score = (wins + draws / 2) / games if games else 0.0
    low, high = wilson(score, games)
    return (
        f"| {label} | {wins} | {draws} | {losses} | {score:.2f} | "
        f"{low:.2f}-{high:.2f} | {seconds:.0f} s |"
    )


HEADER = (
    "| match | wins | draws | losses | score | 95% Wilson | time |\n|---|---|---|---|---|---|---|"
)


def section_playouts(args: argparse.Namespace) -> None:
    print("## Playouts per second (varied positions: 0-19 random plies in), and in a search")
    print(
        "| game | playout limit | playouts/s | mean ms | slowest ms | search playouts/s |\n"
        "|---|---|---|---|---|---|"
    )
    for name in GAMES:
        game = create_game(name)
        rng = random.Random(1)
        times: list[float] = []
        started = time.perf_counter()
        while time.perf_counter() - started < args.seconds:
            state = game.initial_state()
            for _ in range(rng.randrange(20)):
                if game.outcome(state) is not None:
                    break
                chances = game.chance_outcomes(state)
                moves = [o for o, _ in chances] if chances else game.legal_moves(state)
                state = game.play(state, rng.choice(moves))
            if game.outcome(state) is not None:
                continue
            before = time.perf_counter()
            game.playout(state, rng, game.playout_limit)
            times.append(time.perf_counter() - before)
        total = sum(times)
        # The whole search from the start (selection, expansion, playout,
        # back-propagation), for as long: what a think gets.
        start = game.initial_state()
        while game.chance_outcomes(start) is not None:
            start = game.play(start, game.legal_moves(start)[0])
        searched = MctsSearcher(game, seed=1).think(
            SearchRequest(start, Limits(movetime_ms=int(1000 * args.seconds)))
        )
        print(
            f"| {name} | {game.playout_limit} | {len(times) / total:,.0f} | "
            f"{1000 * total / len(times):.2f} | {1000 * max(times):.1f} | "
            f"{searched.info.playouts * 1000 / max(1, searched.info.time_ms):,.0f} |"
        )


def _go_game() -> Game[Any, Any] | None:
    if "go" not in GAMES:
        return None
    try:
        return create_game("go", {"size": 9})
    except Exception:
        return create_game("go")


def section_rave(args: argparse.Namespace) -> None:
    if args.rave_movetime:
        limits = Limits(movetime_ms=args.rave_movetime)
        print(f"## RAVE on against RAVE off, {args.rave_movetime} ms per move")
    else:
        limits = Limits(nodes=args.playouts)
        print(f"## RAVE on against RAVE off, {args.playouts} playouts per move")
    print(HEADER)
    names = [name for name in args.rave_games.split(",") if name and name != "go"]
    games: list[tuple[str, Game[Any, Any]]] = [(name, create_game(name)) for name in names]
    go = _go_game() if "go" in args.rave_games.split(",") else None
    if go is not None:
        games.append(("go 9x9", go))
    for label, game in games:
        started = time.monotonic()
        result = match(
            game, mcts_player(limits, rave=True), mcts_player(limits, rave=False), args.games, 1
        )
        print(_row(f"{label}: RAVE vs plain UCT", result, time.monotonic() - started))


def _versus(args: argparse.Namespace, label: str, game: Game[Any, Any]) -> None:
    for movetime in args.movetimes:
        limits = Limits(movetime_ms=movetime)
        started = time.monotonic()
        result = match(game, mcts_player(limits), alphabeta_player(limits), args.games, 2)
        elapsed = time.monotonic() - started
        print(_row(f"{label}: MCTS vs alpha-beta, {movetime} ms", result, elapsed))


def section_tune(args: argparse.Namespace) -> None:
    limits = Limits(nodes=args.playouts)
    print(f"## Tuning at {args.playouts} playouts per move: each setting against the default")
    print(HEADER)
    for name in args.tune_games.split(","):
        game = _go_game() if name == "go" else create_game(name)
        if game is None:
            continue
        default = mcts_player(limits)
        for c in args.exploration:
            started = time.monotonic()
            result = match(game, mcts_player(limits, False, c), default, args.games, 4)
            label = f"{name}: UCT C={c} vs default"
            print(_row(label, result, time.monotonic() - started))
        for k in args.rave_k:
            for c in args.rave_c:
                started = time.monotonic()
                result = match(game, mcts_player(limits, True, c, k), default, args.games, 4)
                label = f"{name}: RAVE K={k} C={c} vs default"
                print(_row(label, result, time.monotonic() - started))


def section_versus(args: argparse.Namespace) -> None:
    print("## MCTS against alpha-beta, equal time per move")
    print(HEADER)
    for name in args.versus_games.split(","):
        _versus(args, name, create_game(name))


def section_go(args: argparse.Namespace) -> None:
    go = _go_game()
    if go is None:
        print("## Go is not registered: skipped")
        return
    print("## Go 9x9: MCTS against alpha-beta, equal time per move")
    print(HEADER)
    _versus(args, "go 9x9", go)


def section_hints(args: argparse.Namespace) -> None:
    from engine.games.connect4 import ConnectFour

    class BlindConnectFour(ConnectFour):
        """Connect Four with the default playout move (an immediate win, else random)."""

        def playout_move(self, state: Any, rng: random.Random) -> Any:
            return Game.playout_move(self, state, rng)

    limits = Limits(nodes=args.playouts)
    hinted = create_game("connect4")
    blind = BlindConnectFour()
    print(f"## Connect Four playout hints, {args.playouts} playouts per move")
    print(HEADER)

    def blind_player(game: Game[Any, Any], seed: int) -> Player:
        searcher = MctsSearcher(blind, seed=seed)

        def play(state: Any) -> Any:
            return searcher.think(SearchRequest(state, limits)).move_value

        return play

    started = time.monotonic()
    result = match(hinted, mcts_player(limits), blind_player, args.games, 3)
    print(_row("win-or-block playouts vs win-only", result, time.monotonic() - started))


def _sample_positions(game: Game[Any, Any], rng: random.Random, count: int) -> list[Any]:
    """Decision states from random games, 0-39 plies in."""
    positions: list[Any] = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(40)):
            if game.outcome(state) is not None:
                break
            chances = game.chance_outcomes(state)
            moves = [o for o, _ in chances] if chances else game.legal_moves(state)
            state = game.play(state, rng.choice(moves))
        if game.outcome(state) is None and game.chance_outcomes(state) is None:
            positions.append(state)
    return positions


def fit_odds_scale(samples: list[tuple[int, float]]) -> tuple[float, float]:
    """The scale ``s`` minimising the cross-entropy of ``1 / (1 + exp(-v / s))`` against rates.

    ``samples`` are (evaluation, observed win rate) pairs; returns ``s`` and
    the mean cross-entropy there. A search over log-spaced scales, refined
    once: the loss is smooth and single-dipped in ``s``.
    """

    def loss(scale: float) -> float:
        return cross_entropy(samples, scale)

    grid = [2 ** (k / 4) for k in range(-8, 80)]  # 0.25 to about 10^6
    best = min(grid, key=loss)
    fine = [best * 2 ** (k / 40) for k in range(-10, 11)]
    best = min(fine, key=loss)
    return best, loss(best)


def section_scales(args: argparse.Namespace) -> None:
    print(
        "## win_odds_scale fitted: evaluation of random positions against the win rate of "
        f"{args.rollouts} playouts from each ({args.positions} positions per game)"
    )
    print("| game | current win_odds_scale | fitted | loss at fitted | loss at current |")
    print("|---|---|---|---|---|")
    for name in GAMES:
        game = create_game(name)
        rng = random.Random(5)
        samples: list[tuple[int, float]] = []
        for state in _sample_positions(game, rng, args.positions):
            mover = game.to_move(state)
            total = 0.0
            for _ in range(args.rollouts):
                reward, _ = game.playout(state, rng, game.playout_limit)
                total += reward if mover == 0 else 1.0 - reward
            samples.append((game.evaluate(state), total / args.rollouts))
        fitted, fitted_loss = fit_odds_scale(samples)
        current = game.win_odds_scale
        current_loss = cross_entropy(samples, current)
        print(f"| {name} | {current} | {fitted:.0f} | {fitted_loss:.4f} | {current_loss:.4f} |")


def cross_entropy(samples: list[tuple[int, float]], scale: float) -> float:
    """Mean cross-entropy of the logistic prediction at ``scale`` against observed win rates."""
    total = 0.0
    for value, rate in samples:
        p = 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, -value / scale))))
        p = min(max(p, 1e-6), 1 - 1e-6)
        total -= rate * math.log(p) + (1 - rate) * math.log(1 - p)
    return total / len(samples)


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "playouts": section_playouts,
    "rave": section_rave,
    "versus": section_versus,
    "go": section_go,
    "hints": section_hints,
    "scales": section_scales,
    "tune": section_tune,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append")
    parser.add_argument("--games", type=int, default=4, help="games per match (even)")
    parser.add_argument("--playouts", type=int, default=1000, help="per move (rave, hints)")
    parser.add_argument(
        "--movetimes", default="500,1000", help="ms per move, comma-separated (versus, go)"
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="per game (playouts)")
    parser.add_argument("--versus-games", default="connect4,othello", help="(versus)")
    parser.add_argument("--rave-games", default="connect4,othello,go", help="(rave)")
    parser.add_argument("--rave-movetime", type=int, default=0, help="ms per move (rave)")
    parser.add_argument("--tune-games", default="connect4,othello", help="(tune)")
    parser.add_argument("--exploration", default="0.5,1.4", help="UCT C values (tune)")
    parser.add_argument("--rave-k", default="100,1000", help="RAVE K values (tune)")
    parser.add_argument("--rave-c", default="0.3,1.0", help="C values with RAVE (tune)")
    parser.add_argument("--positions", type=int, default=200, help="per game (scales)")
    parser.add_argument("--rollouts", type=int, default=16, help="per position (scales)")
    args = parser.parse_args(argv)
    args.movetimes = [int(part) for part in args.movetimes.split(",") if part]
    args.exploration = [float(part) for part in args.exploration.split(",") if part]
    args.rave_k = [int(part) for part in args.rave_k.split(",") if part]
    args.rave_c = [float(part) for part in args.rave_c.split(",") if part]
    print(f"# MCTS bench: engine build {engine.ENGINE_BUILD} ({engine.ENGINE_BUILD_NOTE})")
    print(f"command: python -m bench.mcts_bench {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in args.only or list(SECTIONS):
        SECTIONS[name](args)
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

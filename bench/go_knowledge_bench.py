"""Go 9x9: the MCTS with Go knowledge against the MCTS without it, at a fixed playout count.

Run from the repository root::

    python -m bench.go_knowledge_bench --playouts 1000 --games 40
    python -m bench.go_knowledge_bench --variant priors --playouts 1000 --games 20
    python -m bench.go_knowledge_bench --movetime 500 --games 20

Both players are :class:`~engine.search.mcts.MctsSearcher` with RAVE (the
Go default) and tree reuse; the baseline is main's search before the
knowledge (light playouts, :attr:`Go.heavy_playouts` off, no priors). The
variant under test:

* ``full``: heavy playouts and priors (the default engine);
* ``heavy``: heavy playouts, no priors;
* ``priors``: priors, light playouts.

A fixed number of playouts per move, not a time budget, so that the load
of the machine does not bias the comparison (the heavy playouts are
slower: time them with ``python -m bench.go_bench``); ``--movetime``
plays at equal time instead (both players in one process, moving in
turn, so the load weighs on both alike). Colours alternate;
game ``2k`` and ``2k + 1`` share their seeds. A player resigns as the
server's would (:func:`engine.games.go.should_resign`: win rate under 5%
after 40% of the board's points); otherwise the game is played to two
passes and scored by area, komi 7.5. Prints each game and the variant's
wins with a 95% Wilson interval and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import engine
from bench.mcts_bench import wilson
from engine.games.go import RESIGN, Go, GoState, should_resign
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest

VARIANTS = {"full": (True, True), "heavy": (True, False), "priors": (False, True)}


def player(heavy: bool, priors: bool, seed: int, size: int, komi: float) -> tuple[Go, MctsSearcher]:
    game = Go(size=size, komi=komi)
    game.heavy_playouts = heavy
    return game, MctsSearcher(game, seed=seed, priors=priors)


def play_game(
    players: list[tuple[Go, MctsSearcher]], limits: Limits
) -> tuple[int | None, str, int]:
    """Winner (0 Black, 1 White, None draw), the reason, and the plies."""
    game = players[0][0]
    state: GoState = game.initial_state()
    while game.outcome(state) is None:
        mover = state.player
        _, searcher = players[mover]
        result = searcher.think(SearchRequest(state, limits))
        root = searcher._search_root
        chance = searcher._root_win_rate(root, state)
        if should_resign(game, state, chance, searcher.playouts):
            state = game.play(state, RESIGN)
            break
        move = result.move_value
        state = game.play(state, move)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome.winner, outcome.reason, state.ply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="full")
    parser.add_argument("--playouts", type=int, default=1000, help="per move, both players")
    parser.add_argument("--movetime", type=int, default=0, help="ms per move instead of playouts")
    parser.add_argument("--games", type=int, default=20, help="games (colours alternate)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    words = argv if argv is not None else sys.argv[1:]
    print(f"# python -m bench.go_knowledge_bench {' '.join(words)}")
    print(f"# engine build: {engine.ENGINE_BUILD}; load average {os.getloadavg()[0]:.2f}")
    heavy, priors = VARIANTS[args.variant]
    wins = draws = 0
    started = time.monotonic()
    for number in range(args.games):
        seed = args.seed + number // 2
        new = player(heavy, priors, seed, args.size, args.komi)
        old = player(False, False, seed + 1000, args.size, args.komi)
        new_colour = number % 2
        players = [new, old] if new_colour == 0 else [old, new]
        limits = Limits(movetime_ms=args.movetime) if args.movetime else Limits(nodes=args.playouts)
        winner, reason, plies = play_game(players, limits)
        if winner is None:
            draws += 1
            verdict = "draw"
        elif winner == new_colour:
            wins += 1
            verdict = "win"
        else:
            verdict = "loss"
        print(
            f"game {number + 1:2d}: {args.variant} {'black' if new_colour == 0 else 'white'}: "
            f"{verdict} ({reason}; {plies} plies)",
            flush=True,
        )
    games = args.games
    score = (wins + 0.5 * draws) / games
    low, high = wilson(score, games)
    effort = f"{args.movetime} ms" if args.movetime else f"{args.playouts} playouts"
    print(
        f"{args.variant} vs light/no priors, {effort} a move: {wins} wins, "
        f"{draws} draws, {games - wins - draws} losses in {games} games; score {score:.0%} "
        f"(95% interval {low:.0%}-{high:.0%}); {time.monotonic() - started:.0f} s; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

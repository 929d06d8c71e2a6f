"""Backgammon: how much equity a network's choice of play loses, by GNU Backgammon's judgement.

Run from the repository root (gnubg on PATH or in /usr/games)::

    python -m bench.gnubg_moves build --decisions 3000 --plies 2
    python -m bench.gnubg_moves score [--depth 2] engine/games/backgammon_td.json OTHER.json ...

A match against gnubg (``bench/gnubg_match.py``) is what counts, but 500
games measure points a game only to about ±0.11, so two networks a few
hundredths apart cannot be told apart by one. This bench asks the question
behind the match one decision at a time, as GNU Backgammon's own "move
benchmark" does for its networks:

* ``build``: positions of a network's self-play (``--games``, ``--seed``;
  the distillation's :func:`~training.backgammon_distill.play_positions`;
  by default the TD network kept in ``training/``, so that the decisions
  stay the same whatever network the engine ships),
  of which ``--decisions`` are drawn, each with a random roll that leaves
  a choice; gnubg evaluates the result of *every* legal play (``--plies``,
  cubeless). Written: the results and gnubg's equity of each for the mover.
* ``score``: each network chooses a play per decision, as the engine's
  depth-1 search does (the result it values most) or, with ``--depth``,
  as the engine's search at that depth (or in ``--movetime`` ms) does; its loss is gnubg's best
  equity minus gnubg's equity of the chosen play. Reported per network: the
  mean loss per decision with a 95% interval, the share of decisions where
  it chose gnubg's play, and the share of large errors (over
  :data:`BLUNDER` points). Scored on the same decisions, the networks'
  differences are far more certain than the intervals alone say: each
  network after the first is also given as its difference from the
  first, decision by decision, with the interval of that difference.

The reference is gnubg's evaluation at the given plies, not the truth
(gnubg 1-ply is the teacher the shipped network was fitted to); a match
settles what this suggests. On the last round's networks the two agreed:
the TD network lost 0.018 a decision and the distilled one 0.0095, about
0.17 points a game at some twenty choices a game, and the depth-1 matches
differed by 0.19 (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from engine.games.backgammon import Backgammon, BgState
from engine.games.backgammon_net import load_network
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from training.backgammon_distill import label, net_from_file, play_positions, rolls_with_a_choice
from training.backgammon_td import equity

#: Where build writes and score reads, unless told (bench/results/ is not versioned).
DEFAULT_FILE = Path("bench/results/moves.npz")
#: The network whose self-play the decisions are drawn from, by default.
PLAYER = Path(__file__).resolve().parents[1] / "training" / "backgammon_td80.json"
#: A choice that loses more than this (points a game) counts as a large error;
#: 0.08 is the threshold backgammon analysis programs commonly mark as a blunder.
BLUNDER = 0.08


def build(
    player: Path, games: int, seed: int, decisions: int, plies: int, processes: int
) -> dict[str, object]:
    """Draw the decisions and have gnubg judge every play of each."""
    source = play_positions(net_from_file(player), games, 0.1, seed)
    results: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    spans: list[tuple[int, int]] = []
    decided: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    dice: list[tuple[int, int]] = []
    for me, opp, roll, plays in rolls_with_a_choice(source, seed):
        # No play that ends the game: gnubg judges positions in play.
        if any(not any(mine) for _, mine, _ in plays):
            continue
        start = len(results)
        results.extend((theirs, mine) for _, mine, theirs in plays)
        spans.append((start, len(results)))
        decided.append((me, opp))
        dice.append(roll)
        if len(spans) == decisions:
            break
    chances = label(np.array(results, dtype=np.uint8), plies, processes)
    return {
        "results": np.array(results, dtype=np.uint8),
        # gnubg's chances are for the side on roll after the play: the opponent.
        "equities": -equity(chances),
        "spans": np.array(spans, dtype=np.int64),
        "positions": np.array(decided, dtype=np.uint8),
        "dice": np.array(dice, dtype=np.int64),
        "settings": json.dumps(
            {
                "player": player.name,
                "games": games,
                "seed": seed,
                "decisions": len(spans),
                "plies": plies,
            }
        ),
    }


def losses(
    bench: Path, network: Path, depth: int = 1, movetime_ms: int | None = None
) -> np.ndarray:
    """The equity each of ``network``'s choices loses on the decisions of ``bench``.

    At depth 1 the choice is the play whose result the network values most
    (what the search's move ordering and a depth-1 search pick). Deeper, or
    with ``movetime_ms``, the engine's expectiminimax search chooses, at that
    fixed depth or in that time, as it plays (a timed score depends on the
    machine's load: give it with the figure).
    """
    data = np.load(bench)
    results = [(tuple(a.tolist()), tuple(b.tolist())) for a, b in data["results"]]
    truth = data["equities"]
    spans = data["spans"].tolist()
    if depth <= 1 and movetime_ms is None:
        ours = -np.array(load_network(network).equities(results))
        chosen = [start + int(np.argmax(ours[start:end])) for start, end in spans]
    else:
        game = Backgammon()
        game.network = load_network(network)
        searcher = ExpectimaxSearcher(game, 1 << 16)
        limits = Limits(movetime_ms=movetime_ms) if movetime_ms else Limits(depth=depth)
        chosen = []
        for (start, end), (me, opp), (high, low) in zip(
            spans, data["positions"].tolist(), data["dice"].tolist(), strict=True
        ):
            state = BgState(tuple(me), tuple(opp), 0, (high, low))
            move = searcher.think(SearchRequest(state, limits)).move_value
            after = game.play(state, move)
            chosen.append(results.index((after.me, after.opp), start, end))
    lost: np.ndarray = np.array([truth[start:end].max() for start, end in spans]) - truth[chosen]
    return lost


def summarise(lost: np.ndarray) -> dict[str, float]:
    """Mean loss a decision with its 95% interval, gnubg's play chosen, large errors."""
    return {
        "decisions": float(len(lost)),
        "mean_loss": float(lost.mean()),
        "interval": float(1.96 * lost.std(ddof=1) / np.sqrt(len(lost))),
        "best_chosen": float((lost < 1e-9).mean()),
        "blunders": float((lost > BLUNDER).mean()),
    }


def score(
    bench: Path, network: Path, depth: int = 1, movetime_ms: int | None = None
) -> dict[str, float]:
    """:func:`summarise` of :func:`losses`."""
    return summarise(losses(bench, network, depth, movetime_ms))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("build", "score"))
    parser.add_argument("networks", nargs="*", type=Path, help="score: weights files")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_FILE, help="build: the file written (%(default)s)"
    )
    parser.add_argument(
        "--bench", type=Path, default=DEFAULT_FILE, help="score: a file written by build"
    )
    parser.add_argument("--games", type=int, default=300, help="build: self-play games")
    parser.add_argument(
        "--player", type=Path, default=PLAYER, help="build: the network that plays the games"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--plies", type=int, default=1, help="build: gnubg's plies")
    parser.add_argument("--processes", type=int, default=16, help="build: gnubgs at a time")
    parser.add_argument(
        "--depth", type=int, default=1, help="score: our search's depth (1: the network alone)"
    )
    parser.add_argument(
        "--movetime", type=int, help="score: our search's time a decision, ms (instead of depth)"
    )
    args = parser.parse_intermixed_args(argv)
    if args.action == "build":
        data = build(args.player, args.games, args.seed, args.decisions, args.plies, args.processes)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.out, **data)  # type: ignore[arg-type]
        print(f"wrote {args.out}: {data['settings']}", file=sys.stderr)
        return 0
    if not args.networks:
        parser.error("score needs at least one network's weights file")
    first: np.ndarray | None = None
    for network in args.networks:
        lost = losses(args.bench, network, args.depth, args.movetime)
        figures = summarise(lost)
        print(
            f"{network}: {figures['mean_loss']:.4f} ± {figures['interval']:.4f} points lost a "
            f"decision over {figures['decisions']:.0f}; gnubg's play chosen in "
            f"{figures['best_chosen']:.1%}, errors over {BLUNDER} in {figures['blunders']:.1%}"
        )
        if first is None:
            first = lost
            continue
        # On the same decisions: the interval of the difference, pair by pair.
        difference = lost - first
        half = 1.96 * difference.std(ddof=1) / np.sqrt(len(difference))
        print(f"  minus {args.networks[0]}: {difference.mean():+.4f} ± {half:.4f} a decision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Backgammon benchmark: expectiminimax with Star1/Star2 against the textbook, and matches.

Parts (each can be run alone):

* ``prune``: at equal depth on fixed positions, the reference EXPECTIMINIMAX
  (engine/search/reference.py) against the production search with no chance-node
  pruning, with Star1 only, and with Star1 + Star2: values (must be equal),
  nodes and time. Nodes are counted the same way for every search: states
  created by ``play`` (moves and rolls), plus the root.
* ``speed``: nodes per second and the depth reached in 1 s.
* ``match``: the engine at 100 ms per move against a one-ply greedy player
  (the same evaluation, depth 1) and against a random player; games in
  pairs with the same dice and the sides swapped; points won (1/2/3 per game).
* ``versus``: the learned evaluation (:class:`Backgammon`) against the
  hand-written one (:class:`HandBackgammon`), each in the same search at
  ``--movetime`` ms a move (or ``--depth``), in pairs of games with the same
  dice and the sides swapped, over ``--parallel`` processes: points a game
  for the learned side with a 95% interval over the pairs, and the depths
  each side reached.

Usage::

    python -m bench.backgammon_bench prune speed
    nohup python -m bench.backgammon_bench match --games 200 > bench_bg.log 2>&1 &
    python -m bench.backgammon_bench versus --games 500 --parallel 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable

from engine.game import CHANCE
from engine.games.backgammon import Action, Backgammon, BgState, HandBackgammon
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.reference import expectiminimax
from engine.search.request import SearchRequest

#: Fixed positions (Position ID, player on roll, dice): the start with two
#: opening rolls, middle games from seeded random play, a bear-off.
POSITIONS = {
    "opening 3-1": "4HPwATDgc/ABMA 0 3-1",
    "opening 6-5": "4HPwATDgc/ABMA 0 6-5",
    "opening 4-4": "4HPwATDgc/ABMA 0 4-4",
    "bear-off 4-2": "EwMAQCkAAAAAAA 0 4-2",
}
#: Middle-game positions: plies of seeded random play from the start.
RANDOM_POSITION_SEEDS = (1, 2, 3)
RANDOM_POSITION_PLIES = 24


class CountingBackgammon(Backgammon):
    """Backgammon that counts the states it creates, to compare searches fairly."""

    def __init__(self) -> None:
        super().__init__()
        self.created = 0

    def play(self, state: BgState, move: Action) -> BgState:
        self.created += 1
        return super().play(state, move)

    def successors(self, state: BgState) -> list[tuple[Action, BgState]]:
        children = super().successors(state)
        if state.dice is not None:  # made from the plays, not by play()
            self.created += len(children)
        return children


def fixed_positions(game: Backgammon) -> dict[str, BgState]:
    positions = {name: game.parse_position(text) for name, text in POSITIONS.items()}
    for seed in RANDOM_POSITION_SEEDS:
        rng = random.Random(seed)
        state = game.initial_state()
        for _ in range(RANDOM_POSITION_PLIES):
            state = game.play(state, rng.choice(game.legal_moves(state)))
        while game.to_move(state) == CHANCE:
            state = game.play(state, rng.choice(game.legal_moves(state)))
        positions[f"random game {seed}"] = state
    return positions


def prune_table(depth: int) -> None:
    game = CountingBackgammon()
    print(f"\n## Depth {depth}: reference vs production (nodes = states created + 1)\n")
    print(
        "| position | value | reference nodes | time s | no pruning | Star1 | Star1+Star2 "
        "| time s | nodes saved |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    totals = [0, 0, 0, 0]
    for name, state in fixed_positions(game).items():
        if depth >= 3 and not name.startswith("bear-off"):
            continue  # the reference takes minutes three moves deep in a middle game
        game.created = 0
        started = time.perf_counter()
        expected = expectiminimax(game, state, depth)
        reference_time = time.perf_counter() - started
        reference_nodes = game.created + 1
        counts = []
        elapsed = 0.0
        for star1, star2 in ((False, False), (True, False), (True, True)):
            searcher = ExpectimaxSearcher(game)
            searcher.use_star1, searcher.use_star2 = star1, star2
            game.created = 0
            started = time.perf_counter()
            result = searcher.think(SearchRequest(state, Limits(depth=depth)))
            elapsed = time.perf_counter() - started
            assert result.value == expected, (name, star1, star2, result.value, expected)
            counts.append(game.created + 1)
        saved = 1 - counts[2] / reference_nodes
        for index, count in enumerate((reference_nodes, *counts)):
            totals[index] += count
        print(
            f"| {name} | {expected} | {reference_nodes} | {reference_time:.2f} | {counts[0]} "
            f"| {counts[1]} | {counts[2]} | {elapsed:.2f} | {saved:.0%} |"
        )
    print(
        f"| total | | {totals[0]} | | {totals[1]} | {totals[2]} | {totals[3]} | "
        f"| {1 - totals[3] / totals[0]:.0%} |"
    )
    print(
        "\nEvery production value equals the reference value (asserted). "
        "The production nodes include its shallower iterations."
    )


def speed_table() -> None:
    game = Backgammon()
    print("\n## One second per position\n")
    print("| position | depth completed | nodes | nodes/s | reason |")
    print("|---|---|---|---|---|")
    for name, state in fixed_positions(game).items():
        searcher = ExpectimaxSearcher(game)
        result = searcher.think(SearchRequest(state, Limits(movetime_ms=1000)))
        info = result.info
        print(f"| {name} | {info.depth} | {info.nodes} | {info.nps} | {result.reason} |")


Player = Callable[[Backgammon, BgState, random.Random], Action]


def engine_player(movetime_ms: int) -> Player:
    searchers: dict[int, ExpectimaxSearcher] = {}

    def choose(game: Backgammon, state: BgState, rng: random.Random) -> Action:
        searcher = searchers.setdefault(id(game), ExpectimaxSearcher(game, 1 << 16))
        move: Action = searcher.think(
            SearchRequest(state, Limits(movetime_ms=movetime_ms))
        ).move_value
        return move

    return choose


def greedy_player(game: Backgammon, state: BgState, rng: random.Random) -> Action:
    """One ply: the move whose position scores best before the opponent's roll."""
    move: Action = (
        ExpectimaxSearcher(game, 1 << 10).think(SearchRequest(state, Limits(depth=1))).move_value
    )
    return move


def random_player(game: Backgammon, state: BgState, rng: random.Random) -> Action:
    return rng.choice(game.legal_moves(state))


def play_game(game: Backgammon, players: tuple[Player, Player], seed: int) -> tuple[int, int]:
    """(winner, points) of one game; the dice come from ``seed``."""
    dice = random.Random(seed)
    choices = random.Random(seed + 1)
    state = game.initial_state()
    while (outcome := game.outcome(state)) is None:
        if game.to_move(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            assert outcomes is not None
            rolls, weights = zip(*outcomes, strict=True)
            state = game.play(state, dice.choices(rolls, weights)[0])
        else:
            state = game.play(state, players[state.turn](game, state, choices))
    assert outcome.winner is not None
    return outcome.winner, outcome.points


def match(opponent_name: str, opponent: Player, games: int, movetime_ms: int) -> None:
    game = Backgammon()
    engine = engine_player(movetime_ms)
    points = [0, 0]  # engine, opponent
    wins = [0, 0]
    kinds = {1: 0, 2: 0, 3: 0}
    started = time.perf_counter()
    margins: list[int] = []
    for index in range(games):
        seed = 1000 + index // 2  # pairs: same dice, sides swapped
        engine_side = index % 2
        players = (engine, opponent) if engine_side == 0 else (opponent, engine)
        winner, won = play_game(game, players, seed)
        who = 0 if winner == engine_side else 1
        points[who] += won
        wins[who] += 1
        kinds[won] += 1
        margins.append(won if who == 0 else -won)
        if (index + 1) % 20 == 0:
            print(
                f"  {opponent_name}: {index + 1} games, engine {points[0]} - {points[1]} points",
                flush=True,
            )
    per_game = statistics.mean(margins)
    spread = statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else 0.0
    print(
        f"\n| engine {movetime_ms} ms/move vs {opponent_name} | games {games} | wins "
        f"{wins[0]}-{wins[1]} | points {points[0]}-{points[1]} | "
        f"{per_game:+.3f} ± {spread:.3f} points/game | singles/gammons/backgammons "
        f"{kinds[1]}/{kinds[2]}/{kinds[3]} | {time.perf_counter() - started:.0f} s |",
        flush=True,
    )


# ----------------------------------------------------------------------
# The learned evaluation against the hand-written one.

#: Per worker process: the two games and their searchers (set by _versus_init).
_VERSUS: dict[str, tuple[Backgammon, ExpectimaxSearcher]] = {}
_VERSUS_LIMITS: list[Limits] = []


def _versus_init(limits: Limits) -> None:
    for name, game in (("learned", Backgammon()), ("hand", HandBackgammon())):
        _VERSUS[name] = (game, ExpectimaxSearcher(game, 1 << 16))
    _VERSUS_LIMITS.append(limits)


def _versus_game(seed: int, learned_side: int) -> tuple[int, list[int], list[int]]:
    """One game: (points for the learned side, its depths, the hand side's depths)."""
    depths: dict[str, list[int]] = {"learned": [], "hand": []}

    def player(side: str) -> Player:
        _, searcher = _VERSUS[side]

        def choose(game: Backgammon, state: BgState, rng: random.Random) -> Action:
            result = searcher.think(SearchRequest(state, _VERSUS_LIMITS[0]))
            if len(game.legal_moves(state)) > 1:
                depths[side].append(result.info.depth)
            move: Action = result.move_value
            return move

        return choose

    players = (player("learned"), player("hand"))
    if learned_side == 1:
        players = players[::-1]
    winner, won = play_game(_VERSUS["learned"][0], players, seed)
    points = won if winner == learned_side else -won
    return points, depths["learned"], depths["hand"]


def _versus_pair(pair: int) -> tuple[int, int, list[int], list[int]]:
    """Two games with the same dice, sides swapped: (points each, depths learned, hand)."""
    seed = 10_000 + pair
    first, learned_a, hand_a = _versus_game(seed, 0)
    second, learned_b, hand_b = _versus_game(seed, 1)
    return first, second, learned_a + learned_b, hand_a + hand_b


def versus(games: int, limits: Limits, parallel: int) -> None:
    """The learned evaluation against the hand-written one; prints a Markdown row."""
    pairs = max(1, games // 2)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    results: list[tuple[int, int]] = []
    depths: dict[str, list[int]] = {"learned": [], "hand": []}
    context = multiprocessing.get_context("fork")
    with context.Pool(parallel, initializer=_versus_init, initargs=(limits,)) as pool:
        for first, second, learned, hand in pool.imap_unordered(_versus_pair, range(pairs)):
            results.append((first, second))
            depths["learned"] += learned
            depths["hand"] += hand
            if len(results) % 10 == 0 or len(results) == pairs:
                points = sum(a + b for a, b in results)
                print(
                    f"  {2 * len(results)}/{2 * pairs} games, learned {points:+d} points, "
                    f"{time.perf_counter() - started:.0f} s",
                    flush=True,
                )
    sums = [a + b for a, b in results]
    per_game = statistics.mean(sums) / 2
    # 95% interval from the spread of the pair totals (the pairs are independent).
    half_width = 1.96 * statistics.stdev(sums) / 2 / len(sums) ** 0.5 if len(sums) > 1 else 0.0
    all_points = [p for pair in results for p in pair]
    wins = sum(1 for p in all_points if p > 0)
    gammons = (sum(1 for p in all_points if p >= 2), sum(1 for p in all_points if p <= -2))
    limit = f"depth {limits.depth}" if limits.depth else f"{limits.movetime_ms} ms/move"
    print(
        f"\n| learned vs hand-written, {limit} | games {len(all_points)} | wins {wins}-"
        f"{len(all_points) - wins} | gammons+ {gammons[0]}-{gammons[1]} | "
        f"{per_game:+.3f} ± {half_width:.3f} points/game (95%, pairs) |"
    )
    for side, seen in depths.items():
        if seen:
            deep = sum(1 for d in seen if d >= 2) / len(seen)
            print(
                f"  {side}: {len(seen)} moves with a choice, mean depth "
                f"{statistics.mean(seen):.2f}, depth >= 2 on {deep:.0%}"
            )
    print(
        f"  {time.perf_counter() - started:.0f} s; load average {load_before:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end; {parallel} processes"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "parts",
        nargs="*",
        default=["prune", "speed"],
        choices=["prune", "speed", "match", "versus"],
    )
    parser.add_argument("--games", type=int, default=200, help="games per match (even)")
    parser.add_argument("--movetime", type=int, default=100, help="engine ms per move")
    parser.add_argument("--depth", type=int, help="versus: a fixed depth instead of the time")
    parser.add_argument("--parallel", type=int, default=2, help="versus: processes")
    args = parser.parse_args(argv)
    if "prune" in args.parts:
        prune_table(2)
        prune_table(3)
    if "speed" in args.parts:
        speed_table()
    if "match" in args.parts:
        match("random", random_player, args.games, args.movetime)
        match("greedy 1-ply", greedy_player, args.games, args.movetime)
    if "versus" in args.parts:
        limits = Limits(depth=args.depth) if args.depth else Limits(movetime_ms=args.movetime)
        versus(args.games, limits, args.parallel)


if __name__ == "__main__":
    main()

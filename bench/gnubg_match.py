"""Backgammon: our engine against GNU Backgammon at 0-ply (cubeless single games).

Run from the repository root::

    python -m bench.gnubg_match --games 500 --movetime 100 --parallel 2
    python -m bench.gnubg_match --eval hand --games 100

Our engine is the referee: the dice come from ``--seed`` (one sequence per
pair of games: the same dice, the sides swapped), our moves from
:class:`~engine.search.expectimax.ExpectimaxSearcher` at ``--movetime`` ms a
move, GNU Backgammon's from ``gnubg.findbestmove`` (cubeless, ``--gnubg-plies``
plies, 0 by default, deterministic, no noise, gammons counted: the Jacoby
rule off) run inside one long-lived gnubg per worker process (``--parallel``).
A small driver script runs in gnubg's embedded Python and talks JSON lines
over two pipes of its own (not gnubg's stdout, where gnubg prints its
banner and boards): a request is the position in gnubg's form (Position ID,
player on roll, dice), the answer gnubg's move. Its move is parsed with our
:meth:`~engine.games.backgammon.Backgammon.parse_move`: an illegal or
unparsable gnubg move stops the bench with an error. When the roll leaves
no legal move nobody is asked.

``--eval net`` plays :class:`~engine.games.backgammon.Backgammon` (the
default game class), ``--eval hand`` :class:`~engine.games.backgammon.HandBackgammon`
(the hand-written evaluation). The report: wins, gammons and backgammons
each way, points a game with a 95% interval (over the pairs: each pair's
points won minus lost, halved, so the dice luck shared by a pair cancels),
the depth our search completed per move (moves with a choice), our mean
time per move, the load average at the start and the end, and the command.
Needs ``gnubg`` on PATH or in /usr/games (Debian's package, 1.07).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import select
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from bench.programs import find_program, prepare_gnubg_home
from engine.game import CHANCE
from engine.games.backgammon import (
    OPENING_ROLLS,
    ROLLS,
    Action,
    Backgammon,
    BgState,
    HandBackgammon,
)
from engine.games.backgammon_net import load_network
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest

#: Seconds to wait for gnubg's answer (0-ply takes milliseconds).
ANSWER_TIMEOUT = 120.0

#: Runs inside gnubg (``gnubg -t -q -p driver.py``): requests on the file
#: descriptor GNUBG_DRIVER_IN, answers on GNUBG_DRIVER_OUT, one JSON object a line.
DRIVER = r"""
import json, os
import gnubg

for setting in ("set player 0 human", "set player 1 human", "set automatic roll off",
                "set automatic game off", "set automatic move off", "set display off",
                "set cube use off", "set jacoby off"):
    gnubg.command(setting)
gnubg.command("new game")
PLIES = int(os.environ["GNUBG_DRIVER_PLIES"])
context = gnubg.evalcontext(0, PLIES, 1, 1, 0.0)  # cubeless, plies, deterministic, prune, no noise
requests = os.fdopen(int(os.environ["GNUBG_DRIVER_IN"]), "r")
answers = os.fdopen(int(os.environ["GNUBG_DRIVER_OUT"]), "w")


def answer(message):
    answers.write(json.dumps(message) + "\n")
    answers.flush()


cube = gnubg.cubeinfo(1, -1, 0, 0)
answer({"ready": True, "context": context, "gammonprice": cube["gammonprice"]})
for line in requests:
    request = json.loads(line)
    try:
        turn = request["turn"]
        if gnubg.posinfo()["turn"] != turn:
            gnubg.command("set turn %d" % turn)
        gnubg.command("set board " + request["positionid"])
        gnubg.command("set dice %d %d" % tuple(request["dice"]))
        info = gnubg.posinfo()
        if gnubg.positionid() != request["positionid"] or info["turn"] != turn:
            raise ValueError("gnubg did not take the position: %s turn %d dice %s"
                             % (gnubg.positionid(), info["turn"], info["dice"]))
        board = gnubg.board()
        best = gnubg.findbestmove(board, gnubg.cubeinfo(1, -1, turn, 0), context)
        text = gnubg.movetupletostring(best, board) if any(best) else "pass"
        answer({"move": text, "gnubgid": gnubg.gnubgid()})
    except Exception as error:
        answer({"error": repr(error)})
"""


def gnubg_path() -> str | None:
    return find_program("gnubg")


class GnubgPlayer:
    """One gnubg process and its driver; ``move`` asks it for its play."""

    def __init__(self, binary: str, plies: int, parent: str) -> None:
        self.directory = tempfile.mkdtemp(prefix="gnubg_", dir=parent)
        script = os.path.join(self.directory, "driver.py")
        with open(script, "w") as file:
            file.write(DRIVER)
        request_read, self.request_write = os.pipe()
        self.answer_read, answer_write = os.pipe()
        env = dict(
            os.environ,
            GNUBG_DRIVER_IN=str(request_read),
            GNUBG_DRIVER_OUT=str(answer_write),
            GNUBG_DRIVER_PLIES=str(plies),
        )
        self.log = open(os.path.join(self.directory, "gnubg.log"), "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [binary, "-t", "-q", "-p", script],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=(request_read, answer_write),
            cwd=self.directory,
            env=env,
        )
        os.close(request_read)
        os.close(answer_write)
        self.answers = os.fdopen(self.answer_read, "r")
        self.requests = os.fdopen(self.request_write, "w")
        self.ready = self._read()
        if not self.ready.get("ready"):
            raise RuntimeError(f"gnubg driver did not start: {self.ready}")

    def _read(self) -> dict[str, Any]:
        ready, _, _ = select.select([self.answers], [], [], ANSWER_TIMEOUT)
        line = self.answers.readline() if ready else ""
        if not line:
            raise RuntimeError(
                f"gnubg (pid {self.process.pid}) gave no answer; its output is in {self.log.name}"
            )
        answer: dict[str, Any] = json.loads(line)
        return answer

    def move(self, game: Backgammon, state: BgState) -> Action:
        assert state.dice is not None
        position_id, turn, _ = game.format_position(state).split()
        request = {"positionid": position_id, "turn": int(turn), "dice": list(state.dice)}
        self.requests.write(json.dumps(request) + "\n")
        self.requests.flush()
        answer = self._read()
        where = f"{game.format_position(state)} (gnubg: {answer.get('gnubgid')})"
        if "error" in answer:
            raise RuntimeError(f"gnubg failed at {where}: {answer['error']}")
        try:
            move: Action = game.parse_move(state, answer["move"])
        except Exception as error:
            raise RuntimeError(
                f"gnubg played {answer['move']!r} at {where}, which is not legal here: {error}"
            ) from error
        return move

    def close(self) -> None:
        self.requests.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.answers.close()
        self.log.close()


@dataclass
class GameRecord:
    """One game: who won (from our side), the points, our search's depths and times."""

    engine_side: int
    engine_won: bool
    points: int
    depths: list[int] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)


# Per worker process: the gnubg player, the game and our searcher.
_WORKER: dict[str, Any] = {}


def _start_worker(
    binary: str,
    plies: int,
    eval_name: str,
    movetime_ms: int,
    directory: str,
    depth: int | None,
    network: str | None,
) -> None:
    game: Backgammon = HandBackgammon() if eval_name == "hand" else Backgammon()
    if network is not None:
        game.network = load_network(Path(network))
    _WORKER["gnubg"] = GnubgPlayer(binary, plies, directory)
    _WORKER["game"] = game
    _WORKER["searcher"] = ExpectimaxSearcher(game, 1 << 16)
    _WORKER["movetime"] = movetime_ms
    _WORKER["depth"] = depth


def play_game(pair_seed: int, engine_side: int) -> GameRecord:
    game: Backgammon = _WORKER["game"]
    searcher: ExpectimaxSearcher = _WORKER["searcher"]
    gnubg: GnubgPlayer = _WORKER["gnubg"]
    depth = _WORKER["depth"]
    limits = Limits(depth=depth) if depth else Limits(movetime_ms=_WORKER["movetime"])
    dice = random.Random(pair_seed)
    record = GameRecord(engine_side, False, 0)
    state = game.initial_state()
    while (outcome := game.outcome(state)) is None:
        if game.to_move(state) == CHANCE:
            rolls = OPENING_ROLLS if state.opening else ROLLS
            choices = [roll for roll, _ in rolls]
            weights = [weight for _, weight in rolls]
            state = game.play(state, dice.choices(choices, weights)[0])
            continue
        legal = game.legal_moves(state)
        if legal == [()]:
            move = ()  # no checker can move: nobody is asked
        elif state.turn == engine_side:
            started = time.perf_counter()
            result = searcher.think(SearchRequest(state, limits))
            elapsed = (time.perf_counter() - started) * 1000
            move = result.move_value
            if len(legal) > 1:
                record.depths.append(result.info.depth)
                record.times_ms.append(elapsed)
        else:
            move = gnubg.move(game, state)
        state = game.play(state, move)
    assert outcome.winner is not None
    record.engine_won = outcome.winner == engine_side
    record.points = outcome.points
    return record


def play_pair(task: tuple[int, int]) -> tuple[int, list[GameRecord]]:
    pair, pair_seed = task
    return pair, [play_game(pair_seed, side) for side in (0, 1)]


def gnubg_version(binary: str) -> str:
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown version"
    lines = done.stdout.strip().splitlines()
    return lines[0] if lines else "unknown version"


#: The fewest pairs given a normal interval: a game's points take a few
#: values only (1, 2, 3 a side), so a few pairs can agree exactly and show
#: a zero-width interval (two pairs at -1.000 gave "-1.000 ± 0.000", a
#: review of 2026-12-07); ten pairs is the usual floor for the normal
#: approximation of a mean of such values.
MIN_PAIRS_FOR_INTERVAL = 10


def spread(mean: float, half: float, pairs: int | None = None) -> str:
    """``+0.123 ± 0.045``, or the mean with "no interval" when too few pairs cannot give one."""
    if math.isnan(half):
        count = "" if pairs is None else f"{pairs} pair{'s' if pairs != 1 else ''}, "
        return f"{mean:+.3f} (no interval: {count}fewer than {MIN_PAIRS_FOR_INTERVAL})"
    return f"{mean:+.3f} ± {half:.3f}"


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval (NaN with too few pairs)."""
    mean = statistics.mean(values)
    if len(values) < MIN_PAIRS_FOR_INTERVAL:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(values) / len(values) ** 0.5


def report(records: list[GameRecord], pair_nets: list[float]) -> None:
    games = len(records)
    won = [r for r in records if r.engine_won]
    lost = [r for r in records if not r.engine_won]
    ours = sum(r.points for r in won)
    theirs = sum(r.points for r in lost)
    mean, half = interval(pair_nets)
    depths = [depth for r in records for depth in r.depths]
    times = [t for r in records for t in r.times_ms]
    print(f"games: {games} ({len(pair_nets)} pairs, same dice, sides swapped)")
    print(f"our wins / losses: {len(won)} / {len(lost)}")
    for name, group in (("won by us", won), ("won by gnubg", lost)):
        gammons = sum(1 for r in group if r.points == 2)
        backgammons = sum(1 for r in group if r.points == 3)
        print(
            f"  {name}: {len(group)} games, {gammons} gammons, {backgammons} backgammons"
            f" ({sum(r.points for r in group)} points)"
        )
    print(f"points: ours {ours}, gnubg's {theirs}; net {ours - theirs:+d}")
    print(
        f"points per game (ours minus gnubg's): {spread(mean, half, len(pair_nets))} "
        f"(95% interval over the {len(pair_nets)} pairs' net points / 2)"
    )
    if depths:
        deep = sum(1 for depth in depths if depth >= 2) / len(depths)
        print(
            f"our search: {len(depths)} moves with a choice, depth >= 2 in {deep:.1%}, "
            f"mean depth {statistics.mean(depths):.2f}, max {max(depths)}; "
            f"mean time per move {statistics.mean(times):.1f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games (even: pairs)")
    parser.add_argument("--movetime", type=int, default=100, help="our ms per move")
    parser.add_argument(
        "--depth", type=int, help="search to this depth instead (1: the best afterstate, 0-ply)"
    )
    parser.add_argument("--parallel", type=int, default=2, help="worker processes, one gnubg each")
    parser.add_argument("--seed", type=int, default=1, help="dice seed")
    parser.add_argument(
        "--eval",
        choices=("net", "hand"),
        default="net",
        help="net: Backgammon (the default game class); hand: HandBackgammon",
    )
    parser.add_argument("--gnubg-plies", type=int, default=0, help="gnubg's search plies")
    parser.add_argument(
        "--network",
        help="our network's weights file instead of the shipped one (a candidate's, e.g. "
        "from training/backgammon_distill.py export --to FILE)",
    )
    args = parser.parse_args(argv)
    binary = gnubg_path()
    if binary is None:
        print("gnubg not found (apt-get install gnubg)", file=sys.stderr)
        return 2
    pairs = max(1, args.games // 2)
    command = " ".join(
        ["python -m bench.gnubg_match", *(argv if argv is not None else sys.argv[1:])]
    )
    game_class = "HandBackgammon" if args.eval == "hand" else "Backgammon"
    if args.network:
        game_class += f" with the network {args.network}"
    budget = f"depth {args.depth}" if args.depth else f"{args.movetime} ms a move"
    print(f"# {command}")
    print(
        f"# our engine ({engine.ENGINE_BUILD} build, {game_class}, {budget}) "
        f"vs {gnubg_version(binary)} at {args.gnubg_plies}-ply, cubeless; {pairs * 2} games, "
        f"seed {args.seed}, {args.parallel} workers"
    )
    load_start = os.getloadavg()
    print(f"# load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}")
    tasks = [(pair, args.seed * 1_000_003 + pair) for pair in range(pairs)]
    records: list[GameRecord] = []
    pair_nets: list[float] = []
    started = time.perf_counter()
    prepare_gnubg_home()  # before the workers start their gnubgs together
    context = multiprocessing.get_context("fork")
    # Each worker's gnubg ends when its worker does (its requests pipe closes).
    with (
        tempfile.TemporaryDirectory(prefix="gnubg_match_") as directory,
        context.Pool(
            args.parallel,
            initializer=_start_worker,
            initargs=(
                binary,
                args.gnubg_plies,
                args.eval,
                args.movetime,
                directory,
                args.depth,
                args.network,
            ),
        ) as pool,
    ):
        for done, (_, pair_records) in enumerate(pool.imap_unordered(play_pair, tasks), 1):
            records.extend(pair_records)
            net = sum(r.points if r.engine_won else -r.points for r in pair_records)
            pair_nets.append(net / 2)
            if done % 5 == 0 or done == pairs:
                elapsed = time.perf_counter() - started
                mean, half = interval(pair_nets)
                wins = sum(1 for r in records if r.engine_won)
                print(
                    f"  {len(records)}/{pairs * 2} games: we won {wins}, "
                    f"{spread(mean, half, len(pair_nets))} points a game, {elapsed:.0f} s, "
                    f"about {elapsed / done * (pairs - done):.0f} s to go",
                    flush=True,
                )
    elapsed = time.perf_counter() - started
    print()
    report(records, pair_nets)
    load_end = os.getloadavg()
    print(f"load average at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    print(f"time: {elapsed:.0f} s")
    print(f"command: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

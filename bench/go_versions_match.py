"""Go 9x9: two checkouts' engines (``arena gtp``) against each other at a fixed playout count
(or, with ``--movetime``, at equal time: the measure that counts when a change costs speed).

Each checkout (``--tree``, two of them: the new one first) is a working copy
with its own venv at ``TREE/.venv`` holding an editable install; each engine
runs there as ``python -m clients gtp --playouts N`` in its own process
(so each imports its own engine, compiled or not), started from a neutral
directory. From the repository root, this checkout against a baseline::

    python -m bench.go_versions_match --tree . --tree /tmp/base --playouts 1000 --games 20

Games are refereed by :func:`server.programs.gtp_match.play_game` (area
scoring, komi 7.5), colours alternating (the new tree is Black in the even
games); neither side resigns, a game is played to two passes. A fixed
playout count is unaffected by the machine's load; a ``--movetime`` match
is not (run it on a quiet machine, or at a higher priority than other
work: docs/benchmarks.md). Prints each game and
the new tree's score with a 95% Wilson interval and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.mcts_bench import wilson
from server.programs.gtp_match import GtpProgram, play_game


def engine_command(tree: Path, playouts: int, movetime_ms: int = 0) -> list[str]:
    python = tree / ".venv" / "bin" / "python"
    limit = ["--movetime", str(movetime_ms)] if movetime_ms > 0 else ["--playouts", str(playouts)]
    return [str(python), "-m", "clients", "gtp", *limit, "--resign-below", "0"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", action="append", required=True, help="a checkout (twice)")
    parser.add_argument("--playouts", type=int, default=1000, help="per move, both sides")
    parser.add_argument(
        "--movetime", type=int, default=0, help="ms a move, both sides, instead of --playouts"
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first-game", type=int, default=0, help="number of the first game")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    args = parser.parse_args(argv)
    if len(args.tree) != 2:
        print("give --tree twice: the new checkout, then the baseline", file=sys.stderr)
        return 2
    new, old = (Path(tree).resolve() for tree in args.tree)
    print(f"# python -m bench.go_versions_match {' '.join(argv or sys.argv[1:])}")
    print(f"# new {new}, baseline {old}; load average {os.getloadavg()[0]:.2f}", flush=True)
    wins = draws = 0
    started = time.monotonic()
    neutral = tempfile.mkdtemp(prefix="go-versions-")
    os.chdir(neutral)  # neither checkout's sources shadow the other's install
    timeout = max(60.0, args.playouts / 20, 10 * args.movetime / 1000)
    limit = f"{args.movetime} ms" if args.movetime > 0 else f"{args.playouts} playouts"
    for number in range(args.first_game, args.first_game + args.games):
        new_is_black = number % 2 == 0
        with (
            GtpProgram(engine_command(new, args.playouts, args.movetime), "new") as ours,
            GtpProgram(engine_command(old, args.playouts, args.movetime), "old") as theirs,
        ):
            black, white = (ours, theirs) if new_is_black else (theirs, ours)
            record = play_game(
                black, white, size=args.size, komi=args.komi, genmove_timeout_s=timeout
            )
        new_colour = 0 if new_is_black else 1
        if record.winner is None:
            draws += 1
            verdict = "draw"
        elif record.winner == new_colour:
            wins += 1
            verdict = "win"
        else:
            verdict = "loss"
        print(
            f"game {number + 1:2d}: new {'black' if new_is_black else 'white'}: {verdict} "
            f"({record.reason}; {len(record.moves)} moves)",
            flush=True,
        )
    games = args.games
    score = wins + 0.5 * draws
    low, high = wilson(score / games, games)
    print(
        f"new vs baseline at {limit} a move: {wins} wins, {draws} draws, "
        f"{games - wins - draws} losses in {games} games; score {score / games:.0%} "
        f"(95% interval {low:.0%}-{high:.0%}); {time.monotonic() - started:.0f} s; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
games); a game is played to two passes unless ``--resign-below`` lets both
sides resign (as the server does, below that chance of winning). A fixed
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

from bench.programs import play_gtp_match


def engine_command(
    tree: Path, playouts: int, movetime_ms: int = 0, resign_below: float = 0.0
) -> list[str]:
    python = tree / ".venv" / "bin" / "python"
    limit = ["--movetime", str(movetime_ms)] if movetime_ms > 0 else ["--playouts", str(playouts)]
    return [str(python), "-m", "clients", "gtp", *limit, "--resign-below", str(resign_below)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", action="append", required=True, help="a checkout (twice)")
    parser.add_argument("--playouts", type=int, default=1000, help="per move, both sides")
    parser.add_argument(
        "--movetime", type=int, default=0, help="ms a move, both sides, instead of --playouts"
    )
    parser.add_argument(
        "--resign-below",
        type=float,
        default=0.0,
        help="both sides resign below this chance of winning (0: games are played to two passes; "
        "0.05, the server's threshold, about halves a match's time)",
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
    started = time.monotonic()
    neutral = tempfile.mkdtemp(prefix="go-versions-")
    os.chdir(neutral)  # neither checkout's sources shadow the other's install
    timeout = max(60.0, args.playouts / 20, 10 * args.movetime / 1000)
    limit = f"{args.movetime} ms" if args.movetime > 0 else f"{args.playouts} playouts"
    tally = play_gtp_match(
        engine_command(new, args.playouts, args.movetime, args.resign_below),
        engine_command(old, args.playouts, args.movetime, args.resign_below),
        ("new", "old"),
        first_game=args.first_game,
        games=args.games,
        size=args.size,
        komi=args.komi,
        genmove_timeout_s=timeout,
    )
    print(
        f"new vs baseline at {limit} a move: {tally.summary()}; "
        f"{time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

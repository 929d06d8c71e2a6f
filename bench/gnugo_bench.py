"""Go 9x9: our engine (``arena gtp``) against GNU Go over GTP, colours alternating.

Run from the repository root::

    python -m bench.gnugo_bench --level 1 --movetime 5000 --games 20
    python -m bench.gnugo_bench --level 10 --movetime 1000 --games 20 --algorithm mcts
    python -m bench.gnugo_bench --level 1 --playouts 4000 --games 10 --first-game 10
    python -m bench.gnugo_bench --level 1 --playouts 2000 --games 10 --sgf-dir /tmp/games
    python -m bench.gnugo_bench --level 1 --movetime 1000 --games 40 --threads 2

Each game is refereed by :func:`server.programs.gtp_match.play_game` and scored by
area (Tromp-Taylor), komi 7.5; GNU Go runs with ``--chinese-rules`` (area
counting) and ``--capture-all-dead`` at the given ``--level``. Our engine
resigns only with ``--resign-below`` (by default a lost game is played out,
as the earlier figures were); GNU Go resigns by its own judgement.
The report gives wins with a 95% Wilson interval, the mean moves per game
and GNU Go's own count beside ours for the games where they differ (GNU Go
removes stones it judges dead; Tromp-Taylor counts every stone on the
board). ``--sgf-dir`` writes each game there as an SGF record (``game-NN.sgf``,
the referee's result in ``RE``) to replay the losses. Needs ``gnugo`` on PATH
or in /usr/games.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench.programs import GtpGame, find_program, play_gtp_match
from server.frontends.gtp import DEFAULT_RESIGN_BELOW
from server.programs.gtp_match import GameRecord

#: GTP's column letters (no I) and SGF's point letters.
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def gnugo_path() -> str | None:
    return find_program("gnugo")


def sgf_text(record: GameRecord, black: str, white: str) -> str:
    """The game as an SGF record: GTP vertices (``D4``, ``pass``) become SGF points."""
    result = "?" if record.winner is None else ("B+" if record.winner == 0 else "W+")
    header = (
        f"(;GM[1]FF[4]SZ[{record.size}]KM[{record.komi:g}]RU[Chinese]"
        f"PB[{black}]PW[{white}]RE[{result}]C[{record.reason}]"
    )
    nodes = []
    for ply, move in enumerate(record.moves):
        colour = "B" if ply % 2 == 0 else "W"
        text = move.strip().upper()
        if text == "RESIGN":
            break
        if text == "PASS":
            point = ""
        else:
            column = GTP_COLUMNS.index(text[0])
            row = record.size - int(text[1:])
            point = SGF_LETTERS[column] + SGF_LETTERS[row]
        nodes.append(f";{colour}[{point}]")
    return header + "".join(nodes) + ")\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", type=int, default=1, help="GNU Go's --level (0-10)")
    parser.add_argument("--movetime", type=int, default=5000, help="our ms per move")
    parser.add_argument(
        "--playouts", type=int, default=0, help="a fixed playout count per move instead of a time"
    )
    parser.add_argument("--first-game", type=int, default=0, help="number of the first game")
    parser.add_argument("--games", type=int, default=20, help="games (colours alternate)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--algorithm", default="mcts", choices=("mcts", "alphabeta"))
    parser.add_argument("--sgf-dir", default="", help="write each game there as an SGF record")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="our search processes per move, pooled at the root (`arena gtp --threads`)",
    )
    parser.add_argument(
        "--resign-below",
        type=float,
        default=0.0,
        metavar="P",
        help="our engine resigns below this chance of winning, as `arena gtp --resign-below` "
        f"(default 0: a lost game is played out; `arena gtp` itself uses {DEFAULT_RESIGN_BELOW})",
    )
    args = parser.parse_args(argv)
    gnugo = gnugo_path()
    if gnugo is None:
        print("gnugo is not installed (Debian: apt-get install gnugo)", file=sys.stderr)
        return 1
    import engine

    print(f"# python -m bench.gnugo_bench {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"# engine build: {engine.ENGINE_BUILD}; load average {os.getloadavg()[0]:.2f}")
    ours = [
        sys.executable,
        "-m",
        "clients",
        "gtp",
        "--algorithm",
        args.algorithm,
        "--movetime",
        str(args.movetime),
        "--resign-below",
        str(args.resign_below),
    ]
    if args.playouts:
        # Unaffected by the machine's load (the move time is not).
        ours += ["--playouts", str(args.playouts)]
    if args.threads > 1:
        ours += ["--threads", str(args.threads)]
    # --capture-all-dead: under area counting every stone left on the board
    # counts, so GNU Go (which otherwise passes with dead stones it would
    # remove by judgement) must capture them, as Tromp-Taylor servers ask.
    theirs = [
        gnugo,
        "--mode",
        "gtp",
        "--level",
        str(args.level),
        "--chinese-rules",
        "--capture-all-dead",
    ]
    started = time.monotonic()

    def after_game(game: GtpGame) -> str:
        if args.sgf_dir:
            folder = Path(args.sgf_dir)
            folder.mkdir(parents=True, exist_ok=True)
            names = ("arena", "gnugo") if game.ours_black else ("gnugo", "arena")
            sgf = sgf_text(game.record, *names)
            (folder / f"game-{game.number + 1:02d}.sgf").write_text(sgf)
        counts = game.record.engine_scores.items()
        return "; counts: " + ", ".join(f"{name} {score}" for name, score in counts)

    tally = play_gtp_match(
        ours,
        theirs,
        ("arena", "gnugo"),
        first_game=args.first_game,
        games=args.games,
        size=args.size,
        komi=args.komi,
        genmove_timeout_s=max(60.0, 4 * args.movetime / 1000, args.playouts / 20),
        after_game=after_game,
    )
    effort = f"{args.playouts} playouts/move" if args.playouts else f"{args.movetime} ms/move"
    print(
        f"arena ({args.algorithm}, {effort}) vs GNU Go level {args.level}: {tally.summary()}; "
        f"{tally.moves / tally.games:.0f} moves a game; {time.monotonic() - started:.0f} s; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Openings for chess SPRT matches: the built-in book lines, each with a few random plies more.

The built-in book (``clients/tournament/chess_book.py``) has 16 lines: at a
fixed node budget two deterministic engines replay the same 32 games, so a
match of a few hundred games would mostly repeat itself. This script extends
each book line by :data:`EXTRA_PLIES` random legal plies, seeded, and keeps a
line only when a search of :data:`BALANCE_DEPTH` plies scores it within
±:data:`BALANCE_CP` centipawns, as the tournament's own generated openings
are checked. The file it writes is read by ``arena tournament --openings``.

Usage::

    python -m bench.chess_sprt_openings --per-line 8 --seed 1 > openings.txt
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Final

from clients.tournament.chess_book import CHESS_BOOK
from clients.tournament.openings import balance_score
from engine.games.chess.game import Chess

#: Random plies added after each book line.
EXTRA_PLIES: Final = 2
#: Depth and margin of the balance check (the tournament's defaults: 4, 100).
BALANCE_DEPTH: Final = 4
BALANCE_CP: Final = 100
#: Tries per wanted line before giving up on a book line.
TRIES_PER_LINE: Final = 20


def extended_lines(per_line: int, seed: int) -> list[str]:
    """Up to ``per_line`` distinct balanced extensions of every book line."""
    game = Chess()
    rng = random.Random(seed)
    lines: list[str] = []
    for _name, moves in CHESS_BOOK:
        base = moves.split()
        state = game.initial_state()
        for text in base:
            state = game.play(state, game.parse_move(state, text))
        found: set[str] = set()
        for _ in range(per_line * TRIES_PER_LINE):
            if len(found) >= per_line:
                break
            position, extra = state, []
            for _ply in range(EXTRA_PLIES):
                legal = game.legal_moves(position)
                if not legal:
                    break
                move = rng.choice(legal)
                extra.append(game.format_move(position, move))
                position = game.play(position, move)
            line = " ".join(base + extra)
            if line in found or game.outcome(position) is not None:
                continue
            score = balance_score(game, position, BALANCE_DEPTH)
            if score is not None and abs(score) <= BALANCE_CP:
                found.add(line)
                lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-line", type=int, default=8, help="extensions per book line")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for line in extended_lines(args.per_line, args.seed):
        sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

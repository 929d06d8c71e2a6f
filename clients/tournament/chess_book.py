"""The built-in chess openings: a few well-known, balanced main lines, by name.

A tournament of chess engines without ``--openings`` plays these (each
twice, colours swapped) instead of random moves, which gave starts such
as ``1. a3 g5 2. Nh3 b6`` that no chess player would accept as a test of
anything. Each line is the start of a named main line as any opening
reference gives it (the moves are chess facts; the list and its order
are ours), 6 to 10 plies in UCI notation, ending with the side that
started the opening to move. The order alternates first moves (1. e4,
1. d4, 1. c4) so that a short tournament still gets a mix.

Each line is checked against the rules and scored by our own engine in
``tests/clients/tournament/test_chess_book.py``: a search of
:data:`BOOK_CHECK_DEPTH` plies must score it within
±:data:`BOOK_MARGIN_CP` centipawns for the side to move.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Depth of the balance check of the test (the tournament's default --balance-depth).
BOOK_CHECK_DEPTH = 4
#: The most a book line may be off balance at that depth, in centipawns: the
#: same as the default ``--balance-score`` of generated openings (100).
BOOK_MARGIN_CP = 100

#: (name, moves in UCI) of each built-in opening, in playing order.
CHESS_BOOK: tuple[tuple[str, str], ...] = (
    ("Italian Game, Giuoco Piano", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 c2c3 g8f6"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7"),
    ("Sicilian Defence, Najdorf Variation", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("English Opening, Four Knights", "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6"),
    ("Ruy Lopez, Morphy Defence", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6"),
    ("King's Indian Defence", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6"),
    ("French Defence, Classical", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6"),
    ("Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6"),
    ("Caro-Kann Defence, Classical", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4 c8f5"),
    ("Nimzo-Indian Defence", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"),
    ("Petrov's Defence", "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6 e5f3 f6e4"),
    ("Catalan Opening", "d2d4 g8f6 c2c4 e7e6 g2g3 d7d5 f1g2 f8e7"),
    ("Scotch Game", "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4 g8f6"),
    ("Grünfeld Defence", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5"),
    ("Queen's Indian Defence", "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6"),
    ("English Opening, Symmetrical", "c2c4 c7c5 g1f3 g8f6 b1c3 b8c6"),
)


def book_lines() -> list[tuple[str, tuple[str, ...]]]:
    """``(name, moves)`` of each built-in opening."""
    return [(name, tuple(moves.split())) for name, moves in CHESS_BOOK]


def opening_name(moves: Sequence[str]) -> str | None:
    """The name of the built-in opening whose moves these are (UCI), if any."""
    played = tuple(moves)
    for name, line in book_lines():
        if line == played:
            return name
    return None

"""Chess move generation proven by perft: published counts, python-chess as an oracle.

Every run checks the perft suite's 126 positions and python-chess's tricky
positions at depths 1-3 (their published counts are kept in ``tests/facts``,
sources named there), the classic positions deeper, and seeded random
positions against python-chess's own move generator. The full files in
``../shared/refdata`` add depth 4 of the suite and every published count of
the tricky positions: an optional, longer check that skips when absent.
"""

from __future__ import annotations

import random

import chess
import pytest

from engine.games.chess.notation import parse_fen
from engine.games.chess.position import perft
from tests.refdata import fact_lines, missing_reason, refdata_path

#: The perft suite's positions with counts to depth 3 (kept in tests/facts).
SUITE_FACTS = "chess_perft_suite.epd"
#: python-chess's tricky standard-chess positions with counts to depth 3.
TRICKY_FACTS = "chess_perft_tricky.epd"
#: Positions in the perft suite (the ROCE suite as kept by sunfish).
SUITE_POSITIONS = 126
#: The full files, for the optional, longer check.
FULL_SUITE = refdata_path("chess", "perftsuite.epd")
FULL_TRICKY = refdata_path("chess", "pychess_tricky.perft")
#: The deepest suite counts the optional check runs (12 M leaves: about ten
#: seconds of CPU in the pure-Python build; depths 5-6 take hours).
FULL_SUITE_DEPTH = 4
#: Entries of the tricky file that count Chess960 castling (python-chess runs
#: them with chess960=True): the X-FEN ones, and a king on h8 keeping a
#: queenside right (3660 at depth 3 in standard chess, by python-chess too).
CHESS960_IDS = ("xfen-", "asymmetrical-and-king-on-h")


def parse_counts(fields: list[str]) -> list[tuple[int, int]]:
    """``["D1 20", "D2 400"]`` as ``[(1, 20), (2, 400)]``."""
    counts = []
    for field in fields:
        depth_text, nodes = field.split()
        counts.append((int(depth_text.lstrip("D")), int(nodes)))
    return counts


def suite_cases(lines: list[str], max_depth: int) -> list[tuple[str, int, int]]:
    """``(fen, depth, count)`` for each ``<FEN> ;D1 <n> ;D2 <n> ...`` line, up to a depth."""
    cases = []
    for line in lines:
        fen, *counts = line.split(";")
        cases += [
            (fen.strip(), depth, nodes)
            for depth, nodes in parse_counts(counts)
            if depth <= max_depth
        ]
    return cases


def tricky_fact_cases() -> list[tuple[str, str, int, int]]:
    """``(name, fen, depth, count)`` for each line of the tricky facts file."""
    cases = []
    for line in fact_lines(TRICKY_FACTS):
        head, *counts = line.split(";")
        name, fen = head.strip().split(maxsplit=1)
        cases += [(name, fen, depth, nodes) for depth, nodes in parse_counts(counts)]
    return cases


def wrong_counts(cases: list[tuple[str, int, int]]) -> list[tuple[str, int, int, int]]:
    """The cases whose perft differs from the published count, with what we counted."""
    return [
        (fen, depth, nodes, got)
        for fen, depth, nodes in cases
        if (got := perft(parse_fen(fen), depth)) != nodes
    ]


# ----------------------------------------------------------------------
# Published counts kept in tests/facts.


def test_perft_suite_depths_1_to_3() -> None:
    # One test over the 126 positions keeps the report short; a failure names the position.
    lines = fact_lines(SUITE_FACTS)
    assert len(lines) == SUITE_POSITIONS
    cases = suite_cases(lines, 3)
    assert len(cases) == 3 * SUITE_POSITIONS
    assert wrong_counts(cases) == []


def test_python_chess_tricky_positions() -> None:
    cases = tricky_fact_cases()
    assert {name for name, *_ in cases} >= {"align-ep-pinned", "ep-unrelated-check"}
    assert wrong_counts([(fen, depth, nodes) for _, fen, depth, nodes in cases]) == []


# Deeper counts of the classic positions, typed in from the Chess
# Programming Wiki page "Perft Results" (as quoted in shared/refdata/README.md).
DEEP = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197281),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 5, 674624),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89890),
]


@pytest.mark.parametrize(("fen", "depth", "nodes"), DEEP)
def test_classic_positions_deeper(fen: str, depth: int, nodes: int) -> None:
    assert perft(parse_fen(fen), depth) == nodes


# ----------------------------------------------------------------------
# python-chess as an oracle, on positions nobody published.

#: Seeded random games and the plies after which a position is taken from each:
#: openings, middle games with castling and en passant chances, and endings.
ORACLE_GAMES = 8
ORACLE_PLIES = (8, 25, 60)
ORACLE_DEPTH = 3


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """Leaf count by python-chess's legal move generator (the oracle)."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def oracle_positions() -> list[str]:
    positions = []
    for seed in range(ORACLE_GAMES):
        rng = random.Random(seed)
        board = chess.Board()
        for ply in range(1, max(ORACLE_PLIES) + 1):
            moves = list(board.legal_moves)
            if not moves or board.is_insufficient_material():
                break
            # Captures and promotions first half the time, so games reach endings.
            sharp = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(sharp if sharp and rng.random() < 0.5 else moves))
            if ply in ORACLE_PLIES:
                positions.append(board.fen())
    return positions


def test_perft_equals_python_chess_on_random_positions() -> None:
    positions = oracle_positions()
    assert len(positions) >= 3 * ORACLE_GAMES
    wrong = [
        (fen, ours, oracle)
        for fen in positions
        if (ours := perft(parse_fen(fen), ORACLE_DEPTH))
        != (oracle := python_chess_perft(chess.Board(fen), ORACLE_DEPTH))
    ]
    assert wrong == []


# ----------------------------------------------------------------------
# The full files in ../shared/refdata: optional, longer.


def _full_tricky_cases() -> list[tuple[str, int, int]]:
    cases = []
    fen = name = ""
    for line in FULL_TRICKY.read_text().splitlines():
        words = line.split(maxsplit=1)
        if not words:
            continue
        if words[0] == "id":
            name = words[1]
        elif words[0] in ("epd", "fen"):
            fen = words[1]
        elif words[0] == "perft" and not name.startswith(CHESS960_IDS):
            depth, nodes = map(int, words[1].split())
            cases.append((fen, depth, nodes))
    return cases


@pytest.mark.slow
@pytest.mark.skipif(not FULL_SUITE.exists(), reason=missing_reason(FULL_SUITE))
def test_full_perft_suite_to_depth_4() -> None:
    lines = [line for line in FULL_SUITE.read_text().splitlines() if line.strip()]
    assert len(lines) == SUITE_POSITIONS
    assert wrong_counts(suite_cases(lines, FULL_SUITE_DEPTH)) == []


@pytest.mark.slow
@pytest.mark.skipif(not FULL_TRICKY.exists(), reason=missing_reason(FULL_TRICKY))
def test_full_python_chess_tricky_file() -> None:
    assert wrong_counts(_full_tricky_cases()) == []

"""Chess move generation proven by perft: the reference suite at depths 1-3, classics deeper."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.games.chess.notation import parse_fen
from engine.games.chess.position import perft

REFDATA = Path(__file__).resolve().parents[3].parent / "shared" / "refdata" / "chess"
PERFT_SUITE = REFDATA / "perftsuite.epd"
TRICKY = REFDATA / "pychess_tricky.perft"
#: Entries of the tricky file that count Chess960 castling (python-chess runs
#: them with chess960=True): the X-FEN ones, and a king on h8 keeping a
#: queenside right (3660 at depth 3 in standard chess, by python-chess too).
CHESS960_IDS = ("xfen-", "asymmetrical-and-king-on-h")


def _suite_cases() -> list[tuple[str, int, int]]:
    if not PERFT_SUITE.exists():
        return []
    cases = []
    # The file has CRLF line ends; splitlines() handles them.
    for line in PERFT_SUITE.read_text().splitlines():
        if not line.strip():
            continue
        fen, *counts = line.split(";")
        for count in counts:
            depth_text, nodes = count.split()
            depth = int(depth_text.lstrip("D"))
            if depth <= 3:
                cases.append((fen.strip(), depth, int(nodes)))
    return cases


def _tricky_cases() -> list[tuple[str, int, int]]:
    if not TRICKY.exists():
        return []
    cases = []
    fen = name = ""
    for line in TRICKY.read_text().splitlines():
        words = line.split(maxsplit=1)
        if not words:
            continue
        if words[0] == "id":
            name = words[1]
        elif words[0] in ("epd", "fen"):
            fen = words[1]
        elif words[0] == "perft" and not name.startswith(CHESS960_IDS):
            depth, nodes = map(int, words[1].split())
            if depth <= 3:
                cases.append((fen, depth, nodes))
    return cases


SUITE = _suite_cases()
TRICKY_CASES = _tricky_cases()


@pytest.mark.skipif(not SUITE, reason=f"reference data not found: {PERFT_SUITE}")
def test_perft_suite_depths_1_to_3() -> None:
    # One test over the 126 positions keeps the report short; a failure names the position.
    assert len(SUITE) >= 3 * 126
    wrong = [
        (fen, depth, nodes, got)
        for fen, depth, nodes in SUITE
        if (got := perft(parse_fen(fen), depth)) != nodes
    ]
    assert wrong == []


@pytest.mark.skipif(not TRICKY_CASES, reason=f"reference data not found: {TRICKY}")
def test_python_chess_tricky_positions() -> None:
    wrong = [
        (fen, depth, nodes, got)
        for fen, depth, nodes in TRICKY_CASES
        if (got := perft(parse_fen(fen), depth)) != nodes
    ]
    assert wrong == []


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

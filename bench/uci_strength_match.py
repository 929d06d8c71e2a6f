"""``UCI_LimitStrength``'s scale against a reference: ``arena uci`` at several ``UCI_Elo``
settings against Stockfish at its own ``UCI_Elo`` (``--reference-elo``, 1350
by default: the lowest Debian's Stockfish 15.1 accepts), through python-chess.

Each band plays ``--games`` games (pairs from the same opening of
``OPENING_PLIES`` seeded random plies, colours swapped) at ``--movetime`` ms a
move for the reference and ``--our-movetime`` ms for ours (the same by
default). For a calibration give ours a generous time (``--our-movetime
10000``): then only the strength's depth and node caps end its searches and
the result does not depend on the machine's load; Stockfish's limited
strength picks its move at a fixed depth, which 100 ms reaches. A game
still on at ``MAX_PLIES`` plies is adjudicated on material (a side ahead by
``ADJUDICATE_PAWNS`` or more wins, else a draw: weak engines seldom finish a
won game in time). It prints our score per band with a 95% interval (normal
approximation over games), the Elo difference it implies and the load
average, and so places each band against the reference's rating
(``server/frontends/uci_strength.py`` holds the calibration made so).

With ``--self ELO`` the reference is this engine itself at ``UCI_Elo``
``ELO`` instead: the bands' spacing on their own scale.

Usage::

    python -m bench.uci_strength_match --elos 800 1400 2000 --games 10 --movetime 100
    python -m bench.uci_strength_match --reference-elo 1600 --elos 1600 --games 16 \
        --movetime 100 --our-movetime 10000
    python -m bench.uci_strength_match --self 800 --elos 1100 1400 2000 --games 10
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import sys
import time
from pathlib import Path

import chess
import chess.engine

OPENING_PLIES = 4
MAX_PLIES = 160
#: Material lead (pawns) that wins a game adjudicated at MAX_PLIES: a minor piece.
ADJUDICATE_PAWNS = 3
PIECE_PAWNS = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
#: Debian's Stockfish 15.1 accepts UCI_Elo from 1350.
REFERENCE_ELO = 1350
OURS = [sys.executable, "-m", "clients", "uci"]


def play_game(
    ours: chess.engine.SimpleEngine,
    reference: chess.engine.SimpleEngine,
    opening: list[chess.Move],
    ours_white: bool,
    movetime: float,
    our_movetime: float,
) -> float:
    """Our score in one game (1, 0.5 or 0)."""
    board = chess.Board()
    for move in opening:
        board.push(move)
    our_limit = chess.engine.Limit(time=our_movetime)
    reference_limit = chess.engine.Limit(time=movetime)
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        our_turn = (board.turn == chess.WHITE) == ours_white
        engine, limit = (ours, our_limit) if our_turn else (reference, reference_limit)
        chosen = engine.play(board, limit).move
        if chosen is None:
            raise RuntimeError(f"no move in a game that is not over: {board.fen()}")
        board.push(chosen)
    result = board.result(claim_draw=True)
    print(f"  {'white' if ours_white else 'black'}: {board.ply()} plies, {result}", flush=True)
    if result == "*":
        lead = material(board, ours_white)
        return 1.0 if lead >= ADJUDICATE_PAWNS else 0.0 if lead <= -ADJUDICATE_PAWNS else 0.5
    if result == "1/2-1/2":
        return 0.5
    white_won = result == "1-0"
    return 1.0 if white_won == ours_white else 0.0


def material(board: chess.Board, ours_white: bool) -> int:
    """Our material lead in pawns."""
    lead = 0
    for piece, pawns in PIECE_PAWNS.items():
        lead += pawns * (
            len(board.pieces(piece, chess.WHITE)) - len(board.pieces(piece, chess.BLACK))
        )
    return lead if ours_white else -lead


def random_opening(rng: random.Random) -> list[chess.Move]:
    board = chess.Board()
    moves = []
    for _ in range(OPENING_PLIES):
        move = rng.choice(list(board.legal_moves))
        board.push(move)
        moves.append(move)
    return moves


def elo_of(score: float) -> float:
    score = min(max(score, 0.001), 0.999)
    return -400 * math.log10(1 / score - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elos", type=int, nargs="+", default=[800, 1400, 2000])
    parser.add_argument("--games", type=int, default=10, help="games per band (even)")
    parser.add_argument("--movetime", type=int, default=100, help="ms a move (the reference)")
    parser.add_argument(
        "--our-movetime", type=int, default=None, help="ms a move for ours (default: --movetime)"
    )
    parser.add_argument(
        "--reference-elo", type=int, default=REFERENCE_ELO, help="Stockfish's UCI_Elo"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--self", type=int, default=None, help="reference: ours at this UCI_Elo")
    args = parser.parse_args()
    stockfish = shutil.which("stockfish") or "/usr/games/stockfish"
    if args.self is None and not Path(stockfish).exists():
        raise SystemExit("stockfish is not installed")
    rng = random.Random(args.seed)
    openings = [random_opening(rng) for _ in range(args.games // 2)]
    command = [stockfish] if args.self is None else OURS
    reference_elo = args.reference_elo if args.self is None else args.self
    name = f"Stockfish {reference_elo}" if args.self is None else f"ours at {args.self}"
    our_movetime = args.movetime if args.our_movetime is None else args.our_movetime
    with chess.engine.SimpleEngine.popen_uci(command, timeout=60) as reference:
        reference.configure({"UCI_LimitStrength": True, "UCI_Elo": reference_elo, "Threads": 1})
        for elo in args.elos:
            started = time.monotonic()
            scores: list[float] = []
            with chess.engine.SimpleEngine.popen_uci(OURS, timeout=60) as ours:
                ours.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Hash": 16})
                for opening in openings:
                    for ours_white in (True, False):
                        scores.append(
                            play_game(
                                ours,
                                reference,
                                opening,
                                ours_white,
                                args.movetime / 1000,
                                our_movetime / 1000,
                            )
                        )
            mean = sum(scores) / len(scores)
            spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, len(scores) - 1))
            half = 1.96 * spread / math.sqrt(len(scores))
            low, high = max(0.0, mean - half), min(1.0, mean + half)
            print(
                f"UCI_Elo {elo}: {sum(scores):.1f}/{len(scores)} = {mean:.2f} "
                f"[{low:.2f}, {high:.2f}] against {name}: "
                f"{elo_of(mean):+.0f} Elo [{elo_of(low):+.0f}, {elo_of(high):+.0f}] "
                f"({time.monotonic() - started:.0f} s, load average "
                f"{' '.join(f'{load:.1f}' for load in os.getloadavg())})",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Chess benchmark: perft speed, search speed and strength against sunfish.

Run from the repository root (sunfish and python-chess are bench/test
dependencies; the reference data lives in ../shared/refdata)::

    python -m bench.chess_bench perft [--depth 5]
    python -m bench.chess_bench nps [--seconds 1] [--limit 20]
    python -m bench.chess_bench depth [--search-depth 8] [--rounds 3]
    python -m bench.chess_bench wac [--seconds 1] [--limit N] [--engine ours|sunfish|both]
    python -m bench.chess_bench match [--games 32] [--movetime-ms 100]
    python -m bench.chess_bench all

Sunfish (Thomas Ahle's pure-Python engine, PyPI ``sunfish``) is driven
through its ``Searcher.search`` generator the way its own UCI loop drives
it: a hard deadline inside the search (``Searcher.deadline``), no new
iteration after the soft one (``Searcher.soft``), and the move of the last
completed depth when the deadline cuts an iteration short. Both engines get
the same wall-clock time per move and run in this one process, one after
the other. Node counts are each engine's own: every node the search
visits, quiescence included.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import IllegalMoveError
from engine.games.chess import Chess
from engine.games.chess.notation import format_uci
from engine.games.chess.position import Position, perft, play
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits, plan_deadlines
from engine.search.request import SearchRequest

REFDATA = Path(__file__).resolve().parents[1].parent / "shared" / "refdata" / "chess"

#: Perft positions (Chess Programming Wiki "Perft Results"), expected counts
#: by depth, and the depth the benchmark runs (a few seconds each).
PERFT_POSITIONS = (
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        (20, 400, 8902, 197281, 4865609, 119060324),
        5,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        (48, 2039, 97862, 4085603, 193690690),
        4,
    ),
    (
        "position 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        (14, 191, 2812, 43238, 674624, 11030083),
        5,
    ),
)

#: Opening lines for the match (UCI), each played twice with colours
#: swapped. Common openings typed in by hand: Ruy Lopez, Italian, Sicilian
#: (Najdorf, Dragon), French, Caro-Kann, Queen's Gambit Declined, Slav, King's
#: Indian, Nimzo-Indian, English, Scandinavian, Pirc, Dutch, London, Scotch.
OPENINGS = (
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 g7g6",
    "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6",
    "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6",
    "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6",
    "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6",
    "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4",
    "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6",
    "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5",
    "e2e4 d7d6 d2d4 g8f6 b1c3 g7g6",
    "d2d4 f7f5 g2g3 g8f6 f1g2 e7e6",
    "d2d4 d7d5 c1f4 g8f6 e2e3 c7c5",
    "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4",
)

#: A game still going after this many plies is scored a draw.
MAX_GAME_PLIES = 240


# ----------------------------------------------------------------------
# Sunfish adapter.


def _sunfish() -> Any:
    try:
        import sunfish  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - bench dependency
        sys.exit("sunfish is not installed: pip install sunfish")
    return sunfish


def sunfish_position(fen: str) -> Any:
    """The FEN as a sunfish position (sunfish rotates the board for Black to move)."""
    sunfish = _sunfish()
    fields = fen.split()
    rows = []
    for rank_text in fields[0].split("/"):
        row = "".join("." * int(c) if c.isdigit() else c for c in rank_text)
        rows.append(" " + row + "\n")
    board = " " * 9 + "\n" + " " * 9 + "\n" + "".join(rows) + (" " * 9 + "\n") * 2
    castling = fields[2]
    white_rights = ("Q" in castling, "K" in castling)
    black_rights = ("k" in castling, "q" in castling)
    ep = sunfish.parse(fields[3]) if fields[3] != "-" else 0
    score = 0
    for square, piece in enumerate(board):
        if piece.isupper():
            score += sunfish.pst[piece][square]
        elif piece.islower():
            score -= sunfish.pst[piece.upper()][119 - square]
    position = sunfish.Position(board, score, white_rights, black_rights, ep, 0)
    return position if fields[1] == "w" else position.rotate()


@dataclass
class EngineAnswer:
    move: str
    nodes: int
    seconds: float
    depth: int


def sunfish_think(history_fens: list[str], seconds: float) -> EngineAnswer:
    """Sunfish's move (UCI) for the last position of ``history_fens``."""
    sunfish = _sunfish()
    white_to_move = history_fens[-1].split()[1] == "w"
    history = [sunfish_position(fen) for fen in history_fens]
    searcher = sunfish.Searcher()
    start = time.time()
    searcher.deadline = start + seconds
    searcher.soft = start + seconds
    best = candidate = None
    completed_depth = depth_reached = 1
    try:
        for depth, gamma, score, move in searcher.search(history):
            if depth > completed_depth:
                best, completed_depth = candidate or best, depth
            depth_reached = depth
            if score >= gamma and move is not None:
                candidate = move
    except sunfish.Stop:
        candidate = best or candidate
    elapsed = time.time() - start
    chosen = candidate or best
    if chosen is None:
        return EngineAnswer("", searcher.nodes, elapsed, depth_reached)
    i, j = chosen.i, chosen.j
    if not white_to_move:
        i, j = 119 - i, 119 - j
    text = sunfish.render(i) + sunfish.render(j) + chosen.prom.lower()
    return EngineAnswer(text, searcher.nodes, elapsed, completed_depth)


def ours_think(searcher: Searcher, state: Position, seconds: float) -> EngineAnswer:
    start = time.monotonic()
    limits = Limits(movetime_ms=int(seconds * 1000))
    result = searcher.think(SearchRequest(state, limits, deadlines=plan_deadlines(limits, start)))
    return EngineAnswer(
        result.move or "", result.info.nodes, time.monotonic() - start, result.info.depth
    )


# ----------------------------------------------------------------------
# Perft.


def run_perft(max_depth: int) -> None:
    game = Chess()
    print(f"perft (bulk counting: the last ply is counted, not played), depth <= {max_depth}")
    total_nodes = 0
    total_seconds = 0.0
    for name, fen, counts, depth in PERFT_POSITIONS:
        plies = min(depth, max_depth)
        state = game.parse_position(fen)
        start = time.perf_counter()
        nodes = perft(state, plies)
        seconds = time.perf_counter() - start
        status = "ok" if nodes == counts[plies - 1] else f"WRONG (expected {counts[plies - 1]})"
        print(
            f"  {name:11s} depth {plies}: {nodes:>10,d} nodes {seconds:6.2f} s "
            f"{nodes / seconds:>9,.0f} nodes/s  {status}"
        )
        total_nodes += nodes
        total_seconds += seconds
    print(
        f"  total {total_nodes:,d} nodes in {total_seconds:.2f} s: "
        f"{total_nodes / total_seconds:,.0f} nodes/s"
    )
    # Without bulk counting every leaf is made too: the speed of play().
    state = game.parse_position(PERFT_POSITIONS[1][1])
    start = time.perf_counter()
    nodes = _perft_made(state, 3)
    seconds = time.perf_counter() - start
    print(
        f"  kiwipete depth 3 making every leaf: {nodes:,d} nodes {seconds:.2f} s "
        f"{nodes / seconds:,.0f} nodes/s"
    )


def _perft_made(state: Position, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(_perft_made(play(state, move), depth - 1) for move in state.legal_moves())


# ----------------------------------------------------------------------
# EPD test suites.


@dataclass(frozen=True)
class EpdPosition:
    fen: str
    best_moves: tuple[str, ...]
    name: str


def read_epd(path: Path) -> list[EpdPosition]:
    positions = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        board, side, castling, ep, rest = line.split(maxsplit=4)
        operations = {}
        for operation in rest.split(";"):
            opcode, _, operand = operation.strip().partition(" ")
            if opcode:
                operations[opcode] = operand
        positions.append(
            EpdPosition(
                f"{board} {side} {castling} {ep} 0 1",
                tuple(operations.get("bm", "").split()),
                operations.get("id", "").strip('"'),
            )
        )
    return positions


def _best_moves_uci(game: Chess, state: Position, best_moves: tuple[str, ...]) -> set[str]:
    answers = set()
    for san in best_moves:
        try:
            answers.add(format_uci(game.parse_move(state, san)))
        except IllegalMoveError:
            print(f"    (cannot read best move {san!r})")
    return answers


def run_wac(seconds: float, limit: int | None, engines: list[str], skip: int = 0) -> None:
    path = REFDATA / "wac.epd"
    if not path.exists():
        sys.exit(f"WAC not found at {path}")
    positions = read_epd(path)[skip:]
    if limit is not None:
        positions = positions[:limit]
    game = Chess()
    print(
        f"WAC: {len(positions)} positions (from #{skip + 1}) at {seconds} s each; "
        f"the engines take turns position by position, so both see the same machine load"
    )
    solved = dict.fromkeys(engines, 0)
    nodes = dict.fromkeys(engines, 0)
    spent = dict.fromkeys(engines, 0.0)
    missed: dict[str, list[str]] = {engine: [] for engine in engines}
    searcher = Searcher(game)
    for position in positions:
        state = game.parse_position(position.fen)
        answers = _best_moves_uci(game, state, position.best_moves)
        for engine in engines:
            if engine == "ours":
                searcher.tt.clear()
                answer = ours_think(searcher, state, seconds)
            else:
                answer = sunfish_think([position.fen], seconds)
            nodes[engine] += answer.nodes
            spent[engine] += answer.seconds
            if answer.move in answers:
                solved[engine] += 1
            else:
                missed[engine].append(position.name)
    for engine in engines:
        print(
            f"  {engine:8s} solved {solved[engine]}/{len(positions)}  "
            f"({nodes[engine] / spent[engine]:,.0f} nodes/s over {spent[engine]:.0f} s)"
        )
        print(f"    missed: {' '.join(missed[engine])}")
    sys.stdout.flush()


# ----------------------------------------------------------------------
# Search speed.


def run_nps(seconds: float, limit: int) -> None:
    path = REFDATA / "wac.epd"
    fens = [p.fen for p in read_epd(path)[:limit]] if path.exists() else []
    fens += [fen for _, fen, _, _ in PERFT_POSITIONS[:2]]
    game = Chess()
    totals = {"ours": [0, 0.0], "sunfish": [0, 0.0]}
    for fen in fens:
        searcher = Searcher(game)
        ours = ours_think(searcher, game.parse_position(fen), seconds)
        theirs = sunfish_think([fen], seconds)
        for name, answer in (("ours", ours), ("sunfish", theirs)):
            totals[name][0] += answer.nodes
            totals[name][1] += answer.seconds
    print(
        f"search speed on {len(fens)} positions (WAC #1-{limit} and two perft positions), "
        f"{seconds} s each:"
    )
    for name, (nodes, spent) in totals.items():
        print(f"  {name:8s} {nodes:>10,d} nodes in {spent:6.1f} s: {nodes / spent:>8,.0f} nodes/s")


#: Positions of the time-to-depth measure (``depth``): an open game, a
#: tactical middle game (kiwipete), a closed one, two endgames.
DEPTH_POSITIONS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "2r3k1/5pp1/p3p2p/1p1pP3/3P1P2/P1r3P1/1R4KP/1R6 w - - 0 30",
)


def run_depth(depth: int, rounds: int) -> None:
    """Time to depth: each position searched to ``depth`` by a fresh searcher.

    A change to the search that saves nodes may cost time per node; what a
    timed game gets is the time to reach a depth. The time is this
    process's CPU time (``time.process_time``), so that other work on the
    machine weighs less; each position's least time over ``rounds`` runs is
    kept (the search is deterministic: the same nodes each run).
    """
    import engine

    game = Chess()
    print(f"time to depth {depth} ({engine.ENGINE_BUILD} engine), least of {rounds} runs:")
    total_nodes = 0
    total_seconds = 0.0
    for fen in DEPTH_POSITIONS:
        state = game.parse_position(fen)
        best = math.inf
        nodes = 0
        move = None
        for _ in range(rounds):
            searcher = Searcher(game)
            started = time.process_time()
            result = searcher.think(SearchRequest(state, Limits(depth=depth)))
            best = min(best, time.process_time() - started)
            nodes, move = result.info.nodes, result.move
        total_nodes += nodes
        total_seconds += best
        print(f"  {move:6s} {nodes:>9,d} nodes {best:6.2f} s  {fen}")
    print(
        f"  total {total_nodes:,d} nodes in {total_seconds:.2f} s: "
        f"{total_nodes / total_seconds:,.0f} nodes/s"
    )


# ----------------------------------------------------------------------
# Match.


@dataclass
class MatchClock:
    """Time each engine really used, and on how many moves."""

    seconds: dict[str, float]
    moves: dict[str, int]

    def charge(self, engine: str, answer: EngineAnswer) -> None:
        self.seconds[engine] += answer.seconds
        self.moves[engine] += 1

    def average_ms(self, engine: str) -> float:
        return 1000 * self.seconds[engine] / max(1, self.moves[engine])


def _play_game(
    opening: str, ours_white: bool, seconds: float, clock: MatchClock
) -> tuple[float, str]:
    """Play one game; return our score (1, 0.5, 0) and how it ended."""
    game = Chess()
    state = game.initial_state()
    fens = [game.format_position(state)]
    for text in opening.split():
        state = game.play(state, game.parse_move(state, text))
        fens.append(game.format_position(state))
    searcher = Searcher(game)
    for _ in range(MAX_GAME_PLIES):
        outcome = game.outcome(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0.5, outcome.reason
            we_won = (outcome.winner == 0) == ours_white
            return (1.0 if we_won else 0.0), outcome.reason
        our_turn = (state.turn == 0) == ours_white
        answer = ours_think(searcher, state, seconds) if our_turn else sunfish_think(fens, seconds)
        clock.charge("ours" if our_turn else "sunfish", answer)
        move_text = answer.move
        try:
            move = game.parse_move(state, move_text)
        except IllegalMoveError:
            who = "ours" if our_turn else "sunfish"
            print(f"    illegal move {move_text!r} by {who} in {fens[-1]}")
            return (0.0 if our_turn else 1.0), "illegal move"
        state = game.play(state, move)
        fens.append(game.format_position(state))
    return 0.5, f"adjudicated a draw after {MAX_GAME_PLIES} plies"


def elo_difference(score: float) -> float:
    """Elo difference implied by a score share (logistic model)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def run_match(games: int, seconds: float, seed: int) -> None:
    rng = random.Random(seed)
    openings = list(OPENINGS)
    rng.shuffle(openings)
    pairs = (games + 1) // 2
    print(
        f"match: ours vs sunfish, {2 * pairs} games, {seconds * 1000:.0f} ms per move, "
        f"{min(pairs, len(openings))} openings with colours swapped"
    )
    points = 0.0
    played = 0
    wins = draws = losses = 0
    clock = MatchClock({"ours": 0.0, "sunfish": 0.0}, {"ours": 0, "sunfish": 0})
    for index in range(pairs):
        opening = openings[index % len(openings)]
        for ours_white in (True, False):
            score, reason = _play_game(opening, ours_white, seconds, clock)
            points += score
            played += 1
            wins += score == 1.0
            draws += score == 0.5
            losses += score == 0.0
            colour = "white" if ours_white else "black"
            print(f"  game {played:2d} ({opening[:23]:23s}, ours {colour}): {score} ({reason})")
            sys.stdout.flush()
    share = points / played
    # Standard error of the score share from the per-game results.
    variance = (wins * (1 - share) ** 2 + draws * (0.5 - share) ** 2 + losses * share**2) / played
    margin = 1.96 * math.sqrt(variance / played)
    low, high = elo_difference(share - margin), elo_difference(share + margin)
    print(
        f"  result: +{wins} ={draws} -{losses}, {points}/{played} = {share:.1%}, "
        f"Elo difference {elo_difference(share):+.0f} (95% interval {low:+.0f} to {high:+.0f})"
    )
    print(
        f"  time really used per move: ours {clock.average_ms('ours'):.0f} ms, "
        f"sunfish {clock.average_ms('sunfish'):.0f} ms"
    )


# ----------------------------------------------------------------------


def _commands() -> dict[str, Callable[[argparse.Namespace], None]]:
    return {
        "perft": lambda a: run_perft(a.depth),
        "nps": lambda a: run_nps(a.seconds, a.limit or 20),
        "depth": lambda a: run_depth(a.search_depth, a.rounds),
        "wac": lambda a: run_wac(a.seconds, a.limit, _engines(a.engine), a.skip),
        "match": lambda a: run_match(a.games, a.movetime_ms / 1000, a.seed),
        "all": _run_all,
    }


def _engines(choice: str) -> list[str]:
    return ["ours", "sunfish"] if choice == "both" else [choice]


def _run_all(args: argparse.Namespace) -> None:
    run_perft(args.depth)
    run_nps(args.seconds, args.limit or 20)
    for seconds in (1.0, 0.1):
        run_wac(seconds, args.limit, ["ours", "sunfish"])
    run_match(args.games, args.movetime_ms / 1000, args.seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=sorted(_commands()))
    parser.add_argument("--depth", type=int, default=5, help="perft depth at most (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per position")
    parser.add_argument("--search-depth", type=int, default=8, help="depth: the depth to reach")
    parser.add_argument("--rounds", type=int, default=3, help="depth: runs of each position")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--skip", type=int, default=0, help="WAC: skip the first N positions")
    parser.add_argument("--engine", choices=("ours", "sunfish", "both"), default="both")
    parser.add_argument("--games", type=int, default=32, help="match games (default 32)")
    parser.add_argument("--movetime-ms", type=int, default=100, help="match time per move")
    parser.add_argument("--seed", type=int, default=1, help="opening order seed")
    args = parser.parse_args(argv)
    _commands()[args.command](args)


if __name__ == "__main__":
    main()

"""``arena uci``'s analysis options through python-chess: MultiPV, Threads, UCI_ShowWDL,
UCI_LimitStrength/UCI_Elo, ``go mate``, ``go searchmoves`` and the warm ``isready``."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import chess
import chess.engine
import pytest

from engine.search.results import Info
from engine.search.score import Score
from server.frontends.uci import _Search, closing_lines, final_lines
from server.frontends.uci_protocol import UciProtocol, info_line
from server.frontends.uci_strength import (
    CALIBRATION,
    DEFAULT_ELO,
    MAX_ELO,
    MIN_ELO,
    STRENGTH_LINES,
    choose,
    level_for,
    strength_for,
)
from server.frontends.uci_wdl import wdl
from tests.server.test_uci import COMMAND
from tests.timing import UNIT

#: A mate in 2 (1. Qd8+ Bxd8 2. Re8#), checked with Stockfish's ``go mate 2``.
MATE_IN_2 = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1"
#: Scholar's mate to be given: Qxf7# is the best move, by far.
SCHOLAR = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"


@pytest.fixture(scope="module", autouse=True)
def restore_event_loop_policy() -> Iterator[None]:
    """python-chess installs its own event loop policy (see tests/server/test_uci.py)."""
    policy = asyncio.get_event_loop_policy()
    yield
    asyncio.set_event_loop_policy(policy)


@pytest.fixture
def engine() -> Iterator[chess.engine.SimpleEngine]:
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=60 * UNIT) as uci:
        uci.configure({"Hash": 8})
        yield uci


# ----------------------------------------------------------------------
# Without a process.


def test_options_are_announced_and_checked() -> None:
    uci = UciProtocol()
    lines = uci.execute("uci").lines
    for option in ("Threads", "MultiPV", "UCI_ShowWDL", "UCI_LimitStrength", "UCI_Elo"):
        assert any(line.startswith(f"option name {option} type") for line in lines), option
    assert uci.execute("setoption name Threads value 1").lines == []
    assert "Threads stays 1" in uci.execute("setoption name Threads value 4").lines[0]
    assert uci.execute("setoption name MultiPV value 3").lines == [] and uci.options.multipv == 3
    assert "MultiPV is a number" in uci.execute("setoption name MultiPV value 0").lines[0]
    assert uci.execute("setoption name UCI_ShowWDL value true").lines == []
    assert uci.options.show_wdl
    assert "true or false" in uci.execute("setoption name UCI_ShowWDL value yes").lines[0]
    assert "UCI_Elo is a number" in uci.execute("setoption name UCI_Elo value 5000").lines[0]
    order = uci.execute("go depth 3").search
    assert order is not None and (order.multipv, order.shown, order.strength) == (3, 3, None)


def test_limit_strength_caps_the_go_and_searches_lines_to_choose_from() -> None:
    uci = UciProtocol()
    uci.execute("setoption name UCI_LimitStrength value true")
    uci.execute(f"setoption name UCI_Elo value {MIN_ELO}")
    order = uci.execute("go movetime 5000 depth 9").search
    assert order is not None and order.strength is not None
    assert order.limits.depth == 1 and order.limits.nodes == order.strength.nodes
    assert (order.multipv, order.shown) == (STRENGTH_LINES, 1)


def test_the_strength_scale_grows_with_the_elo() -> None:
    scale = [strength_for(elo) for elo in [*range(MIN_ELO, MAX_ELO, 25), MAX_ELO]]
    for weaker, stronger in itertools.pairwise(scale):
        assert weaker.level < stronger.level and weaker.nodes < stronger.nodes
        assert weaker.depth <= stronger.depth and weaker.noise_cp >= stronger.noise_cp
    assert scale[-1].noise_cp == 0 and strength_for(99_999) == scale[-1]


def test_the_calibration_is_monotone_and_covers_the_documented_range() -> None:
    elos = [elo for elo, _ in CALIBRATION]
    levels = [level for _, level in CALIBRATION]
    assert elos == sorted(set(elos)) and levels == sorted(set(levels))
    assert (levels[0], levels[-1]) == (0.0, 1.0)
    assert (level_for(MIN_ELO), level_for(MAX_ELO)) == (0.0, 1.0)
    assert level_for(MIN_ELO - 500) == 0.0 and level_for(MAX_ELO + 500) == 1.0
    # Each knot's UCI_Elo plays exactly its measured level (the docstring's table).
    assert all(level_for(elo) == level for elo, level in CALIBRATION)
    assert MIN_ELO <= DEFAULT_ELO <= MAX_ELO
    # The range the README and the UCI option announce is the calibrated one.
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"`UCI_Elo` {MIN_ELO}-{MAX_ELO}" in readme
    announced = f"option name UCI_Elo type spin default {DEFAULT_ELO} min {MIN_ELO} max {MAX_ELO}"
    assert announced in UciProtocol().execute("uci").lines


def test_noise_never_gives_away_a_mate_and_no_noise_plays_the_best() -> None:
    def line(move: str, score: Score, rank: int) -> Info:
        return Info(3, 3, score, (move,), 1, 1, 1, 0.0, multipv=rank)

    lines = [line("a", Score(win_in=3), 1), line("b", Score(value=500), 2)]
    rng = random.Random(1)
    assert all(choose(lines, 300, rng) == "a" for _ in range(200))
    close = [line("a", Score(value=10), 1), line("b", Score(value=5), 2)]
    assert choose(close, 0, rng) == "a"
    assert {choose(close, 300, rng) for _ in range(200)} == {"a", "b"}


def test_wdl_model_adds_up_and_is_certain_when_proven() -> None:
    for cp in (-2000, -300, -100, 0, 37, 100, 250, 5000):
        win, draw, loss = wdl(Score(value=cp))
        assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
    assert wdl(Score(value=100))[0] == 500  # one pawn: an even chance of winning
    assert wdl(Score(win_in=5)) == (1000, 0, 0) and wdl(Score(draw=True)) == (0, 1000, 0)
    info = Info(4, 6, Score(value=0), ("e2e4",), 10, 1, 10, 0.0, multipv=2)
    assert " multipv 2 score cp 0 wdl 159 682 159 nodes" in info_line(info, show_wdl=True)


def test_a_report_inside_an_unfinished_iteration_is_a_lower_bound() -> None:
    """The last note's known gap: a new best move reported before its
    iteration ended (the other moves not all searched) was shown as the
    root's exact score; it is a lower bound, said as Stockfish says it."""
    done = Info(5, 7, Score(value=30), ("e2e4",), 900, 10, 90_000, 0.0)
    assert "score cp 30 nodes" in info_line(done)
    partial = replace(done, depth=6, partial=True)
    assert "score cp 30 lowerbound nodes" in info_line(partial)
    assert "score cp 30 lowerbound wdl " in info_line(partial, show_wdl=True)


def test_go_mate_is_a_depth_of_2n_minus_1_and_searchmoves_end_at_a_go_word() -> None:
    uci = UciProtocol()
    order = uci.execute("go mate 3").search
    assert order is not None and order.limits.depth == 5
    order = uci.execute("go searchmoves e2e4 d2d4 movetime 100").search
    assert order is not None and order.searchmoves == ("e2e4", "d2d4")
    assert order.limits.movetime_ms is not None


def test_draws_to_claim_are_played_on_and_a_refused_position_is_no_position() -> None:
    # The review of 2026-12-07: after a threefold repetition (a draw to
    # claim, FIDE 9.2) the engine answered bestmove (none), refused every
    # later position, and the next go searched the position before it.
    uci = UciProtocol()
    knights = "g1f3 g8f6 f3g1 f6g8 " * 2
    assert uci.execute(f"position startpos moves {knights}").lines == []
    reaction = uci.execute("go depth 2")
    order = reaction.search
    assert order is not None and uci.game.outcome(order.state) is None
    assert reaction.lines == [
        "info string threefold repetition: a draw the GUI may claim; searching on"
    ]
    assert uci.execute(f"position startpos moves {knights} e2e4").lines == []  # played on
    uci.execute("position fen 7k/8/8/8/8/8/1R6/K7 w - - 100 80 moves b2b3")  # fifty moves
    order = uci.execute("go depth 2").search
    assert order is not None and order.state.halfmove == 99
    uci.execute("position fen 7k/8/8/8/8/8/8/KB3b2 w - - 0 1")  # dead: no search
    dead = uci.execute("go depth 2")
    assert dead.search is not None and dead.search.settled == "a1a2"  # answered unsearched
    refused = uci.execute("position startpos moves e2e5")
    assert refused.lines[0].startswith("info string position refused: move 1 (e2e5)")
    answer = uci.execute("go movetime 100")
    assert answer.search is None and answer.lines[-1] == "bestmove (none)"
    uci.execute("position startpos")
    assert uci.execute("go depth 1").search is not None


# ----------------------------------------------------------------------
# The process, through python-chess.


def test_play_goes_on_after_a_repetition_no_one_claimed(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(move)
    assert board.can_claim_threefold_repetition() and not board.is_game_over()
    played = engine.play(board, chess.engine.Limit(depth=2)).move
    assert played is not None and played in board.legal_moves
    board.push(played)
    assert engine.play(board, chess.engine.Limit(depth=2)).move in board.legal_moves


def test_analyse_with_multipv_3(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board(SCHOLAR)
    infos = engine.analyse(board, chess.engine.Limit(depth=2), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    moves = [info["pv"][0] for info in infos]
    assert len(set(moves)) == 3 and all(move in board.legal_moves for move in moves)
    assert moves[0] == chess.Move.from_uci("f3f7") and infos[0]["score"].relative.mate() == 1
    scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
    assert scores == sorted(scores, reverse=True)
    # python-chess sets MultiPV back to 1 for play: line 1's move.
    assert engine.play(board, chess.engine.Limit(depth=2)).move == chess.Move.from_uci("f3f7")


def test_the_last_lines_of_a_cut_multipv_search_name_distinct_moves() -> None:
    # The review of 2026-12-07: `go movetime 800` with MultiPV 3 ended on line 1
    # of depth 7 (b1c3) after lines 1-3 of depth 6 (f1b5, b1c3, ...): the last
    # report of each line named b1c3 twice. The lines not searched again keep
    # their earlier word, each root move once.
    def line(depth: int, rank: int, move: str) -> Info:
        return Info(depth, depth, Score(value=10 - rank), (move,), 1, 1, 1, 0.0, multipv=rank)

    by_depth = {
        6: {1: line(6, 1, "f1b5"), 2: line(6, 2, "b1c3"), 3: line(6, 3, "d2d4")},
        7: {1: line(7, 1, "b1c3")},
    }
    final = final_lines(by_depth, 3)
    assert [(info.depth, info.pv[0]) for info in final] == [(7, "b1c3"), (6, "f1b5"), (6, "d2d4")]
    assert final_lines({6: by_depth[6]}, 2) == [by_depth[6][1], by_depth[6][2]]
    # The answer's own line first: an unfinished depth 7 had found d2d4.
    found = line(6, 1, "d2d4")
    final = final_lines({6: by_depth[6]}, 3, found)
    assert [info.pv[0] for info in final] == ["d2d4", "f1b5", "b1c3"]


def test_a_stopped_multipv_search_never_goes_back_in_depth_nodes_or_time() -> None:
    """A review of 2026-12-07 (MultiPV 3, go infinite, stop): depth 11's line 2
    (g1f3, written while depth 11 was unfinished) was followed after stop by
    "depth 10 multipv 2 nodes 316948 time 692 pv e2e4", older in depth,
    nodes and time than the line before it."""

    def line(depth: int, rank: int, move: str, nodes: int, partial: bool = False) -> Info:
        score = Score(value=30 - rank)
        return Info(
            depth, depth, score, (move,), nodes, nodes // 450, 450_000, 0.0, partial, 0, 0, rank
        )

    depth10 = {
        1: line(10, 1, "b1c3", 300_000),
        2: line(10, 2, "e2e4", 316_948),
        3: line(10, 3, "g1f3", 320_000),
    }
    depth11 = {1: line(11, 1, "b1c3", 600_000), 2: line(11, 2, "g1f3", 665_609, partial=True)}
    written = {1: depth11[1], 2: depth11[2], 3: depth10[3]}
    order = SimpleNamespace(shown=3)
    search = SimpleNamespace(
        by_depth={10: depth10, 11: depth11}, order=order, nodes_shown=665_609, written=written
    )
    final = replace(depth11[1], nodes=700_000, time_ms=1_600, nps=437_500)
    lines = closing_lines(cast(_Search, search), final)
    # Line 1 counts the nodes since; line 2 stays depth 11's g1f3 (not
    # written again); line 3 is the next move, e2e4, at the answer's totals.
    assert [(info.multipv, info.depth, info.pv[0]) for info in lines] == [
        (1, 11, "b1c3"),
        (3, 10, "e2e4"),
    ]
    assert all((info.nodes, info.time_ms) == (700_000, 1_600) for info in lines)


def test_analyse_with_multipv_cut_by_nodes_keeps_the_best_lines(
    engine: chess.engine.SimpleEngine,
) -> None:
    # 30,000 nodes cut depth 7 after it had found d2d4 over depth 6's b1c3:
    # the lines were d2d4, then depth 6's lines 2 and 3, b1c3 left out.
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    best = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    cut = engine.analyse(board, chess.engine.Limit(nodes=30000), multipv=3)
    moves = [info["pv"][0] for info in cut]
    assert len(set(moves)) == 3, moves
    if moves[0] != best[0]["pv"][0]:  # a deeper iteration changed its mind
        assert moves[1] == best[0]["pv"][0], (moves, best)


def test_threads_wdl_and_limited_strength(engine: chess.engine.SimpleEngine) -> None:
    assert engine.options["Threads"].max == 1
    with pytest.raises(chess.engine.EngineError):
        engine.configure({"Threads": 2})  # python-chess checks the announced range
    engine.configure({"Threads": 1, "UCI_ShowWDL": True})
    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=2))
    assert "wdl" in info and sum(info["wdl"].relative) == 1000
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": MIN_ELO})
    board = chess.Board()
    for _ in range(6):
        result = engine.play(board, chess.engine.Limit(time=1.0), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves
        assert result.info.get("depth", 0) <= strength_for(MIN_ELO).depth
        board.push(result.move)
    # The mate is never given away, whatever the noise.
    mate = engine.play(chess.Board(SCHOLAR), chess.engine.Limit(time=1.0))
    assert mate.move == chess.Move.from_uci("f3f7")


def test_go_mate_finds_the_mate_in_2(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board(MATE_IN_2)
    info = engine.analyse(board, chess.engine.Limit(mate=2))
    assert info["score"].relative.mate() == 2
    assert info["pv"][0] == chess.Move.from_uci("d5d8")


def test_searchmoves_restrict_the_answer(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board(SCHOLAR)
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("b1c3")]
    result = engine.play(board, chess.engine.Limit(depth=2), root_moves=only)
    assert result.move in only  # Qxf7# is not among them
    infos = engine.analyse(board, chess.engine.Limit(depth=2), multipv=3, root_moves=only)
    assert len(infos) == 2 and {info["pv"][0] for info in infos} == set(only)


def test_the_first_go_after_isready_answers_on_time(engine: chess.engine.SimpleEngine) -> None:
    """isready warms the search process: the first go is charged for searching only."""
    engine.ping()  # isready: the worker starts (for Hash) and runs the warm-up search
    board = chess.Board()
    started = time.monotonic()
    result = engine.play(board, chess.engine.Limit(time=0.2))
    spent = time.monotonic() - started
    assert result.move in board.legal_moves
    assert spent < 0.2 + 0.1 * UNIT

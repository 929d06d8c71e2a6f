"""``arena uci``: the UCI commands without I/O, then the engine driven by python-chess."""

from __future__ import annotations

import asyncio
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest

from engine.search.limits import Clock, Limits
from engine.search.score import Score
from server.frontends.uci_protocol import (
    DEFAULT_MOVE_OVERHEAD_MS,
    STARTPOS,
    Options,
    UciProtocol,
    score_words,
)
from tests.timing import UNIT

COMMAND = [sys.executable, "-m", "clients", "uci"]
STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
)


@pytest.fixture(scope="module", autouse=True)
def restore_event_loop_policy() -> Iterator[None]:
    """python-chess installs its own event loop policy for the whole process
    (chess.engine.run_in_background); later tests (Playwright's subprocesses)
    need asyncio's own back, with its child watcher."""
    policy = asyncio.get_event_loop_policy()
    yield
    asyncio.set_event_loop_policy(policy)


# ----------------------------------------------------------------------
# The protocol, without a process.


def test_uci_announces_id_and_options_then_uciok() -> None:
    lines = UciProtocol().execute("uci").lines
    assert lines[0].startswith("id name alphabeta-arena ") and lines[-1] == "uciok"
    assert any(line.startswith("option name Hash type spin") for line in lines)
    assert any(line.startswith("option name Move Overhead type spin") for line in lines)


def test_position_with_moves_and_a_bad_one_is_refused_and_no_move_is_searched() -> None:
    uci = UciProtocol()
    assert uci.execute("position startpos moves e2e4 e7e5 g1f3").lines == []
    after = uci.game.format_position(uci.state)
    assert after.startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b")
    refused = uci.execute("position startpos moves e2e4 e2e4").lines
    assert refused and "move 2 (e2e4)" in refused[0] and refused[0].startswith("info string")
    # Not the position before it: a go answers no move (the review of 2026-12-07).
    assert uci.execute("go depth 1").lines[-1] == "bestmove (none)"
    uci.execute("position fen 8/8/8/8/8/8/k7/7K w - - 0 1")
    assert uci.game.format_position(uci.state).startswith("8/8/8/8/8/8/k7/7K w")
    refused = uci.execute("position fen not a fen").lines
    assert refused[0].startswith("info string position refused")
    uci.execute("ucinewgame")
    assert uci.game.format_position(uci.state) == STARTPOS


def test_go_reads_the_clock_of_the_side_to_move_less_the_overhead() -> None:
    uci = UciProtocol()
    uci.execute("position startpos moves e2e4")  # black to move
    order = uci.execute("go wtime 60000 btime 30000 winc 1000 binc 500 movestogo 20").search
    assert order is not None
    # The other side's clock goes with it (a UCI program behind the server is
    # told both, as cutechess tells them).
    assert order.limits == Limits(
        clock=Clock(30000 - DEFAULT_MOVE_OVERHEAD_MS, 500, 20, opponent_ms=60000)
    )
    # A movetime loses the overhead too (README): the answer is due within it.
    timed = uci.execute("go movetime 200").search
    assert timed is not None and timed.limits == Limits(200 - DEFAULT_MOVE_OVERHEAD_MS)
    uci.execute("setoption name Move Overhead value 0")
    fixed = uci.execute("go movetime 250 depth 9 nodes 1000").search
    assert fixed is not None and fixed.limits == Limits(250, 9, 1000)
    infinite = uci.execute("go infinite").search
    assert infinite is not None and infinite.limits == Limits()
    # What go cannot read is skipped with a note and the rest is searched, as
    # UCI asks: every go gets its bestmove (a review, 2026-12-07, saw "go
    # wtime 1000 btime 1000 foo 3", "go wtime 1000.5 ..." and "go perft 2"
    # answered by a note and no bestmove ever).
    soon = uci.execute("go movetime soon")
    assert soon.lines == ["info string go: movetime needs a whole number, not 'soon': ignored"]
    assert soon.search is not None and soon.search.limits == Limits()
    foo = uci.execute("go wtime 1000 btime 1000 foo 3")
    assert foo.lines == ["info string go: unknown word 'foo 3' ignored"]
    assert foo.search is not None and foo.search.limits == Limits(clock=Clock(1000, 0, None, 1000))
    half = uci.execute("go wtime 1000.5 btime 1000").search
    assert half is not None and half.limits == Limits(clock=Clock(1000, 0, None, 1000))
    perft = uci.execute("go perft 2 depth 3")
    assert perft.lines == ["info string go: unknown word 'perft 2' ignored"]
    assert perft.search is not None and perft.search.limits == Limits(depth=3)
    last = uci.execute("go depth")
    assert last.lines == ["info string go: depth needs a whole number, not nothing: ignored"]
    searchmoves = uci.execute("go depth 2 searchmoves e7e5 d7d5 e2e4")
    assert searchmoves.search is not None and searchmoves.search.searchmoves == ("e7e5", "d7d5")
    assert "e2e4 is not a legal move" in searchmoves.lines[0]


def test_go_with_only_the_other_sides_clock_is_timed_by_it() -> None:
    # `go btime 1000` with White to move gave no limit at all: a search
    # until a stop that the GUI, waiting for a bestmove, never sends.
    uci = UciProtocol()
    uci.execute("setoption name Move Overhead value 0")
    reaction = uci.execute("go btime 1000 binc 100")  # White to move
    assert reaction.search is not None
    assert reaction.search.limits == Limits(clock=Clock(1000, 100))
    assert reaction.search.until_stop is False
    assert reaction.lines == [
        "info string go gives btime but no wtime for the side to move: timed by btime"
    ]


def test_options_are_checked_and_hash_resizes_the_table() -> None:
    uci = UciProtocol()
    assert uci.execute("setoption name Hash value 64").resize
    assert uci.options.tt_slots == 1 << 19  # the power of two that fits 64 MB
    assert not uci.execute("setoption name Hash value 64").resize  # unchanged
    assert "Hash is a number" in uci.execute("setoption name Hash value lots").lines[0]
    assert "no such option" in uci.execute("setoption name Contempt value 24").lines[0]
    # Ponder is declared (GUIs ask for go ponder only then) and set.
    assert uci.execute("setoption name Ponder value true").lines == []
    assert uci.options.ponder
    assert Options(hash_mb=1).tt_slots == 1 << 13
    assert "unknown command" in uci.execute("fly").lines[0]
    assert uci.execute("").lines == [] and uci.execute("quit").quit


def test_mate_scores_count_moves_not_plies() -> None:
    assert score_words(Score(win_in=1)) == "mate 1"
    assert score_words(Score(win_in=3)) == "mate 2"
    assert score_words(Score(loss_in=2)) == "mate -1"
    assert score_words(Score(value=-37)) == "cp -37"
    assert score_words(Score(draw=True)) == "cp 0"


# ----------------------------------------------------------------------
# The process, through python-chess (what cutechess-cli and GUIs do too).


@pytest.fixture
def engine() -> Iterator[chess.engine.SimpleEngine]:
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=60 * UNIT) as uci:
        uci.configure({"Hash": 8})
        yield uci


def test_the_first_go_after_uciok_keeps_its_time() -> None:
    """The ops review of 2026-11-29: python-chess sends go without isready, and the first
    go movetime 100 was answered after 686 ms (the search process still starting).
    uciok now waits for the process and its warm-up, as an engine's own start does."""
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=60 * UNIT) as uci:
        asked = time.monotonic()
        result = uci.play(chess.Board(), chess.engine.Limit(time=0.1))
        took = time.monotonic() - asked
    assert result.move is not None and took < 0.1 + 0.15 * UNIT, took


def test_python_chess_plays_a_game_with_legal_moves(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("alphabeta-arena")
    board = chess.Board()
    for _ in range(12):
        result = engine.play(board, chess.engine.Limit(time=0.05), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves
        board.push(result.move)
        if board.is_game_over():
            break
    assert len(board.move_stack) >= 8


def test_the_last_info_of_go_nodes_counts_every_node(engine: chess.engine.SimpleEngine) -> None:
    # The review of 2026-12-07: `go nodes 5000` ended on `info depth 5 ...
    # nodes 3731`, the last completed iteration's count; python-chess's
    # analyse reported 3,731 nodes for a search of 5,000.
    info = engine.analyse(chess.Board(), chess.engine.Limit(nodes=5000))
    assert info["nodes"] >= 5000 and info["pv"]


def test_a_go_too_short_to_search_says_so_and_answers_one_ply() -> None:
    # The review of 2026-12-07: `go movetime 10` (less the 30 ms Move Overhead)
    # was answered at once with the first legal move, the king's walk e1e2,
    # and no word of it.
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=60 * UNIT) as uci:
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        result = uci.play(board, chess.engine.Limit(time=0.01), info=chess.engine.INFO_ALL)
        assert result.move is not None and result.move.uci() != "e1e2"
        assert "not searched (time)" in str(result.info.get("string", ""))


def test_analysis_streams_info_and_stop_answers_at_once(
    engine: chess.engine.SimpleEngine,
) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3")
    with engine.analysis(board) as analysis:
        depths = []
        for info in analysis:
            if "depth" in info and "pv" in info:
                depths.append(info["depth"])
                assert "score" in info and "nodes" in info and "hashfull" in info
            # A proven mate ends the search; go infinite's bestmove still
            # waits for the stop below (the UCI specification).
            if len(depths) >= 3 or ("score" in info and info["score"].is_mate()):
                break
        engine.ping()  # isready during the search: readyok at once
        stopped_at = time.monotonic()
        analysis.stop()
        best = analysis.wait()
    assert time.monotonic() - stopped_at < 2 * UNIT
    assert best.move in board.legal_moves
    assert best.move == chess.Move.from_uci("f3f7")  # Scholar's mate, found at depth 1


def test_clock_games_keep_time(engine: chess.engine.SimpleEngine) -> None:
    # isready first, as a GUI does before a game: the search process restarts
    # for the fixture's Hash then, before the clock runs (seconds on a loaded machine).
    engine.ping()
    board = chess.Board()
    left = 2.0
    for _ in range(6):
        started = time.monotonic()
        limit = chess.engine.Limit(
            white_clock=left, black_clock=left, white_inc=0.02, black_inc=0.02
        )
        result = engine.play(board, limit)
        spent = time.monotonic() - started
        assert result.move in board.legal_moves
        # The clock planner spends a small share of what is left.
        assert spent < left * 0.6 + 0.3 * UNIT
        left = left - spent + 0.02
        board.push(result.move)


def test_a_new_hash_mid_game_still_gets_a_searched_move(
    engine: chess.engine.SimpleEngine,
) -> None:
    # The review of 2026-12-07: configure({"Hash": 64}) then play(time=0.1)
    # (python-chess sends no isready) got e1d1, unsearched, leaving the queen
    # en prise: the new search process's start had used up the move's time.
    board = chess.Board("3k4/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    engine.play(board, chess.engine.Limit(depth=1))  # the game has begun: no isready now
    engine.configure({"Hash": 16})
    result = engine.play(board, chess.engine.Limit(time=0.1), info=chess.engine.INFO_ALL)
    assert result.info.get("depth", 0) >= 1, result.info
    assert result.move == chess.Move.from_uci("d2d5")


def test_a_mated_side_answers_bestmove_none(engine: chess.engine.SimpleEngine) -> None:
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    result = engine.play(mated, chess.engine.Limit(time=0.1))
    assert result.move is None


class _RawUci:
    """``arena uci`` on pipes, its lines read in a thread (every wait bounded)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str) -> list[str]:
        """The lines up to the first that starts with ``prefix`` (that one last)."""
        seen: list[str] = []
        while not seen or not seen[-1].startswith(prefix):
            seen.append(self.lines.get(timeout=60 * UNIT))
        return seen

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=30 * UNIT)


def test_go_infinite_answers_only_after_stop_even_when_the_search_has_ended() -> None:
    # The review of 2026-12-07: go infinite on a mate in one (and go ponder)
    # wrote bestmove 3 ms later, by itself; UCI: "do not exit the search
    # without being told so in this mode".
    uci = _RawUci()
    try:
        uci.send("uci")
        uci.until("uciok")
        uci.send("position fen 6k1/5ppp/8/8/8/8/8/3Q2K1 w - - 0 1")
        uci.send("go infinite")
        assert "score mate 1" in uci.until("info depth 1")[-1]
        uci.send("isready")  # answered at once; the search has ended, its answer waits
        assert not [line for line in uci.until("readyok") if line.startswith("bestmove")]
        uci.send("stop")
        assert uci.until("bestmove")[-1] == "bestmove d1d8"
        uci.send("go ponder wtime 1000 btime 1000")  # held until ponderhit
        uci.until("info depth 1")
        uci.send("isready")
        assert not [line for line in uci.until("readyok") if line.startswith("bestmove")]
        uci.send("ponderhit")
        assert uci.until("bestmove")[-1] == "bestmove d1d8"
        # Stalemated: Stockfish's depth-0 report, and the answer waits as well.
        uci.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
        uci.send("go infinite")
        assert uci.until("info depth 0")[-1] == "info depth 0 score cp 0"
        uci.send("isready")
        assert not [line for line in uci.until("readyok") if line.startswith("bestmove")]
        uci.send("stop")
        assert uci.until("bestmove")[-1] == "bestmove (none)"
        # A dead position (K against K): a draw's score, and go infinite waits
        # too (the review of 2026-12-07: no score, and bestmove at once).
        uci.send("position fen 8/8/8/4k3/8/8/8/K7 w - - 0 1")
        uci.send("go infinite")
        lines = uci.until("info depth 0")
        assert lines[-1] == "info depth 0 score cp 0" and "insufficient material" in lines[-2]
        uci.send("isready")
        assert not [line for line in uci.until("readyok") if line.startswith("bestmove")]
        uci.send("stop")
        assert uci.until("bestmove")[-1] in {"bestmove a1a2", "bestmove a1b1", "bestmove a1b2"}
    finally:
        uci.close()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(child) for child in text)
    return found


def _search_process(engine: chess.engine.SimpleEngine) -> int:
    """The engine's worker: the child of arena uci that is not multiprocessing's tracker."""
    pid = engine.transport.get_pid()  # type: ignore[attr-defined]
    for child in _children(pid):
        if "resource_tracker" not in Path(f"/proc/{child}/cmdline").read_text():
            return child
    raise AssertionError("no search process found")


def test_a_killed_search_process_still_gets_a_bestmove_and_is_replaced(
    engine: chess.engine.SimpleEngine,
) -> None:
    board = chess.Board()
    engine.ping()
    with engine.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 2:
                break
        os.kill(_search_process(engine), signal.SIGKILL)
        # Said at once; the answer of a go infinite waits for stop (UCI).
        while "string" not in analysis.info:
            analysis.get()
        assert "ended unexpectedly" in analysis.info["string"]
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves
    again = engine.play(board, chess.engine.Limit(time=0.05))
    assert again.move in board.legal_moves


def test_a_hung_search_process_is_answered_by_the_deadline_and_replaced(
    engine: chess.engine.SimpleEngine,
) -> None:
    board = chess.Board()
    engine.ping()
    worker = _search_process(engine)
    os.kill(worker, signal.SIGSTOP)
    try:
        started = time.monotonic()
        result = engine.play(board, chess.engine.Limit(time=0.2), info=chess.engine.INFO_ALL)
        waited = time.monotonic() - started
    finally:
        os.kill(worker, signal.SIGCONT)
    assert result.move in board.legal_moves
    assert waited < 0.2 + 1.5 + 2 * UNIT  # the deadline, the watchdog's grace, a margin
    assert "did not answer in time" in str(result.info.get("string", ""))
    assert engine.play(board, chess.engine.Limit(time=0.05)).move in board.legal_moves


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish is not installed (apt install stockfish)")
def test_a_short_match_against_stockfish_at_its_lowest_elo(
    engine: chess.engine.SimpleEngine,
) -> None:
    """Two games, colours swapped: both engines legal to the end (strength is in bench/)."""
    assert STOCKFISH is not None
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=30 * UNIT) as stockfish:
        stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": 1350, "Threads": 1})
        for ours_white in (True, False):
            board = chess.Board()
            while not board.is_game_over(claim_draw=True) and board.fullmove_number <= 40:
                ours = board.turn == (chess.WHITE if ours_white else chess.BLACK)
                player = engine if ours else stockfish
                move = player.play(board, chess.engine.Limit(time=0.02)).move
                assert move in board.legal_moves, (ours, board.fen(), move)
                board.push(move)


def test_bestmove_names_the_reply_to_ponder_on() -> None:
    """A review of 2026-12-07: go ponder worked, but no Ponder option was
    declared and bestmove never named a reply, so GUIs never pondered. The
    reply is the line's second move, legal after the move played."""
    uci = _RawUci()
    try:
        uci.send("uci")
        assert "option name Ponder type check default false" in uci.until("uciok")
        uci.send("position startpos moves e2e4 e7e5")
        uci.send("go depth 5")
        words = uci.until("bestmove")[-1].split()
        assert words[0] == "bestmove" and words[2] == "ponder", words
        board = chess.Board()
        for move in ("e2e4", "e7e5", words[1], words[3]):
            board.push_uci(move)  # raises unless legal in turn
    finally:
        uci.close()

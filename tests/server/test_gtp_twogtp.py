"""``arena gtp`` against GNU Go as GoGui's twogtp drives two engines (issue 30).

The test is the controller: both programs get the board, the komi and a
clock by ``time_settings`` (and never a ``time_left``, as some controllers
send none), then ``genmove`` and ``play`` in turn, bounded (9x9, a few
moves). It checks that every answer is GTP, that our engine's moves stay
within its clock, and that the commands Go tools use at the end
(``final_status_list``, ``final_score``, the GoGui analyze commands) answer.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.timing import UNIT

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)
ROOT = Path(__file__).resolve().parents[2]
#: Moves of the session (both colours): enough for captures and passes to matter little,
#: few enough for a loaded machine.
MOVES = 16
#: Our clock: sudden death, with no time_left from the controller.
MAIN_TIME_S = 8


class GtpProgram:
    """A GTP program on pipes, its answers read by a thread (a hung program fails the test)."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def ask(self, command: str, timeout: float = 30 * UNIT) -> str:
        """The answer's text; the test fails on an error answer or none in time."""
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        answer: list[str] = []
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, f"the program ended on {command!r}"
            if not answer and not line:
                continue
            if not line:
                break
            answer.append(line)
        assert answer[0].startswith("="), (command, answer)
        return "\n".join([answer[0][1:].strip(), *answer[1:]]).strip()

    def close(self) -> None:
        try:
            self.ask("quit")
        finally:
            try:
                self.process.wait(10 * UNIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
def test_a_twogtp_session_against_gnu_go() -> None:
    assert GNUGO is not None
    ours = GtpProgram([sys.executable, "-m", "clients", "gtp"])
    gnugo = GtpProgram([GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules"])
    try:
        for program in (ours, gnugo):
            assert program.ask("protocol_version") == "2"
            program.ask("boardsize 9")
            program.ask("clear_board")
            program.ask("komi 7.5")
        ours.ask(f"time_settings {MAIN_TIME_S} 0 0")
        analyze = ours.ask("gogui-analyze_commands").splitlines()
        assert "string/Win rate/arena-winrate" in analyze
        players = (ours, gnugo)  # ours is Black
        spent = 0.0
        passes = 0
        for ply in range(MOVES):
            colour = "black" if ply % 2 == 0 else "white"
            mover, other = players[ply % 2], players[1 - ply % 2]
            started = time.monotonic()
            move = mover.ask(f"genmove {colour}", timeout=(MAIN_TIME_S + 30) * UNIT)
            if mover is ours:
                spent += time.monotonic() - started
            if move.lower() == "resign":
                break
            passes = passes + 1 if move.lower() == "pass" else 0
            other.ask(f"play {colour} {move}")
            if passes == 2:
                break
        # our own count of a clock nobody told us about: never over it
        assert spent < MAIN_TIME_S, spent
        assert ours.ask("arena-winrate").startswith("black's chance of winning ")
        assert ours.ask("arena-ownership").startswith("INFLUENCE ")
        ours.ask("final_status_list dead")
        ours_score, gnugo_score = ours.ask("final_score"), gnugo.ask("final_score")
        assert ours_score[:2] in ("B+", "W+") or ours_score == "0", ours_score
        assert gnugo_score[:2] in ("B+", "W+") or gnugo_score == "0", gnugo_score
        assert ours.ask("reg_genmove black") != ""
    finally:
        ours.close()
        gnugo.close()


def test_the_first_genmove_keeps_a_one_second_byo_yomi() -> None:
    """The Go review of 2026-11-29: the worker's start was on the first genmove's clock
    (1.1-2.6 s for 1 s a move). It now starts, and warms up, before the game's first
    command is answered; a genmove's time counts from when it was read."""
    ours = GtpProgram([sys.executable, "-m", "clients", "gtp"])
    try:
        for command in ("boardsize 9", "clear_board", "komi 7.5", "time_settings 0 1 1"):
            ours.ask(command)
        asked = time.monotonic()
        move = ours.ask("genmove b")
        took = time.monotonic() - asked
    finally:
        ours.close()
    assert move and took < 1.0 + 0.15 * UNIT, took

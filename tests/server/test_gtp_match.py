"""The GTP referee (server.programs.gtp_match): ``arena gtp`` as a program; a game with GNU Go.

Moved from tests/clients/test_gtp.py with the referee itself: the match tool
drives outside programs with the server's one driver (server.programs.process).
"""

from __future__ import annotations

import shutil
import sys
import time

import pytest

from engine.registry import create_game
from server.programs.gtp_match import GtpCommandError, GtpProgram, play_game
from tests.server.server_harness import UNIT

FAKE_GTP = [sys.executable, __file__.replace("test_gtp_match.py", "fake_gtp_engine.py")]


def test_arena_gtp_runs_as_a_program_for_controllers() -> None:
    command = [sys.executable, "-m", "clients", "gtp", "--playouts", "100"]
    with GtpProgram(command, "arena") as arena:
        assert arena.send("protocol_version") == "2"
        arena.send("boardsize 9")
        arena.send("clear_board")
        vertex = arena.send("genmove b", timeout=60)
        assert vertex and vertex != "resign"
        assert "X" in arena.send("showboard")
        with pytest.raises(GtpCommandError, match="illegal move"):
            arena.send(f"play w {vertex}")


@pytest.mark.skipif(shutil.which("gnugo") is None, reason="GNU Go (gnugo) is not installed")
def test_a_match_against_gnu_go_is_played_to_the_end_by_both_rules() -> None:
    """A small GTP referee plays arena gtp against gnugo --mode gtp on 7x7."""
    ours = [sys.executable, "-m", "clients", "gtp", "--playouts", "300", "--resign-below", "0"]
    theirs = ["gnugo", "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead"]
    with GtpProgram(ours, "arena") as arena, GtpProgram(theirs, "gnugo") as gnugo:
        record = play_game(gnugo, arena, size=7, komi=7.5, max_moves=150)
    assert record.reason, record
    assert "refused" not in record.reason and "forfeits" not in record.reason, record
    assert set(record.engine_scores) == {"arena", "gnugo"}
    ours_count = record.engine_scores["arena"]
    assert ours_count == "0" or ours_count[:2] in {"B+", "W+"}, record
    game = create_game("go", {"size": 7, "komi": 7.5})
    state = game.initial_state()
    for move in record.moves:
        state = game.play(state, game.parse_move(state, move))


def test_a_silent_program_costs_the_referee_its_timeout_not_a_hang() -> None:
    with GtpProgram([*FAKE_GTP, "nohandshake"], "mute") as mute:
        asked = time.monotonic()
        with pytest.raises(GtpCommandError, match="did not answer"):
            mute.send("protocol_version", timeout=0.2)
        assert time.monotonic() - asked < 0.2 + 1 * UNIT
    with (
        GtpProgram([*FAKE_GTP, "crash"], "crasher") as crasher,
        pytest.raises(GtpCommandError, match="ended"),
    ):
        crasher.send("genmove b", timeout=5 * UNIT)

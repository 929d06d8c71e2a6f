"""When a program without a handshake is ready (server/programs/quiet.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.programs.quiet import wait_until_quiet
from tests.timing import UNIT

#: How long the sleepy program sleeps before it reads its input.
SLEEP_S = 0.6


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux's /proc")
def test_a_program_asleep_on_a_timer_is_not_ready_until_it_reads() -> None:
    """A review of 2026-12-07: a bot that slept 2 s at import was taken for
    ready after 30 ms of quiet, asked at once, ended for its silence and
    started again, and never played. A sleep on a timer is not a wait for
    input: the program is ready once it reads."""
    code = f"import sys, time; time.sleep({SLEEP_S}); sys.stdin.readline()"
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, start_new_session=True
    )
    try:
        assert wait_until_quiet(process.pid, started + 30 * UNIT)
        # Not before its own sleep ended (the sleep is the program's, not ours).
        assert time.monotonic() - started >= SLEEP_S
    finally:
        process.kill()
        process.wait()

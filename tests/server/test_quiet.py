"""When a program without a handshake is ready (server/programs/quiet.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from server.programs import quiet
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


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux's /proc")
def test_a_start_that_gets_no_cpu_is_waited_for_and_a_busy_one_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fresh-clone CI run of 2026-12-07: on a loaded machine a bot with a
    syntax error was still importing after the 4 s the wait allowed on the
    clock, taken for started, and its games were lost one by one instead of
    the bot being found unable to start. The bound is CPU time: a program
    that gets none (here stopped, as a starved one) is waited for until the
    caller's deadline; one that spins is taken for started once it has used
    the bound."""
    monkeypatch.setattr(quiet, "QUIET_MAX_CPU_NS", 200_000_000)  # 0.2 s of a core
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    starved = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline()"],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        os.kill(starved.pid, signal.SIGSTOP)
        started = time.monotonic()
        assert not wait_until_quiet(spin.pid, started + 30 * UNIT)
        assert time.monotonic() - started < 20 * UNIT  # by its CPU, not the deadline
        started = time.monotonic()
        patience = 0.5
        assert not wait_until_quiet(starved.pid, started + patience)
        # Not taken for started before the deadline (less its last poll).
        assert time.monotonic() - started >= patience - quiet.QUIET_POLL_S
    finally:
        for process in (spin, starved):
            process.kill()
            process.wait()


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux's /proc")
def test_a_start_asleep_on_a_timer_is_taken_for_started_after_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fresh-clone CI run of 2026-12-07, after the bound above: a program
    that sleeps a minute without reading used no CPU, so it was waited for
    until the caller's deadline (10 s), not the 4 s it had been. Time asleep
    but not waiting for input counts towards its own bound."""
    monkeypatch.setattr(quiet, "QUIET_MAX_ASLEEP_S", 0.3)
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        started = time.monotonic()
        assert not wait_until_quiet(sleeper.pid, started + 60 * UNIT)
        assert time.monotonic() - started < 30 * UNIT  # by its bound, not the deadline
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.skipif(
    not Path("/proc/self/syscall").exists() or not quiet.FD_FIRST_SYSCALLS.get(os.uname().machine),
    reason="needs Linux's /proc and a known syscall table",
)
def test_a_start_waiting_on_the_network_is_not_ready_until_it_reads() -> None:
    """The review of 2026-12-07: a bot that fetched its weights over the
    network at start was taken for ready while it waited for the answer (a
    thread asleep in a receive looks like one asleep in a read of its
    input). Here the answer comes when the test sends it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            "import socket, sys; "
            f"s = socket.create_connection(('127.0.0.1', {port})); s.recv(1); "
            "sys.stdout.write('fetched\\n'); sys.stdout.flush(); sys.stdin.readline()"
        )
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            peer, _ = server.accept()
            with peer:
                # Until the program is in its receive, it is busy importing or
                # connecting; from then on it is not ready however long it waits.
                assert _until(lambda: _in_a_socket_call(process.pid), 100 * UNIT)
                started = time.monotonic()
                assert not wait_until_quiet(process.pid, started + 20 * UNIT)
                peer.sendall(b"!")
                assert process.stdout is not None
                assert process.stdout.readline() == b"fetched\n"
                assert wait_until_quiet(process.pid, time.monotonic() + 100 * UNIT)
        finally:
            process.kill()
            process.wait()


def _in_a_socket_call(pid: int) -> bool:
    return quiet._on_a_socket(f"/proc/{pid}/task/{pid}")


def _until(condition: Callable[[], bool], within_s: float) -> bool:
    """Whether ``condition`` holds within ``within_s`` (looked at every poll of quiet.py)."""
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(quiet.QUIET_POLL_S)
    return True

"""When a program that has no handshake is ready: it waits for its input, using no CPU.

A ``cmd:`` bot (docs/bots.md) says nothing before its first request, so
nothing it writes tells when it has started. Sent at once, that request
met a Python bot still importing (0.3-0.6 s): at a class tournament's
200-500 ms a move, the bot answered none of its moves (the review of
2026-11-29). A program ready for its input sleeps in a read, or in a poll
on its pipe, and uses no CPU: :func:`wait_until_quiet` watches the
program's processes (its session: a wrapper script's children too) in
Linux's ``/proc`` until every thread of them has slept, with no CPU time
added (less than :data:`QUIET_CPU_NS`), for :data:`QUIET_POLLS` looks in a
row, until the program has used :data:`QUIET_MAX_CPU_NS` of CPU (a program
busy in the background while it waits for its input), has slept
:data:`QUIET_MAX_ASLEEP_S` without waiting for its input (on a timer), or
the caller's deadline passes. Elsewhere (no ``/proc``) it returns at once, as before.

The bound on a busy start is CPU time, not time on the clock: on a loaded
machine a starting Python may get little CPU for seconds. With a bound of
4 s on the clock, a bot whose file had a syntax error was still importing
at 4 s, taken for started, and its games were played and lost one by one
instead of the bot being found unable to start (a fresh-clone CI run of
2026-12-07).

A thread asleep on a timer (``time.sleep``, a C ``sleep()``: the
kernel's ``wchan`` names a ``nanosleep``) is not waiting for its input:
the program is ready when every thread sleeps and one at least is not on
a timer (a runtime's ticking timer thread beside a reading main thread). A bot that slept 2 s at
import was taken for ready after 30 ms, asked at once, ended for its
silence and started again, and never played a move of its own (a review,
2026-12-07). Nor is a thread blocked in a read, a receive, a connect or an
accept on a socket (the kernel's ``syscall`` file names the call and its
descriptor, ``fd`` says the descriptor is a socket): a bot that fetched
its weights over the network at start was taken for ready while it
waited for the answer (the same review). Both count towards
:data:`QUIET_MAX_ASLEEP_S`. A wait on the network inside ``poll`` or
``epoll`` (an event loop's) cannot be told from a wait for input this way,
and is still taken for ready.
"""

from __future__ import annotations

import os
import platform
import time
from typing import Final

#: Time between two looks at the program's threads.
QUIET_POLL_S: Final = 0.01
#: Looks in a row with every thread asleep and next to no CPU time added:
#: 30 ms of quiet, much longer than any gap between two imports of a
#: starting Python (a read of a file), much shorter than a move.
QUIET_POLLS: Final = 3
#: CPU time a quiet program may add between two looks, in nanoseconds: a
#: tenth of a core. A starting program uses the whole core; a program that
#: polls its input in a loop with a sleep uses a little, and is ready.
QUIET_CPU_NS: Final = 1_000_000
#: The CPU time, in nanoseconds, after which a program not yet quiet is taken
#: for started (it may work in the background while it waits for its
#: input). Three seconds of a core, below START_PATIENCE_S
#: (server.programs.searchers) on a machine with a core to spare, so that the
#: thinks waiting for the start get the program, not a "still starting"; a
#: Python bot's whole start is a few tenths of that.
QUIET_MAX_CPU_NS: Final = 3_000_000_000
#: Time asleep, yet not waiting for its input, after which a program is
#: taken for started: one that sleeps on a timer for a minute, or waits on
#: the network, is taken so after 4 s asleep; a start that waits for the
#: CPU (runnable, not asleep) is not counted.
QUIET_MAX_ASLEEP_S: Final = 4.0
PROC: Final = "/proc"
#: What the kernel's ``wchan`` holds for a thread asleep on a timer
#: (``hrtimer_nanosleep``, ``do_nanosleep``), and the state letter this
#: module gives such a thread.
TIMER_SLEEP: Final = "nanosleep"
TIMER_ASLEEP: Final = "n"
#: The state letter this module gives a thread blocked on a socket.
NETWORK_ASLEEP: Final = "w"
#: System calls whose first argument is the descriptor they block on: read,
#: readv, connect, accept, recvfrom, recvmsg, accept4, recvmmsg, by number
#: (Linux's syscall tables for each architecture).
FD_FIRST_SYSCALLS: Final = {
    "x86_64": frozenset({0, 19, 42, 43, 45, 47, 288, 299}),
    "aarch64": frozenset({63, 65, 203, 202, 207, 212, 242, 243}),
}


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.read()
    except OSError:
        return None


def _fields(stat: str) -> list[str]:
    """The fields of a ``stat`` line after the command's name (which may hold spaces)."""
    return stat[stat.rfind(")") + 2 :].split()


def _thread(task_dir: str) -> tuple[str, int] | None:
    """A thread's state letter and CPU time so far, in nanoseconds.

    A thread asleep on a timer has the state ``n`` here (our own letter: the
    kernel says ``S``), so that it does not count as waiting for input.
    """
    stat = _read(f"{task_dir}/stat")
    if stat is None:
        return None
    fields = _fields(stat)
    schedstat = _read(f"{task_dir}/schedstat")
    # schedstat's first field is nanoseconds on the CPU; else utime + stime,
    # in clock ticks (coarser: a tick is 10 ms on most systems).
    if schedstat:
        cpu = int(schedstat.split()[0])
    else:
        cpu = (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    state = fields[0]
    if state == "S" and TIMER_SLEEP in (_read(f"{task_dir}/wchan") or ""):
        state = TIMER_ASLEEP
    elif state == "S" and _on_a_socket(task_dir):
        state = NETWORK_ASLEEP
    return state, cpu


def _on_a_socket(task_dir: str) -> bool:
    """Whether the thread is blocked in a call on a socket (False when unknown)."""
    calls = FD_FIRST_SYSCALLS.get(platform.machine())
    syscall = _read(f"{task_dir}/syscall")
    if calls is None or not syscall:
        return False
    fields = syscall.split()
    if len(fields) < 2 or not fields[0].isdigit() or int(fields[0]) not in calls:
        return False
    try:
        target = os.readlink(f"{task_dir}/fd/{int(fields[1], 16)}")
    except (OSError, ValueError):
        return False
    return target.startswith("socket:")


def _session_threads(session: int) -> list[tuple[str, int]] | None:
    """Every thread of every process in ``session`` (``None``: no ``/proc`` to read)."""
    try:
        entries = os.listdir(PROC)
    except OSError:
        return None
    threads: list[tuple[str, int]] = []
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = _read(f"{PROC}/{entry}/stat")
        if stat is None:
            continue
        fields = _fields(stat)
        if len(fields) < 4 or fields[3] != str(session):
            continue
        try:
            tasks = os.listdir(f"{PROC}/{entry}/task")
        except OSError:
            continue
        for task in tasks:
            thread = _thread(f"{PROC}/{entry}/task/{task}")
            if thread is not None:
                threads.append(thread)
    return threads


def wait_until_quiet(pid: int, deadline: float) -> bool:
    """Wait until the session led by ``pid`` sleeps, CPU unused; whether it did by ``deadline``.

    ``pid`` leads its own session (the driver starts programs with
    ``start_new_session``). Returns ``False`` at once without ``/proc``,
    and when the program has ended (its first request will say so).
    """
    quiet = 0
    first: int | None = None
    before: int | None = None
    asleep_s = 0.0
    while True:
        threads = _session_threads(pid)
        if not threads:
            return False  # no /proc, or the program is gone
        live = [(state, cpu) for state, cpu in threads if state not in ("Z", "X")]
        if not live:
            return False
        cpu = sum(cpu for _, cpu in live)
        # Every thread asleep, one at least not on a timer: a runtime's
        # ticking timer thread (node, the JVM) beside a reading main thread
        # is ready; a program whose only thread sleeps on a timer is not.
        asleep = all(state in ("S", TIMER_ASLEEP, NETWORK_ASLEEP) for state, _ in live) and any(
            state == "S" for state, _ in live
        )
        idle = before is not None and cpu - before < QUIET_CPU_NS
        quiet = quiet + 1 if asleep and idle else 0
        if quiet >= QUIET_POLLS:
            return True
        first = cpu if first is None else first
        if cpu - first >= QUIET_MAX_CPU_NS:
            return False  # busy in the background: taken for started
        # Asleep but not waiting for input (on a timer, say): that time counts
        # towards QUIET_MAX_ASLEEP_S; a start waiting for the CPU does not.
        if all(state in ("S", TIMER_ASLEEP, NETWORK_ASLEEP, "D") for state, _ in live):
            asleep_s += QUIET_POLL_S
            if asleep_s >= QUIET_MAX_ASLEEP_S:
                return False  # taken for started, as before
        before = cpu
        if time.monotonic() + QUIET_POLL_S >= deadline:
            return False
        time.sleep(QUIET_POLL_S)

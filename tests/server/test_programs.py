"""The one line-protocol driver (server.programs.process) and the UCI handshake's checks."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from server.external import ExternalEngine, parse_external, probe
from server.programs.process import MAX_LINE_BYTES, LineProcess, ProgramError, readable_tail
from server.programs.uci import option_problem, parse_option
from tests.server.server_harness import UNIT
from tests.timing import wait_until

STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
)
ECHO = (
    "import sys\n"
    "sys.stderr.write('warming up\\n'); sys.stderr.flush()\n"
    "for line in sys.stdin:\n"
    "    if line.strip() == 'quit': break\n"
    "    if line.strip() == 'silence': continue\n"
    "    print('echo ' + line.strip(), flush=True)\n"
)


def echo() -> LineProcess:
    return LineProcess([sys.executable, "-c", ECHO], "echo")


def test_every_read_has_a_deadline_and_looks_at_the_stop_flag() -> None:
    process = echo()
    try:
        process.send("hello")
        assert process.read_line(time.monotonic() + 5 * UNIT) == "echo hello"
        process.send("silence")
        asked = time.monotonic()
        assert process.read_line(asked + 0.1) is None
        assert 0.1 <= time.monotonic() - asked < 0.1 + 1 * UNIT
        stop = threading.Event()
        threading.Timer(0.05, stop.set).start()
        asked = time.monotonic()
        assert process.read_line(asked + 10 * UNIT, stop) is None
        assert time.monotonic() - asked < 1 * UNIT
    finally:
        process.close("quit", 1 * UNIT)
    assert not process.running()


def test_a_line_with_a_control_character_is_never_sent() -> None:
    process = echo()
    try:
        for line in ("setoption name Hash value 16\nquit", "a\rb", "x\x00", "y\x85"):
            with pytest.raises(ValueError, match="control character"):
                process.send(line)
        process.send("still here")
        assert process.read_line(time.monotonic() + 5 * UNIT) == "echo still here"
    finally:
        process.close("quit", 1 * UNIT)


def test_the_end_of_a_program_says_why_with_its_stderr() -> None:
    crash = "import sys\nsys.stderr.write('boom: out of memory\\n')\nsys.exit(7)"
    process = LineProcess([sys.executable, "-c", crash], "crasher")
    with pytest.raises(ProgramError, match=r"exit status 7.*boom: out of memory"):
        process.read_line(time.monotonic() + 5 * UNIT)
    with pytest.raises(ProgramError):
        process.send("anything")
    with pytest.raises(ProgramError, match="cannot start"):
        LineProcess(["/nonexistent/program"])


def test_a_note_starts_a_line_of_its_own_after_stderr_cut_mid_line(tmp_path: Path) -> None:
    """The ops review of 2026-11-29: a note glued onto a bot's unterminated stderr line."""
    partial = (
        "import sys\n"
        "sys.stderr.write('noise without an end'); sys.stderr.flush()\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    log = tmp_path / "bot.log"
    process = LineProcess(
        [sys.executable, "-c", partial], "partial", log_path=str(log), log_max_bytes=4096
    )
    try:
        assert process.read_line(time.monotonic() + 5 * UNIT) == "ready"
        # A line without its end waits in the stderr reader until it ends or
        # the program does (since 2026-12-07): the note comes first.
        process.note("request 1: a note")
    finally:
        process.close("", 1 * UNIT)
    # The reader thread writes the unfinished line at the end of stderr,
    # which may come after close() returns. (The wait was for "noise" before
    # the note, which the "started" line, quoting the command, already held:
    # a CI run of 2026-12-08 read the log before the line came.)
    prefix = f"[pid {process.pid}] noise"
    wait_until(lambda: prefix in log.read_text(), 5 * UNIT, "the stderr in the log")
    lines = log.read_text().splitlines()
    assert f"[pid {process.pid}] noise without an end" in lines and any(
        line.endswith("request 1: a note") and "noise" not in line for line in lines
    ), lines


def test_two_copies_of_a_bot_sharing_a_log_have_their_lines_told_apart(tmp_path: Path) -> None:
    """A bot in two games at once (or against itself) writes one log: every
    stderr line carries its writer's pid, and no line is cut by the other's."""
    chatty = (
        "import sys\n"
        "name = sys.argv[1]\n"
        "for i in range(300):\n"
        "    sys.stderr.write(f'{name} line {i} ' + 'x' * 40 + '\\n'); sys.stderr.flush()\n"
        "print('done', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    log = tmp_path / "bot.log"
    copies = {
        name: LineProcess(
            [sys.executable, "-c", chatty, name], name, log_path=str(log), log_max_bytes=1 << 20
        )
        for name in ("first", "second")
    }
    try:
        for process in copies.values():
            assert process.read_line(time.monotonic() + 10 * UNIT) == "done"
        wait_until(
            lambda: log.read_text().count(" line 299 ") == 2, 10 * UNIT, "both copies' lines"
        )
    finally:
        for process in copies.values():
            process.close("", 1 * UNIT)
    seen = {name: 0 for name in copies}
    for line in log.read_text().splitlines():
        if line.startswith("[arena "):
            continue  # the driver's notes
        mark, _, text = line.partition("] ")
        name, _, rest = text.partition(" line ")
        assert mark == f"[pid {copies[name].pid}", line
        assert rest == f"{seen[name]} " + "x" * 40, line
        seen[name] += 1
    assert seen == {"first": 300, "second": 300}


def test_kill_ends_what_the_program_started() -> None:
    """A wrapper script's child dies with it (the process group is killed)."""
    wrapper = LineProcess(["/bin/sh", "-c", "sleep 600 & echo $!; wait"], "wrapper")
    child = wrapper.read_line(time.monotonic() + 5 * UNIT)
    assert child is not None and child.isdigit()
    wrapper.kill()
    deadline = time.monotonic() + 5 * UNIT
    while Path(f"/proc/{child}").exists() and _state(int(child)) != "Z":
        assert time.monotonic() < deadline, "the wrapper's child outlived it"
        time.sleep(0.01)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_over_long_lines_are_cut() -> None:
    assert MAX_LINE_BYTES >= 4096
    long_line = "import sys\nprint('x' * 100_000)\nprint('next')\nsys.stdout.flush()"
    process = LineProcess([sys.executable, "-c", long_line], "long")
    line = process.read_line(time.monotonic() + 5 * UNIT)
    assert line is not None and len(line) == MAX_LINE_BYTES
    assert process.read_line(time.monotonic() + 5 * UNIT) == "next"
    process.close(None, 0)


def test_uci_options_are_read_and_checked_as_declared() -> None:
    spin = parse_option("option name Skill Level type spin default 20 min 0 max 20")
    assert spin is not None and (spin.name, spin.kind, spin.minimum, spin.maximum) == (
        "Skill Level",
        "spin",
        0,
        20,
    )
    assert option_problem(spin, "5") is None
    assert option_problem(spin, "abc") is not None and option_problem(spin, "21") is not None
    combo = parse_option("option name Style type combo default Normal var Solid var Risky Play")
    assert combo is not None and combo.choices == ("Solid", "Risky Play")
    assert option_problem(combo, "risky play") is None and option_problem(combo, "x")
    check = parse_option("option name Ponder type check default false")
    assert check is not None and option_problem(check, "maybe") is not None
    assert parse_option("option name") is None


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish is not installed (apt install stockfish)")
@pytest.mark.parametrize(
    ("options", "why"),
    [
        ("?Hash=16&Threads=1&Skill Level=5", None),
        ("?Threads=abc", "Threads takes a whole number"),
        ("?Hash=99999999999", "Hash takes 1.."),
        ("?Foo=1", "has no option 'Foo'"),
    ],
)
def test_stockfish_options_are_checked_before_it_serves(options: str, why: str | None) -> None:
    engine: ExternalEngine = parse_external(f"chess:sf=uci:{STOCKFISH}{options}")
    reason = probe(engine, timeout_s=10 * UNIT)
    if why is None:
        assert reason is None
    else:
        assert reason is not None and why in reason, reason


def test_a_tracebacks_quote_starts_at_the_students_own_frame() -> None:
    # The review of 2026-12-07: a bot with a syntax error was refused with
    # "stderr: xternal>", line 1074, in get_code ...": the last 300 characters
    # began inside importlib's frames and lost the student's file and line.
    traceback = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main',
            '  File "/work/clients/bot.py", line 150, in load',
            "    spec.loader.exec_module(module)",
        ]
        + ['  File "<frozen importlib._bootstrap_external>", line 1074, in get_code'] * 6
        + [
            '  File "/home/ana/bots/syntax.py", line 1',
            "    def choose(state)",
            "                     ^",
            "SyntaxError: expected ':'",
        ]
    )
    quoted = readable_tail(traceback)
    assert quoted.startswith('File "/home/ana/bots/syntax.py", line 1')
    assert quoted.endswith("SyntaxError: expected ':'") and len(quoted) <= 300
    long = readable_tail('File "/a.py", line 1\n' + "x" * 500 + "\nValueError: bad")
    assert long.startswith('File "/a.py"') and long.endswith("ValueError: bad")
    assert len(long) <= 300
    assert readable_tail("plain words\n") == "plain words"
    # node's missing module: the error line between its loader frame and its
    # version line was cut out (a second review of 2026-12-07).
    node = "\n".join(
        [
            "node:internal/modules/cjs/loader:1210",
            "  throw err;",
            "  ^",
            "",
            "Error: Cannot find module '/tmp/class/dan.js'",
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)" * 3,
            "    at Module._load (node:internal/modules/cjs/loader:1038:27)" * 3,
            "  code: 'MODULE_NOT_FOUND',",
            "  requireStack: []",
            "}",
            "",
            "Node.js v20.20.2",
        ]
    )
    quoted = readable_tail(node)
    assert "Error: Cannot find module '/tmp/class/dan.js'" in quoted, quoted
    assert len(quoted) <= 300

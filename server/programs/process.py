"""The one driver of an outside program that speaks a line protocol (UCI, GTP, JSON lines).

:class:`LineProcess` starts the program, writes it one line at a time and
reads its lines through a reader thread, so that every read has a deadline
(a pipe's ``readline`` has none) and can look at a stop flag. Everything an
outside program can do to its driver is bounded:

* a line longer than :data:`MAX_LINE_BYTES` is cut there (the rest of it is
  read and dropped, never held);
* output nobody reads (an engine printing ``info string`` while idle) is
  held up to :data:`MAX_UNREAD_BYTES`; beyond that the program is taken
  for a flood, killed, and the reason is logged and kept in :attr:`failure`;
* its stderr is not lost, and not held whole: the last
  :data:`STDERR_TAIL_BYTES` are kept for the message that says why it failed;
* it dies with the process that drives it (Linux ``PR_SET_PDEATHSIG``: as
  that follows the *thread* that started it, start it from a thread that
  lives as long as the program should, such as the main thread), and
  :meth:`kill` ends its whole process group (a wrapper script's children too).

Lines sent to the program may hold no control character: a newline inside
a value would be a second command (``ValueError``).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Final

from engine.search.request import StopSignal

logger = logging.getLogger(__name__)

#: Longest line kept, in bytes. UCI's longest useful line is an ``info``
#: with a principal variation: at most MAX_PV_MOVES (128) moves of at most
#: 5 characters, under 1 KiB, plus its figures; 16 KiB leaves room for any
#: engine's strings, and bounds what a line without an end can cost.
MAX_LINE_BYTES: Final = 16 * 1024
#: Output held unread before the program counts as flooding. Stockfish
#: writes a few kilobytes per think, all read as it comes; 1 MiB is
#: hundreds of thinks' worth, and what an idle worker may hold per program.
MAX_UNREAD_BYTES: Final = 1024 * 1024
#: What a held line costs besides its characters (its str object and deque
#: slot, about 60 bytes in CPython): empty lines count against the bound too.
LINE_OVERHEAD_BYTES: Final = 64
#: The end of the program's stderr kept for diagnostics (a crash's message).
STDERR_TAIL_BYTES: Final = 4096
#: How long a killed program is waited for (SIGKILL cannot be ignored: a
#: process ends within milliseconds unless it is stuck in the kernel).
KILL_WAIT_S: Final = 1.0
#: How long the reason a program ended waits for the end of its stderr
#: once it has exited: its reader thread is a moment behind, longer on a
#: loaded machine; a child still holding the pipe open costs no more.
STDERR_DRAIN_S: Final = 0.5
#: How often a wait for a line looks at the stop flag.
POLL_S: Final = 0.005
#: Linux's prctl option that kills a child when its parent dies: a program
#: must not outlive the worker that drives it.
PR_SET_PDEATHSIG: Final = 1


def note_line(text: str) -> bytes:
    """A line of the driver's own in a program's log: ``[arena HH:MM:SS] text``.

    One line whatever ``text`` holds (a ``python -c`` program in the
    command it names): its line ends are written ``\\n``.
    """
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return f"[arena {time.strftime('%H:%M:%S')}] {text}\n".encode(errors="replace")


def append_note(log_path: str | None, text: str) -> None:
    """Add a driver's line to a log file while no program holds it open (best effort)."""
    if log_path is None:
        return
    with contextlib.suppress(OSError), open(log_path, "ab") as log:
        log.write(note_line(text))


class ProgramError(Exception):
    """The program failed: it would not start, ended, flooded, or broke its protocol."""


def _load_libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


#: Loaded here, not in the child: between fork and exec the child should
#: do as little as it can (the driver runs reader threads).
_LIBC: Final = _load_libc()


def _die_with_parent() -> None:
    """In the program's process before it runs: die when the driving process dies (Linux)."""
    if _LIBC is not None:
        with contextlib.suppress(AttributeError):
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds a character a line protocol cannot carry (C0, DEL, C1)."""
    return any(ord(char) < 32 or 127 <= ord(char) < 160 for char in text)


class LineProcess:
    """A running program: :meth:`send` a line, :meth:`read_line` one by a deadline."""

    def __init__(
        self,
        argv: Sequence[str],
        name: str | None = None,
        *,
        setup: Callable[[], None] | None = None,
        log_path: str | None = None,
        log_max_bytes: int = 0,
        env: dict[str, str] | None = None,
    ) -> None:
        """Start ``argv``.

        ``setup`` runs in the program's process before it starts (resource
        limits); with ``log_path`` its stderr is also appended to that file
        (at most ``log_max_bytes`` of it per start), and :meth:`note` adds
        the driver's own lines there (why an answer was refused). ``env``
        replaces the environment it inherits.
        """
        self.argv = tuple(argv)
        self.name = name or os.path.basename(self.argv[0])
        self._log: IO[bytes] | None = None
        #: The log's file, for a note written after the stderr reader closed
        #: it (:meth:`note`); ``None`` without a log or once it failed.
        self._log_path: str | None = None
        self._log_left = log_max_bytes
        #: Whether the log's last byte ends a line (a note then needs no newline first).
        self._log_line_start = True
        self._log_lock = threading.Lock()
        if log_path is not None:
            try:
                os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
                self._log = open(log_path, "ab")  # noqa: SIM115 - closed by the stderr reader
                self._log_path = log_path
            except OSError as error:
                logger.warning("no log file for %s: %s", self.name, error)

        def before_exec() -> None:
            _die_with_parent()
            if setup is not None:
                setup()

        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=before_exec,
                env=env,
                # Its own process group, so that kill() reaches what it started.
                start_new_session=True,
            )
        except (OSError, ValueError) as error:
            why = _start_failure(self.argv[0], error)
            self.note(f"cannot start {' '.join(self.argv)}: {why}")
            self._close_log()
            raise ProgramError(f"cannot start {self.name}: {why}") from None
        self.note(f"started {' '.join(self.argv)} (pid {self._process.pid})")
        #: What marks the program's stderr lines in its log (:meth:`_stderr_lines`).
        self._log_mark = b"[pid %d] " % self._process.pid
        assert self._process.stdin is not None
        assert self._process.stdout is not None and self._process.stderr is not None
        self._stdin: IO[bytes] = self._process.stdin
        self._lines: deque[str] = deque()
        self._unread_bytes = 0
        self._ended = False
        self._changed = threading.Condition()
        self._stderr_tail = bytearray()
        #: Set when the program's stderr has ended and its tail is whole.
        self._stderr_ended = threading.Event()
        #: Why the driver ended the program (a flood), ``None`` otherwise.
        self.failure: str | None = None
        stdout, stderr = self._process.stdout, self._process.stderr
        threading.Thread(target=self._pump_stdout, args=(stdout,), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(stderr,), daemon=True).start()

    @property
    def pid(self) -> int:
        return self._process.pid

    def running(self) -> bool:
        """Whether the program still runs and its output has not ended."""
        return self._process.poll() is None and not self._ended

    def wait_for_end(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the program to end; whether it did."""
        try:
            self._process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    # ------------------------------------------------------------------
    # Writing and reading.

    def send(self, line: str) -> None:
        """Write ``line`` and its end; :class:`ProgramError` if the program has ended."""
        if has_control_characters(line):
            raise ValueError(f"a line for {self.name} may hold no control character: {line!r}")
        try:
            self._stdin.write(line.encode() + b"\n")
            self._stdin.flush()
        except (OSError, ValueError):
            raise ProgramError(f"{self.name} has ended: {self.ended_because()}") from None

    def read_line(self, deadline: float, stop: StopSignal | None = None) -> str | None:
        """The next line (stripped; ``""`` for an empty one), or ``None`` at ``deadline`` or stop.

        ``deadline`` is a ``time.monotonic()`` time. Raises
        :class:`ProgramError` once the program's output has ended and
        every line before the end has been read.
        """
        with self._changed:
            while True:
                if self._lines:
                    line = self._lines.popleft()
                    self._unread_bytes -= len(line) + LINE_OVERHEAD_BYTES
                    return line
                if self._ended:
                    raise ProgramError(f"{self.name} ended: {self.ended_because()}")
                if stop is not None and stop.is_set():
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                # Without a stop flag nothing but a line or the end can end
                # the wait early; with one, look at it every POLL_S.
                self._changed.wait(left if stop is None else min(left, POLL_S))

    def discard_unread(self) -> int:
        """Drop the lines read but not yet taken (between two searches); how many."""
        with self._changed:
            count = len(self._lines)
            self._lines.clear()
            self._unread_bytes = 0
            return count

    def note(self, text: str) -> None:
        """Add a line of the driver's own to the program's log file (if it has one)."""
        self._write_log(note_line(text), own=True)

    def _write_log(self, data: bytes, own: bool = False) -> None:
        with self._log_lock:
            log = self._log
            if log is None:
                if own:
                    self._note_after_end(data)
                return
            try:
                if own:
                    # A note starts a line of its own, after stderr cut mid-line.
                    log.write(data if self._log_line_start else b"\n" + data)
                    self._log_line_start = True
                elif self._log_left > 0:
                    kept = data[: self._log_left]
                    log.write(self._stderr_lines(kept))
                    self._log_line_start = kept.endswith(b"\n")
                    self._log_left -= len(data)
                    if self._log_left <= 0:
                        log.write(b"\n[arena] the rest of this program's stderr is not kept\n")
                        self._log_line_start = True
                log.flush()
            except (OSError, ValueError):
                self._log = None

    def _note_after_end(self, data: bytes) -> None:
        """A note once the stderr reader has closed the log: appended on its own.

        The driver learns why a program ended (the request it was answering,
        an exit in the middle of a move) after the program's stderr has ended
        and its reader has closed the log, so the note was lost: a bot that
        exited mid-move had no line saying so (a review of 2026-12-07).
        Called with the log's lock held.
        """
        if self._log_path is None:
            return
        try:
            with open(self._log_path, "ab") as log:
                log.write(data if self._log_line_start else b"\n" + data)
            self._log_line_start = True
        except OSError:
            self._log_path = None

    def _stderr_lines(self, data: bytes) -> bytes:
        """``data`` from stderr with each line it starts marked ``[pid N]``.

        Two copies of one bot (a tournament's two games at once, or a bot
        against itself) append to one log file; the mark tells their lines
        apart, and the chunk goes out in one write, so that a line the
        program wrote whole is never cut by the other copy's.
        """
        mark = self._log_mark
        marked = data.replace(b"\n", b"\n" + mark)
        if marked.endswith(b"\n" + mark):
            marked = marked[: -len(mark)]  # the next chunk's first line gets its own
        return mark + marked if self._log_line_start else marked

    def _close_log(self) -> None:
        with self._log_lock:
            log, self._log = self._log, None
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()

    def stderr_tail(self) -> str:
        """The last of what the program wrote to stderr (at most STDERR_TAIL_BYTES)."""
        return self._stderr_tail.decode(errors="replace").strip()

    def ended_because_briefly(self) -> str:
        """Its exit status in words, without its stderr (which its log already holds)."""
        status = self._process.poll()
        if status is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = self._process.wait(POLL_S * 10)
        if status is None:
            return "its output closed while it runs on"
        if status < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-status).name}"
        return f"exit status {status}"

    def ended_because(self) -> str:
        """Why the program is gone, in words: the flood, its exit status, its last stderr."""
        if self.failure is not None:
            return self.failure
        status = self._process.poll()
        if status is None:
            # The output has ended first: the exit status follows at once.
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = self._process.wait(POLL_S * 10)
        words = "its output closed while it runs on" if status is None else f"exit status {status}"
        if status is not None and status < 0:
            with contextlib.suppress(ValueError):
                words = f"killed by {signal.Signals(-status).name}"
        if status is not None:
            # Its last words may still be in the pipe: the stdout reader saw
            # the end first, and a loaded machine ran the stderr reader later
            # (a test run beside a CPU hog quoted no "SyntaxError").
            self._stderr_ended.wait(STDERR_DRAIN_S)
        stderr = self.stderr_tail()
        tail = readable_tail(stderr)
        if tail:
            words += f"; stderr: {tail}"
        if CARRIAGE_RETURN_NAMED.search(stderr):
            # "/usr/bin/env: 'python3\r': No such file": the #! line of a
            # script saved with Windows line endings (a review, 2026-12-07).
            words += f"; {CRLF_HINT}"
        return words

    # ------------------------------------------------------------------
    # Ending it.

    def kill(self) -> None:
        """End the program and what it started at once (SIGKILL to its process group)."""
        with contextlib.suppress(OSError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(KILL_WAIT_S)
        with contextlib.suppress(OSError, ValueError):
            self._stdin.close()

    def close(self, command: str | None, grace_s: float, why: str | None = None) -> None:
        """Ask the program to end, killing it if it has not after ``grace_s``.

        ``command`` (``quit``) is sent first; with none (a bot, which has no
        quit line) the program's input is closed instead, which ends a
        loop over its stdin: a bot then exits by itself, as a UCI engine
        does on ``quit``. ``why`` goes to its log first, so that the exit
        after it reads as the server's doing and not as a crash.
        """
        if why is not None:
            self.note(f"ended by the server (pid {self.pid}): {why}")
        if self._process.poll() is None:
            if command is not None:
                with contextlib.suppress(ProgramError, ValueError):
                    self.send(command)
            else:
                with contextlib.suppress(OSError, ValueError):
                    self._stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(grace_s)
        self.kill()

    # ------------------------------------------------------------------
    # The reader threads.

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    _skip_rest_of_line(stream)
                line = raw.decode(errors="replace").strip()
                with self._changed:
                    cost = len(line) + LINE_OVERHEAD_BYTES
                    if self._unread_bytes + cost > MAX_UNREAD_BYTES:
                        self.failure = (
                            f"flooded its output: more than {MAX_UNREAD_BYTES} bytes unread"
                        )
                        break
                    self._lines.append(line)
                    self._unread_bytes += cost
                    self._changed.notify_all()
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the program is being ended
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()
            if self.failure is not None:
                logger.warning("%s (pid %d) %s: killed", self.name, self.pid, self.failure)
                self.kill()
            with contextlib.suppress(OSError):
                stream.close()

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        # Whole lines go to the log, the rest of a chunk waits for its end:
        # another copy of the bot writing the same log (or its driver's
        # note) came between a line's two chunks and cut it (a CPU-loaded
        # test run of 2026-12-07).
        pending = b""
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(STDERR_TAIL_BYTES):  # type: ignore[attr-defined]
                self._stderr_tail += chunk
                del self._stderr_tail[:-STDERR_TAIL_BYTES]
                whole, end, pending = (pending + chunk).rpartition(b"\n")
                if end:
                    self._write_log(whole + end)
                if len(pending) > STDERR_TAIL_BYTES:  # a line without end: written as it is
                    self._write_log(pending)
                    pending = b""
        if pending:
            self._write_log(pending)
        self._stderr_ended.set()
        self.note(
            f"the program's stderr has ended (pid {self.pid}: {self.ended_because_briefly()})"
        )
        self._close_log()
        with contextlib.suppress(OSError):
            stream.close()


def _start_failure(program: str, error: Exception) -> str:
    """Why ``program`` could not be started, in words.

    A script whose ``#!`` line names an interpreter that is not there
    fails with "No such file or directory" naming the script, which is
    there (a review of 2026-12-07 took it for a missing bot file).
    """
    if isinstance(error, FileNotFoundError) and os.path.isfile(program):
        try:
            with open(program, "rb") as file:
                first = file.readline(256)
        except OSError:
            return str(error)
        if first.startswith(b"#!"):
            line = first[2:].decode(errors="replace").strip()
            if first.rstrip(b"\n").endswith(b"\r"):
                # "/bin/bash\r": the name looked right and the message false
                # (a review, 2026-12-07).
                return (
                    f"{program} is there, but its #! line names {line!r} followed by a"
                    f" carriage return: {CRLF_HINT}"
                )
            return f"{program} is there, but its #! line names {line!r}, which cannot be run"
    return str(error)


def _skip_rest_of_line(stream: IO[bytes]) -> None:
    """Read and drop what is left of an over-long line, up to and with its end."""
    while True:
        rest = stream.readline(MAX_LINE_BYTES)
        if not rest or rest.endswith(b"\n"):
            return


#: A program named with a carriage return at its end, as ``env`` or a shell
#: says it ("'python3\r'"): a script saved with Windows line endings.
CARRIAGE_RETURN_NAMED: Final = re.compile(r"(\\r|\r)['\u2019\"]")
CRLF_HINT: Final = (
    "the file has Windows line endings (CRLF); save it with Unix line endings (LF), e.g. dos2unix"
)

#: The most of a program's last stderr quoted in why it ended (its log has all).
QUOTED_STDERR_CHARS: Final = 300


def readable_tail(text: str, limit: int = QUOTED_STDERR_CHARS) -> str:
    """The end of a program's stderr as one line of at most ``limit`` characters.

    A Python traceback is quoted from its last frame outside Python's own
    frozen modules (the student's file and line) to the error; the last
    300 characters alone began mid-word inside importlib's frames and lost
    both (a bot with a syntax error, a review of 2026-12-07). When even that
    is too long, its first line and its error are kept.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    frames = [
        index
        for index, line in enumerate(lines)
        if line.startswith('File "') and not line.startswith('File "<frozen')
    ]
    kept = lines[frames[-1] :] if frames else lines
    quoted = " | ".join(kept)
    if len(quoted) <= limit:
        return quoted
    if len(kept) > 1:
        head, last = kept[0], kept[-1]
        # The error line itself when it is neither: node writes its
        # "Error: Cannot find module ..." between a loader frame and its
        # version line, which were all that was quoted (a review of
        # 2026-12-07).
        errors = [line for line in kept[1:-1] if _ERROR_LINE.search(line)]
        if errors and not _ERROR_LINE.search(last):
            last = f"{errors[0]} | … | {last}"
        room = max(0, limit - len(last) - 5)
        if room >= 20:
            return f"{head[:room]} | … | {last}"
        if len(last) <= limit:
            return last
    return "…" + quoted[-(limit - 1) :]


#: A line of a program's stderr that says what went wrong.
_ERROR_LINE = re.compile(r"(?:^|\b)(?:\w*Error|Exception|Cannot|cannot|fatal|FATAL)\b")

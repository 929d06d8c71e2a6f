"""A GTP engine in a subprocess, one method call per command.

:class:`GtpProcess` starts a program that speaks GTP on stdin and stdout
(``gnugo --mode gtp``, ``arena gtp``) and sends it commands. Every command
has a timeout; a program that does not answer in time, answers with an
error or exits raises :class:`GtpCommandError` and never leaves the caller
hanging. Use it as a context manager: leaving the block sends ``quit`` and
ends the process (killing it if it does not exit).
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Final, TextIO

#: Seconds a command may take when the caller gives no timeout; ``genmove``
#: callers pass their own.
DEFAULT_TIMEOUT_S: Final = 30.0
#: Seconds allowed for ``quit`` before the process is killed.
QUIT_TIMEOUT_S: Final = 3.0


class GtpCommandError(Exception):
    """A command failed: an error answer (``?``), a timeout or an exited program."""


class GtpProcess:
    """A running GTP program; :meth:`send` one command at a time."""

    def __init__(self, command: Sequence[str], name: str | None = None) -> None:
        self.command = list(command)
        self.name = name or self.command[0]
        self._process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._stdin: IO[str] = self._process.stdin
        # A reader thread turns the pipe into a queue, so that every read
        # can have a timeout (a pipe's readline cannot).
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(
            target=_read_lines, args=(self._process.stdout, self._lines), daemon=True
        )
        self._reader.start()

    def send(self, command: str, timeout: float = DEFAULT_TIMEOUT_S) -> str:
        """The result of ``command`` (without the ``=``); raises :class:`GtpCommandError`."""
        try:
            self._stdin.write(command + "\n")
            self._stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise GtpCommandError(f"{self.name} has exited (sending {command!r})") from None
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise GtpCommandError(
                    f"{self.name} did not answer {command!r} within {timeout:g} s"
                ) from None
            if line is None:
                raise GtpCommandError(f"{self.name} exited while answering {command!r}")
            if not lines and not line.strip():
                continue  # blank lines before an answer are not part of it
            if not line.strip():
                break
            lines.append(line.rstrip("\n"))
        first, rest = lines[0], lines[1:]
        status, _, text = first.partition(" ")
        body = "\n".join([text, *rest]).strip()
        if status.startswith("?"):
            raise GtpCommandError(f"{self.name} refused {command!r}: {body}")
        if not status.startswith("="):
            raise GtpCommandError(f"{self.name} answered {command!r} with {first!r}")
        return body

    def close(self) -> None:
        """Send ``quit`` and end the program (killed if it does not exit in time)."""
        if self._process.poll() is None:
            with contextlib.suppress(GtpCommandError):  # it may have exited already
                self.send("quit", timeout=QUIT_TIMEOUT_S)
            try:
                self._process.wait(timeout=QUIT_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._stdin.close()

    def __enter__(self) -> GtpProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _read_lines(stream: TextIO, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of output: the program has exited

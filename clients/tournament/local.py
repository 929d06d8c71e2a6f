"""A local engine server for ``url=local`` engines, started and stopped by the tournament.

The server runs as a child process (``python -m server``) on a free
loopback port. It is stopped with SIGTERM (graceful) when the tournament
ends, and on Linux it is also told to receive SIGTERM if the tournament
process dies first (even by ``kill -9``), so no server is left behind.

It gets one search process per game played at once, plus one
(:func:`local_workers`): a game has at most one engine thinking at a time,
so no think ever waits for a process (which would cost it its time or be
answered unsearched, ``overloaded``), even while a search the server has
already answered for (at its deadline) is still finishing. The server
limits nothing else that a referee does: it has no message-rate limit, and
the tournament passes it no limit options.

With program engines (``cmd=...``: ``--external`` specs) the server is not
taken for started until every program has come through its handshake: each
search process serves only once its own programs are up
(``--program-wait``, :data:`PROGRAM_WAIT_S`), and ``/healthz`` must report
each engine ``ok`` (:meth:`LocalServer.start`). So a game does not begin
while an engine is still starting (at 100 ms a move a 1 s start cost the
first eight games of a match, every move played for both engines: issue
29), and a program that cannot start (a wrong command, a hung or refused
handshake) stops the tournament before its first game with the reason,
as cutechess-cli does, instead of a tournament of moves played for it.

It imports only the packages this tournament runs, whatever the current
directory holds: a student's ``engine.py``, ``server.py``, ``clients.py``
or ``protocol.py`` beside their bot once replaced our packages in the
server (``python -m`` puts the current directory first on ``sys.path``),
which died, and run from a source tree it loaded the uncompiled sources
there instead of the compiled install. The server runs with ``-P`` and
``PYTHONSAFEPATH=1`` (Python 3.11: no current directory or script
directory on ``sys.path``), which its worker processes and anything else
it starts inherit, and ``PYTHONPATH`` names the directory this package
was imported from. When the server runs the pure-Python engine,
:attr:`LocalServer.engine_note` says why, as the engine decided it in a
process started the same way (:func:`engine_build`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from clients.client import connect

#: How long a fresh server may take to accept connections (worker processes spawn).
STARTUP_TIMEOUT_S = 30.0
#: How long the programs' handshakes may take in all, as ``/healthz`` reports
#: them (the server gives one 10 s: HANDSHAKE_TIMEOUT_S; a margin on top).
PROGRAMS_TIMEOUT_S = 15.0
#: How long each search process of the server waits for its programs'
#: handshakes before it serves (``--program-wait``): the server's own
#: handshake timeout (HANDSHAKE_TIMEOUT_S, 10 s), so that no game begins
#: while an engine is still starting.
PROGRAM_WAIT_S = 10.0
#: How often ``/healthz`` is asked while programs start.
PROGRAMS_POLL_S = 0.05
#: How long one attempt to say hello to a starting server may take.
HELLO_TIMEOUT_S = 5.0
#: How long it may take to shut down gracefully before it is killed.
SHUTDOWN_TIMEOUT_S = 10.0
#: How the server's command line refuses an ``--external`` spec (server/cli.py).
EXTERNAL_REFUSAL = "python -m server: --external: "
#: How much of the end of the server's log :meth:`LocalServer.log_lines` reads.
LOG_READ_BYTES = 64 * 1024
#: How long asking a fresh interpreter which engine build it loads may take.
BUILD_PROBE_TIMEOUT_S = 60.0
#: ``prctl`` option that sends a signal to a child when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1

_PROJECT_ROOT = Path(__file__).resolve().parents[2]


class LocalServerError(Exception):
    """The local server did not start.

    ``failed`` names the engines whose programs could not be used, with why
    (empty when the server itself failed).
    """

    def __init__(self, message: str, failed: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.failed: dict[str, str] = dict(failed or {})


def local_workers(concurrency: int) -> int:
    """Search processes for ``concurrency`` games at once: one each, and one spare.

    Each game has one engine thinking at a time; the spare covers a search
    that outlives its answer (the server answers at the deadline from the
    best move so far and takes the process back when the search returns).
    """
    return max(1, concurrency) + 1


def server_command(port: int, workers: int, externals: tuple[str, ...] = ()) -> list[str]:
    """The command line of the local server: address, port, workers, log level, programs.

    ``-P``: the current directory is not searched for modules (see the module
    docstring). ``externals`` are ``--external`` specs: the tournament's
    ``cmd=`` engines and ``--bots`` (docs/bots.md).
    """
    programs = [argument for spec in externals for argument in ("--external", spec)]
    if externals:
        # Each search process serves once its programs are up (or after this).
        programs += ["--program-wait", f"{PROGRAM_WAIT_S:g}"]
    return [
        sys.executable,
        "-P",
        "-m",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        *programs,
    ]


class LocalServer:
    """``async with LocalServer(workers=2) as server: server.url``."""

    def __init__(self, workers: int = 1, externals: tuple[str, ...] = ()) -> None:
        self.workers = workers
        self.externals = externals
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        #: Why the server runs the pure-Python engine; ``None`` when it runs the compiled one.
        self.engine_note: str | None = None
        # Lives as long as the server: closed in stop(), so no context manager.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115

    async def __aenter__(self) -> LocalServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        port = _free_port()
        env = child_environment()
        self.process = subprocess.Popen(
            server_command(port, self.workers, self.externals),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=env,
            preexec_fn=_die_with_parent_hook(),
        )
        self.url = f"ws://127.0.0.1:{port}/ws"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                # Its refusal of an engine's command names the server's own
                # flag ("python -m server: --external: cannot find the
                # program"), which the user never typed: said as the engine's.
                tail = self._log_tail().replace(
                    EXTERNAL_REFUSAL, "an engine's cmd= cannot be run: "
                )
                raise LocalServerError(f"the local server exited: {tail}")
            try:
                server = await asyncio.wait_for(self._hello(), HELLO_TIMEOUT_S)
            except Exception:  # refused, or accepted but not serving yet
                if time.monotonic() > deadline:
                    await self.stop()
                    raise LocalServerError("the local server did not start in time") from None
                await asyncio.sleep(0.1)
                continue
            if server.endswith("(pure)"):  # the welcome's "alphabeta-arena 0.6.0 (pure)"
                build, note = await asyncio.to_thread(engine_build, env)
                self.engine_note = note if build == "pure" else "the pure-Python engine"
            if self.externals:
                await self._programs_up(port)
            return

    async def _programs_up(self, port: int) -> None:
        """Wait until ``/healthz`` has every program through its handshake; raise if one failed."""
        url = f"http://127.0.0.1:{port}/healthz"
        deadline = time.monotonic() + PROGRAMS_TIMEOUT_S
        while True:
            programs = await asyncio.to_thread(externals_status, url)
            failed = {  # "game/name" -> "unavailable: why"
                name.partition("/")[2]: status.removeprefix("unavailable: ")
                for name, status in programs.items()
                if status not in ("ok", "checking")
            }
            if failed:
                await self.stop()
                raise LocalServerError(
                    "; ".join(
                        f"engine {name} cannot be used: {why}" for name, why in failed.items()
                    ),
                    failed,
                )
            if programs and "checking" not in programs.values():
                return
            if time.monotonic() > deadline:
                await self.stop()
                raise LocalServerError("the engine programs did not start in time")
            await asyncio.sleep(PROGRAMS_POLL_S)

    async def _hello(self) -> str:
        """The server's name and build, as its ``welcome`` gives them."""
        async with connect(self.url, client_name="arena-tournament", open_timeout=2) as engine:
            return "" if engine.server is None else engine.server.server

    def ended(self) -> str | None:
        """Why the server is no longer running (it exited, was killed), ``None`` while it runs
        (or after :meth:`stop`, which is no failure)."""
        process = self.process
        if process is None:
            return None
        status = process.poll()
        if status is None:
            return None
        if status < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-status).name}"
        return f"exit status {status}"

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(process.wait, SHUTDOWN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)
        self._log.close()

    def _log_tail(self) -> str:
        self._log.seek(0)
        return self._log.read()[-2000:].decode(errors="replace")

    def log_lines(self, word: str, count: int) -> list[str]:
        """The last ``count`` lines of the server's log (its last 64 KB) that hold ``word``.

        Read while the server runs: ``pread`` leaves the file offset the
        server writes at (shared with it) where it is.
        """
        if self._log.closed:
            return []
        fd = self._log.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - LOG_READ_BYTES)
        text = os.pread(fd, size - start, start).decode(errors="replace")
        return [line.strip() for line in text.splitlines() if word in line][-count:]


def externals_status(url: str) -> dict[str, str]:
    """``/healthz``'s ``externals`` (``game/name`` -> status); empty while it does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=HELLO_TIMEOUT_S) as response:
            text = response.read()
    except urllib.error.HTTPError as error:  # 503 while the server cannot search yet
        text = error.read()
    except OSError:
        return {}
    try:
        body = json.loads(text)
    except ValueError:
        return {}
    externals = body.get("externals") if isinstance(body, dict) else None
    if not isinstance(externals, dict):
        return {}
    return {str(name): str(status) for name, status in externals.items()}


def child_environment() -> dict[str, str]:
    """The environment of the local server (and so of every process it starts)."""
    env = dict(os.environ)
    env.pop("ARENA_TOKEN", None)  # the local server is open to this machine's referee only
    env["PYTHONSAFEPATH"] = "1"  # no current directory on sys.path, in every descendant
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_PROJECT_ROOT), env.get("PYTHONPATH")]))
    return env


def engine_build(env: dict[str, str]) -> tuple[str, str]:
    """The engine build (``compiled`` or ``pure``) and why, in a process like the local server's.

    The server's ``welcome`` names the build but not the reason; the engine
    decides both when it is imported (``engine.build.choose``), so a fresh
    interpreter started as the server is (same flags, same environment)
    gives the server's answer.
    """
    probe = "import engine; print(engine.ENGINE_BUILD); print(engine.ENGINE_BUILD_NOTE)"
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", probe],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=BUILD_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return "pure", f"the pure-Python engine (its reason could not be read: {error})"
    lines = done.stdout.decode(errors="replace").splitlines()
    if done.returncode != 0 or len(lines) < 2:
        return "pure", "the pure-Python engine (its reason could not be read)"
    return lines[0], lines[1]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _die_with_parent_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux for SIGTERM when the parent dies; ``None`` elsewhere.

    libc is loaded here, in the parent: the hook runs between fork and exec,
    where only the simplest calls are safe.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    return hook

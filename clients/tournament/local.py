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
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from clients.client import connect

#: How long a fresh server may take to accept connections (worker processes spawn).
STARTUP_TIMEOUT_S = 30.0
#: How long one attempt to say hello to a starting server may take.
HELLO_TIMEOUT_S = 5.0
#: How long it may take to shut down gracefully before it is killed.
SHUTDOWN_TIMEOUT_S = 10.0
#: ``prctl`` option that sends a signal to a child when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1

_PROJECT_ROOT = Path(__file__).resolve().parents[2]


class LocalServerError(Exception):
    """The local server did not start."""


def local_workers(concurrency: int) -> int:
    """Search processes for ``concurrency`` games at once: one each, and one spare.

    Each game has one engine thinking at a time; the spare covers a search
    that outlives its answer (the server answers at the deadline from the
    best move so far and takes the process back when the search returns).
    """
    return max(1, concurrency) + 1


def server_command(port: int, workers: int) -> list[str]:
    """The command line of the local server: address, port, workers and log level only."""
    return [
        sys.executable,
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
    ]


class LocalServer:
    """``async with LocalServer(workers=2) as server: server.url``."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
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
        env = dict(os.environ)
        env.pop("ARENA_TOKEN", None)  # the local server is open to this machine's referee only
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(_PROJECT_ROOT), env.get("PYTHONPATH")])
        )
        self.process = subprocess.Popen(
            server_command(port, self.workers),
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
                raise LocalServerError(f"the local server exited: {self._log_tail()}")
            try:
                await asyncio.wait_for(self._hello(), HELLO_TIMEOUT_S)
                return
            except Exception:  # refused, or accepted but not serving yet
                if time.monotonic() > deadline:
                    await self.stop()
                    raise LocalServerError("the local server did not start in time") from None
                await asyncio.sleep(0.1)

    async def _hello(self) -> None:
        async with connect(self.url, client_name="arena-tournament", open_timeout=2):
            pass

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

"""Connections to the engines: reused between games, replaced after a fault.

One connection plays one game at a time (a protocol session holds one
game), so each engine keeps a small pool. A connection that was part of a
fault (a disconnect, a hung think, a protocol error) is closed; the next
game opens a fresh one, retrying with exponential back-off while the
engine's server is unreachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass

from clients.client import Engine, connect

logger = logging.getLogger(__name__)

#: How the referee introduces itself in ``hello`` (servers log it).
CLIENT_NAME = "arena-referee"


@dataclass(frozen=True, slots=True)
class Backoff:
    """Retry delays: ``first``, then doubling up to ``longest``, ``attempts`` tries in all."""

    first_s: float = 0.25
    longest_s: float = 4.0
    attempts: int = 6
    open_timeout_s: float = 10.0

    def delays(self) -> Iterator[float]:
        """The pause before each retry (one fewer than the attempts)."""
        delay = self.first_s
        for _ in range(self.attempts - 1):
            yield delay
            delay = min(self.longest_s, delay * 2)


class ConnectError(Exception):
    """The engine could not be reached (after every retry)."""


class _Link:
    """A live connection and the stack that closes it."""

    def __init__(self, engine: Engine, stack: AsyncExitStack) -> None:
        self.engine = engine
        self.stack = stack


class EnginePool:
    """Idle connections to one engine's server, handed out one game at a time."""

    def __init__(self, url: str, backoff: Backoff | None = None) -> None:
        self.url = url
        self.backoff = backoff or Backoff()
        self._idle: list[_Link] = []
        self._busy: dict[int, _Link] = {}

    async def acquire(self) -> Engine:
        """A ready connection: an idle one, or a new one (with back-off); else ConnectError."""
        while self._idle:
            link = self._idle.pop()
            if not link.engine.is_closed:
                self._busy[id(link.engine)] = link
                return link.engine
            await _close(link)
        link = await self._open()
        self._busy[id(link.engine)] = link
        return link.engine

    async def release(self, engine: Engine, healthy: bool) -> None:
        """Give a connection back; an unhealthy one is closed and never reused."""
        link = self._busy.pop(id(engine), None)
        if link is None:
            return
        if healthy and not engine.is_closed:
            self._idle.append(link)
        else:
            await _close(link)

    async def close(self) -> None:
        links = self._idle + list(self._busy.values())
        self._idle, self._busy = [], {}
        await asyncio.gather(*(_close(link) for link in links))

    async def _open(self) -> _Link:
        delays = self.backoff.delays()
        while True:
            stack = AsyncExitStack()
            try:
                engine = await stack.enter_async_context(
                    connect(
                        self.url, client_name=CLIENT_NAME, strict=True,
                        open_timeout=self.backoff.open_timeout_s,
                    )
                )
                return _Link(engine, stack)
            except Exception as error:  # any failure to connect or greet is the same to us
                await stack.aclose()
                delay = next(delays, None)
                if delay is None:
                    raise ConnectError(f"cannot connect to {self.url}: {error!r}") from error
                logger.info("cannot connect to %s (%r); retrying in %.2fs", self.url, error, delay)
                await asyncio.sleep(delay)


async def _close(link: _Link) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(link.stack.aclose(), 5.0)

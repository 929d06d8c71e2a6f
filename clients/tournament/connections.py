"""Connections to the engines: reused between games, replaced after a fault.

One connection plays one game at a time (a protocol session holds one
game), so each engine keeps a small pool. A connection that was part of a
fault (a disconnect, a hung think, a protocol error) is closed; the next
game opens a fresh one, retrying with exponential back-off while the
engine's server is unreachable.

Opening a connection means the WebSocket handshake *and* the ``hello`` /
``welcome`` exchange, bounded together by the tournament's request timeout:
an engine that accepts the connection and then says nothing cannot hold
the tournament. :func:`preflight` does this once per engine before the
first game, so that a misspelt URL or a dead engine stops the tournament
before anything is played rather than forfeiting every one of its games.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass

from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

from clients.client import Engine, EngineError, connect
from clients.tournament.config import EngineSpec, split_urls

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


class PreflightError(Exception):
    """An engine did not answer ``hello`` before the first game; the message is one line."""

    def __init__(self, engine: EngineSpec, url: str, why: str, answered: bool = False) -> None:
        what = why if answered else f"did not answer hello: {why}"
        super().__init__(f"engine {engine.name!r} ({url}) {what}")
        self.engine = engine
        self.url = url
        self.why = why


#: Time allowed for closing a connection (the close handshake included).
CLOSE_TIMEOUT_S = 5.0


#: What a refused handshake with HTTP 401 means, in the words of every command:
#: without a token, and with one.
NEEDS_TOKEN = "the server needs a token: use --token or ARENA_TOKEN"
WRONG_TOKEN = "the server refused the token: check --token, token= or ARENA_TOKEN"


async def open_engine(
    url: str, timeout_s: float, token: str | None = None
) -> tuple[Engine, AsyncExitStack]:
    """Connect and exchange ``hello`` / ``welcome``, all within ``timeout_s``.

    Returns the engine and the stack that closes it; raises whatever the
    attempt failed with (``TimeoutError`` when the time ran out).
    """
    stack = AsyncExitStack()
    try:
        engine = await asyncio.wait_for(
            stack.enter_async_context(
                connect(
                    url, client_name=CLIENT_NAME, strict=True, open_timeout=timeout_s, token=token
                )
            ),
            timeout_s,
        )
    except BaseException:
        await _close_stack(stack)
        raise
    return engine, stack


def describe_failure(error: BaseException, timeout_s: float, token_sent: bool = False) -> str:
    """Why a connection attempt failed, in a few words for one line of text."""
    if isinstance(error, TimeoutError):
        return f"no welcome within {timeout_s * 1000:.0f} ms"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return f"unknown host ({error.strerror or error})"
    if isinstance(error, InvalidURI):
        return f"invalid URL ({error.msg})"
    if isinstance(error, InvalidStatus) and error.response.status_code == 401:
        return WRONG_TOKEN if token_sent else NEEDS_TOKEN
    if isinstance(error, InvalidStatus):
        return f"the WebSocket handshake was refused with HTTP {error.response.status_code}"
    if isinstance(error, InvalidHandshake):
        return f"the WebSocket handshake failed ({error})"
    if isinstance(error, EngineError):
        return f"{error.code}: {error.message}"[:200]
    if isinstance(error, OSError):
        return (error.strerror or str(error) or type(error).__name__).lower()
    return f"{type(error).__name__}: {error}"[:200]


async def preflight(
    engines: Sequence[EngineSpec],
    urls: Sequence[str],
    timeout_s: float,
    tokens: Sequence[str | None] | None = None,
    game: str | None = None,
) -> None:
    """Say ``hello`` once to each engine (at once, each within ``timeout_s``).

    With ``game``, an engine that names an ``algorithm`` must find it among
    the searches its servers offer for that game (``welcome.games``).

    ``tokens`` are the engines' tokens (default: each engine's own). An
    engine with several servers (``ws://a/ws|ws://b/ws``) must have every
    one answer. Raises :class:`PreflightError` naming the first engine, in
    the order given, that did not answer; engines sharing a URL and token
    are asked once.
    """
    each_token = [engine.token for engine in engines] if tokens is None else tokens
    asked = [
        (engine, (url, token))
        for engine, urls_of_engine, token in zip(engines, urls, each_token, strict=True)
        for url in split_urls(urls_of_engine)
    ]
    distinct = list(dict.fromkeys(key for _, key in asked))
    outcomes = await asyncio.gather(
        *(_hello(url, timeout_s, token) for url, token in distinct), return_exceptions=True
    )
    failures = dict(zip(distinct, outcomes, strict=True))
    for engine, key in asked:
        url = key[0]
        outcome = failures[key]
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, Exception):
                raise outcome  # cancelled, or interrupted: not the engine's doing
            raise PreflightError(engine, url, describe_failure(outcome, timeout_s, bool(key[1])))
        offered = outcome.get(game or "")
        if engine.algorithm is not None and offered is not None and engine.algorithm not in offered:
            raise PreflightError(
                engine,
                url,
                f"does not offer the search {engine.algorithm!r} for {game} "
                f"(it offers {', '.join(offered)})",
                answered=True,
            )


async def _hello(url: str, timeout_s: float, token: str | None = None) -> dict[str, list[str]]:
    """The searches the server offers, by game (``welcome.games[].algorithms``)."""
    engine, stack = await open_engine(url, timeout_s, token)
    try:
        games = engine.server.games if engine.server is not None else []
        return {entry["name"]: list(entry.get("algorithms", [])) for entry in games}
    finally:
        await _close_stack(stack)


class _Link:
    """A live connection, the server it goes to and the stack that closes it."""

    def __init__(self, engine: Engine, stack: AsyncExitStack, url: str) -> None:
        self.engine = engine
        self.stack = stack
        self.url = url


class EnginePool:
    """Idle connections to one engine's servers, handed out one game at a time.

    ``url`` is one server, or several joined by ``|``: each :meth:`acquire`
    (one per game) takes the next server in turn, reusing an idle
    connection to it when there is one. ``request_timeout_s`` bounds each
    connection attempt (handshake and ``hello`` together); ``token`` is the
    servers' shared secret, if any.
    """

    def __init__(
        self,
        url: str,
        backoff: Backoff | None = None,
        request_timeout_s: float | None = None,
        token: str | None = None,
    ) -> None:
        self.url = url
        self.urls = split_urls(url)
        self.token = token
        self.backoff = backoff or Backoff()
        self.request_timeout_s = (
            self.backoff.open_timeout_s if request_timeout_s is None else request_timeout_s
        )
        self._idle: dict[str, list[_Link]] = {server: [] for server in self.urls}
        self._busy: dict[int, _Link] = {}
        #: Acquisitions so far: the next game goes to ``urls[turns % len(urls)]``.
        self._turns = 0

    async def acquire(self) -> Engine:
        """A connection to the next server in turn (idle, or new after back-off); ConnectError."""
        server = self.urls[self._turns % len(self.urls)]
        self._turns += 1
        idle = self._idle[server]
        while idle:
            link = idle.pop()
            if not link.engine.is_closed:
                self._busy[id(link.engine)] = link
                return link.engine
            await _close(link)
        link = await self._open(server)
        self._busy[id(link.engine)] = link
        return link.engine

    async def release(self, engine: Engine, healthy: bool) -> None:
        """Give a connection back; an unhealthy one is closed and never reused."""
        link = self._busy.pop(id(engine), None)
        if link is None:
            return
        if healthy and not engine.is_closed:
            self._idle[link.url].append(link)
        else:
            await _close(link)

    async def close(self) -> None:
        links = [link for idle in self._idle.values() for link in idle]
        links += list(self._busy.values())
        self._idle = {server: [] for server in self.urls}
        self._busy = {}
        await asyncio.gather(*(_close(link) for link in links))

    async def _open(self, url: str) -> _Link:
        delays = self.backoff.delays()
        timeout_s = min(self.request_timeout_s, self.backoff.open_timeout_s)
        while True:
            try:
                engine, stack = await open_engine(url, timeout_s, self.token)
                return _Link(engine, stack, url)
            except Exception as error:  # any failure to connect or greet is the same to us
                why = describe_failure(error, timeout_s, bool(self.token))
                delay = None if why in (NEEDS_TOKEN, WRONG_TOKEN) else next(delays, None)
                if delay is None:
                    raise ConnectError(f"cannot connect to {url}: {why}") from error
                logger.info("cannot connect to %s (%s); retrying in %.2fs", url, why, delay)
                await asyncio.sleep(delay)


async def _close(link: _Link) -> None:
    await _close_stack(link.stack)


async def _close_stack(stack: AsyncExitStack) -> None:
    """Close a connection, bounded; failures to close are nobody's business now."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(stack.aclose(), CLOSE_TIMEOUT_S)

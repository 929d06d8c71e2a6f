"""The client's transport: one WebSocket connection, its pending requests and thinks.

:class:`Connection` is what :class:`clients.client.Engine` stands on: every
request waits for its reply and every wait ends (the reply, an error, or a
timeout); a closed connection fails every pending request at once; every
frame the server sends is checked before it is believed (a frame that
breaks the protocol is a :class:`~clients.errors.ProtocolViolationError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from clients.errors import (
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    ProtocolViolationError,
    error_from_message,
)
from engine.search.limits import Limits
from protocol.codec import EncodingName, decode_reply, encode
from protocol.errors import ProtocolViolation
from protocol.records import BestMove, Info, Stop, Think

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: How long ``hello``, ``new_game``, ``move`` and ``roll`` may wait for their
#: reply by default (``connect(request_timeout=...)``). The server answers
#: them at once; ten seconds only passes when something is wrong.
DEFAULT_REQUEST_TIMEOUT_S = 10.0
#: A think may take its budget (movetime, or the clock's time left) plus
#: this long before it fails with :class:`EngineTimeoutError`; also how long
#: a ``bestmove`` may take after a ``stop``. The server promises the answer
#: by the deadline; the margin covers the network and a busy machine.
THINK_TIMEOUT_MARGIN_S = 5.0
#: How long a think that timed out waits for the answer to the ``stop`` sent
#: then, before its :class:`EngineTimeoutError` is raised: the server answers
#: a stop at once, and until it has the connection's next request was refused
#: ``busy`` (20-120 ms on a loaded machine, a review of 2026-12-07). A server
#: silent this long is not waited for.
STOPPED_ANSWER_WAIT_S = 1.0
#: The budget of a think without a time limit when the server did not say
#: its ``max_movetime_ms`` (the protocol's default cap: ten minutes).
DEFAULT_MAX_THINK_S = 600.0


def expect_reply(
    kind: str, parse: Callable[[Mapping[str, Any]], T]
) -> Callable[[Mapping[str, Any]], T]:
    """A reply reader that first checks the reply's ``type``."""

    def parse_reply(message: Mapping[str, Any]) -> T:
        if message.get("type") != kind:
            raise ProtocolViolation(
                f"expected {kind!r}, got a {_show(message.get('type'))} message"
            )
        return parse(message)

    return parse_reply


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_id(value: object) -> TypeGuard[int]:
    """Whether ``value`` can be one of this client's ids (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


class PendingThink:
    """Book-keeping of one think: its info stream, its answer and its timeout."""

    def __init__(self, think_id: int, timeout_s: float) -> None:
        self.id = think_id
        self.timeout_s = timeout_s
        self.infos: asyncio.Queue[Info | None] = asyncio.Queue()
        self.bestmove: asyncio.Future[BestMove] = asyncio.get_running_loop().create_future()
        self.on_info: Callable[[Info], None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        #: The latest complete report of each root line, by rank (``info.multipv``).
        self.lines: dict[int, Info] = {}
        #: Set once the think has its answer or its error (even if the
        #: future was cancelled by a caller that gave up).
        self.finished = False
        #: The error a think that timed out fails with, once its stop is answered.
        self.timed_out: EngineError | None = None
        #: A ``stop`` was sent by the caller (its margin is then the whole wait).
        self.stopping = False

    def resolve(self, best: BestMove) -> None:
        self._finish()
        if not self.bestmove.done():
            self.bestmove.set_result(best)

    def fail(self, error: EngineError) -> None:
        self._finish()
        if not self.bestmove.done():
            self.bestmove.set_exception(error)

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.infos.put_nowait(None)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@dataclass(slots=True)
class _Reply:
    future: asyncio.Future[Any]
    parse: Callable[[Mapping[str, Any]], Any]


class Connection:
    """The transport under :class:`~clients.client.Engine`: one WebSocket, its requests and thinks.

    It sends requests and matches each reply to its request by id (a think's
    ``info`` stream and ``bestmove`` to its :class:`PendingThink`), times
    every wait out, reads the frames in one task, and fails every pending
    request at once when the connection ends. The requests themselves, in
    the protocol's terms, are :class:`~clients.client.Engine`'s.
    """

    def __init__(
        self,
        ws: ClientConnection,
        encoding: EncodingName = "msgpack",
        *,
        strict: bool = False,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S,
    ) -> None:
        if not request_timeout > 0:
            raise ValueError("request_timeout must be positive")
        self.ws = ws
        self.encoding: EncodingName = encoding
        #: Strict: a malformed frame is a protocol violation that ends the
        #: connection (a referee wants that); lenient: it is logged and skipped.
        self.strict = strict
        #: Seconds ``hello``, ``new_game``, ``move``, ``roll`` and ``stop`` may take.
        self.request_timeout = request_timeout
        self._ids = itertools.count(1)
        self._replies: dict[int, _Reply] = {}
        self._thinks: dict[int, PendingThink] = {}
        self._reader: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._closed_error: EngineError | None = None

    @property
    def is_closed(self) -> bool:
        """Whether the connection has ended (closed, lost or broken by the server)."""
        return self._closed_error is not None

    async def close(self) -> None:
        """Close the connection; pending requests fail with :class:`EngineTerminatedError`."""
        for task in list(self._background):
            task.cancel()
        await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._fail_everything(EngineTerminatedError("connection closed by the client"))
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def _start_think(
        self,
        limits: Limits,
        timeout_s: float,
        algorithm: str | None = None,
        cleanup: bool = False,
        multipv: int = 1,
    ) -> PendingThink:
        """Send a think; its timer runs from now (the send included)."""
        think = PendingThink(next(self._ids), timeout_s)
        self._thinks[think.id] = think
        think.timer = asyncio.get_running_loop().call_later(timeout_s, self._think_timed_out, think)
        try:
            async with asyncio.timeout(timeout_s):
                message = Think(limits, think.id, algorithm, cleanup, multipv).to_wire()
                await self._send(message)
        except TimeoutError:
            self._think_timed_out(think)  # the caller finds the error in think.bestmove
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):  # it may have gone out: stop it
                self._spawn(self._send_quietly(Stop(think.id).to_wire()))
            think.fail(EngineTerminatedError("the think was not sent"))
            self._forget_think(think)
            raise
        return think

    def _think_timed_out(self, think: PendingThink) -> None:
        """The think is late: stop it, and fail it once the stop is answered (the
        server is then free for the next request) or STOPPED_ANSWER_WAIT_S on."""
        if think.finished:
            return
        if think.timed_out is None and not think.stopping:
            think.timed_out = EngineTimeoutError(
                f"no bestmove for think {think.id} within {think.timeout_s:g} s; stopped"
            )
            self._spawn(self._send_quietly(Stop(think.id).to_wire()))
            loop = asyncio.get_running_loop()
            think.timer = loop.call_later(STOPPED_ANSWER_WAIT_S, self._think_timed_out, think)
            return
        think.fail(
            think.timed_out
            or EngineTimeoutError(f"no bestmove for think {think.id} after its stop")
        )
        self._thinks.pop(think.id, None)

    def _shorten(self, think: PendingThink) -> None:
        """A ``stop`` was sent: let ``think`` wait at most THINK_TIMEOUT_MARGIN_S more."""
        if think.finished or think.timer is None:
            return
        think.stopping = True
        seconds = THINK_TIMEOUT_MARGIN_S
        loop = asyncio.get_running_loop()
        if think.timer.when() > loop.time() + seconds:
            think.timer.cancel()
            think.timeout_s = seconds
            think.timer = loop.call_later(seconds, self._think_timed_out, think)

    def _forget_think(self, think: PendingThink) -> None:
        if think.timer is not None:
            think.timer.cancel()
            think.timer = None
        if self._thinks.get(think.id) is think:
            del self._thinks[think.id]
        future = think.bestmove
        if future.done() and not future.cancelled():
            future.exception()  # retrieved: nobody else will look at it

    async def _request(
        self,
        message: dict[str, Any],
        parse: Callable[[Mapping[str, Any]], T],
        timeout: float | None,
    ) -> T:
        limit = self.request_timeout if timeout is None else timeout
        if not limit > 0:
            raise ValueError("timeout must be positive")
        request_id = next(self._ids)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = _Reply(future, parse)
        try:
            async with asyncio.timeout(limit):
                await self._send({**message, "id": request_id})
                return await future
        except TimeoutError:
            raise EngineTimeoutError(f"no reply to {message['type']} within {limit:g} s") from None
        finally:
            self._replies.pop(request_id, None)

    async def _send_within(self, message: dict[str, Any], timeout: float | None) -> None:
        limit = self.request_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                await self._send(message)
        except TimeoutError:
            raise EngineTimeoutError(
                f"could not send {message['type']} within {limit:g} s"
            ) from None

    async def _send(self, message: dict[str, Any]) -> None:
        if self._closed_error is not None:
            raise copy.copy(self._closed_error)
        try:
            await self.ws.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            raise EngineTerminatedError(f"connection closed: {closed}") from closed

    async def _send_quietly(self, message: dict[str, Any]) -> None:
        """Best effort: send unless the connection is gone or stuck."""
        with contextlib.suppress(EngineError):
            await self._send_within(message, None)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _read_loop(self) -> None:
        error: EngineError = EngineTerminatedError("connection closed")
        try:
            async for frame in self.ws:
                try:
                    self._dispatch(decode_reply(frame))
                except ProtocolViolationError as violation:
                    if not self.strict:
                        logger.warning(
                            "ignoring a malformed message from the server: %s", violation.message
                        )
                        continue
                    error = violation
                    break
                except (ValueError, KeyError, TypeError) as bad:
                    if not self.strict:
                        logger.warning("ignoring a malformed frame from the server: %r", bad)
                        continue
                    error = ProtocolViolationError(f"malformed frame from the server: {bad!r}")
                    break
        except ConnectionClosed as closed:
            error = EngineTerminatedError(f"connection closed: {closed}")
        except asyncio.CancelledError:
            error = EngineTerminatedError("connection closed by the client")
            raise
        except Exception as bug:  # never leave a request waiting, whatever happened
            logger.exception("the client's reader failed")
            error = EngineTerminatedError(f"the client's reader failed: {bug!r}")
        finally:
            self._fail_everything(error)
        if isinstance(error, ProtocolViolationError):
            await self.ws.close(1002, "protocol error")

    def _fail_everything(self, error: EngineError) -> None:
        """The connection has ended: every pending request fails with ``error``.

        Each failure is marked as seen: a caller that awaits it still gets the
        error, and one that had moved on leaves no "Future exception was never
        retrieved" on the user's terminal (a review of 2026-12-07 saw it under
        arena play's own message when the server went away).
        """
        if self._closed_error is None:
            self._closed_error = error
        for reply in list(self._replies.values()):
            if not reply.future.done():
                reply.future.set_exception(error)
                reply.future.exception()
        for think in list(self._thinks.values()):
            think.fail(error)
            if think.bestmove.done() and not think.bestmove.cancelled():
                think.bestmove.exception()

    async def wait_closed(self) -> EngineError:
        """Wait until the connection has ended (the server closed it, or it was lost or
        closed); why, as the error its pending requests failed with."""
        if self._reader is not None:
            await asyncio.wait({self._reader})  # its end, whatever it was
        return self._closed_error or EngineTerminatedError("connection closed")

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if not isinstance(kind, str):
            raise ProtocolViolation(f"a message without a type: {_show(message)}")
        request_id = message.get("id")
        think = self._thinks.get(request_id) if _is_id(request_id) else None
        if think is not None:
            self._dispatch_think(think, kind, message)
            return
        reply = self._replies.get(request_id) if _is_id(request_id) else None
        if reply is not None:
            if reply.future.done():
                return
            if kind == "error":
                reply.future.set_exception(error_from_message(message))
                return
            try:
                value = reply.parse(message)
            except ProtocolViolationError as violation:
                reply.future.set_exception(violation)
                raise
            reply.future.set_result(value)
        elif kind == "error":
            logger.warning("server error: %s: %s", message.get("code"), message.get("message"))
        else:
            logger.debug("ignoring a %s message for no pending request (id %r)", kind, request_id)

    def _dispatch_think(self, think: PendingThink, kind: str, message: dict[str, Any]) -> None:
        if kind == "info":
            if think.finished:
                return
            info = Info.from_wire(message)  # a violation: strict closes, lenient drops it
            if not info.partial and info.pv:
                think.lines[info.multipv or 1] = info
            think.infos.put_nowait(info)
            if think.on_info is not None:
                try:
                    think.on_info(info)
                except Exception:
                    logger.exception("the on_info callback failed")
        elif kind == "bestmove":
            try:
                best = BestMove.from_wire(message)
            except ProtocolViolationError as violation:
                think.fail(violation)  # this think fails whatever the mode
                raise
            if think.timed_out is not None:  # the answer to its stop: too late all the same
                think.fail(think.timed_out)
            else:
                think.resolve(best)
        elif kind == "error":
            think.fail(error_from_message(message))
        else:
            raise ProtocolViolation(f"a {_show(kind)} message for think {think.id}")

"""One scripted client of a load run: :class:`LoadSession` speaks the protocol and times it."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from clients.loadtest.summary import Recorder
from engine.search.limits import Limits
from protocol.codec import EncodingName, decode_reply, encode
from protocol.errors import ErrorCode, ProtocolViolation
from protocol.records import (
    BestMove,
    ErrorMessage,
    GameState,
    Hello,
    Move,
    NewGame,
    Stop,
    Think,
    Welcome,
)

#: A think with no ``bestmove`` this long after its deadline (or after its
#: ``stop``) is counted as lost; the protocol promises it by the deadline.
LOST_AFTER_S = 5.0


#: How long any other reply may take before the request counts as lost.
REPLY_TIMEOUT_S = 10.0


#: After an ``overloaded`` refusal without a usable ``retry_after_ms``, the
#: session waits this long before its next think; and never longer than
#: :data:`MAX_RETRY_WAIT_MS`, whatever the server says.
DEFAULT_RETRY_AFTER_MS = 100


MAX_RETRY_WAIT_MS = 30_000


class SessionClosed(Exception):
    """The connection closed (by the server, or by :meth:`LoadSession.abort`)."""


class LoadSession:
    """One connection, timed: every request records its round trip in the shared recorder.

    Requests are sequential (one at a time per session), as in a real
    client. Replies come back as protocol maps; an ``error`` reply is
    counted under its code and returned as is. When the connection closes,
    methods return ``None`` and :attr:`closed` is true; the runner opens a
    new session for the next scenario run.
    """

    def __init__(
        self,
        ws: ClientConnection,
        recorder: Recorder,
        encoding: EncodingName,
        rng: random.Random,
        running: Callable[[], bool],
        movetime_ms: int = 100,
        index: int = 0,
    ) -> None:
        self.ws = ws
        #: The run's ``--movetime``, for scenarios that think at a fixed budget.
        self.movetime_ms = movetime_ms
        #: The connection's number in the run (0 .. connections - 1).
        self.index = index
        #: Set by a scenario to report this session's figures apart too.
        self.group: str | None = None
        #: Monotonic time before which no think is sent (after a refusal).
        self.retry_at = 0.0
        #: Monotonic time the run ends (no waiting for a retry beyond it).
        self.run_ends_at = math.inf
        #: Whether the last think was refused as ``overloaded`` (the next
        #: one waits the server's ``retry_after_ms``): a scenario may retry.
        self.refused = False
        self.recorder = recorder
        self.encoding: EncodingName = encoding
        self.rng = rng
        self._running = running
        self._ids = 0
        self.closed = False
        self.state: GameState | None = None
        self.welcome: Welcome | None = None

    @property
    def running(self) -> bool:
        """False once the run is over: scenarios should finish what they are doing."""
        return self._running() and not self.closed

    @property
    def game_over(self) -> bool:
        return self.state is None or self.state.is_over

    @property
    def legal_moves(self) -> list[str]:
        return list(self.state.legal_moves) if self.state is not None else []

    # ------------------------------------------------------------------
    # Requests.

    async def hello(self, client: str = "arena-loadtest") -> dict[str, Any] | None:
        reply = await self.request(Hello(client=client).to_wire())
        if reply is not None and reply.get("type") == "welcome":
            try:
                self.welcome = Welcome.from_wire(reply)
            except ProtocolViolation as violation:
                self._note_malformed("welcome", violation)
        return reply

    async def new_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        position: str | None = None,
        moves: list[str] | None = None,
    ) -> dict[str, Any] | None:
        request = NewGame(game, None, dict(options or {}), position, tuple(moves or ()))
        return self._keep_state(await self.request(request.to_wire()))

    async def move(self, move: str) -> dict[str, Any] | None:
        return self._keep_state(await self.request(Move(move).to_wire()))

    async def random_move(self) -> dict[str, Any] | None:
        """Play a random legal move (from :attr:`rng`)."""
        return await self.move(self.rng.choice(self.legal_moves))

    async def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request with a fresh ``id``; its reply, timed as ``<type>_rtt``."""
        request_id = self._next_id()
        sent = time.monotonic()
        try:
            await self._send({**message, "id": request_id})
            reply = await self._receive_for(request_id, sent + REPLY_TIMEOUT_S)
        except SessionClosed:
            return None
        if reply is None:
            self.recorder.count("lost_replies")
            return None
        self.recorder.sample(f"{message['type']}_rtt", time.monotonic() - sent, self.group)
        self._note_error(reply)
        return reply

    async def think(
        self,
        movetime_ms: int | None = None,
        *,
        depth: int | None = None,
        stop_after_ms: float | None = None,
        abort_after_ms: float | None = None,
    ) -> BestMove | None:
        """Think and return the ``bestmove`` (``None`` if lost, rejected, aborted or malformed).

        ``stop_after_ms`` sends ``stop`` that long after the think (timing
        stop -> bestmove); ``abort_after_ms`` drops the connection abruptly
        instead, mid-think (the think is then not counted as lost).
        Records think -> first info, and, with ``movetime_ms``, the
        bestmove's lateness against send time + movetime.

        A think the server refuses as ``overloaded`` returns ``None`` and is
        counted as refused, not as an error; the session's next think then
        waits the server's ``retry_after_ms`` first (no busy retrying).
        """
        if not await self._wait_for_retry():
            return None
        self.refused = False
        limits = Limits(movetime_ms=movetime_ms, depth=depth)
        think_id = self._next_id()
        sent = time.monotonic()
        deadline = None if movetime_ms is None else sent + movetime_ms / 1000
        try:
            await self._send(Think(limits, think_id).to_wire())
        except SessionClosed:
            return None
        self.recorder.count("thinks_sent", group=self.group)
        action_at: float | None = None
        if stop_after_ms is not None:
            action_at = sent + stop_after_ms / 1000
        elif abort_after_ms is not None:
            action_at = sent + abort_after_ms / 1000
        stopped_at: float | None = None
        give_up = (deadline if deadline is not None else sent + REPLY_TIMEOUT_S) + LOST_AFTER_S
        first_info = True
        try:
            while True:
                wake = give_up if action_at is None else min(give_up, action_at)
                message = await self._receive(wake)
                now = time.monotonic()
                if message is None:
                    if action_at is not None and now >= action_at:
                        action_at = None
                        if abort_after_ms is not None:
                            self.recorder.count("aborts")
                            self.abort()
                            return None
                        stopped_at = now
                        give_up = now + LOST_AFTER_S
                        await self._send(Stop(think_id).to_wire())
                        continue
                    self.recorder.count("lost_answers", group=self.group)
                    return None
                if message.get("id") != think_id:
                    continue  # a late reply to something earlier: ignore
                kind = message.get("type")
                if kind == "info":
                    if first_info:
                        first_info = False
                        self.recorder.sample("think_first_info", now - sent, self.group)
                    continue
                if kind == "error":
                    self._note_think_error(message, now)
                    return None
                if kind == "bestmove":
                    return self._note_bestmove(message, sent, now, deadline, stopped_at)
        except SessionClosed:
            if abort_after_ms is None:
                self.recorder.count("lost_answers", group=self.group)
            return None

    def abort(self) -> None:
        """Drop the connection without a closing handshake (as a crashed client would)."""
        self.closed = True
        self.ws.transport.abort()

    # ------------------------------------------------------------------
    # Plumbing.

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _keep_state(self, reply: dict[str, Any] | None) -> dict[str, Any] | None:
        if reply is not None and reply.get("type") == "state":
            try:
                self.state = GameState.from_wire(reply)
            except ProtocolViolation as violation:
                self._note_malformed("state", violation)
                self.state = None
        return reply

    def _note_malformed(self, kind: str, violation: ProtocolViolation) -> None:
        self.recorder.count("malformed_answers")
        self.recorder.errors[f"malformed_{kind}: {violation.message}"[:120]] += 1

    def _note_error(self, reply: Mapping[str, Any]) -> None:
        if reply.get("type") == "error":
            self.recorder.errors[str(reply.get("code"))] += 1

    def _note_think_error(self, reply: Mapping[str, Any], now: float) -> None:
        error = ErrorMessage.from_wire(reply)
        if error.code != ErrorCode.OVERLOADED:
            self.recorder.count("thinks_rejected", group=self.group)
            self._note_error(reply)
            return
        self.recorder.count("thinks_refused", group=self.group)
        self.refused = True
        retry = error.retry_after_ms
        if retry is None:
            self.recorder.count("refusals_without_retry_hint")
            retry = DEFAULT_RETRY_AFTER_MS
        self.retry_at = now + min(retry, MAX_RETRY_WAIT_MS) / 1000

    async def _wait_for_retry(self) -> bool:
        """Sleep until :attr:`retry_at`; false if the run ends first."""
        wait = self.retry_at - time.monotonic()
        if wait <= 0:
            return True
        self.recorder.count("retry_waits", group=self.group)
        if self.retry_at > self.run_ends_at:
            await asyncio.sleep(max(0.0, self.run_ends_at - time.monotonic()))
            return False
        await asyncio.sleep(wait)
        return not self.closed

    def _note_bestmove(
        self,
        message: Mapping[str, Any],
        sent: float,
        now: float,
        deadline: float | None,
        stopped_at: float | None,
    ) -> BestMove | None:
        recorder, group = self.recorder, self.group
        recorder.count("thinks_answered", group=group)
        recorder.sample("think_rtt", now - sent, group)
        if stopped_at is not None:
            recorder.sample("stop_to_bestmove", now - stopped_at, group)
        elif deadline is not None:
            recorder.sample("bestmove_lateness", now - deadline, group)
        try:
            best = BestMove.from_wire(message)
        except ProtocolViolation as violation:
            self._note_malformed("bestmove", violation)
            return None
        recorder.reasons[best.reason] += 1
        if group is not None:
            recorder.groups.setdefault(group, Counter())[f"reason:{best.reason}"] += 1
        recorder.depths[best.depth] += 1
        if best.depth == 0:
            recorder.depth0_reasons[best.reason] += 1
        if "queued_ms" in message:
            recorder.sample_ms("think_queued", best.queued_ms, group)
        return best

    async def _send(self, message: dict[str, Any]) -> None:
        if self.closed:
            raise SessionClosed
        try:
            await self.ws.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            self._on_closed(closed)
            raise SessionClosed from closed
        self.recorder.count("messages_sent")

    async def _receive(self, until: float) -> dict[str, Any] | None:
        """The next message, or ``None`` if none came by ``until`` (monotonic seconds)."""
        if self.closed:
            raise SessionClosed
        try:
            frame = await asyncio.wait_for(self.ws.recv(), max(0.0, until - time.monotonic()))
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            self._on_closed(closed)
            raise SessionClosed from closed
        self.recorder.count("messages_received")
        try:
            return decode_reply(frame)
        except ProtocolViolation:
            self.recorder.errors["undecodable_frame"] += 1
            return {}

    async def _receive_for(self, request_id: int, until: float) -> dict[str, Any] | None:
        while True:
            message = await self._receive(until)
            if message is None or message.get("id") == request_id:
                return message

    def _on_closed(self, closed: ConnectionClosed) -> None:
        if not self.closed:
            self.closed = True
            if closed.rcvd is None:
                # No close frame: the connection broke (close code 1006), as
                # when the server dies; "closed_by_server_none" said the
                # server closed it (a review, 2026-12-07).
                self.recorder.closes["connection_lost"] += 1
            else:
                self.recorder.closes[f"closed_by_server_{closed.rcvd.code}"] += 1

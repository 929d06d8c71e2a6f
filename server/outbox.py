"""The frames waiting to be written to one client, bounded in count and in bytes.

A client that does not read its messages must not make the server buffer
without bound. The outbox holds at most ``max_frames`` frames and, beyond
its first frame, at most ``max_bytes`` bytes:

* :meth:`Outbox.put` (replies, ``bestmove``) waits for room, so the
  connection stops reading that client's requests until it reads its
  replies: TCP back-pressure does the rest;
* :meth:`Outbox.offer` (progress reports) drops the frame when there is no
  room, so a slow reader never holds up a search or the event loop.

A frame may carry an ``on_sent`` callback, called once the frame has been
handed to the socket (used to time ``bestmove`` against its deadline).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

Frame = bytes | str
OnSent = Callable[[], None] | None


class Outbox:
    """A FIFO of frames for one writer task; see the module docstring."""

    def __init__(self, max_frames: int, max_bytes: int) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self._frames: deque[tuple[Frame, OnSent]] = deque()
        self._bytes = 0
        self._unfinished = 0
        self._readable = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._idle = asyncio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def has_room(self) -> bool:
        if not self._frames:
            return True
        return len(self._frames) < self.max_frames and self._bytes < self.max_bytes

    async def put(self, frame: Frame, on_sent: OnSent = None) -> None:
        """Queue ``frame``, waiting for room first."""
        while not self.has_room():
            self._room.clear()
            await self._room.wait()
        self._push(frame, on_sent)

    def offer(self, frame: Frame) -> bool:
        """Queue ``frame`` if there is room now; return whether it was queued."""
        if not self.has_room():
            return False
        self._push(frame, None)
        return True

    def _push(self, frame: Frame, on_sent: OnSent) -> None:
        self._frames.append((frame, on_sent))
        self._bytes += len(frame)
        self._unfinished += 1
        self._idle.clear()
        self._readable.set()

    async def get(self) -> tuple[Frame, OnSent]:
        """The oldest frame; call :meth:`task_done` once it is written (or abandoned)."""
        while not self._frames:
            self._readable.clear()
            await self._readable.wait()
        frame, on_sent = self._frames.popleft()
        self._bytes -= len(frame)
        if self.has_room():
            self._room.set()
        return frame, on_sent

    def task_done(self) -> None:
        self._unfinished -= 1
        if self._unfinished <= 0:
            self._unfinished = 0
            self._idle.set()

    async def join(self) -> None:
        """Wait until every queued frame has been written (or abandoned)."""
        await self._idle.wait()

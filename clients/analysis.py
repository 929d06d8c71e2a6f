"""A think whose progress the caller iterates over: :meth:`clients.client.Engine.analysis`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import TracebackType

from clients.connection import (
    DEFAULT_MAX_THINK_S,
    THINK_TIMEOUT_MARGIN_S,
    Connection,
    PendingThink,
)
from clients.errors import EngineError, EngineTerminatedError
from engine.search.limits import Limits
from protocol.records import BestMove, Info, Stop


class Analysis:
    """A running think you iterate over (``async for info in analysis``).

    Iteration ends when the ``bestmove`` arrives; leaving the ``async with``
    block stops the search and waits for it, and :attr:`bestmove` holds it.
    """

    def __init__(
        self,
        engine: Connection,
        limits: Limits,
        timeout_s: float = DEFAULT_MAX_THINK_S + THINK_TIMEOUT_MARGIN_S,
        algorithm: str | None = None,
        multipv: int = 1,
    ) -> None:
        self._engine = engine
        self._limits = limits
        self._timeout_s = timeout_s
        self._algorithm = algorithm
        self._multipv = multipv
        self._think: PendingThink | None = None
        self.info: Info | None = None
        self.bestmove: BestMove | None = None

    async def __aenter__(self) -> Analysis:
        self._think = await self._engine._start_think(
            self._limits, self._timeout_s, self._algorithm, False, self._multipv
        )
        return self

    @property
    def lines(self) -> list[Info]:
        """The latest complete report of each root line received so far, best first
        (one line unless the analysis asked for ``multipv``)."""
        if self._think is None:
            return []
        return [info for _, info in sorted(self._think.lines.items())]

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        think = self._think
        if think is None:
            return
        # a failure of the body is the caller's news: then only make sure the think ends
        quiet: tuple[type[EngineError], ...] = (
            (EngineTerminatedError,) if exc is None else (EngineError,)
        )
        try:
            if not think.finished:
                with contextlib.suppress(*quiet):
                    await self.stop()
            with contextlib.suppress(*quiet):
                await self.wait()
        finally:
            self._engine._forget_think(think)

    def __aiter__(self) -> AsyncIterator[Info]:
        return self

    async def __anext__(self) -> Info:
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        info = await self._think.infos.get()
        if info is None:
            self._think.infos.put_nowait(None)  # later iterations end too
            raise StopAsyncIteration
        self.info = info
        return info

    async def stop(self) -> None:
        """Ask for the best move now; iteration ends when it arrives."""
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        self._engine._shorten(self._think)
        await self._engine._send_within(Stop(self._think.id).to_wire(), None)

    async def wait(self) -> BestMove:
        """Wait for the ``bestmove`` (after the limits end or :meth:`stop`).

        Raises :class:`EngineTimeoutError` if it does not come in time.
        """
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        self.bestmove = await asyncio.shield(self._think.bestmove)
        return self.bestmove

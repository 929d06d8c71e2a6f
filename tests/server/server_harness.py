"""Test harness for the server: a real server on a free port and a raw protocol client.

Every timeout is a multiple of :data:`UNIT` (seconds, from tests/timing.py); set
``ARENA_TEST_UNIT`` to stretch them all on a slow machine.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from server.app import ArenaServer
from server.config import ServerConfig
from tests.timing import UNIT, collector_frozen

#: A small transposition table keeps worker start-up and memory low in tests.
TEST_TT_SLOTS = 1 << 14

ENCODINGS = ("msgpack", "json")
#: How often :func:`wait_until` looks at its condition.
POLL_S = 0.01


async def wait_until(condition: Callable[[], object], timeout: float = 5 * UNIT) -> None:
    """Return as soon as ``condition()`` is true; fail if it is not within ``timeout``.

    The way tests wait for the server to reach a state (a worker busy, a
    session closed) instead of sleeping for a guessed time.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(POLL_S)


class RawClient:
    """Speaks the protocol by hand, in one encoding, for exact assertions."""

    def __init__(self, ws: ClientConnection, encoding: str) -> None:
        self.ws = ws
        self.encoding = encoding

    def encode(self, message: dict[str, Any]) -> bytes | str:
        if self.encoding == "msgpack":
            frame: bytes = msgpack.packb(message, use_bin_type=True)
            return frame
        return json.dumps(message)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(self.encode(message))

    async def recv(self, timeout: float = 5 * UNIT) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        if self.encoding == "msgpack":
            assert isinstance(frame, bytes), "a binary request gets a binary reply"
            message = msgpack.unpackb(frame, raw=False)
        else:
            assert isinstance(frame, str), "a text request gets a text reply"
            message = json.loads(frame)
        assert isinstance(message, dict)
        return message

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.send(message)
        return await self.recv()

    async def think(
        self,
        think_id: Any,
        limits: dict[str, Any],
        timeout: float = 10 * UNIT,
        algorithm: str | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Send a think and collect its infos and its bestmove."""
        request = {"type": "think", "id": think_id, "limits": limits}
        if algorithm is not None:
            request["algorithm"] = algorithm
        await self.send(request)
        return await self.collect(think_id, timeout)

    async def collect(
        self, think_id: Any, timeout: float = 10 * UNIT
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        infos: list[dict[str, Any]] = []
        while True:
            message = await self.recv(timeout)
            assert message.get("id") == think_id, message
            if message["type"] == "bestmove":
                return infos, message
            assert message["type"] == "info", message
            infos.append(message)


@asynccontextmanager
async def raw_client(port: int, encoding: str = "msgpack") -> AsyncIterator[RawClient]:
    async with connect(f"ws://127.0.0.1:{port}/ws", compression=None) as ws:
        yield RawClient(ws, encoding)


@asynccontextmanager
async def running_server(workers: int = 1, **config: Any) -> AsyncIterator[ArenaServer]:
    """A real server (real worker processes) on a free loopback port."""
    server = ArenaServer(
        ServerConfig(host="127.0.0.1", port=0, workers=workers, tt_slots=TEST_TT_SLOTS, **config)
    )
    # Tests time this server from inside the suite's own process: keep the
    # earlier tests' objects out of the collector meanwhile (collector_frozen).
    with collector_frozen():
        await server.start()
        try:
            yield server
        finally:
            await server.shutdown()

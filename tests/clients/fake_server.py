"""A scripted WebSocket server that misbehaves on purpose, for client-library tests."""

from __future__ import annotations

import contextlib
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol.codec import decode

Reply = list[dict[str, Any]] | None
Script = Callable[[dict[str, Any]], Reply | Awaitable[Reply]]

WELCOME = {
    "type": "welcome",
    "protocol": 1,
    "server": "fake",
    "games": [{"name": "nim"}],
    "limits": {"max_movetime_ms": 2000},
}


def good_state(**fields: Any) -> dict[str, Any]:
    return {
        "type": "state",
        "game": "nim",
        "options": {"heaps": [3]},
        "position": "3 /0",
        "to_move": 0,
        "legal_moves": ["1:1", "1:2", "1:3"],
        "history": [],
        "result": None,
        **fields,
    }


def good_bestmove(**fields: Any) -> dict[str, Any]:
    return {
        "type": "bestmove",
        "move": "1:3",
        "score": {"win_in": 1},
        "depth": 1,
        "seldepth": 1,
        "pv": ["1:3"],
        "nodes": 4,
        "time_ms": 1,
        "reason": "proven",
        **fields,
    }


def good_info(**fields: Any) -> dict[str, Any]:
    return {
        "type": "info",
        "depth": 1,
        "seldepth": 1,
        "score": {"value": 3},
        "pv": ["1:3"],
        "nodes": 4,
        "nps": 400,
        "time_ms": 1,
        "tt_hit_rate": 0.5,
        "partial": False,
        **fields,
    }


class FakeServer:
    """A WebSocket server that answers ``hello`` and then whatever ``script`` says.

    ``script(message)`` returns the messages to send back (``id`` added), or
    ``None`` for silence. Replies use the request's encoding.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.received: list[dict[str, Any]] = []
        self.connections: list[ServerConnection] = []
        self._server: Server | None = None

    async def __aenter__(self) -> FakeServer:
        self._server = await serve(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws"

    def sent(self, kind: str) -> list[dict[str, Any]]:
        return [message for message in self.received if message.get("type") == kind]

    async def _handle(self, ws: ServerConnection) -> None:
        self.connections.append(ws)
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                binary = isinstance(frame, bytes)
                _, message = decode(frame)
                self.received.append(message)
                if message["type"] == "hello":
                    replies: Reply = [WELCOME]
                else:
                    result = self.script(message)
                    replies = await result if inspect.isawaitable(result) else result
                for reply in replies or ():
                    if "id" in message and "id" not in reply:
                        reply = {**reply, "id": message["id"]}
                    await ws.send(_encode(reply, binary))


def _encode(reply: dict[str, Any], binary: bool) -> bytes | str:
    """A frame as a careless server writes it: NaN and infinities are allowed in JSON."""
    if binary:
        frame: bytes = msgpack.packb(reply, use_bin_type=True)
        return frame
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False)

"""A deliberately faulty engine server for the referee's tests.

It speaks just enough of the protocol (hello, new_game, move, think; both
encodings) with the real rules from ``engine.registry``, answers ``think``
at once with the first legal move, and misbehaves on the ``at_think``-th
think of every game in the way its ``fault`` says:

``illegal``     answers with a move that is not legal
``late``        answers a legal move, ``late_s`` seconds late
``hang``        never answers
``disconnect``  closes the connection
``garbage``     sends a frame that is not msgpack
``bad_type``    sends a bestmove whose move is not a string
``error``       answers the think with an ``internal`` error
``reject``      (on ``move``, not think) refuses a legal move with ``illegal_move``:
                the ``reject_from``-th ``move`` of every game (2 by default) and every
                later one (in backgammon the third is a roll of the referee's dice)
``patch``       answers a legal move with the fields of ``patch`` replacing (or,
                set to :data:`MISSING`, removing) those of a correct ``bestmove``,
                after sending ``info`` if it is given
``mute``        accepts the WebSocket but never answers anything, not even ``hello``
``pass``        a correct engine that passes whenever it may (Go), on every think
``none``        no fault: a weak but correct engine

``refuse_after=N`` stops listening as soon as it has accepted N connections:
later ones are refused (an engine that goes away during a tournament).
``games`` replaces the ``welcome``'s list of games (``describe_games()``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack  # type: ignore[import-untyped]
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from engine.errors import GameError
from engine.game import Game
from engine.registry import create_game, describe_games

FAULTS = (
    "illegal",
    "late",
    "hang",
    "disconnect",
    "garbage",
    "bad_type",
    "error",
    "reject",
    "patch",
    "mute",
    "pass",
    "resign",
    "none",
    "cleanup_resign",
)

#: A ``patch`` value that removes the field from the ``bestmove``.
MISSING = object()


class FaultyEngine:
    """``async with FaultyEngine("illegal") as engine: engine.url``."""

    def __init__(
        self,
        fault: str,
        at_think: int = 2,
        late_s: float = 0.3,
        patch: dict[str, Any] | None = None,
        info: dict[str, Any] | None = None,
        refuse_after: int | None = None,
        reject_from: int = 2,
        games: list[dict[str, Any]] | None = None,
    ) -> None:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        self.fault = fault
        self.at_think = at_think
        self.late_s = late_s
        self.patch = patch or {}
        self.info = info
        self.refuse_after = refuse_after
        self.reject_from = reject_from
        self.games = describe_games() if games is None else games
        self.connections = 0
        #: Every ``hello`` received (a mute engine counts them too).
        self.hellos = 0
        #: The ``position`` of every ``new_game`` received, in order.
        self.new_games: list[str | None] = []
        #: The thinks that carried ``cleanup: true`` (a Go clean-up phase).
        self.cleanup_thinks = 0
        self._server: Server | None = None
        self._url = ""

    async def __aenter__(self) -> FaultyEngine:
        self._server = await serve(self._handle, "127.0.0.1", 0, compression=None)
        port = next(iter(self._server.sockets)).getsockname()[1]
        self._url = f"ws://127.0.0.1:{port}/ws"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def url(self) -> str:
        assert self._url, "use the engine inside 'async with'"
        return self._url

    async def _handle(self, ws: ServerConnection) -> None:
        self.connections += 1
        if (
            self.refuse_after is not None
            and self.connections >= self.refuse_after
            and self._server is not None
        ):
            self._server.close(close_connections=False)  # this one goes on
        session = _Session()
        try:
            async for frame in ws:
                binary = isinstance(frame, bytes)
                message = msgpack.unpackb(frame, raw=False) if binary else json.loads(frame)
                for reply in await self._react(session, message, ws):
                    await ws.send(_encode(reply, binary) if isinstance(reply, dict) else reply)
        except ConnectionClosed:
            pass

    async def _react(
        self, session: _Session, message: dict[str, Any], ws: ServerConnection
    ) -> list[dict[str, Any] | bytes]:
        kind, request_id = message.get("type"), message.get("id")
        if kind == "hello":
            self.hellos += 1
        if self.fault == "mute":
            return []
        if kind == "hello":
            return [
                {
                    "type": "welcome",
                    "id": request_id,
                    "protocol": 1,
                    "server": f"faulty ({self.fault})",
                    "games": self.games,
                    "limits": {},
                }
            ]
        if kind == "new_game":
            self.new_games.append(message.get("position"))
            session.start(message)
            return [session.state_message(request_id)]
        if kind == "move":
            if self.fault == "reject" and len(session.history) + 1 >= self.reject_from:
                return [_error(request_id, "illegal_move", "I do not like that move")]
            try:
                session.play(message["move"])
            except GameError as error:
                return [_error(request_id, "illegal_move", str(error))]
            return [session.state_message(request_id)]
        if kind == "think":
            session.thinks += 1
            self.cleanup_thinks += message.get("cleanup") is True
            if self.fault == "cleanup_resign" and message.get("cleanup") is True:
                return [{**session.bestmove(request_id), "move": "resign"}]
            if self.fault in ("pass", "cleanup_resign") and "pass" in session.legal():
                return [{**session.bestmove(request_id), "move": "pass", "pv": ["pass"]}]
            if session.thinks == self.at_think:
                return await self._misbehave(session, request_id, ws)
            return [session.bestmove(request_id)]
        return []

    async def _misbehave(
        self, session: _Session, request_id: Any, ws: ServerConnection
    ) -> list[dict[str, Any] | bytes]:
        fault = self.fault
        if fault == "illegal":
            return [{**session.bestmove(request_id), "move": "zz9"}]
        if fault == "resign":  # Go: our search's resignation (protocol.md, bestmove)
            return [{**session.bestmove(request_id), "move": "resign"}]
        if fault == "late":
            await asyncio.sleep(self.late_s)
            return [session.bestmove(request_id)]
        if fault == "hang":
            await ws.wait_closed()  # silent until the referee hangs up
            return []
        if fault == "disconnect":
            await ws.close()
            return []
        if fault == "garbage":
            return [b"\xc1 this is not msgpack"]
        if fault == "bad_type":
            return [{**session.bestmove(request_id), "move": 42}]
        if fault == "error":
            return [_error(request_id, "internal", "something broke")]
        if fault == "patch":
            best = {**session.bestmove(request_id), **self.patch}
            best = {key: value for key, value in best.items() if value is not MISSING}
            before = [] if self.info is None else [{"type": "info", "id": request_id, **self.info}]
            return [*before, best]
        return [session.bestmove(request_id)]


class _Session:
    def __init__(self) -> None:
        self.game: Game[Any, Any] = create_game("tictactoe")
        self.state: Any = self.game.initial_state()
        self.history: list[str] = []
        self.thinks = 0

    def start(self, message: dict[str, Any]) -> None:
        self.game = create_game(message["game"], message.get("options") or {})
        position = message.get("position")
        self.state = (
            self.game.initial_state() if position is None else self.game.parse_position(position)
        )
        self.history = []
        self.thinks = 0
        for move in message.get("moves") or ():
            self.play(move)
        self.history = []  # opening moves do not count for the "reject" fault

    def play(self, text: str) -> None:
        self.state = self.game.play_text(self.state, text)
        self.history.append(text)

    def legal(self) -> list[str]:
        return [self.game.format_move(self.state, m) for m in self.game.legal_moves(self.state)]

    def state_message(self, request_id: Any) -> dict[str, Any]:
        outcome = self.game.outcome(self.state)
        chances = self.game.chance_outcomes(self.state)
        extra = (
            {}
            if chances is None
            else {
                "outcomes": [
                    {"move": self.game.format_move(self.state, roll), "probability": p}
                    for roll, p in chances
                ]
            }
        )
        return {
            **extra,
            "type": "state",
            "id": request_id,
            "game": self.game.name,
            "options": self.game.options,
            "position": self.game.format_position(self.state),
            "to_move": "chance" if chances is not None else self.game.to_move(self.state),
            "legal_moves": self.legal(),
            "history": list(self.history),
            "result": None
            if outcome is None
            else {"winner": outcome.winner, "reason": outcome.reason},
        }

    def bestmove(self, request_id: Any) -> dict[str, Any]:
        move = self.legal()[0]
        return {
            "type": "bestmove",
            "id": request_id,
            "move": move,
            "score": {"value": 0},
            "depth": 1,
            "seldepth": 1,
            "pv": [move],
            "nodes": 1,
            "time_ms": 0,
            "reason": "depth",
        }


def _error(request_id: Any, code: str, text: str) -> dict[str, Any]:
    return {"type": "error", "id": request_id, "code": code, "message": text}


def _encode(message: dict[str, Any], binary: bool) -> bytes | str:
    if binary:
        frame: bytes = msgpack.packb(message, use_bin_type=True)
        return frame
    return json.dumps(message)

"""Clients of the engine server: the asyncio client library and the ``arena`` command.

The library lives in :mod:`clients.client`; the names most programs need
are re-exported here::

    from clients import connect

    async with connect("ws://127.0.0.1:8765/ws") as engine:
        await engine.new_game("connect4")
        best = await engine.think(movetime=0.5)
"""

from clients.client import (
    Analysis,
    BestMove,
    Engine,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GameResult,
    GameState,
    IllegalMoveError,
    Info,
    OverloadedError,
    ProtocolViolationError,
    ServerInfo,
    connect,
)

__all__ = [
    "Analysis",
    "BestMove",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GameResult",
    "GameState",
    "IllegalMoveError",
    "Info",
    "OverloadedError",
    "ProtocolViolationError",
    "ServerInfo",
    "connect",
]

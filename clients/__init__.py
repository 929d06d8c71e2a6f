"""Clients of the engine server: the asyncio client library and the ``arena`` command.

The library lives in :mod:`clients.client`; the names most programs need
are re-exported here, every exception the library raises among them
(:class:`EngineError` is the base of all of them; one subclass per
protocol error code, plus :class:`EngineTerminatedError`,
:class:`EngineTimeoutError` and :class:`ProtocolViolationError`)::

    from clients import connect

    async with connect("ws://127.0.0.1:8765/ws") as engine:
        await engine.new_game("connect4")
        best = await engine.think(movetime=0.5)
"""

from clients.client import (
    Analysis,
    BadMessageError,
    BadOptionsError,
    BadPositionError,
    BestMove,
    BusyError,
    ChanceStateError,
    Engine,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GameOverError,
    GameResult,
    GameState,
    IllegalMoveError,
    Info,
    InternalError,
    LimitExceededError,
    NoGameError,
    OverloadedError,
    ProtocolViolationError,
    ServerInfo,
    UnknownAlgorithmError,
    UnknownGameError,
    UnknownTypeError,
    UnsupportedProtocolError,
    connect,
)

__all__ = [
    "Analysis",
    "BadMessageError",
    "BadOptionsError",
    "BadPositionError",
    "BestMove",
    "BusyError",
    "ChanceStateError",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GameOverError",
    "GameResult",
    "GameState",
    "IllegalMoveError",
    "Info",
    "InternalError",
    "LimitExceededError",
    "NoGameError",
    "OverloadedError",
    "ProtocolViolationError",
    "ServerInfo",
    "UnknownAlgorithmError",
    "UnknownGameError",
    "UnknownTypeError",
    "UnsupportedProtocolError",
    "connect",
]

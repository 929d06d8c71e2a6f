"""Clients of the engine server: the asyncio client library and the ``arena`` command.

The library lives in :mod:`clients.client`; its public names
(``clients.client.__all__``) are re-exported here, every exception the
library raises among them (:class:`EngineError` is the base of all of
them; one subclass per protocol error code, plus
:class:`EngineTerminatedError`, :class:`EngineTimeoutError` and
:class:`ProtocolViolationError`)::

    from clients import connect

    async with connect("ws://127.0.0.1:8765/ws") as engine:
        await engine.new_game("connect4")
        best = await engine.think(movetime=0.5)

The re-export is lazy (PEP 562): ``import clients.bot``, which every
Python bot process runs before its first move, does not load the client
library (asyncio, websockets and the protocol records: about 0.3 s of a
bot's start, which counted against its first move's time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # One list of public names: clients.client's __all__.
    from clients.client import *  # noqa: F403
    from clients.client import __all__ as __all__


def __getattr__(name: str) -> Any:
    # Only what clients.client exports (and __all__ itself, for a star
    # import) loads it; any other name is a plain AttributeError.
    import clients.client as library

    if name == "__all__" or name in library.__all__:
        return getattr(library, name)
    raise AttributeError(f"module 'clients' has no attribute {name!r}")

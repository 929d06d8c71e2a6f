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
"""

# One list of public names: clients.client's __all__ (the star import takes
# exactly those).
from clients.client import *  # noqa: F403
from clients.client import __all__ as __all__

"""The engine server: WebSocket sessions over a pool of search worker processes.

Layers, from the wire inwards:

* :mod:`server.protocol` decodes, validates and encodes messages (no I/O);
* :mod:`server.session` is one connection's game as a state machine (no I/O);
* :mod:`server.app` is the asyncio/websockets layer: connections, logging,
  graceful shutdown;
* :mod:`server.runtime` runs searches in worker processes and guarantees
  exactly one answer per search, on time: a sans-I/O scheduler makes the
  decisions, a thin asyncio pool carries them out, and
  :mod:`server.runtime.worker` is the code inside the processes.

Start it with ``arena serve`` or ``python -m server``.
"""

SERVER_NAME = "alphabeta-arena"
SERVER_VERSION = "0.5.0"

"""The engine server: WebSocket sessions over a pool of search worker processes.

Layers, from the wire inwards:

* :mod:`protocol` (beside this package, shared with the clients) decodes,
  validates and encodes messages, one record per message (no I/O);
* :mod:`server.session` is one connection's game as a state machine (no I/O);
* :mod:`server.connection` is one WebSocket client's pump: frames in, the
  session's replies out, its think and trace submitted to the pool;
* :mod:`server.app` is the server around them: who may connect, ``/metrics``,
  ``/healthz``, HAProxy's agent, drain and graceful shutdown;
* :mod:`server.config` holds its configuration and :mod:`server.cli` the
  ``arena serve`` command line that builds and runs it;
* :mod:`server.runtime` runs searches in worker processes and guarantees
  exactly one answer per search, on time: a sans-I/O scheduler makes the
  decisions, a thin asyncio pool carries them out, and
  :mod:`server.runtime.worker` is the code inside the processes.

The same pool serves the engine on stdin and stdout too:
:mod:`server.frontends` holds ``arena uci`` and ``arena gtp``.

Start it with ``arena serve`` or ``python -m server``.
"""

SERVER_NAME = "alphabeta-arena"
SERVER_VERSION = "0.6.0"

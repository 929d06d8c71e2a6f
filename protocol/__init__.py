"""The wire protocol, without I/O: shared by the server and its clients.

* :mod:`protocol.codec` turns frames (msgpack or JSON) into maps and back;
* :mod:`protocol.records` holds one record per message, with ``to_wire`` and
  ``from_wire``;
* :mod:`protocol.errors` the error codes and one exception per code;
* :mod:`protocol.limits` the protocol's limits and the server's
  :class:`~protocol.limits.ServerLimits`.

``protocol.md`` at the repository root is the contract. This package imports
the engine's value types (scores, limits, traces) and nothing of the server
or the clients; it does no I/O.
"""

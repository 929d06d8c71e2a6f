"""Front ends that serve the engine on stdin and stdout instead of a WebSocket.

* :mod:`server.frontends.uci`: ``arena uci``, the chess engine for UCI GUIs
  and tournament managers (:mod:`server.frontends.uci_protocol` holds its
  commands without I/O);
* :mod:`server.frontends.gtp`: ``arena gtp``, the Go engine for GTP
  controllers.

``arena`` (:mod:`clients.cli`) dispatches to them, as it does to ``arena serve``.
"""

"""Outside programs the server drives: engines that speak a line protocol on stdin/stdout.

* :mod:`server.programs.engines`: the ``--external`` specs and which
  search a think gets;
* :mod:`server.programs.searchers`: UCI and GTP programs as searchers in
  the worker processes (background start, backoff, stop, fallbacks);
* :mod:`server.programs.process`: the one driver of such a program (start,
  bounded reads with deadlines, stop, kill, its stderr kept for diagnostics);
* :mod:`server.programs.uci`, :mod:`server.programs.gtp`: what the UCI and
  GTP protocols say over that driver (handshakes, commands, answers);
* :mod:`server.programs.reports`: an outside program's figures checked
  against protocol.md before they can reach a client;
* :mod:`server.programs.health`: whether each ``--external`` engine can be
  used, for ``/healthz`` and ``welcome``;
* :mod:`server.programs.gtp_match`: a referee for games between two GTP
  programs (the tests and ``bench/`` use it).

:mod:`server.external` gathers the names the rest of the server imports.
"""

"""Go Text Protocol (GTP 2): our engine as a GTP engine, and GTP engines driven by us.

* :mod:`clients.gtp.engine`: ``arena gtp``, the engine on stdin/stdout for
  GoGui, Sabaki, GNU Go's ``twogtp`` and other controllers;
* :mod:`clients.gtp.controller`: a GTP engine in a subprocess (GNU Go, or
  ``arena gtp`` itself) with one method per command;
* :mod:`clients.gtp.match`: a referee that plays two GTP engines against each
  other and scores the game by our rules (the tests and ``bench/`` use it).

The protocol is the GTP 2 draft (Gunnar Farnebäck, 2002): a command is a
line ``[id] name args``; an answer is ``=[id] result`` or ``?[id] error``
followed by an empty line.
"""

"""Go Text Protocol (GTP 2): GTP engines driven by us.

Our own engine as a GTP engine (``arena gtp``) is a way of serving it, so it
lives with the server: :mod:`server.frontends.gtp`.

* :mod:`clients.gtp.controller`: a GTP engine in a subprocess (GNU Go, or
  ``arena gtp`` itself) with one method per command;
* :mod:`clients.gtp.match`: a referee that plays two GTP engines against each
  other and scores the game by our rules (the tests and ``bench/`` use it).

The protocol is the GTP 2 draft (Gunnar Farnebäck, 2002): a command is a
line ``[id] name args``; an answer is ``=[id] result`` or ``?[id] error``
followed by an empty line.
"""

"""Go Text Protocol (GTP 2): our engine as a GTP engine.

* :mod:`clients.gtp.engine`: ``arena gtp``, the engine on stdin/stdout for
  GoGui, Sabaki, GNU Go's ``twogtp`` and other controllers.

GTP engines driven by us (GNU Go behind ``arena serve --external``, and the
referee of :mod:`server.programs.gtp_match`) use the server's one process
driver, :mod:`server.programs.process`.

The protocol is the GTP 2 draft (Gunnar Farnebäck, 2002): a command is a
line ``[id] name args``; an answer is ``=[id] result`` or ``?[id] error``
followed by an empty line.
"""

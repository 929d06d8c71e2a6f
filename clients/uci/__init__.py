"""Universal Chess Interface (UCI): our chess engine as a UCI engine.

* :mod:`clients.uci.protocol`: the commands and their answers, without I/O;
* :mod:`clients.uci.engine`: ``arena uci``, the engine on stdin/stdout, its
  search in a worker process so that ``isready`` and ``stop`` are answered
  while it thinks.
"""

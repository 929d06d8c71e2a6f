"""Games and search: pure, synchronous Python with no I/O.

Everything here runs unchanged inside a worker process, a test or a
notebook. The usual entry points are :func:`engine.registry.create_game` to
get a game by name and :func:`engine.searchers.think` (or
:func:`engine.searchers.searcher_for`) to search a position with the search
that suits the game: alpha-beta (:mod:`engine.search.alphabeta`) or expectiminimax
for games of chance (:mod:`engine.search.expectimax`).

The same sources also run compiled by mypyc, several times faster;
:data:`ENGINE_BUILD` says which build this process runs ("compiled" or
"pure") and :data:`ENGINE_BUILD_NOTE` why (see :mod:`engine.build`).
"""

import os

from engine.build import choose, compiled_installed, load_sources_first

# The backgammon network's matrix products are small (a few hundred rows):
# BLAS threads would cost more than they save, and under load (a worker per
# core, each searching) they wait on each other: 2.4 ms became 48 ms for the
# 21 batches of a chance node. One thread unless the caller says otherwise;
# it only counts when numpy is not loaded yet.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

ENGINE_BUILD, ENGINE_BUILD_NOTE = choose()
if ENGINE_BUILD == "pure" and compiled_installed():
    # Before any other engine module is imported: extensions would win.
    load_sources_first()

__all__ = ["ENGINE_BUILD", "ENGINE_BUILD_NOTE"]

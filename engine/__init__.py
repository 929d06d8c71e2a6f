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

from engine.build import choose, compiled_installed, load_sources_first

ENGINE_BUILD, ENGINE_BUILD_NOTE = choose()
if ENGINE_BUILD == "pure" and compiled_installed():
    # Before any other engine module is imported: extensions would win.
    load_sources_first()

__all__ = ["ENGINE_BUILD", "ENGINE_BUILD_NOTE"]

"""Games and search: pure, synchronous Python with no I/O.

Everything here runs unchanged inside a worker process, a test or a
notebook. The usual entry points are :func:`engine.registry.create_game` to
get a game by name and :func:`engine.searchers.think` (or
:func:`engine.searchers.searcher_for`) to search a position with the search
that suits the game: alpha-beta (:mod:`engine.search`) or expectiminimax
for games of chance (:mod:`engine.expectimax`).
"""

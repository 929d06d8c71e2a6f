"""Games and search: pure, synchronous Python with no I/O.

Everything here runs unchanged inside a worker process, a test or a
notebook. The usual entry points are :func:`engine.registry.create_game` to
get a game by name and :func:`engine.search.think` to search a position.
"""

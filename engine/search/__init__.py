"""The searches and what they share.

* :mod:`engine.search.alphabeta`: iterative-deepening alpha-beta for
  deterministic games (the production search);
* :mod:`engine.search.expectimax`: expectiminimax with Star1/Star2 pruning
  for games of chance;
* :mod:`engine.search.mcts`: Monte Carlo tree search (UCT with RAVE) for any
  game;
* :mod:`engine.search.solver`: exact values by null-window bisection
  (Connect Four's solver);
* :mod:`engine.search.reference`: the textbook minimax, alpha-beta and
  expectiminimax, short and slow, that the tests hold the others to;
* the parts of alpha-beta's node search: :mod:`~engine.search.ordering`
  (the lazy move picker) and :mod:`~engine.search.threats` (immediate wins
  and safe moves, for games that name them);
* shared by all: :mod:`~engine.search.budget` (the one driver: iterative
  deepening, the limits and the stop signal), :mod:`~engine.search.request`
  (what a search is asked), :mod:`~engine.search.limits` (what ends a
  search and its deadlines), :mod:`~engine.search.results` (what a search
  reports), :mod:`~engine.search.score` (scores and proven wins) and
  :mod:`~engine.search.tt` (the transposition table).

:func:`engine.searchers.searcher_for` picks one by game and algorithm.
"""

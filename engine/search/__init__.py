"""The searches and what they share.

* :mod:`engine.search.alphabeta`: iterative-deepening alpha-beta for
  deterministic games (the production search);
* :mod:`engine.search.expectimax`: expectiminimax with Star1/Star2 pruning
  for games of chance;
* :mod:`engine.search.mcts`: Monte Carlo tree search (UCT with RAVE) for any
  game;
* :mod:`engine.search.reference`: the textbook minimax, alpha-beta and
  expectiminimax, short and slow, that the tests hold the others to;
* shared by all: :mod:`~engine.search.limits` (what ends a search and its
  deadlines), :mod:`~engine.search.budget` (the bookkeeping of those limits
  and the stop signal), :mod:`~engine.search.results` (what a search
  reports), :mod:`~engine.search.score` (scores and proven wins) and
  :mod:`~engine.search.tt` (the transposition table).

:func:`engine.searchers.searcher_for` picks one by game and algorithm.
"""

"""The MCTS tree's memory budget: ``max_tree_bytes`` bounds growth, ``release`` drops the tree."""

from __future__ import annotations

from engine.registry import create_game
from engine.search.limits import Limits
from engine.search.mcts import LISTED_MOVE_BYTES, NODE_BYTES, MctsSearcher, tree_size
from engine.search.request import SearchRequest

#: A budget a few hundred Go 9x9 nodes fill (each lists about 80 moves).
SMALL_BUDGET = 200 * (NODE_BYTES + 81 * LISTED_MOVE_BYTES)


def _estimate(nodes: int, listed: int) -> int:
    return nodes * NODE_BYTES + listed * LISTED_MOVE_BYTES


def test_tree_stops_growing_at_the_budget_and_search_goes_on() -> None:
    game = create_game("go", {"size": 9})
    searcher = MctsSearcher(game, seed=1)
    searcher.max_tree_bytes = SMALL_BUDGET
    state = game.initial_state()
    result = searcher.think(SearchRequest(state, Limits(nodes=2000)))
    assert searcher.playouts == 2000  # the search went on once the tree was full
    assert result.move is not None
    nodes, listed = tree_size(searcher._search_root)
    # One expansion may pass the budget by the moves of one node, no more.
    assert _estimate(nodes, listed) <= SMALL_BUDGET + NODE_BYTES + 82 * LISTED_MOVE_BYTES
    assert searcher.tree_bytes() == _estimate(nodes, listed)
    assert nodes < 2000


def test_unbounded_tree_grows_past_the_budget() -> None:
    # The control for the test above: the same search without a budget.
    game = create_game("go", {"size": 9})
    searcher = MctsSearcher(game, seed=1)
    searcher.think(SearchRequest(game.initial_state(), Limits(nodes=2000)))
    assert searcher.tree_bytes() > 2 * SMALL_BUDGET


def test_reused_tree_over_a_lowered_budget_is_dropped() -> None:
    game = create_game("go", {"size": 9})
    searcher = MctsSearcher(game, seed=1)
    state = game.initial_state()
    searcher.think(SearchRequest(state, Limits(nodes=1000)))
    searcher.max_tree_bytes = SMALL_BUDGET // 10
    searcher.think(SearchRequest(state, Limits(nodes=10)))
    assert searcher.reused_visits == 0
    assert searcher.tree_bytes() <= SMALL_BUDGET // 10 + NODE_BYTES + 82 * LISTED_MOVE_BYTES


def test_release_drops_the_tree() -> None:
    game = create_game("go", {"size": 9})
    searcher = MctsSearcher(game, seed=1)
    state = game.initial_state()
    searcher.think(SearchRequest(state, Limits(nodes=300)))
    assert searcher.tree_bytes() > 0
    searcher.release()
    assert searcher.tree_bytes() == 0
    searcher.think(SearchRequest(state, Limits(nodes=10)))
    assert searcher.reused_visits == 0

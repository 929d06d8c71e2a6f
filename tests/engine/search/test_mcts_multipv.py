"""Several root lines from one Monte Carlo tree search (``SearchRequest.multipv``).

The lines are read off the tree, as Leela Chess Zero and KataGo give them:
line 1 is the move the search plays, the others the next most-visited root
moves; each has its own principal variation (legal, starting with its move)
and its own score (its move's win rate, or its proof).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.game import CHANCE, Game
from engine.registry import create_game
from engine.search.limits import Limits
from engine.search.mcts import UNPROVEN, MctsSearcher, Node, score_from_win_rate
from engine.search.request import SearchRequest
from engine.search.results import Info, SearchResult
from engine.search.score import Score


def search(
    game: Game[Any, Any], state: Any, k: int, playouts: int, seed: int = 1
) -> tuple[MctsSearcher, SearchResult, list[list[Info]]]:
    """A ``k``-line search of ``playouts``; its reports grouped per report time (line 1 first)."""
    reports: list[Info] = []
    searcher = MctsSearcher(game, seed=seed)
    request = SearchRequest(state, Limits(nodes=playouts), on_info=reports.append, multipv=k)
    result = searcher.think(request)
    groups: list[list[Info]] = []
    for info in reports:
        if info.multipv == 1:
            groups.append([])
        assert groups, "a group of lines starts with line 1"
        groups[-1].append(info)
    return searcher, result, groups


def assert_legal(game: Game[Any, Any], state: Any, pv: tuple[str, ...]) -> None:
    for text in pv:
        assert game.outcome(state) is None, pv
        state = game.play(state, game.parse_move(state, text))


@pytest.mark.parametrize(
    ("name", "options", "k"),
    [("go", {"size": 9}, 3), ("connect4", {}, 4), ("othello", {}, 2), ("chess", {}, 5)],
)
def test_k_distinct_lines_ranked_by_visits_each_legal(
    name: str, options: dict[str, Any], k: int
) -> None:
    game = create_game(name, options)
    state = game.initial_state()
    searcher, result, groups = search(game, state, k, 400)
    final = groups[-1]
    assert [info.multipv for info in final] == list(range(1, k + 1))
    moves = [info.pv[0] for info in final]
    assert len(set(moves)) == k, moves
    assert moves[0] == result.move and final[0].pv == result.info.pv
    assert final[0].score == result.info.score
    for info in final:
        assert_legal(game, state, info.pv)
        assert info.depth == len(info.pv) and info.nodes == final[0].nodes
    # The tree's own ranking: after line 1 (the move played, most visited
    # here), each line's move has no fewer visits than the next.
    root = searcher._tree
    assert root is not None
    visits = {
        game.format_move(state, move): child.visits
        for move, child in zip(root.moves, root.children, strict=True)
        if child is not None
    }
    ranked = [visits[move] for move in moves]
    assert ranked[0] == max(visits.values())
    assert ranked[1:] == sorted(ranked[1:], reverse=True)
    # And no unreported move was visited more than the last line's.
    unreported = [count for move, count in visits.items() if move not in moves]
    assert all(count <= ranked[-1] for count in unreported)


def test_each_line_scores_its_own_move() -> None:
    game = create_game("connect4", {})
    state = game.initial_state()
    searcher, _, groups = search(game, state, 3, 500)
    root = searcher._tree
    assert root is not None
    mover = game.to_move(state)
    for info in groups[-1]:
        index = [game.format_move(state, move) for move in root.moves].index(info.pv[0])
        child = root.children[index]
        assert isinstance(child, Node)
        assert child.proven == UNPROVEN  # 500 playouts prove nothing from the start
        rate = child.reward / child.visits
        rate = rate if mover == 0 else 1.0 - rate
        # The move's own win rate by the module docstring's mapping, not the root's.
        assert info.score == Score(value=score_from_win_rate(rate, game.win_odds_scale))


def test_proven_lines_carry_their_proofs() -> None:
    """Tic-tac-toe is solved within a few thousand playouts: every line is a proven result."""
    game = create_game("tictactoe", {})
    state = game.initial_state()
    for text in ("a1", "b2", "c3"):
        state = game.play(state, game.parse_move(state, text))
    _, result, groups = search(game, state, 6, 20_000)
    assert result.reason == "proven"
    final = groups[-1]
    assert final[0].score == result.info.score
    assert len({info.pv[0] for info in final}) == len(final) == 6
    for info in final:
        assert_legal(game, state, info.pv)
    # Drawn moves come before lost ones; a lost move's proof is shown as such.
    order = [0 if info.score.loss_in is not None else 1 for info in final]
    assert order == sorted(order, reverse=True)
    assert final[0].score == Score(draw=True)


def test_fewer_lines_than_asked_while_fewer_moves_are_visited() -> None:
    game = create_game("go", {"size": 9})
    state = game.initial_state()
    _, result, groups = search(game, state, 16, 5)
    final = groups[-1]
    assert 1 <= len(final) <= 5 and final[0].pv[0] == result.move


def test_one_line_asks_nothing_more() -> None:
    """Without multipv the reports and the answer are the single-line search's."""
    game = create_game("connect4", {})
    state = game.initial_state()
    one_reports: list[Info] = []
    one = MctsSearcher(game, seed=3).think(
        SearchRequest(state, Limits(nodes=300), on_info=one_reports.append)
    )
    assert one_reports and all(info.multipv == 1 for info in one_reports)
    _, many, groups = search(game, state, 3, 300, seed=3)
    # The same tree (same seed, same playouts): the same move and line.
    assert many.move == one.move and many.info.pv == one.info.pv
    assert [info.multipv for info in groups[-1]] == [1, 2, 3]


def test_backgammon_lines_stop_at_the_dice() -> None:
    game = create_game("backgammon", {})
    state = game.initial_state()
    while game.to_move(state) == CHANCE:  # roll the opening dice
        outcomes = game.chance_outcomes(state)
        assert outcomes is not None
        state = game.play(state, outcomes[0][0])
    _, result, groups = search(game, state, 3, 300)
    final = groups[-1]
    assert len({info.pv[0] for info in final}) == len(final) >= 2
    assert final[0].pv[0] == result.move
    assert all(len(info.pv) == 1 for info in final)  # the next roll is a chance node

"""The exercise-tree game: notation, rules, and the production searches on it."""

from __future__ import annotations

import pytest

from engine.errors import BadPositionError
from engine.game import CHANCE
from engine.games.tree import MAX_TREE_NODES, NOTES_TREE, TreeGame
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.searchers import think

GAME = TreeGame()


def test_the_start_is_the_notes_tree_and_moves_are_child_numbers() -> None:
    state = GAME.initial_state()
    assert GAME.format_position(state) == NOTES_TREE
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["1", "2", "3"]
    after = GAME.play_text(state, "2")
    assert GAME.to_move(after) == 1
    assert GAME.format_position(after) == "min [2,4,6]"
    leaf = GAME.play_text(after, "3")
    outcome = GAME.outcome(leaf)
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "leaf 6"
    assert GAME.utility(leaf, 0) == 6 and GAME.utility(leaf, 1) == -6


@pytest.mark.parametrize(
    "text",
    [
        NOTES_TREE,
        "min [2,4,6]",
        '[{"v":4,"c":[3,-12,8]},{"p":[0.25,0.75],"c":[1,[2,0]]}]',
        '{"p":["1/3","2/3"],"c":[1,2]}',
        "7",
    ],
)
def test_positions_round_trip(text: str) -> None:
    state = GAME.parse_position(text)
    assert GAME.parse_position(GAME.format_position(state)) == state
    assert GAME.format_position(state) == text


def test_chance_nodes_list_their_outcomes_and_keep_the_next_player() -> None:
    state = GAME.parse_position('[{"p":["1/3","2/3"],"c":[[1,2],[3,4]]}]')
    chance = GAME.play_text(state, "1")
    assert GAME.to_move(chance) == CHANCE
    assert GAME.chance_outcomes(chance) == [(0, pytest.approx(1 / 3)), (1, pytest.approx(2 / 3))]
    assert GAME.roller(chance) == 1
    assert GAME.to_move(GAME.play_text(chance, "2")) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[3,12,8],", "written in JSON"),
        ("[1.5, 2]", "integers"),
        ("[]", "non-empty list"),
        ('{"c":[1,2],"x":1}', "optionally"),
        ('{"p":[0.5],"c":[1,2]}', "as many probabilities"),
        ('{"p":[0.5,0.6],"c":[1,2]}', "sum to 1"),
        ('{"p":[0,1],"c":[1,2]}', "above 0"),
        ('{"p":["a",1],"c":[1,2]}', "fraction"),
        ("[1000001]", "between"),
        ("[" * 40 + "1" + "]" * 40, "levels deep"),
        (str(list(range(60))), "at most 50 children"),
        (str([[[1, 2, 3]] * 50] * 50), f"at most {MAX_TREE_NODES} nodes"),
        ("[true]", "integers"),
    ],
)
def test_bad_trees_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BadPositionError, match=message):
        GAME.parse_position(text)


def test_think_plays_for_the_tree_s_own_numbers() -> None:
    """The default search (expectiminimax: linear utilities) finds the notes' answer."""
    result = think(GAME, SearchRequest(GAME.initial_state(), Limits(depth=3)))
    assert result.move == "1"
    assert result.info.score.value == 3
    chance = GAME.parse_position('[{"p":[0.5,0.5],"c":[2,4]},{"p":[0.5,0.5],"c":[7,-4]}]')
    assert think(GAME, SearchRequest(chance, Limits(depth=2))).move == "1"  # 3 against 1.5


def test_monte_carlo_search_answers_on_a_tree() -> None:
    result = think(GAME, SearchRequest(GAME.initial_state(), Limits(nodes=200)), algorithm="mcts")
    assert result.move in ("1", "2", "3")

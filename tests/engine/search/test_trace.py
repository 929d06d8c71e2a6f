"""Search traces (engine.search.trace) against the lecture notes and the reference searches."""

from __future__ import annotations

import random
import time
from fractions import Fraction
from typing import Any

import pytest

from engine.errors import GameOverError, UnknownAlgorithmError
from engine.game import CHANCE, Game
from engine.registry import create_game
from engine.search import reference
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest
from engine.search.trace import (
    ALPHABETA,
    ALPHABETA_ORDERED,
    EXPECTIMINIMAX,
    MAX_TRACE_NODES,
    MAX_TRACE_PLAYOUTS,
    MCTS,
    MINIMAX,
    NEGAMAX,
    TRACE_ALGORITHMS,
    Trace,
    TraceChanceError,
    TraceLimitError,
    TraceNode,
    trace,
)

TREE = create_game("tree")
#: Russell & Norvig, figure 5.2: MAX over three MIN nodes.
NOTES = TREE.parse_position("[[3,12,8],[2,4,6],[14,5,2]]")
DETERMINISTIC = (MINIMAX, ALPHABETA, ALPHABETA_ORDERED, NEGAMAX)


def leaf_values(result: Trace) -> list[Any]:
    return [node.value for node in result.nodes if node.kind == "terminal"]


def children(result: Trace, node: TraceNode) -> list[TraceNode]:
    return [child for child in result.nodes if child.parent == node.id]


def random_positions(game: Game[Any, Any], seed: int, count: int, plies: int) -> list[Any]:
    """Decision states a few random plies from the start (dice rolled at random)."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(plies + 1)):
            if game.outcome(state) is not None:
                break
            chances = game.chance_outcomes(state)
            if chances is not None:
                state = game.play(state, chances[rng.randrange(len(chances))][0])
                continue
            moves = game.legal_moves(state)
            state = game.play(state, moves[rng.randrange(len(moves))])
        if game.outcome(state) is None and game.to_move(state) != CHANCE:
            found.append(state)
    return found


# ----------------------------------------------------------------------
# The notes' examples.


def test_minimax_on_the_notes_tree_visits_all_nine_leaves_and_returns_3() -> None:
    result = trace(TREE, NOTES, MINIMAX, 2)
    assert result.value == 3
    assert result.best_move == "1"
    assert result.leaves == 9
    assert result.visited == 13
    assert leaf_values(result) == [3, 12, 8, 2, 4, 6, 14, 5, 2]
    assert [node.value for node in children(result, result.nodes[0])] == [3, 2, 2]
    assert [node.player for node in result.nodes[:3]] == ["max", "min", "max"]
    assert all(node.alpha_in is None for node in result.nodes)  # minimax has no window


def test_alphabeta_on_the_notes_tree_never_visits_4_or_6() -> None:
    result = trace(TREE, NOTES, ALPHABETA, 2)
    assert result.value == 3
    assert result.leaves == 7
    assert leaf_values(result) == [3, 12, 8, 2, 14, 5, 2]
    second_min = children(result, result.nodes[0])[1]
    assert second_min.pruned_after == ["2", "3"]  # the leaves 4 and 6
    assert second_min.value == 2  # a bound: at most 2, worse than the 3 MAX has
    assert (second_min.alpha_in, second_min.beta_in) == (3, float("inf"))
    assert [n.pruned_after for n in result.nodes if n.pruned_after] == [["2", "3"]]


def test_alphabeta_windows_follow_the_textbook_table() -> None:
    """(alpha, beta) on entry to each node, in the order entered, as the notes tabulate them."""
    inf = float("inf")
    result = trace(TREE, NOTES, ALPHABETA, 2)
    windows = [(node.move, node.alpha_in, node.beta_in) for node in result.nodes]
    assert windows == [
        (None, -inf, inf),
        ("1", -inf, inf),
        ("1", -inf, inf),
        ("2", -inf, 3),
        ("3", -inf, 3),
        ("2", 3, inf),
        ("1", 3, inf),
        ("3", 3, inf),
        ("1", 3, inf),
        ("2", 3, 14),
        ("3", 3, 5),
    ]
    root = result.nodes[0]
    assert (root.alpha_out, root.beta_out) == (3, inf)


def test_steps_replay_the_search_in_order() -> None:
    for algorithm in DETERMINISTIC:
        result = trace(TREE, NOTES, algorithm, 2)
        steps = sorted([n.order for n in result.nodes] + [n.exit_order for n in result.nodes])
        assert steps == list(range(2 * len(result.nodes)))
        by_id = {node.id: node for node in result.nodes}
        for node in result.nodes:
            assert node.order < node.exit_order
            if node.parent is not None:
                parent = by_id[node.parent]
                assert parent.order < node.order < node.exit_order < parent.exit_order


def test_ordering_by_evaluation_prunes_more_on_the_notes_tree() -> None:
    """The tree game orders by its own numbers: MIN tries 2 before 14 and 5 in the third node."""
    ordered = trace(TREE, NOTES, ALPHABETA_ORDERED, 2)
    assert ordered.value == 3
    assert ordered.leaves == 5
    third = children(ordered, ordered.nodes[0])[2]
    assert third.pruned_after is not None and len(third.pruned_after) == 2


def test_negamax_enters_the_same_nodes_as_alphabeta_with_values_for_the_mover() -> None:
    plain = trace(TREE, NOTES, ALPHABETA, 2)
    nega = trace(TREE, NOTES, NEGAMAX, 2)

    def record(node: TraceNode) -> tuple[Any, ...]:
        return (node.move, node.value, node.alpha_in, node.beta_in, node.alpha_out, node.beta_out)

    assert [record(node) for node in nega.nodes] == [record(node) for node in plain.nodes]
    for node in nega.nodes:
        sign = 1 if node.player == "max" else -1
        assert node.mover_value == sign * node.value


def test_cutoff_uses_the_heuristic_value_written_in_the_tree() -> None:
    tree = TREE.parse_position('[{"v":4,"c":[3,12,8]},{"v":1,"c":[2,4,6]},[14,5,2]]')
    result = trace(TREE, tree, MINIMAX, 1)
    assert [node.kind for node in children(result, result.nodes[0])] == ["cutoff"] * 3
    assert result.value == 4  # the "v" values 4, 1 and (none written) 0
    assert result.leaves == 3


def test_expectiminimax_averages_chance_nodes_exactly() -> None:
    tree = TREE.parse_position(
        '[{"p":[0.5,0.5],"c":[[2,4],[7,4]]},{"p":["1/3","2/3"],"c":[[1,5],[0,6]]}]'
    )
    result = trace(TREE, tree, EXPECTIMINIMAX, 2)
    chance = children(result, result.nodes[0])
    assert [node.player for node in chance] == ["chance", "chance"]
    assert chance[0].value == 3  # (2 + 4) / 2
    assert chance[1].value == Fraction(1, 3)  # 1/3 * 1 + 2/3 * 0
    assert result.value == 3 and result.best_move == "1"
    outcomes = children(result, chance[1])
    assert [node.probability for node in outcomes] == [Fraction(1, 3), Fraction(2, 3)]
    assert [node.player for node in outcomes] == ["min", "min"]
    assert result.to_dict()["nodes"][chance[1].id]["value"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("algorithm", DETERMINISTIC)
def test_deterministic_searches_refuse_a_chance_node(algorithm: str) -> None:
    tree = TREE.parse_position('[{"p":[0.5,0.5],"c":[1,2]},3]')
    with pytest.raises(UnknownAlgorithmError, match="expectiminimax"):
        trace(TREE, tree, algorithm, 2)


# ----------------------------------------------------------------------
# Real games against the reference searches.

REFERENCE_CASES = [("tictactoe", {}, 3, 6), ("nim", {"heaps": [2, 3, 1]}, 4, 6)]


@pytest.mark.parametrize(("name", "options", "depth", "count"), REFERENCE_CASES)
def test_trace_values_equal_the_reference_searches(
    name: str, options: dict[str, Any], depth: int, count: int
) -> None:
    game = create_game(name, options)
    for state in random_positions(game, 7, count, 4):
        expected = reference.minimax(game, state, depth)
        for algorithm in (*DETERMINISTIC, EXPECTIMINIMAX):
            result = trace(game, state, algorithm, depth, 50_000)
            assert result.value == expected, (algorithm, game.format_position(state))


#: Games, depths and positions for the pruning comparison; small enough for
#: the pure-Python engine in a few seconds.
PRUNING_CASES = [
    ("tictactoe", {}, 3),
    ("nim", {}, 3),
    ("connect4", {}, 3),
    ("othello", {}, 3),
    ("checkers", {}, 3),
    ("chess", {}, 2),
]


@pytest.mark.parametrize(("name", "options", "depth"), PRUNING_CASES)
def test_pruning_never_visits_more_and_ordering_helps_overall(
    name: str, options: dict[str, Any], depth: int
) -> None:
    """alpha-beta enters a subset of minimax's nodes, position by position (a theorem).

    Ordered alpha-beta is not guaranteed to beat the natural order on every
    position: its ordering is a heuristic, and on a few positions the
    natural order happens to try the refutation first (2 of 20 tic-tac-toe
    positions at depth 3, for instance). What it does is visit fewer nodes
    over the set, which is what the lesson measures; where the counts are
    equal, the ordering put the same move first at every node that cut.
    """
    game = create_game(name, options)
    totals = dict.fromkeys(DETERMINISTIC, 0)
    for state in random_positions(game, 11, 8, 8):
        results = {a: trace(game, state, a, depth, MAX_TRACE_NODES) for a in DETERMINISTIC}
        assert len({r.value for r in results.values()}) == 1
        assert results[ALPHABETA].visited <= results[MINIMAX].visited
        assert results[ALPHABETA].leaves <= results[MINIMAX].leaves
        assert results[NEGAMAX].visited == results[ALPHABETA].visited
        for algorithm, result in results.items():
            totals[algorithm] += result.visited
    assert totals[ALPHABETA_ORDERED] <= totals[ALPHABETA] < totals[MINIMAX]


def test_expectiminimax_trace_equals_the_reference_on_backgammon() -> None:
    """Depths 1 and 2 from a roll: the exact trace, rounded, is the reference's value.

    The reference rounds each chance node's average to an integer, the trace
    keeps it exact; with one chance layer (depth 2) rounding, which is
    monotonic, commutes with the max and min above it, so the two agree.
    """
    game = create_game("backgammon")
    for position in random_positions(game, 5, 3, 6):
        for depth in (1, 2):
            result = trace(game, position, EXPECTIMINIMAX, depth, MAX_TRACE_NODES)
            assert round(result.value) == reference.expectiminimax(game, position, depth)
        chance = children(result, result.nodes[0])[0]
        assert chance.player == "chance"
        assert sum(node.probability or 0 for node in children(result, chance)) == 1


# ----------------------------------------------------------------------
# Limits and errors.


def test_a_trace_over_max_nodes_says_how_many_it_would_take() -> None:
    game = create_game("tictactoe")
    with pytest.raises(TraceLimitError, match=r"the full trace has 586 nodes.*max_nodes 586"):
        trace(game, game.initial_state(), MINIMAX, 3, 500)
    full = trace(game, game.initial_state(), MINIMAX, 3, 586)
    assert full.visited == len(full.nodes) == 1 + 9 + 72 + 504


def test_a_trace_too_big_to_count_says_so() -> None:
    game = create_game("chess")
    with pytest.raises(TraceLimitError, match="more than 1000 nodes"):
        trace(game, game.initial_state(), MINIMAX, 4, 100)


def test_bad_requests_are_refused_with_the_reason() -> None:
    game = create_game("tictactoe")
    state = game.initial_state()
    with pytest.raises(UnknownAlgorithmError, match="minimax, alphabeta"):
        trace(game, state, "mtdf", 2)
    with pytest.raises(TraceLimitError, match="between 1 and 30"):
        trace(game, state, MINIMAX, 0)
    with pytest.raises(TraceLimitError, match="at most 50000"):
        trace(game, state, MINIMAX, 2, MAX_TRACE_NODES + 1)
    over = game.parse_position("XXXOO....")
    with pytest.raises(GameOverError):
        trace(game, over, MINIMAX, 2)
    assert set(TRACE_ALGORITHMS) == {*DETERMINISTIC, EXPECTIMINIMAX, MCTS}


def test_a_trace_past_its_deadline_ends_with_an_error() -> None:
    game = create_game("chess")
    with pytest.raises(TraceLimitError, match="did not finish in time"):
        trace(game, game.initial_state(), MINIMAX, 3, MAX_TRACE_NODES, deadline=time.monotonic())


def test_the_wire_form_writes_infinities_as_strings_and_omits_what_does_not_apply() -> None:
    data = trace(TREE, NOTES, ALPHABETA, 2).to_dict()
    root = data["nodes"][0]
    assert (root["alpha_in"], root["beta_in"]) == ("-inf", "inf")
    assert "probability" not in root and "mover_value" not in root
    assert data["nodes"][5]["pruned_after"] == ["2", "3"]
    plain = trace(TREE, NOTES, MINIMAX, 2).to_dict()
    assert "alpha_in" not in plain["nodes"][0]
    counts = (plain["value"], plain["best_move"], plain["visited"], plain["leaves"])
    assert counts == (3, "1", 13, 9)


# ----------------------------------------------------------------------
# mcts: the tree Monte Carlo tree search grew, as it stands.


def test_mcts_tree_counts_every_playout_once_per_level() -> None:
    """Every iteration passes the root and adds at most one node; visits add up."""
    game = create_game("tictactoe")
    result = trace(game, game.initial_state(), MCTS, 1, playouts=100)
    root = result.nodes[0]
    assert result.playouts == result.leaves == 100 and root.visits == 100
    assert result.visited == len(result.nodes) <= 101
    assert sum(child.visits or 0 for child in children(result, root)) == 100
    for node in result.nodes:
        assert node.visits is not None and node.wins is not None and node.alpha_in is None
        assert 0 <= node.wins <= node.visits
        assert node.value == pytest.approx(node.wins / node.visits)
        below = children(result, node)
        if below:
            assert node.kind == "inner" and node.visits >= sum(c.visits or 0 for c in below)
            assert node.best_move == max(below, key=lambda c: c.visits or 0).move or node is root
            assert all(child.order > node.order for child in below)
        else:
            assert node.kind in ("playout", "terminal")
    assert sorted(node.order for node in result.nodes) == sorted({n.order for n in result.nodes})
    assert result.depth == max(node.depth for node in result.nodes)


def test_mcts_trace_is_the_tree_of_the_engine_that_plays() -> None:
    """Same seed, same iterations: the trace's move is the move think() plays."""
    game = create_game("connect4")
    for state in random_positions(game, 11, 4, 6):
        result = trace(game, state, MCTS, 1, playouts=300, seed=5)
        played = MctsSearcher(game, seed=5, reuse=False).think(
            SearchRequest(state, Limits(nodes=300))
        )
        assert result.best_move == played.move
        assert result.to_dict() == trace(game, state, MCTS, 1, playouts=300, seed=5).to_dict()


def test_mcts_values_are_max_s_even_when_min_moves_first_at_the_root_s_child() -> None:
    """After one move the player to move is MAX: wins are counted for that player."""
    game = create_game("tictactoe")
    state = game.play(game.initial_state(), game.parse_move(game.initial_state(), "a1"))
    result = trace(game, state, MCTS, 1, playouts=200)
    root = result.nodes[0]
    assert root.player == "max" and all(c.player == "min" for c in children(result, root))
    # X took a corner: O (MAX here) is worse off than even.
    assert result.value < 0.5


def test_mcts_on_a_win_loss_tree_proves_the_winning_move() -> None:
    """The solver proves the root once both leaves under move 1 are wins: it stops early."""
    tree = TREE.parse_position("[[1,1],[1,-1],[-1,-1]]")
    result = trace(TREE, tree, MCTS, 1, playouts=1000)
    assert result.best_move == "1" and result.playouts is not None and result.playouts < 1000
    assert [node.value for node in result.nodes if node.kind == "terminal" and node.value == 0]


def test_mcts_chance_nodes_carry_their_probabilities() -> None:
    game = create_game("backgammon")
    state = random_positions(game, 3, 1, 4)[0]
    result = trace(game, state, MCTS, 1, playouts=100)
    chance = [node for node in result.nodes if node.player == "chance"]
    assert chance, "every move in backgammon leads to a roll"
    for node in chance:
        rolls = children(result, node)
        assert all(roll.probability is not None and roll.depth == node.depth for roll in rolls)


def test_mcts_refuses_a_chance_state_and_says_how_many_nodes_it_needs() -> None:
    game = create_game("backgammon")
    with pytest.raises(TraceChanceError, match="roll"):
        trace(game, game.initial_state(), MCTS, 1)
    chess = create_game("chess")
    with pytest.raises(TraceLimitError, match=r"has (\d+) nodes, more than max_nodes \(10\)"):
        trace(chess, chess.initial_state(), MCTS, 1, 10, playouts=50)
    with pytest.raises(TraceLimitError, match="playouts"):
        trace(chess, chess.initial_state(), MCTS, 1, playouts=MAX_TRACE_PLAYOUTS + 1)


def test_mcts_playout_log_replays_every_node_s_statistics() -> None:
    """Each iteration's path (its last node's lineage) and result add up to the final tree."""
    game = create_game("tictactoe")
    result = trace(game, game.initial_state(), MCTS, 1, playouts=150, seed=3)
    assert result.playout_log is not None and len(result.playout_log) == result.playouts
    by_id = {node.id: node for node in result.nodes}
    visits = dict.fromkeys(by_id, 0)
    wins = dict.fromkeys(by_id, 0.0)
    for last, reward in result.playout_log:
        assert reward in (0.0, 0.5, 1.0)
        at: int | None = last
        while at is not None:
            visits[at] += 1
            wins[at] += reward
            at = by_id[at].parent
    for node in result.nodes:
        assert (visits[node.id], wins[node.id]) == (node.visits, pytest.approx(node.wins))
    # The iteration that added a node ends there.
    for number, (last, _) in enumerate(result.playout_log, start=1):
        added = [node for node in result.nodes if node.order == number]
        assert [node.id for node in added] in ([last], [])
    # The same tree as the searcher's own grow(), and the log survives the wire.
    root, _ = MctsSearcher(game, seed=3, reuse=False).grow(game.initial_state(), 150, None, None)
    assert result.nodes[0].visits == root.visits and result.nodes[0].wins == root.reward
    assert Trace.from_dict(result.to_dict()).playout_log == result.playout_log

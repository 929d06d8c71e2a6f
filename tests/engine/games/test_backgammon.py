"""Backgammon: rules positions, notation, Position IDs, and OpenSpiel as a legal-move oracle."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import CHANCE
from engine.games.backgammon import (
    POINT,
    START_BOARD,
    VALUE_BOUND,
    Backgammon,
    BgState,
    Board,
    MatchId,
    decode_match_id,
    decode_position_id,
    encode_match_id,
    encode_position_id,
)
from engine.registry import create_game

GAME = Backgammon()


def board(points: dict[Any, int]) -> Board:
    """A board from {point number (1-24) or 'bar': count}."""
    counts = [0] * 25
    for point, count in points.items():
        counts[24 if point == "bar" else point - 1] = count
    return tuple(counts)


def position(
    me: dict[Any, int], opp: dict[Any, int], dice: tuple[int, int] | None, turn: int = 0
) -> BgState:
    return BgState(board(me), board(opp), turn, dice)


def moves(state: BgState) -> set[str]:
    return {GAME.format_move(state, move) for move in GAME.legal_moves(state)}


def random_states(count: int, seed: int, keep: Callable[[BgState], bool]) -> list[BgState]:
    """The first ``count`` states met along seeded random games that ``keep`` accepts."""
    rng = random.Random(seed)
    states: list[BgState] = []
    state = GAME.initial_state()
    while len(states) < count:
        if GAME.outcome(state) is not None:
            state = GAME.initial_state()
            continue
        if keep(state):
            states.append(state)
        state = GAME.play(state, rng.choice(GAME.legal_moves(state)))
    return states


def random_decision_states(count: int, seed: int) -> list[BgState]:
    return random_states(count, seed, keep=lambda state: GAME.to_move(state) != CHANCE)


# ----------------------------------------------------------------------
# Start, chance states, position IDs.


def test_start_position_id_and_opening_roll() -> None:
    state = GAME.initial_state()
    assert GAME.format_position(state) == "4HPwATDgc/ABMA opening"
    assert encode_position_id(START_BOARD, START_BOARD) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == (START_BOARD, START_BOARD)
    assert GAME.to_move(state) == CHANCE
    outcomes = GAME.chance_outcomes(state)
    assert outcomes is not None and len(outcomes) == 30
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    # Player 0 threw 3, player 1 threw 5: player 1 starts with 5-3.
    after = GAME.play_text(state, "3-5")
    assert GAME.to_move(after) == 1
    assert GAME.format_position(after) == "4HPwATDgc/ABMA 1 5-3"
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "4-4")


def test_rolls_are_21_outcomes_summing_to_one() -> None:
    state = GAME.parse_position("4HPwATDgc/ABMA 1 -")
    assert GAME.to_move(state) == CHANCE and GAME.roller(state) == 1
    outcomes = GAME.chance_outcomes(state)
    assert outcomes is not None and len(outcomes) == 21
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert dict(outcomes)[(6, 6)] == pytest.approx(1 / 36)
    assert dict(outcomes)[(5, 3)] == pytest.approx(2 / 36)
    assert GAME.play_text(state, "3-5").dice == (5, 3)
    assert GAME.chance_outcomes(GAME.play_text(state, "3-5")) is None


def test_position_id_round_trips() -> None:
    for state in random_decision_states(300, seed=11):
        text = GAME.format_position(state)
        assert re.fullmatch(r"[A-Za-z0-9+/]{14} [01] [1-6]-[1-6]", text)
        assert GAME.parse_position(text) == state


def test_position_ids_after_asymmetric_moves_are_gnubgs() -> None:
    # GNU Backgammon 1.07, seed 7: player 1 wins the opening roll with 2-1 and
    # plays 24/23 13/11; player 0 rolls 5-2 and plays 24/22 13/8. Its IDs
    # (positionid(), matchid()) at each step, before and after each roll.
    state = GAME.play(GAME.initial_state(), (1, 2))
    assert GAME.format_position(state) == "4HPwATDgc/ABMA 1 2-1"
    state = GAME.play_text(state, "24/23 13/11")
    assert GAME.format_position(state) == "4HPkASjgc/ABMA 0 -"
    assert GAME.parse_position("4HPkASjgc/ABMA:MAEAAAAAAAAA") == state
    # The ID holds the player not on roll (1, who just moved) first.
    assert state.opp == board({24: 1, 23: 1, 13: 4, 11: 1, 8: 3, 6: 5})
    assert state.me == START_BOARD
    assert decode_position_id("4HPkASjgc/ABMA") == (state.me, state.opp)
    assert encode_position_id(state.me, state.opp) == "4HPkASjgc/ABMA"
    state = GAME.play_text(state, "5-2")
    assert GAME.format_position(state) == "4HPkASjgc/ABMA 0 5-2"
    assert GAME.parse_position("4HPkASjgc/ABMA:MIEKAAAAAAAA") == state
    state = GAME.play_text(state, "24/22 13/8")
    assert GAME.format_position(state) == "4PPgASTgc+QBKA 1 -"
    assert GAME.parse_position("4PPgASTgc+QBKA 1 -") == state
    assert GAME.parse_position("4PPgASTgc+QBKA:cAkAAAAAAAAA") == state
    rolled = GAME.play_text(state, "6-3")
    assert GAME.parse_position("4PPgASTgc+QBKA:cAkPAAAAAAAA") == rolled
    assert GAME.parse_position(" 4PPgASTgc+QBKA:cAkPAAAAAAAA\n") == rolled
    # The same ID with the other player on roll is another position.
    assert GAME.parse_position("4PPgASTgc+QBKA 0 -") != state


def test_match_ids_decode_as_gnubg_writes_them() -> None:
    # Real gnubg 1.07 Match IDs: money game, opening 2-1 with player 1 on roll.
    assert decode_match_id("cAkFAAAAAAAA") == MatchId(
        cube=1,
        cube_owner=3,
        on_roll=1,
        crawford=False,
        game_state=1,
        turn=1,
        double_offered=False,
        resignation=0,
        dice=(2, 1),
        match_length=0,
        score=(0, 0),
    )
    # A 7-point match at 3-2, the cube on 2 owned by player 0, player 1 on roll with 6-5.
    rolled = decode_match_id("QQn3ADAAEAAE")
    assert (rolled.match_length, rolled.score, rolled.cube, rolled.cube_owner) == (7, (3, 2), 2, 0)
    assert (rolled.on_roll, rolled.turn, rolled.dice) == (1, 1, (6, 5))
    # Player 1 doubled: player 0 is to decide.
    doubled = decode_match_id("cBHgADAAEAAE")
    assert doubled.double_offered and (doubled.on_roll, doubled.turn) == (1, 0)
    # Player 1 offers to resign a single game.
    assert decode_match_id("QSH3ADAAEAAE").resignation == 1
    # The game is over (gnubg's state after the last checker is borne off).
    assert decode_match_id("cAoAABAAAAAE").game_state == 2


#: Real gnubg 1.07 Match IDs: money games with and without the cube and the
#: Jacoby rule, a 7-point match, a double and a resignation offered, game over.
GNUBG_MATCH_IDS = [
    "cAkFAAAAAAAA",
    "cAkFAAAAAAAE",
    "cAkPAAAAAAAE",
    "MAEAAAAAAAAE",
    "QQn3ADAAEAAE",
    "cBHgADAAEAAE",
    "QSH3ADAAEAAE",
    "cAoAABAAAAAE",
    "MAIAABAACAAE",
    "MQHmADAAEAAE",
]


@pytest.mark.parametrize("text", GNUBG_MATCH_IDS)
def test_match_ids_encode_back_to_what_gnubg_wrote(text: str) -> None:
    assert encode_match_id(decode_match_id(text)) == text


def test_match_id_bit_66_is_the_jacoby_rule_not_in_effect() -> None:
    # gnubg 1.07 at the same 2-1 start: cube and Jacoby on, then cube use off.
    assert decode_match_id("cAkFAAAAAAAA").jacoby
    assert not decode_match_id("cAkFAAAAAAAE").jacoby
    assert decode_match_id("cAkFAAAAAAAE") == decode_match_id("cAkFAAAAAAAA")._replace(jacoby=False)


def test_match_ids_round_trip_every_field() -> None:
    rng = random.Random(7)
    for _ in range(500):
        fields = MatchId(
            cube=1 << rng.randrange(16),
            cube_owner=rng.randrange(4),
            on_roll=rng.randrange(2),
            crawford=rng.random() < 0.5,
            game_state=rng.randrange(8),
            turn=rng.randrange(2),
            double_offered=rng.random() < 0.5,
            resignation=rng.randrange(4),
            dice=(rng.randrange(8), rng.randrange(8)),
            match_length=rng.randrange(1 << 15),
            score=(rng.randrange(1 << 15), rng.randrange(1 << 15)),
            jacoby=rng.random() < 0.5,
        )
        text = encode_match_id(fields)
        assert re.fullmatch(r"[A-Za-z0-9+/]{12}", text)
        assert decode_match_id(text) == fields


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cube": 3}, "power of two"),
        ({"cube": 0}, "power of two"),
        ({"cube": 1 << 16}, "cube"),
        ({"cube_owner": 4}, "cube_owner"),
        ({"game_state": 8}, "game_state"),
        ({"dice": (8, 1)}, "dice"),
        ({"dice": (-1, 1)}, "dice"),
        ({"match_length": 1 << 15}, "match_length"),
        ({"score": (0, 1 << 15)}, "score"),
    ],
)
def test_match_id_fields_out_of_range_are_refused(change: dict[str, Any], message: str) -> None:
    fields = decode_match_id("cAkFAAAAAAAE")._replace(**change)
    with pytest.raises(ValueError, match=message):
        encode_match_id(fields)


def test_gnubg_id_is_what_gnubg_writes_for_a_cubeless_money_game() -> None:
    state = GAME.initial_state()
    assert GAME.gnubg_id(state) is None  # gnubg rolls the opening itself
    # gnubg 1.07 (set cube use off), seed 1: player 1 opens with 2-1.
    state = GAME.play_text(state, "1-2")
    assert GAME.gnubg_id(state) == "4HPwATDgc/ABMA:cAkFAAAAAAAE"
    assert GAME.parse_position("4HPwATDgc/ABMA:cAkFAAAAAAAE") == state
    moved = GAME.play_text(state, "13/11 6/5")
    gnubg_id = GAME.gnubg_id(moved)
    assert gnubg_id is not None
    position_id, _, match_id = gnubg_id.partition(":")
    assert position_id == GAME.format_position(moved).split()[0]
    assert decode_match_id(match_id) == MatchId(
        cube=1,
        cube_owner=3,
        on_roll=0,
        crawford=False,
        game_state=1,
        turn=0,
        double_offered=False,
        resignation=0,
        dice=(0, 0),
        match_length=0,
        score=(0, 0),
        jacoby=False,
    )
    assert GAME.parse_position(gnubg_id) == moved
    rolled = GAME.play_text(moved, "3-6")
    rolled_fields = decode_match_id(match_id)._replace(dice=(6, 3))
    assert GAME.gnubg_id(rolled) == f"{position_id}:{encode_match_id(rolled_fields)}"


def test_gnubg_id_of_a_finished_game_is_gnubgs_game_over_id() -> None:
    # gnubg 1.07 after player 0 bore off the last checker of a single game,
    # the first game of its session: the loser on roll, the winner's point scored.
    state = GAME.parse_position("AAAAaAAAAAAAAA 1 -")
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winner, outcome.points) == (0, 1)
    assert GAME.gnubg_id(state) == "AAAAaAAAAAAAAA:cAoAABAAAAAE"
    # Player 1 bore off while all of player 0's checkers are still in its home board.
    backgammon = BgState(board({24: 15}), board({}), 0, None)
    gnubg_id = GAME.gnubg_id(backgammon)
    assert gnubg_id is not None
    fields = decode_match_id(gnubg_id.partition(":")[2])
    assert (fields.game_state, fields.on_roll, fields.turn, fields.score) == (2, 0, 0, (0, 3))
    with pytest.raises(BadPositionError, match="game is over"):
        GAME.parse_position(gnubg_id)


def test_gnubg_ids_read_back_as_the_same_state() -> None:
    rng = random.Random(3)
    state = GAME.initial_state()
    checked = 0
    while checked < 300:
        if GAME.outcome(state) is not None:
            state = GAME.initial_state()
            continue
        gnubg_id = GAME.gnubg_id(state)
        if state.opening:
            assert gnubg_id is None
        else:
            assert gnubg_id is not None
            assert GAME.parse_position(gnubg_id) == state
            checked += 1
        state = GAME.play(state, rng.choice(GAME.legal_moves(state)))


def test_gnubg_ids_ignore_the_cube_and_the_score() -> None:
    # The start of game 1 of a 7-point match at 3-2 with the cube on 2: the
    # checker play is the same as in a money game.
    state = GAME.parse_position("4HPwATDgc/ABMA:MQHmADAAEAAE")
    assert state == BgState(START_BOARD, START_BOARD, 0, (4, 1))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPhASjgc/ABMA:cBHgADAAEAAE", "double offered"),
        ("4HPhASjgc/ABMA:QSH3ADAAEAAE", "resignation pending"),
        ("AAAAaAAAAAAAAA:cAoAABAAAAAE", "game is over"),
        ("4HPwATDgc/ABMA:cAgFAAAAAAAA", "no game"),
        ("4HPwATDgc/ABMA:cAkdAAAAAAAA", "impossible dice"),
        ("4HPwATDgc/ABMA:cAEFAAAAAAAA", "to decide"),
        ("4HPwATDgc/ABMA:cAkFAAAA", "not a Match ID"),
        ("4HPwATDgc/ABMA:", "GNU Backgammon ID"),
        ("4HPwATDgc/ABMA: cAkFAAAAAAAA", "GNU Backgammon ID"),
        ("4HPwATDgc/ABM:cAkFAAAAAAAA", "not a Position ID"),
        ("AAAAAAAAAAAAAA:cAkFAAAAAAAA", "borne off every checker"),
    ],
)
def test_gnubg_ids_that_are_no_checker_play_are_refused(text: str, message: str) -> None:
    with pytest.raises(BadPositionError, match=message):
        GAME.parse_position(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4HPwATDgc/ABMA",
        "4HPwATDgc/ABMA 2 3-1",
        "4HPwATDgc/ABMA 0 7-1",
        "!!!!!!!!!!!!!! 0 -",
        "//////////////",
        "AAAAAAAAAAAAAA 0 -",
        "4HPwATDgc/ABMA 0 3-1 x",
    ],
)
def test_bad_positions_are_refused(text: str) -> None:
    with pytest.raises(BadPositionError):
        GAME.parse_position(text)


def test_registered() -> None:
    assert isinstance(create_game("backgammon"), Backgammon)


# ----------------------------------------------------------------------
# Rules.


def test_opening_three_one_has_sixteen_plays() -> None:
    state = GAME.parse_position("4HPwATDgc/ABMA 0 3-1")
    assert len(GAME.legal_moves(state)) == 16
    assert "8/5 6/5" in moves(state)
    assert "24/20" in moves(state)  # one checker with both dice: 24/21/20 or 24/23/20


def test_checker_on_the_bar_must_enter_first() -> None:
    # Points 24-20 (entered with 1-5) are closed; only a 6 enters, on the 19.
    opp = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 12: 5}
    state = position({"bar": 1, 13: 14}, opp, (6, 1))
    assert moves(state) == {"bar/19 13/12", "bar/18"}
    assert moves(position({"bar": 1, 13: 14}, opp, (5, 4))) == {"pass"}
    # Two on the bar and 6-6: both enter, then two more sixes.
    both = position({"bar": 2, 13: 13}, opp, (6, 6))
    assert moves(both) == {"bar/19(2) 13/7(2)", "bar/19(2) 13/1"}


def test_hitting_sends_the_blot_to_the_bar() -> None:
    # The opponent's blot on our 5 point is its 20 point.
    state = position({8: 2, 6: 13}, {20: 1, 1: 14}, (3, 1))
    assert "8/5*(2)" not in moves(state)
    assert "8/5* 6/5" in moves(state)
    after = GAME.play_text(state, "8/5* 6/5")
    assert after.me[24] == 1  # the opponent (now on roll) is on the bar
    assert after.me[19] == 0
    # '*' is optional and the order free when parsing.
    assert GAME.parse_move(state, "6/5 8/5") == GAME.parse_move(state, "8/5* 6/5")


def test_larger_die_when_only_one_can_be_used() -> None:
    # Either die alone moves the checker on 20, but never both: 14 and 15
    # lead to the closed 9 point. The 6 must be played.
    state = position({20: 1, 1: 14}, {16: 2, 6: 13}, (6, 5))
    assert moves(state) == {"20/14"}


def test_one_die_only_when_the_other_is_blocked() -> None:
    # 20/14 is closed; 20/15 is open but then 15/9 is closed: play the 5 alone.
    state = position({20: 1, 1: 14}, {11: 2, 16: 2, 6: 11}, (6, 5))
    assert moves(state) == {"20/15"}


def test_bear_off_with_higher_die_only_from_highest_point() -> None:
    # The 6 bears off from the 5 (the highest point); 5/4/off reads 5/off.
    state = position({5: 1, 3: 2}, {20: 15}, (6, 1))
    assert moves(state) == {"5/off 3/2", "5/off"}
    # A 5 cannot bear off from the 2 while the 6 point is occupied: 6/1 first,
    # or 6/2 with the 4 and then the 5 from the 2, now the highest.
    state = position({6: 1, 2: 1}, {20: 15}, (5, 4))
    assert moves(state) == {"6/1 2/off", "6/off"}
    assert GAME.play_text(state, "6/off").me == GAME.play_text(state, "6/1 2/off").me
    assert GAME.play_text(state, "6/off").opp == board({2: 1})


def test_bearing_off_needs_every_checker_home() -> None:
    state = position({7: 1, 3: 14}, {20: 15}, (6, 6))
    assert moves(state) == {"7/1 3/off(3)"}


def test_doubles_move_four_times() -> None:
    state = GAME.parse_position("4HPwATDgc/ABMA 0 6-6")
    assert all(len(move) == 4 for move in GAME.legal_moves(state))
    assert "24/18(2) 13/7(2)" in moves(state)


def test_results_single_gammon_backgammon() -> None:
    # The player on roll (1) bears off its last checker.
    last = position({1: 1}, {10: 15}, (6, 1), turn=1)
    done = GAME.play_text(last, "1/off")
    outcome = GAME.outcome(done)
    assert outcome is not None and (outcome.winner, outcome.points) == (1, 2)
    assert GAME.utility(done, 1) == 2 and GAME.utility(done, 0) == -2
    assert GAME.legal_moves(done) == [] and GAME.chance_outcomes(done) is None
    single = GAME.outcome(GAME.play_text(position({1: 1}, {10: 14}, (6, 1)), "1/off"))
    assert single is not None and single.points == 1
    # A loser's checker in the winner's home board (its own 19-24) is a backgammon.
    triple = GAME.outcome(GAME.play_text(position({1: 1}, {10: 14, 22: 1}, (6, 1)), "1/off"))
    assert triple is not None and (triple.points, triple.reason) == (3, "backgammon")
    with pytest.raises(GameOverError):
        GAME.parse_move(done, "1-1")


# ----------------------------------------------------------------------
# Notation.


def test_every_formatted_move_parses_back() -> None:
    for state in random_decision_states(200, seed=5):
        legal = GAME.legal_moves(state)
        texts = [GAME.format_move(state, move) for move in legal]
        assert len(set(texts)) == len(texts), GAME.format_position(state)
        sample = random.Random(len(legal)).sample(range(len(legal)), min(4, len(legal)))
        for index in sample:
            assert GAME.parse_move(state, texts[index]) == legal[index]


@pytest.mark.parametrize("text", ["13/7 7/1", "25/3", "hello", "13/14", "13/x", "", "24/18(0)"])
def test_bad_moves_are_refused_with_the_legal_list(text: str) -> None:
    state = GAME.parse_position("4HPwATDgc/ABMA 0 6-5")
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, text)
    assert "24/13" in error.value.legal_moves


def test_alternative_spellings() -> None:
    state = GAME.parse_position("4HPwATDgc/ABMA 0 6-5")
    assert GAME.format_move(state, GAME.parse_move(state, "24/18/13")) == "24/13"
    assert GAME.parse_move(state, "24/18 18/13") == GAME.parse_move(state, "24/13")
    assert GAME.parse_move(state, "13/7* 13/8") == GAME.parse_move(state, "13/8 13/7")


# ----------------------------------------------------------------------
# Evaluation.


def test_evaluation_is_bounded_and_favours_the_pip_leader() -> None:
    for state in random_decision_states(300, seed=3):
        assert abs(GAME.evaluate(state)) <= VALUE_BOUND
    race_ahead = position({1: 15}, {6: 15}, None)
    assert GAME.evaluate(race_ahead) > POINT * 0.9
    assert GAME.evaluate(GAME.parse_position("4HPwATDgc/ABMA 0 -")) > 0  # on roll


def test_evaluation_of_mirrored_position_is_negated_when_symmetric() -> None:
    state = position({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}, None)
    value = GAME.evaluate(state)
    assert 0 < value < POINT // 2  # only the roll separates the sides


# ----------------------------------------------------------------------
# OpenSpiel as an independent oracle (test-only dependency: pip install open-spiel).


def _spiel_boards(spiel_state: Any, mover: int) -> tuple[Board, Board]:
    """The boards of an OpenSpiel backgammon state, ``mover``'s first, in our frames.

    OpenSpiel's player 0 (x) has its 24 point at position 0, player 1 (o)
    at position 23; the bar and the borne-off counts are read from its
    text form.
    """
    text = str(spiel_state)
    bar_match = re.search(r"Bar:(.*)", text)
    scores = re.search(r"Scores, X: (\d+), O: (\d+)", text)
    assert bar_match is not None and scores is not None
    bar = bar_match.group(1)
    x = (*tuple(spiel_state.board(0, 23 - i) for i in range(24)), bar.count("x"))
    o = (*tuple(spiel_state.board(1, i) for i in range(24)), bar.count("o"))
    assert sum(x) + int(scores.group(1)) == 15 and sum(o) + int(scores.group(2)) == 15
    return (x, o) if mover == 0 else (o, x)


def _spiel_turn_results(spiel_state: Any, mover: int) -> set[tuple[Board, Board]]:
    """Every distinct position at the end of ``mover``'s turn (a double takes two actions)."""
    results: set[tuple[Board, Board]] = set()
    frontier = {tuple(spiel_state.observation_tensor(0)): spiel_state}
    while frontier:
        following: dict[Any, Any] = {}
        for node in frontier.values():
            if node.is_terminal() or node.is_chance_node() or node.current_player() != mover:
                results.add(_spiel_boards(node, mover))
                continue
            for action in node.legal_actions():
                child = node.clone()
                child.apply_action(action)
                following.setdefault(
                    (tuple(child.observation_tensor(0)), child.is_chance_node()), child
                )
        frontier = following
    return results


@pytest.mark.slow
def test_legal_moves_match_openspiel_on_random_playouts() -> None:
    pyspiel = pytest.importorskip(
        "pyspiel", reason="OpenSpiel is the test-only oracle: pip install open-spiel"
    )
    spiel_game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring"})
    compared = finished = 0
    seed = 0
    while compared < 2000:
        rng = random.Random(seed)
        seed += 1
        node = spiel_game.new_initial_state()
        turn_starts = False
        last: BgState | None = None
        while not node.is_terminal():
            if node.is_chance_node():
                node.apply_action(rng.choice([outcome for outcome, _ in node.chance_outcomes()]))
                turn_starts = True
                continue
            mover = node.current_player()
            if turn_starts:
                dice_match = re.search(r"Dice: (\d)(\d)", str(node))
                assert dice_match is not None
                high, low = sorted(map(int, dice_match.groups()), reverse=True)
                me, opp = _spiel_boards(node, mover)
                state = BgState(me, opp, mover, (high, low))
                ours = {GAME.play(state, move) for move in GAME.legal_moves(state)}
                ours_boards = {(after.opp, after.me) for after in ours}
                assert ours_boards == _spiel_turn_results(node, mover), GAME.format_position(state)
                compared += 1
                last = state
                turn_starts = False
            node.apply_action(rng.choice(node.legal_actions()))
        # The final position: the winner has just moved; points must agree.
        if last is not None:
            winner = 0 if node.returns()[0] > 0 else 1
            loser_board, winner_board = _spiel_boards(node, 1 - winner)
            final = BgState(loser_board, winner_board, 1 - winner, None)
            outcome = GAME.outcome(final)
            assert outcome is not None
            assert (outcome.winner, outcome.points) == (winner, abs(int(node.returns()[0])))
            finished += 1
    assert finished >= 10

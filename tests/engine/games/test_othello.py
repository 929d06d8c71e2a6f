"""Othello: perft, rules (passes, end of game), notation, search against the reference."""

from __future__ import annotations

import random

import pytest

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.games.othello import PASS, Othello, OthelloState
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.reference import alphabeta, minimax
from engine.search.request import SearchRequest

GAME = Othello()
START = "---------------------------OX------XO--------------------------- X"

#: Published perft counts from the start position (Aart Bik, "Reversi perft";
#: a pass uses a ply, a finished game is a leaf even above full depth).
PERFT = (4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284)


class PlainOthello(Othello):
    """Othello without late-move reductions, which the textbook reference lacks."""

    def uses_reductions(self) -> bool:
        return False


def board(*rows: str, side: str = "X") -> str:
    """A position from up to eight 8-character rows (row 1 first); missing rows are empty."""
    full = [*rows, *["--------"] * (8 - len(rows))]
    assert all(len(row) == 8 for row in full)
    return "".join(full) + " " + side


def slow_perft(state: OthelloState, depth: int) -> int:
    """Perft through the public interface only (legal_moves and play)."""
    if depth == 0:
        return 1
    moves = GAME.legal_moves(state)
    if not moves:
        return 1
    return sum(slow_perft(GAME.play(state, move), depth - 1) for move in moves)


def random_states(seed: int, count: int) -> list[OthelloState]:
    rng = random.Random(seed)
    states: list[OthelloState] = []
    while len(states) < count:
        state = GAME.initial_state()
        for _ in range(rng.randrange(60)):
            moves = GAME.legal_moves(state)
            if not moves:
                break
            state = GAME.play(state, rng.choice(moves))
        states.append(state)
    return states


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_bulk_counting(depth: int) -> None:
    assert GAME.perft(GAME.initial_state(), depth) == PERFT[depth - 1]


@pytest.mark.parametrize("depth", range(1, 6))
def test_perft_through_the_interface(depth: int) -> None:
    assert slow_perft(GAME.initial_state(), depth) == PERFT[depth - 1]


def test_start_position_and_first_moves() -> None:
    state = GAME.initial_state()
    assert GAME.format_position(state) == START
    assert GAME.parse_position(START) == state
    assert sorted(GAME.format_move(state, m) for m in GAME.legal_moves(state)) == [
        "c4",
        "d3",
        "e6",
        "f5",
    ]
    assert GAME.to_move(state) == 0
    after = GAME.play_text(state, "d3")
    assert GAME.format_position(after) == board(
        "--------", "--------", "---X----", "---XX---", "---XO---", side="O"
    )
    assert GAME.to_move(after) == 1


def test_registered() -> None:
    game = create_game("othello")
    assert isinstance(game, Othello)
    assert game.players == ("black", "white")


def test_forced_pass() -> None:
    # White on a1, Black on b1: Black cannot flip anything, White can play c1.
    state = GAME.parse_position(board("OX------"))
    assert GAME.outcome(state) is None
    assert GAME.legal_moves(state) == [PASS]
    assert GAME.format_move(state, PASS) == "pass"
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "c1")
    state = GAME.play_text(state, "pass")
    assert GAME.to_move(state) == 1
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["c1"]
    state = GAME.play_text(state, "c1")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1
    assert outcome.reason == "0-3 discs"
    assert GAME.legal_moves(state) == []


def test_game_ends_when_neither_side_can_move() -> None:
    # Neither colour has a flanking move, though the board is nearly empty:
    # the game ends at once (the "double pass") without any pass being played.
    state = GAME.parse_position(board("XX-----O"))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "2-1 discs"
    assert GAME.legal_moves(state) == [] and GAME.ordered_moves(state) == []
    with pytest.raises(GameOverError):
        GAME.parse_move(state, "pass")
    draw = GAME.parse_position(board("X------O", side="O"))
    outcome = GAME.outcome(draw)
    assert outcome is not None and outcome.winner is None


def test_pass_is_not_legal_when_a_move_exists() -> None:
    state = GAME.initial_state()
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, "pass")
    assert sorted(error.value.legal_moves) == ["c4", "d3", "e6", "f5"]


def test_flips_in_every_direction() -> None:
    # Black plays d4, the centre of a star of white discs with black ends.
    state = GAME.parse_position(
        board(
            "-X-X-X--",
            "--OOO---",
            "-XO-OX--",
            "--OOO---",
            "-X-X-X--",
        )
    )
    after = GAME.play_text(state, "d3")
    assert GAME.format_position(after) == board(
        "-X-X-X--",
        "--XXX---",
        "-XXXXX--",
        "--XXX---",
        "-X-X-X--",
        side="O",
    )


def test_no_wrap_round_the_edges() -> None:
    # h1 then a2 are adjacent bits but not adjacent squares.
    state = GAME.parse_position(board("-------O", "X-------"))
    assert GAME.outcome(state) is not None  # nobody can move: nothing wraps


@pytest.mark.parametrize(
    "text",
    [
        "",
        START[:-2],
        START + " X",
        START.replace(" X", " B"),
        START.replace("-", "?", 1),
        "X" * 63 + " X",
    ],
)
def test_bad_positions(text: str) -> None:
    with pytest.raises(BadPositionError):
        GAME.parse_position(text)


@pytest.mark.parametrize("text", ["", "d4", "z9", "d33", "pass", "D3 extra", "i1"])
def test_bad_moves(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(GAME.initial_state(), text)


def test_move_parsing_is_lenient_about_case_and_spaces() -> None:
    state = GAME.initial_state()
    assert GAME.parse_move(state, " D3 ") == GAME.parse_move(state, "d3")


def test_round_trips_on_random_positions() -> None:
    for state in random_states(1, 40):
        text = GAME.format_position(state)
        assert GAME.parse_position(text) == state
        for move in GAME.legal_moves(state):
            assert GAME.parse_move(state, GAME.format_move(state, move)) == move


def test_key_is_equal_exactly_for_equal_boards() -> None:
    states = random_states(2, 60)
    by_key: dict[int, tuple[int, int]] = {}
    for state in states:
        assert GAME.key(state) >= 0
        board_pair = (state[0], state[1])
        assert by_key.setdefault(GAME.key(state), board_pair) == board_pair


def test_evaluation_is_bounded_and_colour_blind() -> None:
    for state in random_states(3, 40):
        if GAME.outcome(state) is not None:
            continue
        value = GAME.evaluate(state)
        assert abs(value) <= 100_000
        own, opp, player, mobility, opp_mobility = state
        swapped = (own, opp, 1 - player, mobility, opp_mobility)
        assert GAME.evaluate(swapped) == value


def test_evaluation_likes_corners() -> None:
    # Same discs, but Black holds the corner a1 in one and the X-square b2 in the other.
    corner = GAME.parse_position(board("X-------", "--O-----", "---O----", "----X---"))
    x_square = GAME.parse_position(board("--------", "-XO-----", "---O----", "----X---"))
    assert GAME.evaluate(corner) > GAME.evaluate(x_square)


@pytest.mark.parametrize("seed", range(6))
def test_search_equals_reference(seed: int) -> None:
    game = PlainOthello()
    state = random_states(100 + seed, 1)[0]
    searcher = Searcher(game, tt_slots=1 << 12)
    for depth in (1, 2, 3, 4):
        expected = minimax(game, state, depth)
        assert alphabeta(game, state, depth) == expected
        result = searcher.think(SearchRequest(state, Limits(depth=depth)))
        if result.move is None:
            continue
        assert result.value == expected, (game.format_position(state), depth)


def test_endgame_is_solved_exactly() -> None:
    # Ten empties from a seeded random game: the search proves the result,
    # and it agrees with plain alpha-beta to the end of the game.
    rng = random.Random(5)
    state = GAME.initial_state()
    while 64 - (state[0] | state[1]).bit_count() > 8 and GAME.outcome(state) is None:
        state = GAME.play(state, rng.choice(GAME.legal_moves(state)))
    assert GAME.outcome(state) is None
    # No time limit (how fast is a bench/ matter): the search to the end of the game stops early
    # once it has proven the result.
    result = Searcher(GAME).think(
        SearchRequest(state, Limits(depth=GAME.max_remaining_plies(state)))
    )
    assert result.reason == "proven"
    assert result.info.score.is_proven
    assert result.value == alphabeta(GAME, state, GAME.max_remaining_plies(state))


def test_self_play_returns_legal_moves() -> None:
    searcher = Searcher(GAME, tt_slots=1 << 14)
    for seed in range(2):
        rng = random.Random(seed)
        state = GAME.initial_state()
        plies = 0
        while GAME.outcome(state) is None:
            if rng.random() < 0.5:
                move = rng.choice(GAME.legal_moves(state))
            else:
                result = searcher.think(SearchRequest(state, Limits(nodes=300)))
                move = result.move_value
                assert move in GAME.legal_moves(state)
                assert GAME.parse_move(state, result.move or "") == move
            state = GAME.play(state, move)
            plies += 1
        assert plies >= 9

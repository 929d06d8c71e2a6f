"""English checkers: perft, rules, draw rules, notation, search against the reference."""

from __future__ import annotations

import random

import pytest

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import Game
from engine.games.checkers import (
    DRAW_QUIET_PLIES,
    VALID,
    Checkers,
    CheckersMove,
    CheckersState,
    _position_key,
)
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.reference import alphabeta, minimax
from engine.search.request import SearchRequest

GAME = Checkers()
START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"

#: Published perft counts from the start (OEIS A133046; capture paths over
#: the same pieces count separately).
PERFT = (7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564)


class PlainCheckers(Checkers):
    """Checkers without quiescence and capture extension, which the textbook reference lacks."""

    noisy_moves = Game.noisy_moves
    in_check = Game.in_check


def moves_of(state: CheckersState) -> list[str]:
    return sorted(GAME.format_move(state, move) for move in GAME.legal_moves(state))


def slow_perft(state: CheckersState, depth: int) -> int:
    """Perft through the public interface only (legal_moves and play)."""
    if depth == 0:
        return 1
    return sum(slow_perft(GAME.play(state, move), depth - 1) for move in GAME.legal_moves(state))


def random_states(
    game: Checkers, seed: int, count: int, max_plies: int = 80
) -> list[CheckersState]:
    rng = random.Random(seed)
    states: list[CheckersState] = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(max_plies)):
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.play(state, rng.choice(moves))
        states.append(state)
    return states


@pytest.mark.parametrize("depth", range(1, 8))
def test_perft_bulk_counting(depth: int) -> None:
    assert GAME.perft(GAME.initial_state(), depth) == PERFT[depth - 1]


@pytest.mark.parametrize("depth", range(1, 6))
def test_perft_through_the_interface(depth: int) -> None:
    assert slow_perft(GAME.initial_state(), depth) == PERFT[depth - 1]


def test_start_position() -> None:
    state = GAME.initial_state()
    assert GAME.format_position(state) == START
    assert GAME.parse_position(START) == state
    assert GAME.parse_position("B:B1-12:W21-32") == state
    assert moves_of(state) == ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    assert GAME.to_move(state) == 0
    assert GAME.to_move(GAME.play_text(state, "11-15")) == 1


def test_registered() -> None:
    game = create_game("checkers")
    assert isinstance(game, Checkers)
    assert game.players == ("black", "white")


def test_capture_is_compulsory_and_any_capture_may_be_chosen() -> None:
    # Black's man on 10 may take one piece (10x17) or two (10x19x26); the
    # man on 1 may not make a plain move while a capture exists.
    state = GAME.parse_position("B:W14,15,23,32:B1,10")
    assert moves_of(state) == ["10x17", "10x19x26"]
    after = GAME.play_text(state, "10x19x26")
    assert GAME.format_position(after) == "W:W14,32:B1,26"
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, "1-6")
    assert sorted(error.value.legal_moves) == ["10x17", "10x19x26"]


def test_multi_jump_must_be_completed() -> None:
    state = GAME.parse_position("B:W14,15,23,32:B1,10")
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "10x19")
    assert GAME.parse_move(state, "10x26") == GAME.parse_move(state, "10x19x26")


def test_crowning_ends_the_move() -> None:
    # The man on 22 jumps to 31 and is crowned; a king could jump on over 27
    # to 24, but the move ends at the crowning.
    state = GAME.parse_position("B:W26,27:B22")
    assert moves_of(state) == ["22x31"]
    after = GAME.play_text(state, "22x31")
    assert GAME.format_position(after) == "W:W27:BK31"
    # A king on 22 jumps the whole way.
    king = GAME.parse_position("B:W26,27:BK22")
    assert moves_of(king) == ["22x31x24"]


def test_simple_move_to_the_far_row_crowns() -> None:
    state = GAME.play_text(GAME.parse_position("B:W5:B27"), "27-32")
    assert GAME.format_position(state) == "W:W5:BK32"
    white = GAME.play_text(GAME.parse_position("W:W6:BK32"), "6-2")
    assert GAME.format_position(white) == "B:WK2:BK32"


def test_kings_move_and_capture_in_all_directions() -> None:
    assert moves_of(GAME.parse_position("B:W32:BK18")) == ["18-14", "18-15", "18-22", "18-23"]
    assert moves_of(GAME.parse_position("B:W32:B18")) == ["18-22", "18-23"]
    assert moves_of(GAME.parse_position("W:WK18:B1")) == ["18-14", "18-15", "18-22", "18-23"]
    assert moves_of(GAME.parse_position("B:W14:BK18")) == ["18x9"]


def test_men_do_not_capture_backwards() -> None:
    state = GAME.parse_position("B:W14:B18")
    assert moves_of(state) == ["18-22", "18-23"]


def test_a_piece_is_jumped_only_once_and_loops_are_distinct_moves() -> None:
    # The king on 2 can take all four pieces round the loop either way; the
    # two paths end on the same square with the same pieces taken and are
    # distinct moves (as in the published perft counts).
    state = GAME.parse_position("B:W6,7,14,15:BK2")
    assert moves_of(state) == ["2x11x18x9x2", "2x9x18x11x2"]
    first, second = GAME.legal_moves(state)
    assert first != second
    assert GAME.play(state, first)[:4] == GAME.play(state, second)[:4]
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "2x2")  # first and last square only: ambiguous


def test_side_without_moves_loses() -> None:
    blocked = GAME.parse_position("B:W29,30:B25")
    outcome = GAME.outcome(blocked)
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "no legal move"
    assert GAME.legal_moves(blocked) == []
    with pytest.raises(GameOverError):
        GAME.parse_move(blocked, "25-29")
    wiped = GAME.parse_position("W:W5:BK20")
    wiped = GAME.play(wiped, GAME.legal_moves(wiped)[0])
    assert GAME.outcome(wiped) is None
    taken = GAME.play_text(GAME.parse_position("B:W24:B20"), "20x27")
    outcome = GAME.outcome(taken)
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "no pieces left"


def test_threefold_repetition_draws() -> None:
    state = GAME.parse_position("B:WK32:BK1")
    shuffle = ["1-6", "32-27", "6-1", "27-32"]
    for index, move in enumerate(shuffle * 2):
        assert GAME.outcome(state) is None, index
        state = GAME.play_text(state, move)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert outcome.reason == "threefold repetition"
    assert GAME.legal_moves(state) == []


def test_man_move_resets_the_draw_counters() -> None:
    state = GAME.parse_position("B:WK32,21:BK1,12")
    for move in ["1-6", "32-27", "6-1", "27-32"]:
        state = GAME.play_text(state, move)
    assert state[4] == 4 and len(state[5]) == 5
    state = GAME.play_text(state, "12-16")  # a man move
    assert state[4] == 0 and len(state[5]) == 1
    state = GAME.play_text(state, "32-27")  # a king move
    assert state[4] == 1 and len(state[5]) == 2


def test_move_rule_draws_after_forty_moves_each() -> None:
    black, white, kings, player, _, history = GAME.parse_position("B:WK32:BK1")
    state = (black, white, kings, player, DRAW_QUIET_PLIES - 1, history)
    assert GAME.outcome(state) is None
    state = GAME.play_text(state, "1-6")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert "40 moves" in outcome.reason


@pytest.mark.parametrize(
    "text",
    [
        "",
        "B",
        "X:W21:B1",
        "B:W21:B1:W22",
        "B:W21:W22",
        "B:W21,33:B1",
        "B:W21,21:B1",
        "B:W21:B21",
        "B:W0:B1",
        "B:Wx:B1",
        "B:W1:B2",  # a white man on its crowning row
        "B:W21:B30",  # a black man on its crowning row
        "B:W5-17:B1",  # thirteen pieces
    ],
)
def test_bad_positions(text: str) -> None:
    with pytest.raises(BadPositionError):
        GAME.parse_position(text)


@pytest.mark.parametrize(
    "text", ["", "11-", "11-16-20", "11x15", "9-18", "0-4", "33-29", "a-b", "x"]
)
def test_bad_moves(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(GAME.initial_state(), text)


def test_round_trips_on_random_positions() -> None:
    for state in random_states(GAME, 1, 40):
        text = GAME.format_position(state)
        parsed = GAME.parse_position(text)
        assert parsed[:4] == state[:4]
        assert GAME.key(parsed) == GAME.key(state)
        for move in GAME.legal_moves(state):
            assert GAME.parse_move(state, GAME.format_move(state, move)) == move


def test_key_tells_positions_apart() -> None:
    seen: dict[int, tuple[int, int, int, int]] = {}
    for state in random_states(GAME, 2, 80):
        assert GAME.key(state) >= 0
        assert seen.setdefault(GAME.key(state), state[:4]) == state[:4]


def test_key_fits_a_machine_word_and_separates_random_boards() -> None:
    # Below 2**62 (a machine int in the compiled engine) for every board,
    # and no two of 40,000 random positions share a key.
    rng = random.Random(7)
    boards = [(VALID, VALID, VALID), (0, 0, 0)] + [
        (rng.getrandbits(35) & VALID, rng.getrandbits(35) & VALID, rng.getrandbits(35) & VALID)
        for _ in range(20_000)
    ]
    seen: dict[int, tuple[int, int, int, int]] = {}
    for black, white, kings in boards:
        for player in (0, 1):
            key = _position_key(black, white, kings, player)
            assert 0 <= key < 1 << 62
            assert seen.setdefault(key, (black, white, kings, player)) == (
                black,
                white,
                kings,
                player,
            )


def test_quiescence_moves_are_the_captures() -> None:
    state = GAME.parse_position("B:W14,15,23,32:B1,10")
    assert sorted(GAME.noisy_moves(state) or []) == sorted(GAME.legal_moves(state))
    assert GAME.noisy_moves(GAME.initial_state()) == []
    start = GAME.initial_state()
    assert all(GAME.is_quiet(start, move) for move in GAME.legal_moves(start))


def test_evaluation_prefers_material_and_kings() -> None:
    even = GAME.parse_position("B:W21,22:B9,10")
    ahead = GAME.parse_position("B:W21:B9,10")
    crowned = GAME.parse_position("B:W21:BK9,10")
    assert GAME.evaluate(ahead) > GAME.evaluate(even)
    assert GAME.evaluate(crowned) > GAME.evaluate(ahead)
    white_view = GAME.parse_position("W:W21:B9,10")
    assert GAME.evaluate(white_view) == -GAME.evaluate(ahead)
    for state in random_states(GAME, 3, 30):
        if GAME.outcome(state) is None:
            assert abs(GAME.evaluate(state)) <= 100_000


@pytest.mark.parametrize("seed", range(6))
def test_search_equals_reference(seed: int) -> None:
    # Without repeated positions in the history, no repetition draw can
    # occur within four plies, so the table (keyed by the board only)
    # merges nothing that the reference tells apart.
    game = PlainCheckers()
    rng = random.Random(seed)
    state = random_states(game, rng.randrange(1 << 30), 1)[0]
    while len(set(state[5])) < len(state[5]) or state[4] > DRAW_QUIET_PLIES - 10:
        state = random_states(game, rng.randrange(1 << 30), 1)[0]
    searcher = Searcher(game, tt_slots=1 << 12)
    for depth in (1, 2, 3, 4):
        expected = minimax(game, state, depth)
        assert alphabeta(game, state, depth) == expected
        result = searcher.think(SearchRequest(state, Limits(depth=depth)))
        if result.move is None:
            continue
        assert result.value == expected, (game.format_position(state), depth)


def test_search_takes_the_double_jump() -> None:
    state = GAME.parse_position("B:W14,15,23,32:B1,10")
    result = Searcher(GAME).think(SearchRequest(state, Limits(depth=4)))
    assert result.move == "10x19x26"


def test_self_play_returns_legal_moves() -> None:
    searcher = Searcher(GAME, tt_slots=1 << 14)
    for seed in range(2):
        rng = random.Random(seed)
        state = GAME.initial_state()
        plies = 0
        while GAME.outcome(state) is None and plies < 200:
            legal: list[CheckersMove] = GAME.legal_moves(state)
            if rng.random() < 0.5:
                move = rng.choice(legal)
            else:
                result = searcher.think(SearchRequest(state, Limits(nodes=300)))
                move = result.move_value
                assert move in legal
                assert GAME.parse_move(state, result.move or "") == move
            state = GAME.play(state, move)
            plies += 1
        assert plies > 10

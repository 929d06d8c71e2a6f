"""Go's Monte Carlo knowledge: 3x3 patterns, priors, heavy playouts, and tactics in the search."""

from __future__ import annotations

import random

import pytest

from engine.games.go import PASS, Go, GoState, _Analysis
from engine.games.go_policy import (
    BLACK,
    EDGE,
    EMPTY,
    PATTERN_TABLE,
    PATTERNS,
    PRIOR_EVEN,
    WHITE,
    PlayoutBoard,
    build_pattern_table,
    freedom,
    matches_pattern,
    pattern_code,
)
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest

GAME = Go()
SMALL = Go(size=5)


def position(*rows: str, side: str = "X", game: Go = GAME) -> GoState:
    """A position from rows given top first."""
    return game.parse_position("/".join(rows) + " " + side)


def point(game: Go, vertex: str) -> int:
    p = game.point(vertex)
    assert p is not None
    return p


# ----------------------------------------------------------------------
# Patterns.


def test_a_hane_matches_in_every_orientation_for_both_colours() -> None:
    # A Black stone north-west of the point and a White one north of it
    # (touching): the point is Black's hane, in any rotation or mirror.
    rng = random.Random(3)
    for turn in range(8):
        row, col = rng.randint(2, 8), rng.randint(2, 8)  # away from the edge
        centre = row * GAME.stride + col
        board = bytearray(GAME.empty_board)
        for dr, dc, colour in ((-1, -1, BLACK), (-1, 0, WHITE)):
            for _ in range(turn % 4):
                dr, dc = dc, -dr  # a quarter turn
            if turn >= 4:
                dc = -dc  # a mirror
            board[centre + dr * GAME.stride + dc] = colour
        assert matches_pattern(bytes(board), centre, GAME.stride, 0)
        # The same shape for White: swap the colours.
        swapped = bytes(WHITE if v == BLACK else BLACK if v == WHITE else v for v in board)
        assert matches_pattern(swapped, centre, GAME.stride, 1)


def test_an_empty_neighbourhood_and_a_lone_stone_match_no_pattern() -> None:
    state = GAME.initial_state()
    assert not any(matches_pattern(state.board, p, GAME.stride, 0) for p in GAME.points)
    state = position(
        ".........",
        ".........",
        ".........",
        ".........",
        "....X....",
        ".........",
        ".........",
        ".........",
        ".........",
    )
    for p in GAME.points:
        if state.board[p] == EMPTY:
            assert not matches_pattern(state.board, p, GAME.stride, 0)
            assert not matches_pattern(state.board, p, GAME.stride, 1)


def test_the_cut_and_its_defence_are_patterns() -> None:
    # White D5 and E4 meet diagonally; Black holds D4: Black cuts at E5,
    # and White (to move) connects there.
    state = position(
        ".........",
        ".........",
        ".........",
        ".........",
        "...O.....",
        "...XO....",
        ".........",
        ".........",
        ".........",
    )
    e5 = point(GAME, "E5")
    assert matches_pattern(state.board, e5, GAME.stride, 0)
    assert matches_pattern(state.board, e5, GAME.stride, 1)


def test_the_pattern_table_is_the_table_of_the_patterns() -> None:
    assert build_pattern_table(PATTERNS) == PATTERN_TABLE
    assert len(PATTERN_TABLE) == 2 << 16
    # Colour symmetry: a code matches for Black exactly when its colour-swapped code does for White.
    swap = {EMPTY: EMPTY, BLACK: WHITE, WHITE: BLACK, EDGE: EDGE}
    rng = random.Random(5)
    for _ in range(2000):
        code = rng.randrange(1 << 16)
        other = 0
        for shift in range(8):
            other |= swap[(code >> (2 * shift)) & 3] << (2 * shift)
        assert PATTERN_TABLE[code] == PATTERN_TABLE[1 << 16 | other]


def test_the_pattern_code_reads_the_eight_neighbours() -> None:
    state = position(
        ".........",
        ".........",
        ".........",
        ".........",
        "....X....",
        ".........",
        ".........",
        ".........",
        ".........",
    )
    e4 = point(GAME, "E4")  # under E5
    assert pattern_code(list(state.board), e4, GAME.stride) == BLACK  # north holds the stone
    a1 = point(GAME, "A1")
    code = pattern_code(list(state.board), a1, GAME.stride)
    # South, west, north-west, south-west and south-east are off the board.
    assert (code >> 2) & 3 == EDGE and (code >> 4) & 3 == EDGE and code & 3 == EMPTY


# ----------------------------------------------------------------------
# Liberties after a move on the playout board.


def _freedom(rows: tuple[str, ...], vertex: str) -> int:
    state = position(*rows, game=SMALL)
    board = PlayoutBoard(state.board, SMALL.points, SMALL.stride)
    return freedom(board, point(SMALL, vertex), BLACK, SMALL.neighbours)


def test_freedom_tells_suicide_self_atari_and_capture() -> None:
    # A5 next to Black A4, whose only liberty it is, closed by White: suicide.
    assert _freedom((".O...", "XO...", "OO...", ".....", "....."), "A5") == 0
    # A1 under White A2: one liberty (B1), a self-atari of one stone.
    assert _freedom((".....", ".....", ".....", "O....", "....."), "A1") == 1
    # B4 and A5 join Black A4 and leave the pair one liberty: self-ataris of two stones.
    rows = (".O...", "X.O..", "OO...", ".....", ".....")
    assert _freedom(rows, "B4") == 1
    assert _freedom(rows, "A5") == 1
    # C5 takes White B5 (in atari): a capture counts as two.
    assert _freedom(("XO...", ".X...", ".....", ".....", "....."), "C5") == 2
    # B5 joins Black A5-A4, which keeps B4 and A3 besides.
    assert _freedom(("X....", "X....", ".....", ".....", "....."), "B5") == 2


# ----------------------------------------------------------------------
# Priors.


def _prior(game: Go, state: GoState, vertex: str) -> tuple[int, int]:
    moves = game.legal_moves(state)
    known = game.priors(state, moves)
    assert known is not None
    visits, wins = known
    index = moves.index(point(game, vertex))
    return visits[index], wins[index]


def test_priors_favour_a_capture_and_an_escape() -> None:
    # White E5 is in atari: Black captures at E4.
    state = position(
        ".........",
        ".........",
        ".........",
        "....X....",
        "...XOX...",
        ".........",
        ".........",
        ".........",
        ".........",
    )
    visits, wins = _prior(GAME, state, "E4")
    assert wins / visits > 0.6
    quiet_visits, quiet_wins = _prior(GAME, state, "B8")
    assert wins / visits > quiet_wins / quiet_visits
    # The same position with White to move: E4 saves White's stone.
    state = state._replace(player=1)
    visits, wins = _prior(GAME, state, "E4")
    assert wins / visits > 0.6


def test_priors_penalise_a_self_atari_and_the_empty_first_line() -> None:
    # Black A1 under White A2 has one liberty (B1): a self-atari.
    state = position(
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        "O........",
        ".........",
    )
    visits, wins = _prior(GAME, state, "A1")
    assert wins / visits < 0.5
    empty = GAME.initial_state()
    visits, wins = _prior(GAME, empty, "A5")  # the first line, nothing near
    assert wins / visits < 0.5
    visits, wins = _prior(GAME, empty, "C3")  # the third line
    assert wins / visits > 0.5
    visits, wins = _prior(GAME, empty, "E5")  # nothing known: the even prior
    assert (visits, wins) == (PRIOR_EVEN, PRIOR_EVEN // 2)


def test_priors_favour_moves_near_the_last_move() -> None:
    state = GAME.play_text(GAME.initial_state(), "E5")
    near_visits, near_wins = _prior(GAME, state, "E4")
    far_visits, far_wins = _prior(GAME, state, "B8")
    assert near_wins / near_visits > far_wins / far_visits


def test_a_searcher_without_priors_lists_none() -> None:
    state = GAME.initial_state()
    with_priors = MctsSearcher(GAME, seed=1)
    with_priors.think(SearchRequest(state, Limits(nodes=20)))
    assert len(with_priors._search_root.prior_visits) == len(GAME.legal_moves(state))
    without = MctsSearcher(GAME, seed=1, priors=False)
    without.think(SearchRequest(state, Limits(nodes=20)))
    assert without._search_root.prior_visits == []


# ----------------------------------------------------------------------
# Heavy playouts.


@pytest.mark.parametrize("heavy", [True, False])
@pytest.mark.parametrize(("size", "seed"), [(9, 1), (13, 2)])
def test_playouts_are_legal_in_both_policies(heavy: bool, size: int, seed: int) -> None:
    game = Go(size=size)
    game.heavy_playouts = heavy
    rng = random.Random(seed)
    for _ in range(6):
        state = game.initial_state()
        _, moves = game.playout(state, rng, 10_000)
        for player, move in moves:
            assert game.to_move(state) == player
            if move not in game.legal_moves(state):
                assert move != PASS
                assert game.play(state, move).board_key in state.history  # superko only
                break
            state = game.play(state, move)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_heavy_playouts_never_self_atari_a_string_of_two_stones(seed: int) -> None:
    """No playout move leaves its own string of two or more stones in atari without capturing."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(8):
        state = GAME.initial_state()
        _, moves = GAME.playout(state, rng, 10_000)
        for _, move in moves:
            if move != PASS and move in GAME.legal_moves(state):
                after = GAME.play(state, move)
                captured = (after.black_captures + after.white_captures) - (
                    state.black_captures + state.white_captures
                )
                info = _Analysis(after.board, GAME.points, GAME.stride)
                label = info.label[move]
                size = sum(1 for p in GAME.points if info.label[p] == label)
                if size >= 2 and captured == 0:
                    assert info.liberties[label] >= 2, GAME.format_position(state)
                checked += 1
                state = after
            else:
                break
    assert checked > 300


def test_the_light_policy_does_self_atari() -> None:
    # The control for the test above: the light policy (main's) does it.
    game = Go()
    game.heavy_playouts = False
    rng = random.Random(1)
    found = 0
    for _ in range(8):
        state = game.initial_state()
        _, moves = game.playout(state, rng, 10_000)
        for _, move in moves:
            if move == PASS or move not in game.legal_moves(state):
                break
            after = game.play(state, move)
            info = _Analysis(after.board, game.points, game.stride)
            label = info.label[move]
            size = sum(1 for p in game.points if info.label[p] == label)
            captured = after.black_captures + after.white_captures
            took = captured != state.black_captures + state.white_captures
            if size >= 2 and info.liberties[label] == 1 and not took:
                found += 1
            state = after
    assert found > 0


def test_a_playout_saves_a_string_in_atari_by_capturing() -> None:
    # White B3 puts Black C3 in atari (liberty C2). White C4, next to it,
    # is in atari too (liberty D4): the heavy policy saves C3 by taking C4;
    # the light one extends at C2.
    before = position("..X..", ".XO..", "..XO.", ".....", ".....", side="O", game=SMALL)
    state = SMALL.play_text(before, "B3")
    d4 = point(SMALL, "D4")
    for seed in range(10):
        _, moves = SMALL.playout(state, random.Random(seed), 1)
        assert moves == [(0, d4)]
    light = Go(size=5)
    light.heavy_playouts = False
    for seed in range(10):
        _, moves = light.playout(state, random.Random(seed), 1)
        assert moves == [(0, point(SMALL, "C2"))]


# ----------------------------------------------------------------------
# The search with priors and heavy playouts: tactics.


def test_search_captures_a_string_in_atari() -> None:
    # White D5-E5-F5 has one liberty, G5: Black takes the three stones there.
    state = position(
        ".........",
        ".........",
        ".........",
        "...XXX...",
        "..XOOO...",
        "...XXX...",
        ".........",
        ".........",
        ".........",
    )
    for seed in (1, 2):
        searcher = MctsSearcher(GAME, seed=seed)
        result = searcher.think(SearchRequest(state, Limits(nodes=800)))
        assert result.move == "G5"


def test_search_saves_its_own_group_in_atari() -> None:
    # Black D5-E5-F5 has one liberty, G5; extending there gives it three.
    state = position(
        ".........",
        ".........",
        ".........",
        "...OOO...",
        "..OXXX...",
        "...OOO...",
        ".........",
        ".........",
        ".........",
    )
    for seed in (1, 2):
        searcher = MctsSearcher(GAME, seed=seed)
        result = searcher.think(SearchRequest(state, Limits(nodes=800)))
        assert result.move == "G5"

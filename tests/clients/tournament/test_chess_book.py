"""Default openings people accept (issue 28): chess plays built-in named openings, each
balanced by our own evaluation; Go starts from the empty board; other games keep
balance-checked random plies."""

from __future__ import annotations

import pytest

from clients.tournament.chess_book import (
    BOOK_CHECK_DEPTH,
    BOOK_MARGIN_CP,
    CHESS_BOOK,
    book_lines,
    opening_name,
)
from clients.tournament.config import EngineSpec, OpeningSource, TimeControl, TournamentConfig
from clients.tournament.openings import DEFAULT_RANDOM_PLIES, Opening, balance_score
from clients.tournament.records import GameRecord, MoveRecord, pgn
from clients.tournament.runner import prepare_openings
from engine.registry import create_game


def _tournament(game: str, **openings: object) -> TournamentConfig:
    return TournamentConfig(
        game=game,
        engines=(EngineSpec("a"), EngineSpec("b")),
        time_control=TimeControl(depth=1),
        games_per_pair=8,
        openings=OpeningSource(balance_depth=2, **openings),  # type: ignore[arg-type]
    )


def test_the_book_is_named_distinct_main_lines() -> None:
    names = [name for name, _ in CHESS_BOOK]
    lines = [moves for _, moves in book_lines()]
    assert len(set(names)) == len(names) >= 12
    assert len(set(lines)) == len(lines)
    for name in ("Italian", "Ruy Lopez", "Queen's Gambit Declined", "Najdorf", "French"):
        assert any(name in entry for entry in names), name
    for name in ("Caro-Kann", "King's Indian", "English"):
        assert any(name in entry for entry in names), name
    chess = create_game("chess")
    for moves in lines:
        # a few plies, ending with White to move, in canonical UCI
        assert 6 <= len(moves) <= 10 and len(moves) % 2 == 0, moves
        state, played = Opening(None, moves).start(chess)
        assert tuple(played) == moves and chess.to_move(state) == 0
    # the first few alternate first moves: a short tournament gets a mix
    assert {moves[0] for moves in lines[:4]} == {"e2e4", "d2d4", "c2c4"}


@pytest.mark.parametrize(("name", "moves"), book_lines(), ids=[name for name, _ in CHESS_BOOK])
def test_each_book_opening_is_balanced_by_our_evaluation(name: str, moves: tuple[str, ...]) -> None:
    """Measured (pure Python, 2026-11-26): depth 4 scores from -45 (Catalan) to +75
    (Najdorf) centipawns for White; depths 5 and 6 stay within -35..+70."""
    chess = create_game("chess")
    state, _ = Opening(None, moves).start(chess)
    score = balance_score(chess, state, BOOK_CHECK_DEPTH)
    assert score is not None and abs(score) <= BOOK_MARGIN_CP, (name, score)


def test_chess_plays_the_book_by_default_and_random_plies_when_asked() -> None:
    openings = prepare_openings(_tournament("chess"))
    assert [opening.moves for opening in openings] == [moves for _, moves in book_lines()]
    assert all(opening.position is None for opening in openings)
    # shuffled by the seed with --shuffle-openings
    shuffled = prepare_openings(_tournament("chess", shuffle=True))
    assert shuffled != openings and sorted(map(str, shuffled)) == sorted(map(str, openings))
    # asked for random plies: random plies, as before
    random_ones = prepare_openings(_tournament("chess", random_plies=2, balance_score=100))
    assert random_ones and all(len(opening.moves) == 2 for opening in random_ones)


def test_go_starts_from_the_empty_board_and_other_games_from_random_plies() -> None:
    assert prepare_openings(_tournament("go", balance_score=1000)) == [Opening()]
    connect4 = prepare_openings(_tournament("connect4", balance_score=1000))
    assert connect4 and all(len(opening.moves) == DEFAULT_RANDOM_PLIES for opening in connect4)


def test_pgn_names_a_book_opening() -> None:
    name, moves = book_lines()[0]
    record = GameRecord(
        game_id=1,
        round=0,
        pair=0,
        game="chess",
        options={},
        players=("a", "b"),
        opening_index=0,
        opening_position=None,
        winner=None,
        kind="adjudication",
        reason="draw by adjudication",
        moves=tuple(MoveRecord(move, book=True) for move in moves),
    )
    assert opening_name(moves) == name
    assert f'[Opening "{name}"]' in pgn(record)
    assert opening_name(moves[:-1]) is None

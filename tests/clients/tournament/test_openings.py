"""Openings from PGN, EPD and line files; games numbered from 1 and plies counted in full."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from clients.cli import main
from clients.tournament.command import configure, openings_from_args
from clients.tournament.config import ConfigError
from clients.tournament.display import describe_game
from clients.tournament.openings import Opening, load_openings
from clients.tournament.records import GameRecord, MoveRecord
from engine.errors import GameError
from engine.registry import create_game

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"

PGN = f"""[Event "Openings"]
[Site "?"]
[Result "*"]

1. e4 {{the best by test}} e5 (1... c5 2. Nf3 (2. c3 d5) d6) 2. Nf3 $1 Nc6!? ; to the end
3. Bb5 a6 *

[Event "From a FEN"]
[SetUp "1"]
[FEN "{AFTER_E4_E5}"]
[Result "1/2-1/2"]

2. Nf3 {{a comment
over two lines with a ( and a 1-0}} 2... Nc6 1/2-1/2
"""


def test_pgn_games_are_openings_in_canonical_notation(tmp_path: Path) -> None:
    chess = create_game("chess")
    path = tmp_path / "book.pgn"
    path.write_text(PGN)
    openings = load_openings(chess, path)
    assert openings == [
        Opening(None, ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6")),
        Opening(AFTER_E4_E5, ("g1f3", "b8c6")),
    ]
    assert load_openings(chess, path, plies=2)[0].moves == ("e2e4", "e7e5")
    # The same text, named otherwise, read as PGN when told so.
    other = tmp_path / "book.txt"
    other.write_text(PGN)
    assert load_openings(chess, other, "pgn") == openings


def test_a_bad_pgn_move_names_the_game_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text('[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 e4 *\n')
    # The bad move's own line (7), and the line its game starts on (5): a
    # review of 2026-12-07 was sent to the game's first line only.
    with pytest.raises(GameError, match=r"bad\.pgn:7: .*'e4'.*\(the game from line 5\)"):
        load_openings(create_game("chess"), path)


def test_epd_and_fen_lines(tmp_path: Path) -> None:
    path = tmp_path / "positions.epd"
    path.write_text(
        "# a comment\n"
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id "after e4";\n'
        f"{AFTER_E4_E5}\n"
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - hmvc 2; fmvn 3;\n"
    )
    openings = load_openings(create_game("chess"), path)
    assert [opening.position for opening in openings] == [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        AFTER_E4_E5,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    ]
    assert all(opening.moves == () for opening in openings)


def test_pdn_and_lines_for_other_games(tmp_path: Path) -> None:
    checkers = create_game("checkers")
    path = tmp_path / "book.pdn"
    path.write_text('[Event "x"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n')
    assert load_openings(checkers, path) == [Opening(None, ("11-15", "23-19", "8-11", "22-17"))]
    backgammon = create_game("backgammon")
    lines = tmp_path / "bg.txt"
    lines.write_text("4HPwATDgc/ABMA 0 -\n")
    assert load_openings(backgammon, lines) == [Opening("4HPwATDgc/ABMA 0 -", ())]
    connect4 = create_game("connect4")
    lines.write_text("4 4 3\n")
    assert load_openings(connect4, lines, plies=1) == [Opening(None, ("4",))]
    with pytest.raises(GameError, match="unknown openings format"):
        load_openings(connect4, lines, "xml")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(list(argv))


def test_cutechess_style_openings_option(tmp_path: Path) -> None:
    source = openings_from_args(
        _args("--openings", "file=book.pgn,format=pgn,plies=8,order=random")
    )
    assert source.path is not None and source.path.endswith("book.pgn")
    assert (source.format, source.plies, source.shuffle) == ("pgn", 8, True)
    source = openings_from_args(
        _args("--openings", "b.epd", "--openings-format", "epd", "--opening-plies", "0")
    )
    assert (source.format, source.plies, source.shuffle) == ("epd", 0, False)
    with pytest.raises(ConfigError, match="order"):
        openings_from_args(_args("--openings", "file=b.pgn,order=sometimes"))
    with pytest.raises(ConfigError, match="format"):
        openings_from_args(_args("--openings", "file=b.pgn,format=xml"))


def test_a_finished_game_line_counts_the_opening_plies_and_numbers_from_1() -> None:
    record = GameRecord(
        game_id=1,
        round=0,
        pair=0,
        game="tictactoe",
        options={},
        players=("a", "b"),
        opening_index=0,
        opening_position=None,
        winner=None,
        kind="rules",
        reason="draw",
        moves=(MoveRecord("b2", book=True), MoveRecord("a1"), MoveRecord("c3")),
    )
    assert describe_game(record) == "game 1: a - b 1/2-1/2 (draw; 3 plies, 1 from the opening)"


def test_a_pgn_opening_tournament_numbers_games_from_1_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "book.pgn"
    book.write_text('[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 *\n')
    jsonl = tmp_path / "t.jsonl"
    pgn = tmp_path / "t.pgn"
    status = main(
        [
            "tournament",
            "--game",
            "chess",
            "--engine",
            "local:depth=1",
            "--engine",
            "local:depth=1",
            "--depth",
            "1",
            "--max-plies",
            "10",
            "--games",
            "2",
            "--openings",
            str(book),
            "--db",
            str(tmp_path / "t.db"),
            "--jsonl",
            str(jsonl),
            "--pgn",
            str(pgn),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert sorted(record["game_id"] for record in records) == [1, 2]
    for record in records:
        moves = record["moves"]
        assert [move["move"] for move in moves[:4]] == ["e2e4", "e7e5", "g1f3", "b8c6"]
        assert sum(1 for move in moves if move.get("book")) == 4
        assert f"game {record['game_id']}: " in out
        assert f"; {len(moves)} plies, 4 from the opening)" in out
    assert '[Round "1.1"]' in pgn.read_text() and '[Round "1.2"]' in pgn.read_text()

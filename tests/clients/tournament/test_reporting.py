"""What a tournament prints and writes besides the final tables: ``-q``,
``--rating-interval`` and ``--epdout`` (issue 28)."""

from __future__ import annotations

import argparse
import io
from collections.abc import AsyncIterator
from pathlib import Path

import chess
import pytest
import pytest_asyncio

from clients.cli import main
from clients.tournament.command import configure
from clients.tournament.config import Adjudication, EngineSpec, TimeControl
from clients.tournament.records import epd
from server.app import ArenaServer
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import config, play
from tests.server.server_harness import running_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[ArenaServer]:
    async with running_server(workers=1) as one:
        yield one


def _url(server: ArenaServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


def test_q_is_short_for_quiet() -> None:
    parser = argparse.ArgumentParser()
    configure(parser)
    assert parser.parse_args(["-q"]).quiet is True
    assert parser.parse_args([]).quiet is False
    assert parser.parse_args(["--rating-interval", "10"]).rating_interval == 10
    assert parser.parse_args([]).rating_interval == 0
    text = parser.format_help()
    assert "-q, --quiet" in text and "--rating-interval N" in text and "--epdout FILE" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_rating_interval_prints_standings_every_n_games_even_when_quiet(
    tmp_path: Path, server: ArenaServer
) -> None:
    async with FaultyEngine("none") as weak:
        engines = [EngineSpec("engine", _url(server), depth=2), EngineSpec("first-legal", weak.url)]
        stream = io.StringIO()
        await play(
            tmp_path,
            config(engines, games=6, tc=TimeControl(depth=2)),
            stream=stream,
            rating_interval=2,
            quiet=True,
        )
    printed = stream.getvalue()
    # after games 2, 4 and 6, and nothing else (quiet: no line per game)
    assert [line for line in printed.splitlines() if line.startswith("Standings after")] == [
        "Standings after 2 of 6 games",
        "Standings after 4 of 6 games",
        "Standings after 6 of 6 games",
    ]
    assert "game 1:" not in printed
    # a match of two engines adds its Elo line
    assert printed.count("engine vs first-legal:") == 3


@pytest.mark.asyncio(loop_scope="module")
async def test_epdout_writes_each_chess_games_final_position(
    tmp_path: Path, server: ArenaServer
) -> None:
    async with FaultyEngine("none") as weak:
        engines = [EngineSpec("engine", _url(server), depth=1), EngineSpec("first-legal", weak.url)]
        tournament = config(
            engines,
            game="chess",
            games=2,
            random_plies=2,
            tc=TimeControl(depth=1),
            adjudication=Adjudication(max_plies=24),
        )
        path = tmp_path / "final.epd"
        _, records = await play(tmp_path, tournament, epd_path=path)
    lines = path.read_text().splitlines()
    assert len(lines) == len(records) == 2
    for line, record in zip(lines, records, strict=True):
        board, operations = chess.Board.from_epd(line)
        assert board.fen() == record.final_position
        assert operations["id"] == f"game {record.game_id}"
        assert operations["hmvc"] == board.halfmove_clock
        assert operations["fmvn"] == board.fullmove_number
        assert record.result_text in str(operations["c0"])
        assert line + "\n" == epd(record)


def test_epdout_is_refused_for_games_other_than_chess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        [
            "tournament",
            "--game",
            "connect4",
            "--engine",
            "local:depth=1",
            "--engine",
            "local:depth=2",
            "--depth",
            "1",
            "--epdout",
            str(tmp_path / "x.epd"),
            "--db",
            str(tmp_path / "t.db"),
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "--epdout is for chess" in err
    assert not (tmp_path / "t.db").exists()
    # --pgn likewise: it was ignored without a word (the review of 2026-12-06).
    pgn = ["--pgn", str(tmp_path / "c4.pgn"), "--db", str(tmp_path / "p.db")]
    engines = ["--engine", "local:depth=1", "--engine", "local:depth=2", "--depth", "1"]
    status = main(["tournament", "--game", "connect4", *engines, *pgn])
    err = capsys.readouterr().err
    assert status == 2 and "--pgn is for chess (PGN) and Go (SGF), not connect4" in err
    assert not (tmp_path / "p.db").exists()


def test_a_resumed_tournament_rewrites_its_epd_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: a --resume without --epdout left the EPD file
    with the games of the first run (7 lines), the JSON Lines rewritten (12)."""
    path = tmp_path / "final.epd"
    argv = ["tournament", "--game", "chess", "--engine", "local:depth=1"]
    argv += ["--engine", "local:depth=2", "--depth", "1", "--max-plies", "12", "--quiet"]
    argv += ["--db", str(tmp_path / "t.db")]
    assert main([*argv, "--games", "2", "--epdout", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 2
    path.write_text("stale\n")
    assert main([*argv, "--resume"]) == 0  # no --epdout: the tournament's file
    capsys.readouterr()
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and all(line.endswith(";") for line in lines), lines


def test_go_results_are_written_as_go_players_write_them() -> None:
    """Issue 28 asked for ``B+0.5`` and ``W+R``: the end-of-game line and the JSON
    record say what SGF's RE says (see test_sgf.py for every kind of result)."""
    from clients.tournament.display import describe_game
    from clients.tournament.records import GameRecord, MoveRecord

    def record(winner: int, reason: str, moves: tuple[str, ...]) -> GameRecord:
        return GameRecord(
            game_id=3,
            round=0,
            pair=1,
            game="go",
            options={"size": 9, "komi": 0.5},
            players=("black-engine", "white-engine"),
            opening_index=0,
            opening_position=None,
            winner=winner,
            kind="rules",
            reason=reason,
            moves=tuple(MoveRecord(move) for move in moves),
        )

    by_points = record(0, "black wins by 0.5", ("E5", "pass", "pass"))
    assert describe_game(by_points).startswith("game 3: black-engine - white-engine B+0.5 (")
    assert by_points.to_json()["result"] == "B+0.5"
    resigned = record(1, "black-engine resigned", ("E5", "resign"))
    assert " W+R (" in describe_game(resigned) and resigned.to_json()["result"] == "W+R"

"""``arena tournament`` as a user runs it, with engines on its own local server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.cli import main
from clients.tournament.records import RULES
from clients.tournament.validation import strict_loads_constant


def test_fast_engines_on_the_local_server_lose_nothing_but_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen: depth 1 against depth 2 at tic-tac-toe forfeited 6 of 60 games ("did not
    answer within 10000 ms (watchdog)"): the server's message-rate limit refused the
    referee's requests and the client waited for ever on them."""
    jsonl = tmp_path / "games.jsonl"
    status = main(
        [
            "tournament",
            "--game",
            "tictactoe",
            "--engine",
            "local:depth=1",
            "--engine",
            "local:depth=2",
            "--tc",
            "5+0.05",
            "--games",
            "60",
            "--concurrency",
            "2",
            "--db",
            str(tmp_path / "t.db"),
            "--jsonl",
            str(jsonl),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    records = [
        json.loads(line, parse_constant=strict_loads_constant)
        for line in jsonl.read_text().splitlines()
    ]
    assert len(records) == 60
    assert {record["kind"] for record in records} == {RULES}, out
    points = {"local d1": 0.0, "local d2": 0.0}
    for record in records:
        first, second = record["players"]
        winner = record["winner"]
        if winner is None:
            points[first] += 0.5
            points[second] += 0.5
        else:
            points[record["players"][winner]] += 1
    assert points["local d2"] >= points["local d1"], points
    assert "60 of 60 games played" in out


def test_an_output_file_in_a_missing_folder_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: --jsonl nodir/games.jsonl created the database,
    then failed naming no file; run again, the database asked for --resume."""
    db = tmp_path / "t.db"
    argv = ["tournament", "--game", "tictactoe", "--engine", "local:depth=1"]
    argv += ["--engine", "local:depth=2", "--db", str(db), "--quiet"]
    status = main([*argv, "--jsonl", str(tmp_path / "nodir" / "games.jsonl")])
    assert status == 2 and not db.exists()
    assert (
        f"--jsonl {tmp_path}/nodir/games.jsonl: no folder {tmp_path}/nodir"
        in capsys.readouterr().err
    )


def test_each_opening_once_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A known gap of 2026-12-07: every opening was played twice, colours
    # swapped; cutechess-cli's default plays each once. With --repeat 1 the
    # games take openings 1, 2, 3, 4, colours alternating, scored one by one.
    jsonl = tmp_path / "games.jsonl"
    status = main(
        [
            *("tournament", "--game", "connect4"),
            *("--engine", "local:depth=1", "--engine", "local:depth=2"),
            *("--depth", "2", "--games", "4", "--repeat", "1", "--random-plies", "2"),
            *("--db", str(tmp_path / "t.db"), "--jsonl", str(jsonl), "--quiet"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    records = [
        json.loads(line, parse_constant=strict_loads_constant)
        for line in jsonl.read_text().splitlines()
    ]
    assert [record["players"] for record in records] == [
        ["local d1", "local d2"],
        ["local d2", "local d1"],
    ] * 2
    assert [record["opening_index"] for record in records] == [0, 1, 2, 3]
    openings = [tuple(m["move"] for m in record["moves"] if m.get("book")) for record in records]
    assert len(set(openings)) == 4, openings  # four openings, none twice
    assert len({record["pair"] for record in records}) == 4
    assert "pentanomial" not in out  # no pairs: the games are scored one by one


def test_each_opening_once_is_not_a_knockout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        [
            *("tournament", "--game", "tictactoe", "--knockout", "--repeat", "1"),
            *("--engine", "local:depth=1", "--engine", "local:depth=2", "--depth", "1"),
            *("--db", str(tmp_path / "t.db"), "--quiet"),
        ]
    )
    assert status != 0
    assert "a knockout plays each opening twice" in capsys.readouterr().err

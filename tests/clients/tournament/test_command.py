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

"""The local server behind ``url=local`` engines: clean imports, failures before any file.

Seen (issue 31): run from a folder holding a student's ``engine.py`` or
``server.py``, ``arena tournament`` started its local server on the
student's files, which died ("the local server exited"), and then wrote a
database and exited 1, where docs/tournament.md promises no database and
exit status 3; ``--help`` said the local server's default was
``--concurrency`` processes, not ``--concurrency`` + 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import clients.tournament.local as local
import engine
from clients.cli import main
from clients.tournament.command import EXIT_PREFLIGHT
from clients.tournament.records import RULES
from clients.tournament.runner import RunSettings

#: Files a student may keep beside a bot, each named like one of our top-level packages.
SHADOWING = ("engine.py", "server.py", "clients.py", "protocol.py")


def _tournament(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "tournament",
        "--game",
        "tictactoe",
        "--engine",
        "local:depth=1",
        "--engine",
        "local:depth=2",
        "--movetime",
        "100",
        "--games",
        "2",
        "--random-plies",
        "0",
        "--local-workers",
        "1",
        "--db",
        str(tmp_path / "t.db"),
        "--quiet",
        *extra,
    ]


def test_a_local_server_that_does_not_start_writes_nothing_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = [sys.executable, "-c", "import sys; sys.exit('no server today')"]
    monkeypatch.setattr(local, "server_command", lambda port, workers, externals=(): failing)
    status = main(_tournament(tmp_path))
    err = capsys.readouterr().err
    assert status == EXIT_PREFLIGHT, err
    assert "the local server exited" in err and "no server today" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert sorted(path.name for path in tmp_path.iterdir()) == []  # no database, no records


def test_student_files_in_the_working_directory_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for name in SHADOWING:
        (folder / name).write_text(f"raise SystemExit('the student\\'s {name} was imported')\n")
    monkeypatch.chdir(folder)
    status = main(_tournament(tmp_path))
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [record["kind"] for record in records] == [RULES, RULES], records
    assert "was imported" not in out + err
    # the pure engine is announced with the engine's own reason, never a guess
    if engine.ENGINE_BUILD == "pure":
        assert "the local server runs the pure-Python engine" in err, err
        assert engine.ENGINE_BUILD_NOTE in err, err
    else:
        assert "pure-Python" not in err, err


def test_the_build_probe_ignores_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "engine.py").write_text("ENGINE_BUILD = 'student'\nENGINE_BUILD_NOTE = 'no'\n")
    monkeypatch.chdir(tmp_path)
    build, note = local.engine_build(local.child_environment())
    assert (build, note) == (engine.ENGINE_BUILD, engine.ENGINE_BUILD_NOTE)


def test_the_server_command_and_environment_keep_the_working_directory_out() -> None:
    command = local.server_command(1234, 2)
    assert command[:4] == [sys.executable, "-P", "-m", "server"]
    assert local.child_environment()["PYTHONSAFEPATH"] == "1"  # inherited by the workers


def test_help_gives_the_local_workers_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default: --concurrency + 1: one per game and a spare)" in help_text, help_text
    assert RunSettings(concurrency=3).workers() == 4
    assert RunSettings(concurrency=3, local_workers=1).workers() == 1


def test_local_workers_below_one_is_a_bad_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([*_tournament(tmp_path), "--local-workers", "0"])
    assert status == 2
    assert "--local-workers must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()

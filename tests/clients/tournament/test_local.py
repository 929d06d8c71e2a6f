"""The local server behind ``url=local`` engines: clean imports, failures before any file.

Seen (issue 29): in an SPRT between two builds of ``arena uci`` at 100 ms a
move, each program took about 1 s to start and the first eight games were
played with every move ``engine_error`` (the server answered each think at
once while the program started); the local server now serves only once its
programs are up, and one that cannot start stops the tournament.

Seen (issue 29, 2026-11-29): an SPRT between two builds of ``arena uci``
beside a build that loaded the machine had both programs failing (every
think answered ``engine_error``, 1,081 of 1,086 moves played by the
server for them); the tournament drew 67 games of such moves and
"accepted H0" without a word. A program engine's failed think now loses
it the game (as a crash does in cutechess-cli), and three such losses in
a row stop the tournament with the local server's last words on it.

Seen (issue 31): run from a folder holding a student's ``engine.py`` or
``server.py``, ``arena tournament`` started its local server on the
student's files, which died ("the local server exited"), and then wrote a
database and exited 1, where docs/tournament.md promises no database and
exit status 3; ``--help`` said the local server's default was
``--concurrency`` processes, not ``--concurrency`` + 1.
"""

from __future__ import annotations

import http.server
import json
import sys
import threading
from pathlib import Path

import pytest

import clients.tournament.local as local
import engine
from clients.cli import main
from clients.tournament.command import EXIT_PREFLIGHT
from clients.tournament.records import ENGINE_FAILURE, RULES, TIME_FORFEIT
from clients.tournament.runner import RunSettings

#: The fake UCI engine of the server's tests (its modes: tests/server/fake_uci_engine.py).
FAKE_UCI = Path(__file__).parents[2] / "server" / "fake_uci_engine.py"
FAKE_GTP = Path(__file__).parents[2] / "server" / "fake_gtp_engine.py"

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


def _chess_match(tmp_path: Path, mode: str) -> list[str]:
    program = f"{sys.executable} {FAKE_UCI} {mode}"
    return [
        "tournament",
        "--game",
        "chess",
        "--engine",
        "name=ours,url=local,depth=1",
        "--engine",
        f"name={mode},cmd={program},proto=uci",
        "--movetime",
        "50",
        "--games",
        "2",
        "--max-plies",
        "16",
        "--db",
        str(tmp_path / "m.db"),
        "--quiet",
    ]


def test_no_move_of_a_slow_starting_engine_is_played_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fake engine takes 1.5 s to start; at 50 ms a move every move of
    # the first game was engine_error before the local server waited for it.
    # 300 ms a move, still far under its start: at 50 ms, beside a CPU hog
    # and the rest of the suite, the Python program was now and then late
    # with a move and lost the game on time (seen 2026-12-07, the games cut
    # short and the count below short of 8).
    args = _chess_match(tmp_path, "slow")
    args[args.index("--movetime") + 1] = "300"
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert len(records) == 2
    ends = [(record["result"], record["reason"]) for record in records]
    reasons = [move.get("reason") for record in records for move in record["moves"]]
    assert "engine_error" not in reasons, (reasons, ends)
    # Both engines were asked by time (on a loaded machine a think may wait
    # in the queue until too little is left, answered overloaded).
    assert reasons.count("time") + reasons.count("overloaded") >= 8, (reasons, ends)
    assert "time" in reasons, (reasons, ends)


def test_a_program_that_keeps_failing_loses_its_games_and_stops_the_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It crashes in every search. Before, each of its moves was played for
    # it (engine_error), its games were scored as its own, and an SPRT
    # concluded on them.
    args = _chess_match(tmp_path, "crash")
    args[args.index("--games") + 1] = "10"
    # 2 s a move: the crash is seen long before the deadline even beside
    # CPU hogs (at 50 ms the pool's guard could answer first, reason time,
    # and the game went on); our side searches to depth 1, at once.
    args[args.index("--movetime") + 1] = "2000"
    status = main([*args, "--sprt", "elo0=0,elo1=30"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    # Games in progress finish; the first three of the crash engine were lost by failing.
    assert len(records) >= 3
    assert {record["kind"] for record in records} == {ENGINE_FAILURE}
    assert all(
        record["reason"].startswith("crash failed: its server answered engine_error")
        for record in records
    )
    assert all(record["winner"] == record["players"].index("ours") for record in records)
    played_for_it = [
        move
        for record in records
        for move in record["moves"]
        if move.get("reason") == "engine_error"
    ]
    assert played_for_it == []  # the server's fallback is not recorded as the engine's move
    # each reason says why, from the local server's log
    assert all("; its server's log: " in record["reason"] for record in records), records
    assert "aborted: crash lost 3 games in a row by failing" in out, out
    assert "external engine crash failed" in out, out  # the local server's log, quoted
    assert "accepted" not in out, out
    assert "resume with" in out
    faults = out[out.index("Losses by fault") :]
    assert "failed" in faults.splitlines()[1]
    assert faults.splitlines()[3].split()[-2:] == [str(len(records))] * 2


def test_an_engines_illegal_answer_loses_the_game_and_the_record_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen 2026-11-30 with GNU Go 3.8 behind the local server: it answered a
    # recapture that positional superko forbids; its server answered
    # engine_error and played the first legal move for it (A9). As CGOS and
    # bench/gnugo_bench.py judge it, the illegal move loses, and the record
    # now says what the program did.
    # 2 s a move: the program, started again after each illegal answer,
    # is up again within the next think's time even on a loaded machine
    # (at 50 ms a think could find it still starting: "was not ready by the
    # deadline (starting)", a lost game too, seen in CI). Our side searches
    # to depth 1 and answers at once.
    args = _chess_match(tmp_path, "illegal")
    args[args.index("--movetime") + 1] = "2000"
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["kind"] == ENGINE_FAILURE
        assert record["players"][1 - record["winner"]] == "illegal"
        reason = record["reason"]
        assert "; its server's log: the engine answered " in reason, reason
        # Quoted, with the legal moves (a review of 2026-12-07).
        assert "answered 'a1a1', illegal; legal: " in reason, reason


def test_an_engine_that_cannot_start_stops_the_tournament_before_its_first_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It never finishes its handshake: the server's probe gives up after
    # 10 s and the tournament says so (as cutechess-cli does), with exit
    # status 3 and no database, instead of playing every move for it.
    status = main(_chess_match(tmp_path, "nohandshake"))
    err = capsys.readouterr().err
    assert status == EXIT_PREFLIGHT, err
    assert "engine nohandshake cannot be used" in err and "uciok" in err, err
    assert sorted(path.name for path in tmp_path.iterdir()) == []


def test_the_program_check_reads_nothing_from_a_silent_or_broken_healthz() -> None:
    # Nothing listening, or an answer that is not the JSON /healthz gives:
    # no programs known yet (the tournament asks again until its deadline).
    class Garbage(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"not json")

        def log_message(self, *args: object) -> None:
            pass

    port = local._free_port()
    assert local.externals_status(f"http://127.0.0.1:{port}/healthz") == {}
    with http.server.HTTPServer(("127.0.0.1", 0), Garbage) as server:
        thread = threading.Thread(target=server.handle_request, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{server.server_address[1]}/healthz"
        assert local.externals_status(url) == {}
        thread.join()


def test_a_program_that_cannot_be_found_is_named_as_the_engines_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review of 2026-12-06: "python -m server: --external: cannot find the
    program", naming a flag of the server's that the user never typed."""
    refusal = "python -m server: --external: cannot find the program '/nonexistent/prog'"
    failing = [sys.executable, "-c", f"import sys; sys.exit({refusal!r})"]
    monkeypatch.setattr(local, "server_command", lambda port, workers, externals=(): failing)
    status = main(_tournament(tmp_path))
    err = capsys.readouterr().err
    assert status == EXIT_PREFLIGHT, err
    assert "an engine's cmd= cannot be run: cannot find the program '/nonexistent/prog'" in err
    assert "--external" not in err, err


def test_a_program_silent_at_its_deadline_loses_on_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A review of 2026-12-07: a late GNU Go had A9, C9, D9 ... played for it
    # by its server (reason time, depth 0) and the game was scored as its
    # own. A GTP program that never finishes a genmove now loses on time.
    program = f"{sys.executable} {FAKE_GTP} slow"
    status = main(
        [
            "tournament",
            "--game",
            "go",
            "--option",
            "size=5",
            "--engine",
            "name=ours,url=local,depth=1",
            "--engine",
            f"name=silent,cmd={program},proto=gtp",
            "--movetime",
            "200",
            "--games",
            "2",
            "--db",
            str(tmp_path / "g.db"),
            "--quiet",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["players"][1 - record["winner"]] == "silent", record["reason"]
        # Cut off, the GTP program (no stop) is started again; on a loaded
        # machine the next game may find it still starting: engine_error.
        assert record["kind"] in (TIME_FORFEIT, ENGINE_FAILURE), record["reason"]
    timed = [record for record in records if record["kind"] == TIME_FORFEIT]
    assert timed and "gave no move by its deadline" in timed[0]["reason"], records

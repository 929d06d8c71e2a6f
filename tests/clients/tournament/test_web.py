"""``arena tournament --web``: a real tournament serving its live page over HTTP."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from clients.cli import main
from tests.clients.tournament.web_harness import PLAY_S, live_tournament, stop
from tests.timing import wait_until


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_a_tournament_serves_its_live_page_and_keeps_it_after_the_last_game(
    tmp_path: Path,
) -> None:
    args = ["--game", "tictactoe", "--engine", "local:depth=1", "--engine", "local:depth=3"]
    args += ["--movetime", "200", "--games", "4", "--concurrency", "2", "--quiet"]
    with live_tournament(tmp_path, args) as run:
        status, page, headers = run.get("/")
        assert status == 200 and b"js/tournament.js" in page
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        assert run.get("/js/boards/tictactoe.js")[0] == 200
        assert run.get("/nothing")[0] == 404

        def finished() -> bool:
            return bool(run.json("/api/snapshot")["tournament"]["state"] == "finished")

        wait_until(finished, PLAY_S, f"the end of the tournament: {run.output()}")
        snapshot = run.json("/api/snapshot")
        info = snapshot["tournament"]
        assert info["engines"] == ["local d1", "local d3"]
        assert info["played"] == info["games"] == 4 and snapshot["running"] == []
        assert sum(row["points"] for row in snapshot["standings"]) == 4
        assert sum(row["games"] for row in snapshot["standings"]) == 8
        assert snapshot["crosstable"][0][1]["games"] == 4
        assert snapshot["pairings"][0]["games"] == 4
        assert sorted(game["id"] for game in snapshot["finished"]) == [1, 2, 3, 4]
        for listed in snapshot["finished"]:
            game = run.json(f"/api/game/{listed['id']}")
            assert len(game["positions"]) == len(game["moves"]) + 1 == listed["plies"] + 1
            assert game["positions"][-1]["to_move"] == -1
            assert game["result"]["result"] == listed["result"]
        _, _, headers = run.get("/api/snapshot")
        etag = headers["ETag"]
        assert run.get("/api/snapshot", {"If-None-Match": etag})[0] == 304
        # The tables are printed; the page stays up until Ctrl-C (or SIGTERM).
        wait_until(lambda: "4 of 4 games played" in run.output(), PLAY_S, "the tables")
        assert run.process.poll() is None
        # Its local server's processes end with the games; the page alone stays
        # (a review of 2026-12-07: the bots ran on until Ctrl-C).
        if Path("/proc").is_dir():
            wait_until(lambda: not _children(run.process.pid), PLAY_S, "the search processes' end")
        assert stop(run) == 0
    # --resume of the finished tournament serves its page again, with its games.
    with live_tournament(tmp_path, ["--resume", "--quiet"]) as again:

        def shown() -> bool:
            return bool(again.json("/api/snapshot")["tournament"]["state"] == "finished")

        wait_until(shown, PLAY_S, f"the finished tournament's page: {again.output()}")
        assert again.json("/api/snapshot")["tournament"]["played"] == 4
        assert again.json("/api/game/1")["result"]["result"] in ("1-0", "0-1", "1/2-1/2")
        assert stop(again) == 0


def test_a_port_in_use_is_refused_before_anything_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["tournament", "--game", "tictactoe", "--engine", "local:depth=1"]
        args += ["--engine", "local:depth=2", "--depth", "1", "--db", str(tmp_path / "t.db")]
        status = main([*args, "--web", f"127.0.0.1:{port}"])
    assert status == 2
    assert f"--web 127.0.0.1:{port}: cannot listen there" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()
    assert main(["tournament", "--web", "nowhere", "--db", str(tmp_path / "u.db")]) == 2

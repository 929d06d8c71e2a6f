"""The ``arena`` command line: one-line user errors, --version, the served URLs, tokens."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.cli import main
from server import SERVER_VERSION
from tests.timing import UNIT

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-for-tests"


def arena(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 60 * UNIT
) -> subprocess.CompletedProcess[str]:
    """``python -P -m clients ARGS`` run to its end, the package importable from anywhere.

    ``-P`` keeps the current directory off ``sys.path``, as for the installed
    ``arena`` script.
    """
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("ARENA_TOKEN", None)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-P", "-m", "clients", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], command: str) -> str:
    assert result.returncode != 0, result
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"arena {command}: "), lines
    return lines[0]


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    """A real ``arena serve --token`` on a free port; yields its WebSocket URL."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("ARENA_TOKEN", None)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clients",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--token",
            TOKEN,
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.fullmatch(
            r"serving on (ws://127\.0\.0\.1:(\d+)/ws); "
            r"GUI at http://127\.0\.0\.1:(\d+)/\n",
            line,
        )
        assert match and match[2] == match[3], line
        yield match[1]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30 * UNIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"arena {SERVER_VERSION}"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["serve", "--port", "99999"], "--port: 99999 is not a port"),
        (["serve", "--port", "-1"], "--port: -1 is not a port"),
        (["serve", "--port", "http"], "'http' is not a whole number"),
        (["serve", "--workers", "0"], "--workers: 0 is not at least 1"),
        (["serve", "--max-queue", "-1"], "--max-queue: -1 is not at least 0"),
        (["play", "--movetime", "0"], "--movetime: 0 is not at least 1"),
        # play --algorithm takes any name: the server's welcome says which exist
        # (tests/clients/test_play_gui_parity.py)
        (["gtp", "--resign-below", "2"], "--resign-below: 2 is not between 0 and 1"),
        (["gtp", "--playouts", "0"], "--playouts: 0 is not at least 1"),
        (["gtp", "--algorithm", "expectiminimax"], "invalid choice"),
        (["nosuchcommand"], "invalid choice"),
        # An unknown flag names the command it was given to (the review of 2026-12-06).
        (["play", "--bogus"], "arena play: error: unrecognized arguments: --bogus"),
        (["uci", "--foo", "x"], "arena uci: error: unrecognized arguments: --foo x"),
    ],
)
def test_bad_options_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err, err
    assert err.startswith("arena")


def test_serve_port_in_use_is_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = arena("serve", "--port", str(port), "--workers", "1")
    line = assert_one_line_error(result, "serve")
    assert f"127.0.0.1:{port}" in line and "already in use" in line
    assert result.returncode == 1


def test_serve_refuses_more_workers_than_the_memory_holds() -> None:
    """A review of 2026-12-07: ``--workers 1000`` started processes until the
    kernel killed programs beside the server (a compiler's, here)."""
    result = arena("serve", "--port", "0", "--workers", "100000")
    line = assert_one_line_error(result, "serve")
    assert "--workers 100000 may need up to" in line and "use at most" in line
    assert result.returncode == 2  # a usage error, as every bad option


def test_serve_port_in_use_with_debug_logging_shows_the_traceback() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = arena(
            "serve", "--port", str(busy.getsockname()[1]), "--workers", "1", "--log-level", "debug"
        )
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_play_with_an_http_url_is_one_line() -> None:
    line = assert_one_line_error(arena("play", "--url", "http://127.0.0.1:8765/"), "play")
    assert "not a WebSocket URL" in line


def test_play_with_nothing_listening_is_one_line() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    line = assert_one_line_error(arena("play", "--url", f"ws://127.0.0.1:{port}/ws"), "play")
    assert "nothing is listening" in line


def test_loadtest_with_nothing_listening_fails() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = arena(
        "loadtest", "--url", f"ws://127.0.0.1:{port}/ws", "-c", "1", "-d", "1", "--ramp", "0", "-q"
    )
    assert result.returncode == 1, result.stdout
    assert "Traceback" not in result.stderr


def test_serve_prints_its_urls_and_play_without_a_token_is_told_to_use_one(
    token_server: str,
) -> None:
    line = assert_one_line_error(arena("play", "--url", token_server), "play")
    assert line == "arena play: the server needs a token: use --token or ARENA_TOKEN"


def test_play_with_the_token_plays_and_with_a_wrong_one_is_told_so(token_server: str) -> None:
    result = arena("play", "--url", token_server, "--game", "tictactoe", "--token", TOKEN)
    assert result.returncode == 0, result.stderr
    assert "your move" in result.stdout
    result = arena("play", "--url", token_server, "--game", "tictactoe", env={"ARENA_TOKEN": TOKEN})
    assert result.returncode == 0, result.stderr
    line = assert_one_line_error(arena("play", "--url", token_server, "--token", "wrong"), "play")
    assert line == "arena play: the server refused the token: check --token or ARENA_TOKEN"


def test_loadtest_without_a_token_is_told_to_use_one(token_server: str) -> None:
    result = arena("loadtest", "--url", token_server, "-c", "1", "-d", "1", "--ramp", "0", "-q")
    assert result.returncode == 1
    assert "arena loadtest: the server needs a token: use --token or ARENA_TOKEN" in result.stderr


def test_loadtest_reads_the_token_from_the_environment(token_server: str) -> None:
    result = arena(
        "loadtest",
        "--url",
        token_server,
        "-c",
        "1",
        "-n",
        "2",
        "-d",
        "5",
        "--ramp",
        "0",
        "-q",
        "--scenario",
        "idle",
        env={"ARENA_TOKEN": TOKEN},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "needs a token" not in result.stderr


def test_loadtest_scenario_module_in_the_current_directory(
    tmp_path: Path, token_server: str
) -> None:
    (tmp_path / "my_arena_scenario.py").write_text(
        "import asyncio\nasync def run(session):\n    await asyncio.sleep(0.05)\n",
        encoding="utf-8",
    )
    result = arena(
        "loadtest",
        "--url",
        token_server,
        "--token",
        TOKEN,
        "-c",
        "1",
        "-n",
        "2",
        "--ramp",
        "0",
        "-d",
        "5",
        "-q",
        "--scenario",
        "my_arena_scenario:run",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_loadtest_unknown_scenario_module_is_one_line(tmp_path: Path) -> None:
    result = arena("loadtest", "--scenario", "no_such_module_here:run", cwd=tmp_path)
    line = assert_one_line_error(result, "loadtest")
    assert "no module 'no_such_module_here'" in line


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_help_lists_the_games(capsys: pytest.CaptureFixture[str], command: str) -> None:
    from engine.registry import describe_games

    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ", ".join(game["name"] for game in describe_games()) in out
    assert "--game GAME" in out and "--token TOKEN" in out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (
            ["--openings", "/nonexistent/book.pgn"],
            "/nonexistent/book.pgn: no such file or directory",
        ),
        (
            ["--db", "/nonexistent/dir/t.db"],
            "--db /nonexistent/dir/t.db: no folder /nonexistent/dir",
        ),
        (["--game", "nosuch"], "unknown game 'nosuch'"),
    ],
)
def test_tournament_user_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], fragment: str
) -> None:
    status = main(
        [
            "tournament",
            "--engine",
            "local",
            "--engine",
            "local",
            "--depth",
            "1",
            "--db",
            str(tmp_path / "t.db"),
            *extra,
        ]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("arena tournament: ") and len(err.splitlines()) == 1, err
    assert fragment in err


def test_server_urls_name_an_address_a_browser_can_open() -> None:
    from server.cli import server_urls

    assert server_urls("127.0.0.1", 8765) == ("ws://127.0.0.1:8765/ws", "http://127.0.0.1:8765/")
    assert server_urls("0.0.0.0", 80)[1] == "http://127.0.0.1:80/"
    assert server_urls("::1", 9000) == ("ws://[::1]:9000/ws", "http://[::1]:9000/")
    assert server_urls("arena.example", 1)[0] == "ws://arena.example:1/ws"


def test_a_position_refused_on_this_side_reads_as_the_servers_refusal() -> None:
    """The review of 2026-12-06: `arena play --game chess --position 'not a fen'`
    printed "BadPositionError: ..." where every other game printed "bad_position: ..."."""
    from clients.cli import describe_error
    from engine.errors import BadPositionError

    line = describe_error(BadPositionError("not a FEN: 'not a fen'"))
    assert line == "bad_position: not a FEN: 'not a fen'"

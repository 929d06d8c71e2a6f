"""Tokens: ``token=`` in an engine spec, ``--token`` and ``$ARENA_TOKEN`` for a tournament.

A server started with ``--token`` refuses the handshake with HTTP 401; the
tournament says so in one line, and never stores or shows a token.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from clients.tournament.config import ConfigError, EngineSpec, parse_engine
from clients.tournament.connections import NEEDS_TOKEN, WRONG_TOKEN, ConnectError, EnginePool
from server.app import ArenaServer
from tests.clients.tournament.helpers import TEST_BACKOFF, config
from tests.server.server_harness import running_server
from tests.timing import UNIT

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "tournament-secret-42"
ENDS_WITHIN_S = 120.0 * UNIT


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def locked() -> AsyncIterator[str]:
    """A real server that wants ``TOKEN``; yields its URL."""
    server: ArenaServer
    async with running_server(workers=1, token=TOKEN) as server:
        yield f"ws://127.0.0.1:{server.port}/ws"


async def test_an_engine_spec_takes_a_token_that_is_never_shown_or_stored() -> None:
    spec = parse_engine(f"name=a,url=ws://127.0.0.1:1/ws,depth=2,token={TOKEN}")
    assert spec.token == TOKEN and spec.depth == 2
    assert TOKEN not in repr(spec)
    data = config([spec, EngineSpec("b", "ws://127.0.0.1:1/ws")]).to_json()
    assert TOKEN not in repr(data) and "token" not in data["engines"][0]
    with pytest.raises(ConfigError, match="local engine needs no token"):
        parse_engine(f"local:depth=2,token={TOKEN}")


async def test_a_pool_without_the_token_fails_at_once_with_one_line(locked: str) -> None:
    pool = EnginePool(locked, TEST_BACKOFF, 5.0)
    with pytest.raises(ConnectError) as raised:
        await pool.acquire()
    assert str(raised.value) == f"cannot connect to {locked}: {NEEDS_TOKEN}"
    pool = EnginePool(locked, TEST_BACKOFF, 5.0, token=TOKEN)
    engine = await pool.acquire()
    await pool.release(engine, True)
    await pool.close()


async def _arena(
    tmp_path: Path, *options: str, token_env: str | None = None
) -> tuple[int, str, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("ARENA_TOKEN", None)
    if token_env is not None:
        environment["ARENA_TOKEN"] = token_env
    tmp_path.mkdir(parents=True, exist_ok=True)
    new = (
        []
        if "--resume" in options
        else ["--game", "tictactoe", "--depth", "1", "--random-plies", "0", "--games", "2"]
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "clients",
        "tournament",
        *new,
        *options,
        "--db",
        str(tmp_path / "t.db"),
        "--quiet",
        "--request-timeout",
        "10000",
        cwd=tmp_path,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), ENDS_WITHIN_S)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_without_a_token_the_tournament_says_so_in_one_line(
    tmp_path: Path, locked: str
) -> None:
    status, out, err = await _arena(
        tmp_path, "--engine", f"name=a,url={locked}", "--engine", f"name=b,url={locked}"
    )
    assert status == 3 and out == ""
    assert err == f"arena tournament: engine 'a' ({locked}) did not answer hello: {NEEDS_TOKEN}\n"


async def test_a_wrong_token_is_one_line_too(tmp_path: Path, locked: str) -> None:
    status, out, err = await _arena(
        tmp_path,
        "--engine",
        f"name=a,url={locked}",
        "--engine",
        f"name=b,url={locked}",
        "--token",
        "wrong",
    )
    assert status == 3 and out == ""
    assert err == f"arena tournament: engine 'a' ({locked}) did not answer hello: {WRONG_TOKEN}\n"


async def test_engine_tokens_play_and_are_not_stored(tmp_path: Path, locked: str) -> None:
    status, out, err = await _arena(
        tmp_path,
        "--engine",
        f"name=a,url={locked},token={TOKEN}",
        "--engine",
        f"name=b,url={locked},token={TOKEN}",
    )
    assert status == 0, out + err
    assert "2 of 2 games played" in out
    for path in tmp_path.iterdir():
        assert TOKEN.encode() not in path.read_bytes(), path


async def test_token_option_and_environment_cover_remote_engines(
    tmp_path: Path, locked: str
) -> None:
    engines = ("--engine", f"name=a,url={locked}", "--engine", "local:depth=1")
    status, out, err = await _arena(tmp_path / "option", *engines, "--token", TOKEN)
    assert status == 0, out + err
    status, out, err = await _arena(tmp_path / "env", *engines, token_env=TOKEN)
    assert status == 0, out + err
    # A resumed tournament needs the token again: it is not stored.
    status, out, err = await _arena(tmp_path / "env", "--resume")
    assert status == 0, out + err  # nothing left to play: no connection needed

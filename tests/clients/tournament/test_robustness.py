"""Issue 11: a referee that cannot hang or crash, whatever an engine does.

Each of the issue's observations is reproduced here against a fake engine
server (``FaultyEngine``, ``websockets`` on 127.0.0.1 port 0):

1. an engine that accepts the WebSocket but never answers ``hello`` made
   the tournament wait forever;
2. a ``bestmove`` whose ``depth`` is not an integer crashed it (exit 1,
   nothing stored, and ``--resume`` crashed again);
3. ``NaN`` / ``Infinity`` from an engine reached the JSON Lines file and
   the database (which then held invalid JSON);
4. a misspelt engine URL was found only after every game of that engine
   had been forfeited.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import socket
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from clients.tournament.config import EngineSpec, Timing
from clients.tournament.connections import (
    Backoff,
    ConnectError,
    EnginePool,
    PreflightError,
    preflight,
)
from clients.tournament.local import local_workers, server_command
from clients.tournament.records import PROTOCOL_ERROR, GameRecord, MoveRecord, replay
from clients.tournament.runner import RunSettings, TournamentRunner, create_tournament
from clients.tournament.store import Store
from clients.tournament.validation import strict_loads_constant
from engine.registry import describe_games
from tests.clients.tournament.faulty_engine import MISSING, FaultyEngine
from tests.clients.tournament.helpers import TEST_BACKOFF, config, play
from tests.server.server_harness import running_server
from tests.timing import UNIT

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[3]
#: Generous bounds for a loaded 2-core machine: they only tell "ended" from "hung".
ENDS_WITHIN_S = 60.0 * UNIT
#: The fake engines answer at once; a margin this wide keeps a busy machine from
#: turning a protocol error into a loss on time, or into a watchdog timeout.
PATIENT = Timing(margin_ms=5000, grace_ms=5000, move_timeout_ms=30_000)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def weak() -> AsyncIterator[FaultyEngine]:
    """A correct (first legal move) engine shared by the tests."""
    async with FaultyEngine("none") as engine:
        yield engine


def strict_lines(text: str) -> list[dict[str, Any]]:
    """Every line parsed by a JSON parser that refuses NaN and Infinity."""
    return [json.loads(line, parse_constant=strict_loads_constant) for line in text.splitlines()]


def stored_records(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT record FROM games WHERE done = 1").fetchall()
    return [json.loads(record, parse_constant=strict_loads_constant) for (record,) in rows]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# ----------------------------------------------------------------------
# 1. An engine that never answers hello.


async def test_an_engine_that_never_answers_hello_stops_the_start(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    async with FaultyEngine("mute") as mute:
        tournament = config(
            [EngineSpec("mute", mute.url), EngineSpec("weak", weak.url)],
            timing=Timing(request_timeout_ms=1500),
        )
        started = time.monotonic()
        with pytest.raises(PreflightError) as raised:
            await asyncio.wait_for(play(tmp_path, tournament), ENDS_WITHIN_S)
        elapsed = time.monotonic() - started
        assert mute.hellos == 1
    message = str(raised.value)
    assert message == f"engine 'mute' ({mute.url}) did not answer hello: no welcome within 1500 ms"
    assert elapsed < 30 * UNIT
    store = Store.open(tmp_path / "t.db")
    try:
        assert store.results() == [] and len(store.pending()) == 2
    finally:
        store.close()
    assert not (tmp_path / "t.jsonl").exists()


async def test_a_pool_waits_for_hello_no_longer_than_the_request_timeout() -> None:
    async with FaultyEngine("mute") as mute:
        pool = EnginePool(
            mute.url, Backoff(first_s=0.05, attempts=2, open_timeout_s=5.0), request_timeout_s=0.5
        )
        started = time.monotonic()
        with pytest.raises(ConnectError, match="no welcome within 500 ms"):
            await asyncio.wait_for(pool.acquire(), ENDS_WITHIN_S)
        assert time.monotonic() - started < 30 * UNIT
        assert mute.hellos == 2  # both attempts said hello and got nothing
        await pool.close()


# ----------------------------------------------------------------------
# 2 and 3. Malformed bestmove fields: a protocol-error loss, strict JSON records.

#: Each is refused by the client library's validation (strict mode): the
#: think fails with ProtocolViolationError, a protocol-error loss.
MALFORMED: list[dict[str, Any]] = [
    {"depth": "7"},
    {"depth": 2.5},
    {"depth": b"\x07"},
    {"depth": True},
    {"depth": math.nan},
    {"depth": math.inf},
    {"seldepth": -3},
    {"nodes": 2**60},
    {"time_ms": math.nan},
    {"score": {"value": math.nan}},
    {"score": {"value": math.inf}},
    {"score": {"value": -math.inf}},
    {"score": "high"},
    {"score": {"win_in": -2}},
    {"pv": [1, 2]},
    {"reason": 5},
    {"move": MISSING},
    {"move": None},
    {"queued_ms": -1},
]


def _case(patch: dict[str, Any]) -> str:
    ((key, value),) = patch.items()
    return f"{key}-missing" if value is MISSING else f"{key}={value!r}"


@pytest.mark.parametrize("patch", MALFORMED, ids=[_case(p) for p in MALFORMED])
async def test_a_malformed_bestmove_loses_and_the_records_stay_strict_json(
    tmp_path: Path, weak: FaultyEngine, patch: dict[str, Any]
) -> None:
    async with FaultyEngine("patch", patch=patch) as broken:
        tournament = config(
            [EngineSpec("broken", broken.url), EngineSpec("weak", weak.url)], timing=PATIENT
        )
        text, records = await asyncio.wait_for(play(tmp_path, tournament), ENDS_WITHIN_S)
    assert len(records) == 2, text
    for record in records:
        assert record.kind == PROTOCOL_ERROR, record.reason
        assert record.players[1 - (record.winner or 0)] == "broken", record.reason
        assert record.reason.startswith("broken broke the protocol: "), record.reason
    # strict JSON everywhere, and nothing the engine sent for that move was kept
    lines = strict_lines((tmp_path / "t.jsonl").read_text())
    assert len(lines) == 2 and stored_records(tmp_path / "t.db") == lines
    for line in lines:
        for move in line["moves"]:
            assert all(isinstance(move.get(key, 0), int) for key in ("depth", "nodes"))
    row = [line for line in text.splitlines() if line.startswith("broken ")][-1]
    assert row.split()[1:] == ["0", "0", "0", "0", "2", "0", "0", "2"], text  # protocol 2, total 2


async def test_a_malformed_info_loses_too(tmp_path: Path, weak: FaultyEngine) -> None:
    # the client library reads every info; one it cannot read ends the game at once
    info = {
        "depth": 1,
        "seldepth": 1,
        "score": {"value": math.inf},
        "pv": [],
        "nodes": 1,
        "nps": 1,
        "time_ms": 1,
    }
    async with FaultyEngine("patch", info=info) as broken:
        tournament = config(
            [EngineSpec("broken", broken.url), EngineSpec("weak", weak.url)], timing=PATIENT
        )
        _, records = await asyncio.wait_for(play(tmp_path, tournament), ENDS_WITHIN_S)
    assert [record.kind for record in records] == [PROTOCOL_ERROR] * 2
    assert all("broke the protocol" in record.reason for record in records), records[0].reason


#: What a server's welcome may say of tic-tac-toe's win_odds_scale, and what is kept.
WELCOME_SCALES: list[tuple[Any, int | None]] = [
    (7, 7),
    (MISSING, None),
    ("7", None),
    (True, None),
    (0, None),
    (-7, None),
    (7.5, None),
    (2**60, None),
]


@pytest.mark.parametrize(
    ("said", "kept"), WELCOME_SCALES, ids=[_case({"scale": said}) for said, _ in WELCOME_SCALES]
)
async def test_a_monte_carlo_move_records_the_scale_its_servers_welcome_gave(
    tmp_path: Path, weak: FaultyEngine, said: Any, kept: int | None
) -> None:
    # the second think of each game reports playouts (a Monte Carlo search's
    # answer): that move keeps the scale, if a valid one; no other move has one
    games = describe_games()
    for entry in games:
        if entry["name"] == "tictactoe":
            entry.pop("win_odds_scale")
            if said is not MISSING:
                entry["win_odds_scale"] = said
    async with FaultyEngine("patch", patch={"playouts": 40}, games=games) as mc:
        tournament = config([EngineSpec("mc", mc.url), EngineSpec("weak", weak.url)])
        text, records = await asyncio.wait_for(play(tmp_path, tournament), ENDS_WITHIN_S)
    assert len(records) == 2, text
    for record in records:
        counted = [move for move in record.moves if move.playouts is not None]
        assert [move.playouts for move in counted] == [40], record
        assert [move.win_odds_scale for move in counted] == [kept]
        assert all(move.win_odds_scale is None for move in record.moves if move not in counted)
    lines = strict_lines((tmp_path / "t.jsonl").read_text())
    assert sum("win_odds_scale" in move for line in lines for move in line["moves"]) == (
        0 if kept is None else 2
    )


async def test_moves_answered_without_a_search_are_counted_in_the_report(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    # Seen 2026-11-29: GNU Go behind a server, cut off at 60 ms a move beside
    # a CPU hog, had moves answered "time" at depth 0 (the first legal moves,
    # A9 and B9) for it, and the report said nothing of them.
    unsearched = {"reason": "time", "depth": 0, "seldepth": 0, "pv": MISSING}
    async with FaultyEngine("patch", patch=unsearched) as silent:
        tournament = config([EngineSpec("silent", silent.url), EngineSpec("weak", weak.url)])
        text, records = await asyncio.wait_for(play(tmp_path, tournament), ENDS_WITHIN_S)
    assert len(records) == 2, text
    # the engine answers so at its second think of each game
    own = sum(
        1
        for record in records
        for game, state, move in replay(record)
        if move.reason == "time" and record.players[game.to_move(state)] == "silent"
    )
    assert own == 2
    line = next(line for line in text.splitlines() if line.startswith("Moves answered without"))
    assert line.endswith(f"reason time, depth 0): silent {own}"), line


async def test_a_record_can_never_hold_nan_or_infinity() -> None:
    # whatever slips through (an old database, a future mistake), the output is strict JSON
    move = MoveRecord(
        "1",
        time_ms=3,
        depth=math.nan,
        score={"value": math.inf},  # type: ignore[arg-type]
        nodes=-math.inf,
    )  # type: ignore[arg-type]
    record = GameRecord(
        game_id=0,
        round=0,
        pair=0,
        game="tictactoe",
        options={"x": math.nan},
        players=("a", "b"),
        opening_index=0,
        opening_position=None,
        winner=None,
        kind="rules",
        reason="test",
        moves=(move,),
        extra={"raw": b"\x00"},
    )
    line = json.loads(record.to_line(), parse_constant=strict_loads_constant)
    assert line["moves"][0] == {"move": "1", "time_ms": 3, "score": {"value": None}}
    assert line["options"] == {"x": None} and line["extra"] == {"raw": "b'\\x00'"}


async def test_malformed_depth_no_longer_crashes_the_command(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    # the report: exit 1 with nothing stored, and --resume crashing again
    async with FaultyEngine("patch", patch={"depth": b"\x07"}) as broken:
        command = [
            "--engine",
            f"name=broken,url={broken.url}",
            "--engine",
            f"name=weak,url={weak.url}",
        ]
        status, out, err = await _arena(tmp_path, *command)
        assert status == 0, err
        assert "2 of 2 games played" in out
        status, out, err = await _arena(tmp_path, "--resume")
        assert status == 0, err
    assert "2 of 2 games played" in out
    records = stored_records(tmp_path / "t.db")
    assert [record["kind"] for record in records] == [PROTOCOL_ERROR] * 2
    assert strict_lines((tmp_path / "t.jsonl").read_text()) == records


# ----------------------------------------------------------------------
# 4. A misspelt URL: refused before game 1, on a new tournament and on --resume.


async def test_a_dead_url_stops_the_command_before_anything_is_written(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    dead = f"ws://127.0.0.1:{closed_port()}/ws"
    status, out, err = await _arena(
        tmp_path, "--engine", f"name=a,url={weak.url}", "--engine", f"name=b,url={dead}"
    )
    assert status == 3 and out == ""
    assert (
        err == f"arena tournament: engine 'b' ({dead}) did not answer hello: connection refused\n"
    )
    assert not (tmp_path / "t.db").exists() and not (tmp_path / "t.jsonl").exists()


async def test_a_dead_url_stops_a_resumed_tournament_before_game_one(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    dead = f"ws://127.0.0.1:{closed_port()}/ws"
    tournament = config([EngineSpec("a", weak.url), EngineSpec("b", dead)])
    create_tournament(tmp_path / "t.db", tournament).close()
    status, out, err = await _arena(tmp_path, "--resume")
    assert status == 3 and out == "", out
    assert (
        err == f"arena tournament: engine 'b' ({dead}) did not answer hello: connection refused\n"
    )
    assert stored_records(tmp_path / "t.db") == []


async def test_preflight_names_the_first_engine_that_failed(weak: FaultyEngine) -> None:
    engines = [
        EngineSpec("ok", weak.url),
        EngineSpec("typo", f"ws://127.0.0.1:{closed_port()}/ws"),
        EngineSpec("worse", f"ws://127.0.0.1:{closed_port()}/ws"),
    ]
    with pytest.raises(PreflightError) as raised:
        await preflight(engines, [engine.url for engine in engines], 10.0)
    assert raised.value.engine.name == "typo" and "\n" not in str(raised.value)
    await preflight(engines[:1] * 3, [weak.url] * 3, 10.0)  # one URL, asked once


async def test_preflight_checks_the_search_a_remote_engine_asks_for() -> None:
    async with running_server() as server:
        url = f"ws://127.0.0.1:{server.port}/ws"
        await preflight([EngineSpec("mc", url, algorithm="mcts")], [url], 10.0, game="chess")
        sf = EngineSpec("sf", url, algorithm="stockfish")
        with pytest.raises(PreflightError, match="does not offer the search 'stockfish' for chess"):
            await preflight([sf], [url], 10.0, game="chess")


async def test_a_runner_checks_every_engine_before_game_one(
    tmp_path: Path, weak: FaultyEngine
) -> None:
    dead = f"ws://127.0.0.1:{closed_port()}/ws"
    store = create_tournament(
        tmp_path / "t.db", config([EngineSpec("a", weak.url), EngineSpec("b", dead)])
    )
    jsonl = tmp_path / "t.jsonl"
    try:
        with pytest.raises(PreflightError, match="engine 'b'"):
            await TournamentRunner(
                store, RunSettings(backoff=TEST_BACKOFF, jsonl_path=jsonl, quiet=True)
            ).run()
        assert store.results() == [] and not jsonl.exists()
    finally:
        store.close()


async def _arena(tmp_path: Path, *options: str) -> tuple[int, str, str]:
    """``arena tournament`` in a child process, against servers of this event loop."""
    new = (
        []
        if "--resume" in options
        else [
            "--game",
            "tictactoe",
            "--movetime",
            "200",
            "--random-plies",
            "0",
            "--games",
            "2",
            "--margin",
            "5000",
            "--grace",
            "5000",
        ]
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
        "5000",
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), ENDS_WITHIN_S)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_the_local_server_has_a_process_per_game_and_a_spare_and_no_limits() -> None:
    assert local_workers(1) == 2 and local_workers(2) == 3 and local_workers(0) == 2
    command = server_command(8765, 3)
    assert command[command.index("--workers") + 1] == "3"
    options = [word for word in command if word.startswith("--")]
    assert options == ["--host", "--port", "--workers", "--log-level"]

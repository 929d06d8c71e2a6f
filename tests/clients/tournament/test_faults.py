"""The referee against a deliberately faulty engine: every fault loses, the tournament goes on."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from clients.tournament.config import EngineSpec, TimeControl, Timing
from clients.tournament.records import (
    CONNECTION_FAILED,
    DISCONNECT,
    ILLEGAL_MOVE,
    PROTOCOL_ERROR,
    TIME_FORFEIT,
    TIMEOUT,
)
from clients.tournament.runner import TournamentAborted
from server.app import ArenaServer
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import config, play
from tests.server.server_harness import running_server
from tests.timing import UNIT

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def good_server() -> AsyncIterator[ArenaServer]:
    async with running_server(workers=1) as server:
        yield server


@pytest.fixture
def good(good_server: ArenaServer) -> EngineSpec:
    return EngineSpec("good", f"ws://127.0.0.1:{good_server.port}/ws", depth=2)


@pytest.mark.parametrize(
    ("fault", "kind", "words"),
    [
        ("illegal", ILLEGAL_MOVE, "illegal move 'zz9'"),
        ("late", TIME_FORFEIT, "lost on time"),
        ("hang", TIMEOUT, "gave no move within"),
        ("disconnect", DISCONNECT, "disconnected"),
        ("garbage", PROTOCOL_ERROR, "broke the protocol"),
        ("bad_type", PROTOCOL_ERROR, "not a string"),
        ("error", PROTOCOL_ERROR, "error internal"),
        ("reject", PROTOCOL_ERROR, "error illegal_move"),
    ],
)
async def test_each_fault_loses_and_the_tournament_goes_on(
    tmp_path: Path, good: EngineSpec, fault: str, kind: str, words: str
) -> None:
    # "late" answers 450 ms after a 200 ms move time: beyond the 100 ms margin, and
    # (with a long grace) well before the watchdog, however busy the machine is; the
    # other faults get a wide margin, so that a busy machine cannot make the good
    # engine lose on time first
    margin, grace = (100, 2000) if fault == "late" else (1000, 1000)
    async with FaultyEngine(fault, late_s=0.45) as faulty:
        tournament = config(
            [EngineSpec("faulty", faulty.url), good],
            games=2,
            timing=Timing(margin_ms=margin, grace_ms=grace, move_timeout_ms=5000),
        )
        started = time.monotonic()
        text, records = await play(tmp_path, tournament)
        elapsed = time.monotonic() - started
    assert len(records) == 2, text
    for record in records:
        faulty_player = record.players.index("faulty")
        assert record.winner == 1 - faulty_player, record.reason
        assert record.kind == kind, record.reason
        assert record.reason.startswith("faulty ") and words in record.reason, record.reason
    assert "good" in text.splitlines()[2], text  # ranked first
    if fault in ("disconnect", "garbage", "hang", "late"):
        assert faulty.connections >= 2  # a fresh connection after each fault
    # the watchdog bounds a hung move: 200 ms + 1000 ms margin + 1000 ms grace
    assert elapsed < 30 * UNIT


async def test_clock_flag(tmp_path: Path, good: EngineSpec) -> None:
    async with FaultyEngine("late", late_s=0.45) as faulty:
        tournament = config(
            [EngineSpec("faulty", faulty.url), good],
            tc=TimeControl(base_ms=300, inc_ms=0),
            timing=Timing(margin_ms=100, grace_ms=2000, move_timeout_ms=5000),
        )
        _, records = await play(tmp_path, tournament)
    assert [record.kind for record in records] == [TIME_FORFEIT, TIME_FORFEIT]
    assert all("lost on time" in record.reason and "ms left" in record.reason for record in records)
    # The late answer is said (the record has no move for that turn): the
    # review of 2026-11-29 could not tell where a Go move's 620 ms went.
    assert all("; it answered " in r.reason and "queued" in r.reason for r in records)


async def test_engine_gone_after_the_start_forfeits(tmp_path: Path, good: EngineSpec) -> None:
    # it answers the preflight's hello, then stops listening: every game is a forfeit
    async with FaultyEngine("none", refuse_after=1) as leaving:
        gone = EngineSpec("gone", leaving.url)
        text, records = await play(tmp_path, config([gone, good]))
    assert [record.kind for record in records] == [CONNECTION_FAILED, CONNECTION_FAILED]
    assert all(record.players[record.winner or 0] == "good" for record in records)
    assert all("connection refused" in record.reason for record in records), records[0].reason
    row = next(line for line in text.splitlines()[-4:] if line.startswith("gone "))
    assert row.split()[1:] == ["0", "0", "0", "0", "0", "2", "0", "2"], text  # unreachable: 2


async def test_no_engine_reachable_aborts_and_keeps_the_schedule(tmp_path: Path) -> None:
    async with FaultyEngine("none", refuse_after=1) as a, FaultyEngine("none", refuse_after=1) as b:
        with pytest.raises(TournamentAborted):
            await play(tmp_path, config([EngineSpec("a", a.url), EngineSpec("b", b.url)]))

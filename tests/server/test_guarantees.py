"""The UNIX-style guarantees: exactly one legal bestmove per think, on time, whatever happens.

Each test starts its own server (real worker processes) because it kills,
freezes or exhausts workers.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

from server.app import ArenaServer
from tests.server.server_harness import UNIT, RawClient, raw_client, running_server, wait_until

C4_MOVES = [str(column) for column in range(1, 8)]


async def start_connect4(client: RawClient) -> None:
    state = await client.request({"type": "new_game", "game": "connect4", "id": 0})
    assert state["type"] == "state"


async def wait_for_info(client: RawClient, think_id: int, depth: int) -> dict[str, Any]:
    while True:
        message = await client.recv()
        assert message["type"] == "info" and message["id"] == think_id, message
        if message["depth"] >= depth:
            return message


async def wait_for_new_worker(server: ArenaServer, old_pids: set[int], count: int) -> None:
    deadline = time.monotonic() + 10 * UNIT
    while time.monotonic() < deadline:
        pids = set(server.pool.worker_pids())
        if len(pids) == count and not pids & old_pids and server.pool.idle_workers == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the worker was not replaced")


async def test_deadline_holds_and_progress_streams() -> None:
    async with running_server(workers=1) as server, raw_client(server.port) as client:
        await start_connect4(client)
        sent = time.monotonic()
        await client.send({"type": "think", "id": 1, "limits": {"movetime_ms": 300}})
        first_info_at = None
        while True:
            message = await client.recv()
            if message["type"] == "info" and first_info_at is None:
                first_info_at = time.monotonic() - sent
            if message["type"] == "bestmove":
                break
        elapsed = time.monotonic() - sent
        assert message["move"] in C4_MOVES
        assert first_info_at is not None and first_info_at < 0.25, "infos are not batched"
        assert 0.2 <= elapsed <= 0.3 + 0.1 * UNIT


async def test_disconnect_cancels_search_and_frees_worker() -> None:
    async with running_server(workers=1) as server:
        async with raw_client(server.port) as quitter:
            await start_connect4(quitter)
            await quitter.send({"type": "think", "id": 1})  # until stopped
            await wait_for_info(quitter, 1, 3)
        # the only worker was busy for good; it must be free again at once
        async with raw_client(server.port) as client:
            await start_connect4(client)
            sent = time.monotonic()
            await client.send({"type": "think", "id": 2, "limits": {"movetime_ms": 400}})
            first = await client.recv()
            assert first["type"] == "info", "the search started on the freed worker"
            assert time.monotonic() - sent < 0.3 * UNIT
            _, best = await client.collect(2)
            assert best["reason"] == "time" and best["depth"] >= 2
        assert server.pool.replaced == 0


async def test_sigkill_of_a_worker_mid_search() -> None:
    async with (
        running_server(workers=2) as server,
        raw_client(server.port) as victim,
        raw_client(server.port, "json") as bystander,
    ):
        await start_connect4(victim)
        await start_connect4(bystander)
        await victim.send({"type": "think", "id": 1})
        last = await wait_for_info(victim, 1, 4)
        busy = set(server.pool.busy_worker_pids())
        assert len(busy) == 1
        await bystander.send({"type": "think", "id": 7, "limits": {"movetime_ms": 600}})
        await wait_until(lambda: len(server.pool.busy_worker_pids()) == 2)
        os.kill(busy.pop(), signal.SIGKILL)
        more, best = await victim.collect(1, timeout=2 * UNIT)
        assert best["reason"] == "worker_lost"
        assert best["move"] == (more or [last])[-1]["pv"][0], "best move so far"
        infos, other = await bystander.collect(7)
        assert other["reason"] == "time" and other["move"] in C4_MOVES and infos
        await wait_for_new_worker(server, set(), 2)
        assert server.pool.replaced == 1
        # the victim's session goes on with a fresh worker
        _, again = await victim.think(2, {"depth": 3})
        assert again["reason"] == "depth"


async def test_frozen_worker_still_answers_on_time_and_is_replaced() -> None:
    async with (
        running_server(workers=1, worker_grace_s=0.3) as server,
        raw_client(server.port) as client,
    ):
        await start_connect4(client)
        sent = time.monotonic()
        await client.send({"type": "think", "id": 1, "limits": {"movetime_ms": 500}})
        await wait_for_info(client, 1, 2)
        (frozen,) = server.pool.worker_pids()
        os.kill(frozen, signal.SIGSTOP)
        try:
            _, best = await client.collect(1, timeout=2 * UNIT)
            assert time.monotonic() - sent <= 0.5 + 0.1 * UNIT
            assert best["move"] in C4_MOVES and best["reason"] == "time"
            await wait_for_new_worker(server, {frozen}, 1)
        finally:
            if os.path.exists(f"/proc/{frozen}"):
                os.kill(frozen, signal.SIGCONT)
        # a stop sent to a frozen worker is answered too
        await client.send({"type": "think", "id": 2})
        await wait_for_info(client, 2, 2)
        (frozen,) = server.pool.worker_pids()
        os.kill(frozen, signal.SIGSTOP)
        try:
            await client.send({"type": "stop"})
            _, best = await client.collect(2, timeout=2 * UNIT)
            assert best["reason"] == "stopped" and best["move"] in C4_MOVES
            await wait_for_new_worker(server, {frozen}, 1)
        finally:
            if os.path.exists(f"/proc/{frozen}"):
                os.kill(frozen, signal.SIGCONT)


async def test_queued_think_keeps_its_deadline() -> None:
    async with (
        running_server(workers=1) as server,
        raw_client(server.port) as first,
        raw_client(server.port) as second,
    ):
        await start_connect4(first)
        await start_connect4(second)
        await first.send({"type": "think", "id": 1, "limits": {"movetime_ms": 700}})
        await wait_for_info(first, 1, 1)
        sent = time.monotonic()
        _, best = await second.think(2, {"movetime_ms": 100})
        assert time.monotonic() - sent <= 0.1 + 0.1 * UNIT
        assert best["move"] in C4_MOVES and best["reason"] == "overloaded", "no worker searched it"
        assert best["depth"] == 0 and best["queued_ms"] >= 80 and best["nodes"] == 0
        # and a queued think that is stopped is answered at once
        await second.send({"type": "think", "id": 3})
        await second.send({"type": "stop", "id": 3})
        _, best = await second.collect(3, timeout=1 * UNIT)
        assert best["reason"] == "stopped" and best["move"] in C4_MOVES and best["depth"] == 0
        _, best = await first.collect(1)
        assert best["reason"] == "time" and best["depth"] >= 3

"""Graceful drain behind a proxy: the agent check's line, /healthz 503, 1001 between thinks."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed

from server.agent import MIN_WEIGHT_PERCENT, Capacity, agent_line
from server.app import ArenaServer
from server.cluster import http_status
from server.connection import DRAIN_QUIET_S
from tests.server.server_harness import UNIT, raw_client, running_server, wait_until


async def read_agent(port: int) -> str:
    """What HAProxy reads: connect, read to end of file."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        data = await asyncio.wait_for(reader.read(), 2 * UNIT)
    finally:
        writer.close()
    return data.decode("ascii")


def test_the_agent_line_reports_free_capacity() -> None:
    idle = Capacity(workers=2, busy=0, queued=0, max_queue=8)
    assert agent_line(idle, draining=False) == "up ready 100%\n"
    half = Capacity(workers=2, busy=2, queued=0, max_queue=8)
    assert agent_line(half, draining=False) == "up ready 67%\n"  # 8 of 12 slots free
    full = Capacity(workers=2, busy=2, queued=8, max_queue=8)
    assert agent_line(full, draining=False) == f"up ready {MIN_WEIGHT_PERCENT}%\n"
    assert agent_line(idle, draining=True) == "drain\n"


async def health(server: ArenaServer) -> int | None:
    return await asyncio.to_thread(http_status, f"http://127.0.0.1:{server.port}/healthz")


async def test_drain_reports_down_and_closes_sessions_only_between_thinks() -> None:
    async with running_server(workers=1, agent_port=0, drain_grace_s=5 * UNIT) as server:
        assert server.agent is not None
        agent_port = server.agent.port
        assert await read_agent(agent_port) == "up ready 100%\n"
        assert await health(server) == 200
        async with raw_client(server.port) as thinking, raw_client(server.port) as idle:
            for client in (thinking, idle):
                await client.request({"type": "new_game", "game": "connect4", "id": 0})
            await thinking.send({"type": "think", "id": 1, "limits": {"movetime_ms": 1500}})
            await wait_until(lambda: server.pool.busy_worker_pids())
            started = time.monotonic()
            drain = asyncio.create_task(server.drain())
            await wait_until(lambda: server.draining)
            assert await read_agent(agent_port) == "drain\n"
            assert await health(server) == 503
            # The idle session goes once the proxy has had time to notice.
            with pytest.raises(ConnectionClosed) as closed:
                await idle.recv(timeout=5 * UNIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
            assert time.monotonic() - started >= server.config.drain_notice_s - 0.05
            # The thinking one gets its full think, then 1001.
            _, best = await thinking.collect(1, timeout=5 * UNIT)
            assert best["reason"] == "time" and best["move"] in "1234567"
            with pytest.raises(ConnectionClosed) as closed:
                await thinking.recv(timeout=5 * UNIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
            await asyncio.wait_for(drain, 5 * UNIT)
            assert time.monotonic() - started < 1.5 + DRAIN_QUIET_S + 2 * UNIT
        # /metrics stays reachable while draining.
        url = f"http://127.0.0.1:{server.port}/metrics"
        text = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=2).read())
        assert b"arena_sessions_open" in text


async def test_drain_is_bounded_by_its_grace_period() -> None:
    grace_s = 0.5 * UNIT
    async with (
        running_server(workers=1, drain_grace_s=grace_s, drain_notice_s=0.1) as server,
        raw_client(server.port) as client,
    ):
        await client.request({"type": "new_game", "game": "connect4", "id": 0})
        await client.send({"type": "think", "id": 1, "limits": {"movetime_ms": 20_000}})
        await wait_until(lambda: server.pool.busy_worker_pids())
        started = time.monotonic()
        await asyncio.wait_for(server.drain(), 5 * UNIT)
        assert time.monotonic() - started < grace_s + 1.0
        # Still thinking: the shutdown (not the drain) stops and answers it.
        assert len(server.connections) == 1

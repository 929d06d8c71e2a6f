"""SIGTERM: running thinks are answered, connections close with 1001, no child process is left."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import urllib.request
from asyncio.subprocess import PIPE
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

import engine
from tests.server.server_harness import POLL_S, UNIT, raw_client

REPO_ROOT = Path(__file__).resolve().parents[2]


def children_of(pid: int) -> set[int]:
    """The children of process ``pid`` (none once it is gone)."""
    children: set[int] = set()
    with contextlib.suppress(FileNotFoundError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text()
            children.update(int(part) for part in text.split())
    return children


async def server_subprocess(*flags: str) -> asyncio.subprocess.Process:
    """``python -m server FLAGS`` from this tree, its stderr piped."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", *flags, cwd=REPO_ROOT, env=env, stderr=PIPE
    )


async def assert_none_left(children: set[int]) -> None:
    """Wait a moment for ``children`` to be gone, then assert that they are.

    multiprocessing's resource tracker (also a child) exits on its own once
    it reads end-of-file from the server: it is given a moment.
    """
    left: list[int] = []
    for _ in range(int(20 * UNIT)):
        left = [pid for pid in children if is_running(pid)]
        if not left:
            return
        await asyncio.sleep(0.1)
    assert not left, f"child processes left behind: {[command_of(pid) for pid in left]}"


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except FileNotFoundError:
        return "?"


async def wait_for_thinks(port: int, count: int) -> None:
    """Wait until the server at ``port`` has read ``count`` thinks (its /metrics says so)."""
    wanted = f'arena_messages_received_total{{type="think"}} {count}'
    deadline = asyncio.get_running_loop().time() + 10 * UNIT
    while True:
        text = await asyncio.to_thread(_metrics, port)
        if wanted in text.splitlines():
            return
        assert asyncio.get_running_loop().time() < deadline, "the thinks were not all read"
        await asyncio.sleep(POLL_S)


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5 * UNIT) as reply:
        text: str = reply.read().decode()
        return text


def is_running(pid: int) -> bool:
    """True unless the process is gone or a zombie awaiting its reaper."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    state = re.search(r"^State:\s+(\w)", status, re.MULTILINE)
    return state is not None and state.group(1) not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
async def test_sigterm_answers_thinks_closes_1001_and_leaves_no_children() -> None:
    process = await server_subprocess("--port", "0", "--workers", "2", "--max-queue", "30")
    assert process.stderr is not None
    try:
        port = None
        while port is None:
            line = await asyncio.wait_for(process.stderr.readline(), 20 * UNIT)
            assert line, "the server exited before listening"
            match = re.search(rb"listening on ws://[\d.]+:(\d+)/ws", line)
            port = int(match.group(1)) if match else None
            if match:
                # The operator is told which engine build searches.
                assert f"engine: {engine.ENGINE_BUILD} (".encode() in line
        workers = children_of(process.pid)
        assert len(workers) >= 2

        async with raw_client(port) as client:
            await client.request({"type": "new_game", "game": "connect4", "id": 0})
            await client.send({"type": "think", "id": 1})
            message = await client.recv()
            assert message["type"] == "info"
            process.send_signal(signal.SIGTERM)
            _, best = await client.collect(1, timeout=3 * UNIT)
            assert best["reason"] == "stopped" and best["move"] in "1234567"
            with pytest.raises(ConnectionClosed) as closed:
                await client.recv(timeout=5 * UNIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001

        assert await asyncio.wait_for(process.wait(), 10 * UNIT) == 0
        await assert_none_left(workers)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
async def test_sigterm_under_load_answers_every_think() -> None:
    """Two dozen sessions thinking (two on workers, the rest queued) when SIGTERM comes."""
    process = await server_subprocess("--port", "0", "--workers", "2", "--max-queue", "30")
    assert process.stderr is not None
    try:
        port = None
        while port is None:
            line = await asyncio.wait_for(process.stderr.readline(), 20 * UNIT)
            assert line, "the server exited before listening"
            match = re.search(rb"listening on ws://[\d.]+:(\d+)/ws", line)
            port = int(match.group(1)) if match else None
        drain = asyncio.create_task(process.stderr.read())  # keep the log pipe flowing
        workers = children_of(process.pid)

        async def session(number: int, started: asyncio.Event, go: asyncio.Event) -> int | None:
            async with raw_client(port, "json" if number % 2 else "msgpack") as client:
                await client.request({"type": "new_game", "game": "connect4", "id": 0})
                limits = {"movetime_ms": 5000} if number % 3 else {}  # some until stopped
                await client.send({"type": "think", "id": number, "limits": limits})
                started.set()
                await go.wait()
                _, best = await client.collect(number, timeout=5 * UNIT)
                assert best["move"] in "1234567" and best["reason"] in ("stopped", "time")
                with pytest.raises(ConnectionClosed) as closed:
                    await client.recv(timeout=5 * UNIT)
                return closed.value.rcvd.code if closed.value.rcvd is not None else None

        go = asyncio.Event()
        started = [asyncio.Event() for _ in range(24)]
        tasks = [asyncio.create_task(session(n, started[n], go)) for n in range(24)]
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in started)), 10 * UNIT)
        await wait_for_thinks(port, 24)  # the server has read every think
        process.send_signal(signal.SIGTERM)
        go.set()
        codes = await asyncio.wait_for(asyncio.gather(*tasks), 15 * UNIT)
        assert codes == [1001] * 24
        assert await asyncio.wait_for(process.wait(), 10 * UNIT) == 0
        await drain
        await assert_none_left(workers)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
async def test_sigterm_while_the_workers_start_stops_the_server() -> None:
    """A review of 2026-12-07: SIGTERM was ignored until every worker was up
    (``timeout 8 arena serve --workers 1000`` ran on for minutes). Here the
    workers wait up to 60 s for a program that never finishes its handshake."""
    mute = (
        f"chess:mute=uci:{sys.executable} {REPO_ROOT}/tests/server/fake_uci_engine.py nohandshake"
    )
    flags = ("--port", "0", "--workers", "1", "--external", mute, "--program-wait", "60")
    process = await server_subprocess(*flags)
    assert process.stderr is not None
    try:
        # The worker is up and waiting for its program: the server is starting.
        deadline = asyncio.get_running_loop().time() + 20 * UNIT
        while not any(
            "fake_uci_engine" in command_of(grandchild)
            for child in children_of(process.pid)
            if is_running(child)
            for grandchild in children_of(child)
        ):
            assert asyncio.get_running_loop().time() < deadline, "the program never started"
            await asyncio.sleep(POLL_S)
        workers = children_of(process.pid)
        process.send_signal(signal.SIGTERM)
        # At once, not once the program's handshake gives up (10 s; 60 s asked).
        assert await asyncio.wait_for(process.wait(), 5 * UNIT) == 0
        stderr = (await process.stderr.read()).decode()
        assert "stopped while starting" in stderr and "listening" not in stderr
        await assert_none_left(workers)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

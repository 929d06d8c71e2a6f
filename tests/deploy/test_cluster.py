"""Three ``arena serve`` instances behind Debian's HAProxy (deploy/, server/cluster.py).

Each test starts its own cluster on free loopback ports and stops it. The
cluster's methods block, so they run in a thread (``asyncio.to_thread``);
the clients run on the test's event loop. Instances are told apart by
their own ``/metrics`` (``arena_sessions_open``), read directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.cluster import Backend, ClusterOptions, LocalCluster, haproxy_config, http_text
from tests.server.server_harness import POLL_S, UNIT, RawClient, raw_client
from tests.server.test_shutdown import children_of, is_running

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None,
    reason="needs Debian's haproxy (apt-get install haproxy; .ci/run installs it)",
)

#: A short grace keeps the rolling restart quick; thinks here last 50 ms.
DRAIN_GRACE_S = 3.0 * UNIT
MOVETIME_MS = 50
#: How long a new session through the proxy may take to open right after an
#: instance died: HAProxy retries a refused connection on another instance
#: (``retries``, ``option redispatch``), at worst after its 1 s turn-around.
NEW_SESSION_BOUND_S = 2.0 * UNIT


#: The lowest port a test cluster listens on: above the well-known and
#: registered services a machine may run.
LOWEST_TEST_PORT = 20_000
#: Linux's default ephemeral range, where /proc does not say.
EPHEMERAL_DEFAULT = (32_768, 60_999)


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range of ports it gives client sockets (ip_local_port_range)."""
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        low, high = (int(part) for part in text.split())
    except (OSError, ValueError):
        return EPHEMERAL_DEFAULT
    return low, high


def bindable(port: int) -> bool:
    """Whether a listener could bind ``port`` on loopback now (no socket holds it)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int) -> list[int]:
    """``count`` consecutive loopback ports free now, below the ephemeral range.

    Below it, because a port the kernel may hand to a client socket as its
    local port can be taken between this check and the server's bind: a
    CI run lost a cluster instance's port so ("address already in use"),
    when the ports were the kernel's picks and their neighbours.
    """
    low, _ = ephemeral_ports()
    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(LOWEST_TEST_PORT, max(LOWEST_TEST_PORT + 1, low - count))
        block = list(range(first, first + count))
        if all(bindable(port) for port in block):
            return block
    pytest.skip(f"no {count} consecutive free ports between {LOWEST_TEST_PORT} and {low}")


@pytest.fixture
async def cluster() -> AsyncIterator[LocalCluster]:
    ports = free_ports(8)
    options = ClusterOptions(
        instances=3,
        proxy_port=ports[0],
        stats_port=ports[1],
        server_ports=tuple(ports[2:5]),
        agent_ports=tuple(ports[5:8]),
        workers=1,
        drain_grace_s=DRAIN_GRACE_S,
        serve_args=("--max-queue", "16", "--log-level", "info"),
    )
    running = LocalCluster(options)
    try:
        await asyncio.wait_for(asyncio.to_thread(running.start), 40 * UNIT)
        yield running
    finally:
        await asyncio.to_thread(running.stop)


async def sessions_open(cluster: LocalCluster) -> list[int | None]:
    """Each instance's ``arena_sessions_open``, read from its own /metrics (None: down)."""

    def read(url: str) -> int | None:
        text = http_text(url + "/metrics")
        if text is None:
            return None
        match = re.search(r"^arena_sessions_open (\d+)", text, re.MULTILINE)
        return int(match.group(1)) if match else None

    return list(await asyncio.gather(*(asyncio.to_thread(read, i.http) for i in cluster.instances)))


async def open_session(stack: AsyncExitStack, port: int) -> RawClient:
    """A session through the proxy with a game started, closed with ``stack``."""
    client = await stack.enter_async_context(raw_client(port))
    reply = await client.request({"type": "new_game", "game": "connect4", "id": 0})
    assert reply["type"] == "state", reply
    return client


async def think_once(
    client: RawClient, think_id: int, limits: dict[str, int] | None = None
) -> dict[str, object]:
    limits = {"movetime_ms": MOVETIME_MS} if limits is None else limits
    _, best = await client.think(think_id, limits, timeout=10 * UNIT)
    return best


async def test_sessions_spread_over_the_instances(cluster: LocalCluster) -> None:
    async with AsyncExitStack() as stack:
        for number in range(9):
            client = await open_session(stack, cluster.options.proxy_port)
            best = await think_once(client, number)
            assert best["move"] in "1234567"
        counts = await sessions_open(cluster)
        # leastconn with equal weights: three each, give or take an agent update.
        assert sum(c or 0 for c in counts) == 9, counts
        assert all(c is not None and c >= 2 for c in counts), counts


async def test_a_busy_instance_weighs_less_in_the_proxy(cluster: LocalCluster) -> None:
    """The agent's ``N%`` reaches HAProxy: a think on instance 1 lowers its weight."""
    assert set(await asyncio.to_thread(cluster.server_weights)) == {"arena1", "arena2", "arena3"}
    async with raw_client(cluster.instances[0].backend.port) as client:
        await client.request({"type": "new_game", "game": "connect4", "id": 0})
        await client.send({"type": "think", "id": 1, "limits": {"movetime_ms": 20_000}})
        weights: dict[str, int] = {}
        for _ in range(int(50 * UNIT)):  # the agent is asked every 500 ms
            weights = await asyncio.to_thread(cluster.server_weights)
            if weights.get("arena1", 100) < 100:
                break
            await asyncio.sleep(0.1)
        # One worker of one busy: 2 x 0 + 16 free queue slots of 2 x 1 + 16.
        assert weights["arena1"] == round(100 * 16 / 18), weights
        assert weights["arena2"] == weights["arena3"] == 100, weights
        await client.send({"type": "stop"})
        await client.collect(1)


async def locate_sessions(
    stack: AsyncExitStack, cluster: LocalCluster, count: int
) -> list[tuple[RawClient, int]]:
    """Open ``count`` sessions through the proxy, each with the instance it landed on."""
    located: list[tuple[RawClient, int]] = []
    before = await sessions_open(cluster)
    for _ in range(count):
        client = await open_session(stack, cluster.options.proxy_port)
        after = await sessions_open(cluster)
        changed = [i for i, (a, b) in enumerate(zip(after, before, strict=True)) if a != b]
        assert len(changed) == 1, (before, after)
        located.append((client, changed[0]))
        before = after
    return located


async def test_a_killed_instance_loses_only_its_own_sessions(cluster: LocalCluster) -> None:
    async with AsyncExitStack() as stack:
        # A session on the killed instance cannot close cleanly: that is fine.
        stack.push_async_exit(_ignore_closed)
        located = await locate_sessions(stack, cluster, 6)
        assert {where for _, where in located} == {0, 1, 2}, located
        killed = cluster.instances[0].process
        assert killed is not None
        workers = children_of(killed.pid)
        assert workers
        await asyncio.to_thread(cluster.kill_instance, 0)
        for number, (client, where) in enumerate(located):
            if where == 0:
                with pytest.raises(ConnectionClosed):
                    await think_once(client, 100 + number)
            else:
                # A depth, not a time: the search ran, however loaded the machine
                # (a 50 ms think beside a CPU hog answered at depth 0).
                best = await think_once(client, 100 + number, {"depth": 3})
                assert best["move"] in "1234567" and best["depth"] == 3, best
        # New connections go to the others at once: HAProxy retries a refused
        # connection on another instance before its health check notices.
        for number in range(6):
            started = time.monotonic()
            client = await open_session(stack, cluster.options.proxy_port)
            opened_s = time.monotonic() - started
            assert opened_s < NEW_SESSION_BOUND_S, opened_s
            best = await think_once(client, 200 + number)
            assert best["move"] in "1234567", best
        counts = await sessions_open(cluster)
        assert counts[0] is None, counts
        # The dead instance's search processes see their pipe close and exit.
        for _ in range(int(50 * UNIT)):
            left = [pid for pid in workers if is_running(pid)]
            if not left:
                break
            await asyncio.sleep(0.1)
        assert not left, left
        survivors = sum(1 for _, where in located if where != 0)
        assert (counts[1] or 0) + (counts[2] or 0) == survivors + 6, counts


async def _ignore_closed(
    exc_type: type[BaseException] | None, exc: BaseException | None, traceback: object
) -> bool:
    return isinstance(exc, ConnectionClosed | OSError)


@dataclass
class LoopStats:
    """What one looping client saw."""

    bestmoves: int = 0
    #: Thinks sent whose connection closed before their bestmove.
    lost: int = 0
    sessions: int = 0
    close_codes: list[int | None] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


async def think_loop(port: int, stop: asyncio.Event, stats: LoopStats, seed: int) -> None:
    """new_game, then think / move with a short pause (a player's reply), reconnecting."""
    rng = random.Random(seed)
    think_id = 0
    while not stop.is_set():
        stats.sessions += 1
        pending = False
        try:
            async with raw_client(port, "json" if seed % 2 else "msgpack") as client:
                await client.request({"type": "new_game", "game": "connect4", "id": "g"})
                while not stop.is_set():
                    think_id += 1
                    await client.send(
                        {"type": "think", "id": think_id, "limits": {"movetime_ms": MOVETIME_MS}}
                    )
                    pending = True  # sent (a send on a closed connection raises)
                    _, best = await client.collect(think_id, timeout=10 * UNIT)
                    pending = False
                    stats.bestmoves += 1
                    stats.reasons.append(str(best["reason"]))
                    assert best["move"], best
                    state = await client.request({"type": "move", "move": best["move"], "id": "m"})
                    assert state["type"] == "state", state
                    if state["result"] is not None:
                        await client.request({"type": "new_game", "game": "connect4", "id": "g"})
                    await asyncio.sleep(rng.uniform(0.3, 0.5))
        except ConnectionClosed as closed:
            stats.close_codes.append(closed.rcvd.code if closed.rcvd is not None else None)
            stats.lost += int(pending)
        except OSError:
            stats.close_codes.append(None)  # refused by the proxy: counted as a failure
            await asyncio.sleep(0.1)


async def test_rolling_restart_under_load_loses_no_answer(cluster: LocalCluster) -> None:
    stop = asyncio.Event()
    stats = [LoopStats() for _ in range(6)]
    loops = [
        asyncio.create_task(think_loop(cluster.options.proxy_port, stop, stats[n], n))
        for n in range(6)
    ]
    try:
        await asyncio.sleep(1.0 * UNIT)
        for index, instance in enumerate(cluster.instances):
            status = await asyncio.wait_for(
                asyncio.to_thread(cluster.terminate_instance, index), 20 * UNIT
            )
            assert status == 0, cluster.logs()
            await asyncio.to_thread(cluster.start_instance, index)
            await asyncio.to_thread(cluster.wait_proxy_sees, {instance.backend.name: "UP"})
            answered = sum(s.bestmoves for s in stats)
            await asyncio.sleep(0.5 * UNIT)
            assert sum(s.bestmoves for s in stats) > answered, "the load stalled"
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*loops, return_exceptions=True), 15 * UNIT)
    for task in loops:
        assert task.exception() is None, task.exception()
    codes = [code for s in stats for code in s.close_codes]
    # Every session closed by a restart was closed with 1001 (the drain), none refused.
    assert codes and set(codes) == {1001}, codes
    # A think lost to a close can only be one the server received after it
    # began closing that session (it logs each); any other loss is a failure.
    crossed = cluster.logs().count("frame after the close began")
    lost = sum(s.lost for s in stats)
    assert lost <= crossed, (lost, crossed, cluster.logs()[-3000:])
    assert sum(s.bestmoves for s in stats) >= 30
    # The drains let every think run its course: none was cut short by a stop.
    assert "stopped" not in {reason for s in stats for reason in s.reasons}
    # Each instance's /metrics is reachable directly after its restart.
    for instance in cluster.instances:
        text = await asyncio.to_thread(http_text, instance.http + "/metrics")
        assert text is not None and "arena_sessions_open" in text


def test_the_shipped_haproxy_cfg_is_valid() -> None:
    """deploy/haproxy.cfg, as an operator copies it, passes ``haproxy -c``."""
    config = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"
    checked = subprocess.run(
        ["haproxy", "-c", "-f", str(config)], capture_output=True, text=True, timeout=10
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_local_cluster_script_prints_the_url_and_stops_everything_on_ctrl_c() -> None:
    ports = free_ports(8)
    script = Path(__file__).resolve().parents[2] / "deploy" / "local-cluster.sh"
    command = [str(script), "--proxy-port", str(ports[0]), "--stats-port", str(ports[1])]
    # The script counts up from the first port of each kind: 2-4 and 5-7.
    command += ["--first-server-port", str(ports[2]), "--first-agent-port", str(ports[5])]
    env = {**os.environ, "PYTHON": sys.executable}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 40 * UNIT)
        assert ready, "the script printed nothing"
        first = process.stdout.readline()
        assert first == f"cluster of 3 on ws://127.0.0.1:{ports[0]}/ws\n"
        children = [
            int(pid)
            for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        ]
        assert len(children) == 4  # three instances and HAProxy
        process.send_signal(signal.SIGINT)
        assert process.wait(30 * UNIT) == 0
        for pid in children:
            assert (
                not Path(f"/proc/{pid}").exists()
                or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
            ), pid
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_local_cluster_script_refuses_ports_in_use() -> None:
    """A review of 2026-12-07: a second cluster started on a running one's ports
    said "cluster of 2 on ..." while its instance could not listen, and two
    HAProxies shared the proxy port, splitting the clients between them."""
    ports = free_ports(8)
    script = Path(__file__).resolve().parents[2] / "deploy" / "local-cluster.sh"
    command = [str(script), "--proxy-port", str(ports[0]), "--stats-port", str(ports[1])]
    command += ["--first-server-port", str(ports[2]), "--first-agent-port", str(ports[5])]
    env = {**os.environ, "PYTHON": sys.executable}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", ports[3]))  # the second instance's port
        taken.listen()
        result = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=40 * UNIT, check=False
        )
    assert result.returncode == 1 and result.stdout == ""
    assert f"127.0.0.1:{ports[3]} (--first-server-port) is already in use" in result.stderr


class ResettingBackend:
    """An instance that passes HAProxy's checks and resets every session it is
    sent without an answer, as an instance killed between accepting a
    connection and answering it does (HAProxy logs ``SH--``)."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.agent = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.agent_port = self.agent.getsockname()[1]
        for target in (self._serve, self._answer_agent):
            threading.Thread(target=target, daemon=True).start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = self.server.accept()
                with connection:
                    if b"/healthz" in connection.recv(4096):
                        connection.sendall(
                            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                        )
                    else:  # a reset: SO_LINGER on, 0 s
                        linger = struct.pack("ii", 1, 0)
                        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)

    def _answer_agent(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = self.agent.accept()
                with connection:
                    connection.sendall(b"up ready 100%\n")

    def close(self) -> None:
        self.server.close()
        self.agent.close()


@pytest.mark.asyncio
async def test_a_session_reset_by_a_dying_instance_is_retried_on_another(tmp_path: Path) -> None:
    """A review of 2026-12-07: right after a SIGKILL, a client's new session got
    HTTP 502 from HAProxy (``SH--``: the dying instance had accepted the
    connection). Here one of two instances resets every session: with
    ``retry-on conn-failure empty-response`` each opens on the other."""
    dying = ResettingBackend()
    ports = free_ports(3)
    options = ClusterOptions(
        instances=1, proxy_port=ports[0], stats_port=ports[1], first_server_port=ports[2]
    )
    with LocalCluster(options) as cluster:
        live = cluster.instances[0].backend
        config = tmp_path / "retry.cfg"
        config.write_text(
            haproxy_config(
                [live, Backend("dying", "127.0.0.1", dying.port, dying.agent_port)],
                bind=f"127.0.0.1:{free_ports(1)[0]}",
                stats_bind=None,
            )
        )
        bind = re.search(r"bind (\S+)", config.read_text())
        assert bind is not None
        proxy = subprocess.Popen(
            [shutil.which("haproxy") or "haproxy", "-db", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"ws://{bind.group(1)}/ws"
            opened = 0
            deadline = time.monotonic() + 20 * UNIT
            while opened < 20:  # leastconn sends about half of them to the dying one
                assert time.monotonic() < deadline, f"{opened} sessions opened"
                try:
                    async with websockets.connect(url, open_timeout=5 * UNIT):
                        opened += 1
                except InvalidStatus as refused:
                    status = refused.response.status_code
                    assert status != 502, f"502 after {opened} sessions"
                    await asyncio.sleep(POLL_S)  # 503: the proxy's first checks still due
                except OSError:
                    await asyncio.sleep(POLL_S)  # the proxy still starting
        finally:
            proxy.terminate()
            proxy.wait()
            dying.close()

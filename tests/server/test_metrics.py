"""Metrics: the Prometheus text format, and /metrics and /healthz on a live server."""

from __future__ import annotations

import asyncio
import json
import math
import re
import urllib.error
import urllib.request

from server.metrics import Counter, Histogram, LoopLagMonitor, ServerMetrics
from tests.server.server_harness import UNIT, raw_client, running_server, wait_until


def http_get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5 * UNIT) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def sample(text: str, name: str) -> float:
    """The value of the sample line ``name`` (with its labels, if any) in an exposition."""
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match is not None, f"{name} not in:\n{text}"
    return float(match.group(1))


def test_counter_and_histogram_render_in_text_format() -> None:
    counter = Counter("things_total", "Things.", "kind")
    counter.inc("a")
    counter.inc("b", 2)
    counter.inc("a")
    assert counter.render() == [
        "# HELP things_total Things.",
        "# TYPE things_total counter",
        'things_total{kind="a"} 2',
        'things_total{kind="b"} 2',
    ]
    histogram = Histogram("lag_seconds", "Lag.", (0.01, 0.1))
    for value in (0.005, 0.05, 0.05, 3.0):
        histogram.observe(value)
    assert histogram.render()[2:] == [
        'lag_seconds_bucket{le="0.01"} 1',
        'lag_seconds_bucket{le="0.1"} 3',
        'lag_seconds_bucket{le="+Inf"} 4',
        "lag_seconds_sum 3.105",
        "lag_seconds_count 4",
    ]
    assert histogram.quantile_bound(0.5) == 0.1
    assert histogram.quantile_bound(0.99) == math.inf
    assert math.isnan(Histogram("x", "x", (1.0,)).quantile_bound(0.5))


def test_label_values_are_escaped() -> None:
    counter = Counter("odd_total", "Odd.", "value")
    counter.inc('a"b\\c\nd')
    assert counter.render()[-1] == 'odd_total{value="a\\"b\\\\c\\nd"} 1'


async def test_loop_lag_monitor_observes_and_stops() -> None:
    metrics = ServerMetrics(lambda: 0, lambda: 0, lambda: 0, lambda: 0)
    monitor = LoopLagMonitor(metrics.loop_lag, interval_s=0.01)
    monitor.start()
    await asyncio.sleep(0.05)
    __import__("time").sleep(0.05)  # block the loop on purpose: a lag of about 50 ms
    await asyncio.sleep(0.03)
    await monitor.stop()
    assert metrics.loop_lag.count >= 2
    assert metrics.loop_lag.max >= 0.03


async def test_metrics_and_healthz_endpoints() -> None:
    async with running_server(workers=1) as server:
        async with raw_client(server.port, "json") as client:
            await client.request({"type": "hello", "id": 1})
            await client.request({"type": "new_game", "game": "nim", "id": 2})
            error = await client.request({"type": "move", "move": "9:9", "id": 3})
            assert error["code"] == "illegal_move"
            await client.think(4, {"movetime_ms": 50})
            await wait_until(lambda: server.metrics.loop_lag.count >= 1)  # it wakes every 50 ms
            status, content_type, text = await asyncio.to_thread(http_get, server.port, "/metrics")
        assert status == 200 and content_type.startswith("text/plain; version=0.0.4")
        assert sample(text, "arena_sessions_open") == 1
        assert sample(text, 'arena_messages_received_total{type="hello"}') == 1
        assert sample(text, 'arena_messages_received_total{type="think"}') == 1
        assert sample(text, 'arena_messages_sent_total{type="welcome"}') == 1
        assert sample(text, 'arena_errors_total{code="illegal_move"}') == 1
        assert sample(text, "arena_bestmove_lateness_seconds_count") == 1
        assert sample(text, 'arena_bestmove_lateness_seconds_bucket{le="0"}') == 1, "on time"
        assert sample(text, "arena_thinks_running") == 0
        assert sample(text, "arena_thinks_queued") == 0
        assert sample(text, "arena_worker_restarts_total") == 0
        assert sample(text, "arena_event_loop_lag_seconds_count") >= 1
        for line in text.splitlines():
            assert line.startswith("#") or re.fullmatch(r"[a-z_]+(\{.*\})? -?[0-9.e+Inf-]+", line)

        status, content_type, body = await asyncio.to_thread(http_get, server.port, "/healthz")
        assert status == 200 and content_type == "application/json"
        assert json.loads(body) == {"status": "ok", "workers": 1, "sessions": 0}


async def test_metrics_need_the_token_when_one_is_set() -> None:
    async with running_server(workers=1, token="s3cret") as server:
        status, _, _ = await asyncio.to_thread(http_get, server.port, "/metrics")
        assert status == 401
        status, _, text = await asyncio.to_thread(
            http_get, server.port, "/metrics", {"Authorization": "Bearer s3cret"}
        )
        assert status == 200 and "arena_sessions_open 0" in text
        status, _, _ = await asyncio.to_thread(http_get, server.port, "/healthz")
        assert status == 200, "health checks stay open"

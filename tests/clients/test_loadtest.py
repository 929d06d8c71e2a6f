"""The load tester: bounded runs against a real server, its report, its safety checks."""

from __future__ import annotations

import json

import pytest

from clients.cli import main
from clients.loadtest import (
    LoadConfig,
    LoadRun,
    LoadSession,
    format_report,
    histogram_quantile_bound,
    load_scenario,
    parse_metrics,
    percentiles,
    require_loopback,
)


def test_percentiles_nearest_rank() -> None:
    summary = percentiles([float(value) for value in range(1, 101)])
    assert summary == {"count": 100, "p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0,
                       "mean": 50.5}
    assert percentiles([]) == {"count": 0}


def test_only_loopback_targets() -> None:
    for url in ("ws://127.0.0.1:1/ws", "ws://[::1]:1/ws", "ws://localhost:1/ws"):
        require_loopback(url)
    for url in ("ws://10.0.0.1/ws", "ws://example.org/ws", "http://127.0.0.1/ws"):
        with pytest.raises(ValueError):
            require_loopback(url)
    with pytest.raises(ValueError):
        LoadConfig("ws://127.0.0.1:1/ws", connections=10**6).check()


def test_histogram_deltas_between_scrapes() -> None:
    name = "lag_seconds"
    before = parse_metrics(f'{name}_bucket{{le="0.01"}} 5\n{name}_bucket{{le="+Inf"}} 5\n')
    after = parse_metrics(f'{name}_bucket{{le="0.01"}} 104\n{name}_bucket{{le="+Inf"}} 105\n')
    assert histogram_quantile_bound(before, after, name, 0.99) == 0.01
    assert histogram_quantile_bound(before, after, name, 1.0) == float("inf")


def test_scenarios_by_name_or_path() -> None:
    assert load_scenario("mixed").__name__ == "mixed"
    assert load_scenario("tests.clients.test_loadtest:two_thinks") is two_thinks
    with pytest.raises(ValueError):
        load_scenario("nonsense")


async def two_thinks(session: LoadSession) -> None:
    """A user-written scenario: think twice, stop the second think early."""
    await session.new_game("tictactoe")
    best = await session.think(60)
    assert best is not None and best["move"] in session.legal_moves
    await session.think(None, stop_after_ms=30)


@pytest.mark.asyncio(loop_scope="module")
async def test_mixed_run_reports_everything_and_loses_nothing(url: str) -> None:
    config = LoadConfig(url, connections=6, ramp_s=0.3, duration_s=2.5, scenario="mixed")
    report = await LoadRun(config).run()
    thinks = report["thinks"]
    assert thinks["answered"] > 5 and thinks["lost"] == 0
    assert thinks["sent"] == thinks["answered"] + thinks["aborted_on_purpose"]
    latency = report["latency_ms"]
    for name in ("connect", "move_rtt", "new_game_rtt", "think_rtt", "bestmove_lateness"):
        assert latency[name]["count"] > 0, name
        assert latency[name]["p50"] <= latency[name]["p99"] <= latency[name]["max"]
    assert report["errors"] == {}
    assert report["server"]["event_loop_lag"]["count"] > 0
    assert "thinks answered" in format_report(report)
    json.dumps(report)  # the report is plain JSON


@pytest.mark.asyncio(loop_scope="module")
async def test_custom_scenario_and_count_bound(url: str) -> None:
    config = LoadConfig(url, connections=2, ramp_s=0, duration_s=20, iterations=3)
    report = await LoadRun(config, two_thinks).run()
    assert report["elapsed_s"] < 10, "the count bound ends the run"
    assert 3 <= report["iterations"] <= 4
    assert report["latency_ms"]["stop_to_bestmove"]["count"] >= 1
    assert report["thinks"]["lost"] == 0


def test_cli_refuses_remote_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadtest", "--url", "ws://192.0.2.1/ws"]) == 2
    assert "loopback" in capsys.readouterr().err

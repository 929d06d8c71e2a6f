"""The load tester: bounded runs against a real server, its report, its safety checks."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import pytest

from clients.cli import main
from clients.loadtest import (
    LoadConfig,
    LoadRun,
    LoadSession,
    configure,
    exit_status,
    format_report,
    histogram_quantile_bound,
    histogram_share_at_most,
    load_scenario,
    parse_metrics,
    parse_share,
    percentiles,
    readings_differ,
    require_loopback,
    run,
    run_checks,
    server_view,
)
from tests.clients.fake_server import FakeServer, Reply, good_bestmove, good_state


def test_percentiles_nearest_rank() -> None:
    summary = percentiles([float(value) for value in range(1, 101)])
    assert summary == {
        "count": 100,
        "min": 1.0,
        "avg": 50.5,
        "med": 50.0,
        "p50": 50.0,
        "p90": 90.0,
        "p95": 95.0,
        "p99": 99.0,
        "max": 100.0,
        "mean": 50.5,
    }
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


def test_readings_of_a_restarted_server_or_of_two_instances_are_left_out() -> None:
    """A review of 2026-12-07: a server killed and started again during the run
    (or two instances behind HAProxy answering the two readings) gave
    "-675 timed bestmoves" and "p99 <= None ms"."""
    first = (
        "arena_start_time_seconds 1000\n"
        'arena_bestmoves_total{reason="time"} 700\n'
        "arena_bestmove_lateness_seconds_count 700\n"
    )
    later_same = first.replace(" 700", " 900")
    restarted = later_same.replace("1000\n", "2000\n").replace(" 900", " 25")
    went_back = later_same.replace(" 900", " 25")
    before = parse_metrics(first)
    assert readings_differ(before, parse_metrics(later_same)) is None
    assert "restarted" in str(readings_differ(before, parse_metrics(restarted)))
    assert "proxy" in str(readings_differ(before, parse_metrics(restarted)))
    assert "went back" in str(readings_differ(before, parse_metrics(went_back)))
    report = synthetic_report() | {"server_note": "unavailable: the server restarted"}
    assert "server figures unavailable: the server restarted" in format_report(report)


def test_a_connection_that_breaks_is_lost_not_closed_by_the_server() -> None:
    broken = synthetic_report() | {"connections": {"connection_lost": 2}}
    config = LoadConfig("ws://127.0.0.1:1/ws", thresholds=())
    assert verdicts(broken, config)["no failed connections"] is False


def test_scenarios_by_name_or_path() -> None:
    assert load_scenario("mixed").__name__ == "mixed"
    assert load_scenario("tests.clients.test_loadtest:two_thinks") is two_thinks
    with pytest.raises(ValueError):
        load_scenario("nonsense")


async def two_thinks(session: LoadSession) -> None:
    """A user-written scenario: think twice, stop the second think early.

    The stopped think is an analysis of Connect Four from the start with no
    limit at all, which cannot end by itself within seconds, so the stop is
    certain to find it running (a tic-tac-toe search could finish first).
    """
    await session.new_game("tictactoe")
    best = await session.think(60)
    assert best is not None and best.move in session.legal_moves
    await session.new_game("connect4")
    stopped = await session.think(None, stop_after_ms=30)
    assert stopped is not None and stopped.reason in ("stopped", "overloaded", "preempted")


@pytest.mark.asyncio(loop_scope="module")
async def test_mixed_run_reports_everything_and_loses_nothing(url: str) -> None:
    # no share thresholds: this run is about losing nothing, not about the server's capacity
    config = LoadConfig(
        url, connections=6, ramp_s=0.3, duration_s=2.5, scenario="mixed", thresholds=()
    )
    report = await LoadRun(config).run()
    thinks = report["thinks"]
    assert thinks["answered"] > 5 and thinks["lost"] == 0
    assert thinks["sent"] == (
        thinks["answered"] + thinks["aborted_on_purpose"] + thinks["refused"] + thinks["rejected"]
    )
    assert sum(thinks["depths"].values()) == thinks["answered"] == sum(thinks["reasons"].values())
    assert report["passed"] and exit_status(report) == 0, format_report(report)
    latency = report["latency_ms"]
    for name in ("connect", "move_rtt", "new_game_rtt", "think_rtt", "bestmove_lateness"):
        assert latency[name]["count"] > 0, name
        assert latency[name]["p50"] <= latency[name]["p99"] <= latency[name]["max"]
    assert report["errors"] == {}
    assert report.get("server_note") is None, report.get("server_note")
    assert report["server"]["event_loop_lag"]["count"] > 0
    assert "thinks answered" in format_report(report)
    json.dumps(report)  # the report is plain JSON


@pytest.mark.asyncio(loop_scope="module")
async def test_custom_scenario_and_count_bound(url: str) -> None:
    config = LoadConfig(url, connections=2, ramp_s=0, duration_s=20, iterations=3)
    report = await LoadRun(config, two_thinks).run()
    assert report["elapsed_s"] < config.duration_s, "the count bound ends the run"
    assert 3 <= report["iterations"] <= 4
    assert report["latency_ms"]["stop_to_bestmove"]["count"] >= 1
    assert report["thinks"]["lost"] == 0


def test_cli_refuses_remote_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadtest", "--url", "ws://192.0.2.1/ws"]) == 2
    assert "loopback" in capsys.readouterr().err


# ----------------------------------------------------------------------
# Degraded answers, refusals and the run's checks.


def test_shares_are_written_as_percent_or_fraction() -> None:
    assert parse_share("5%") == pytest.approx(0.05) and parse_share("0.05") == 0.05
    assert parse_share(" 100% ") == 1.0 and parse_share("0") == 0.0
    for bad in ("5", "-1%", "abc", "nan", "inf%", "101%"):
        with pytest.raises(ValueError):
            parse_share(bad)
    with pytest.raises(ValueError):
        LoadConfig("ws://127.0.0.1:1/ws", max_overloaded=1.5).check()


def test_threshold_options() -> None:
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(
        ["--max-overloaded", "5%", "--max-refused", "0.2", "--max-late-p99-ms", "50"]
    )
    assert (args.max_overloaded, args.max_refused, args.max_late_p99_ms) == (
        pytest.approx(0.05),
        0.2,
        50.0,
    )
    assert parser.parse_args([]).max_overloaded is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--max-overloaded", "5"])


def synthetic_report(**thinks: Any) -> dict[str, Any]:
    """A report as LoadRun builds it, with made-up figures."""
    base = {
        "sent": 100,
        "answered": 90,
        "lost": 0,
        "refused": 10,
        "rejected": 0,
        "aborted_on_purpose": 0,
        "malformed": 0,
        "per_s": 9.0,
        "reasons": {"overloaded": 9, "time": 81},
        "overloaded": 9,
        "overloaded_share": 0.1,
        "refused_share": 0.1,
        "depths": {"0": 9, "4": 30, "5": 51},
        "depth0_reasons": {"overloaded": 9},
        "retry_waits": 10,
        "refusals_without_retry_hint": 0,
    }
    return {
        "config": {"connections": 4, "scenario": "think"},
        "elapsed_s": 10.0,
        "iterations": 8,
        "thinks": base | thinks,
        "groups": {},
        "lost_replies": 0,
        "errors": {},
        "connections": {"clients_cancelled_at_wind_down": 0},
        "messages": {"sent": 1, "received": 1},
        "latency_ms": {
            "bestmove_lateness": percentiles([-5.0] * 95 + [30.0] * 5),
            "think_queued": percentiles([0.0] * 50 + [80.0] * 50),
        },
    }


def verdicts(report: dict[str, Any], config: LoadConfig) -> dict[str, bool]:
    return {check["check"]: check["ok"] for check in run_checks(report, config)}


def test_checks_without_thresholds_fail_on_lost_answers_and_failed_connections() -> None:
    config = LoadConfig("ws://127.0.0.1:1/ws", thresholds=())
    assert all(verdicts(synthetic_report(), config).values())
    assert verdicts(synthetic_report(lost=1), config)["no lost answers"] is False
    lost_reply = synthetic_report() | {"lost_replies": 2}
    assert verdicts(lost_reply, config)["no lost answers"] is False
    refused = synthetic_report() | {
        "connections": {"connect_failed_503": 3, "clients_cancelled_at_wind_down": 1}
    }
    checks = run_checks(refused, config)
    assert [check["detail"] for check in checks if not check["ok"]] == [
        "failed: connect_failed_503 x3"
    ]
    closed = synthetic_report() | {"connections": {"closed_by_server_1008": 1}}
    assert verdicts(closed, config)["no failed connections"] is False
    assert verdicts(synthetic_report(malformed=1), config)["no malformed answers"] is False


def test_threshold_checks() -> None:
    report = synthetic_report()
    strict = LoadConfig(
        "ws://127.0.0.1:1/ws", max_overloaded=0.05, max_refused=0.05, max_late_p99_ms=20
    )
    assert verdicts(report, strict) == {
        "no lost answers": True,
        "no failed connections": True,
        "no malformed answers": True,
        "overloaded answers": False,
        "refused thinks": False,
        "bestmove lateness p99": False,
    }
    loose = LoadConfig(
        "ws://127.0.0.1:1/ws", max_overloaded=0.1, max_refused=0.1, max_late_p99_ms=30
    )
    assert all(verdicts(report, loose).values()), "the limits themselves are allowed"
    details = {check["check"]: check["detail"] for check in run_checks(report, strict)}
    assert (
        details["overloaded answers"]
        == "10.00% of 90 answered thinks were answered overloaded (limit 5.00%)"
    )
    assert "p99 30.0 ms" in details["bestmove lateness p99"]
    # a lateness limit with nothing to measure is not a pass
    untimed = synthetic_report() | {"latency_ms": {}}
    assert verdicts(untimed, loose)["bestmove lateness p99"] is False


def test_the_report_in_plain_words() -> None:
    report = synthetic_report()
    config = LoadConfig("ws://127.0.0.1:1/ws", max_overloaded=0.05)
    report["checks"] = run_checks(report, config)
    report["passed"] = all(check["ok"] for check in report["checks"])
    text = format_report(report)
    assert "10.00% answered overloaded" in text
    assert "depth reached (depth: answers): 0: 9, 4: 30, 5: 51; at depth 0: overloaded 9" in text
    assert "refused at once (server queue full): 10 of 100 thinks sent (10.00%)" in text
    assert "think_queued" in text
    assert "FAILED  overloaded answers: 10.00% of 90" in text
    assert text.splitlines()[-1] == "FAILED: 1 check failed" and exit_status(report) == 1


def test_server_view_shares_of_on_time_answers() -> None:
    name = "arena_bestmove_lateness_seconds"

    def scrape(on_time: int, within_10: int, total: int) -> dict[str, float]:
        return parse_metrics(
            f'{name}_bucket{{le="-0.01"}} {on_time // 2}\n{name}_bucket{{le="0.0"}} {on_time}\n'
            f'{name}_bucket{{le="0.01"}} {within_10}\n{name}_bucket{{le="+Inf"}} {total}\n'
            f"{name}_count {total}\n{name}_sum 0\n"
            'arena_bestmoves_total{reason="overloaded"} 7\n'
            'arena_bestmoves_total{reason="time"} 1000\n'
        )

    before, after = scrape(0, 0, 0), scrape(999, 1000, 1000)
    assert histogram_share_at_most(before, after, name, 0.0) == 0.999
    assert histogram_share_at_most(before, after, name, 0.01) == 1.0
    assert histogram_share_at_most(before, before, name, 0.0) is None
    view = server_view(before, after)
    assert view["bestmove_lateness"]["on_time_share"] == 0.999
    assert view["bestmove_lateness"]["within_10ms_share"] == 1.0
    assert view["bestmove_lateness"]["max_le_ms"] == 10.0
    assert view["bestmoves"] == {}, "no change between the scrapes"


class Scripted:
    """The fake server's answers to thinks, in order; it notes when each think came."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.think_times: list[float] = []

    def __call__(self, message: dict[str, Any]) -> Reply:
        if message["type"] == "think":
            self.think_times.append(time.monotonic())
            return [self.answers.pop(0)] if self.answers else [good_bestmove()]
        return [good_state()]


async def three_thinks(session: LoadSession) -> None:
    session.group = "first" if session.index == 0 else "others"
    await session.new_game("nim")
    for _ in range(3):
        await session.think(100)


async def test_refusals_overloaded_answers_depths_and_queue_waits() -> None:
    script = Scripted(
        {"type": "error", "code": "overloaded", "message": "queue full", "retry_after_ms": 400},
        good_bestmove(reason="overloaded", depth=0, queued_ms=95, score={"value": 0}),
        good_bestmove(reason="time", depth=5, queued_ms=3),
    )
    async with FakeServer(script) as server:
        config = LoadConfig(
            server.url, connections=1, ramp_s=0, duration_s=20, iterations=1, max_overloaded=0.25
        )
        report = await LoadRun(config, three_thinks).run()
    thinks = report["thinks"]
    assert (thinks["sent"], thinks["answered"], thinks["refused"], thinks["lost"]) == (3, 2, 1, 0)
    assert thinks["reasons"] == {"overloaded": 1, "time": 1} and thinks["overloaded_share"] == 0.5
    assert thinks["depths"] == {"0": 1, "5": 1} and thinks["depth0_reasons"] == {"overloaded": 1}
    assert thinks["refused_share"] == pytest.approx(1 / 3, abs=1e-4) and thinks["retry_waits"] == 1
    assert report["errors"] == {}, "a refusal is not counted among the errors"
    assert report["latency_ms"]["think_queued"]["count"] == 2
    assert report["latency_ms"]["think_queued"]["max"] == 95
    assert report["groups"]["first"]["answered"] == 2
    assert report["latency_ms"]["think_rtt[first]"]["count"] == 2
    # the next think waited the server's retry_after_ms, and no think was retried at once
    assert script.think_times[1] - script.think_times[0] >= 0.39
    failed = [check["check"] for check in report["checks"] if not check["ok"]]
    # a third refused: over the default 10% that marks a run degraded, under its 50% failure
    assert failed == ["refused thinks", "overloaded answers"] and exit_status(report) == 1
    levels = {check["check"]: check["level"] for check in report["checks"] if not check["ok"]}
    assert levels == {"refused thinks": "degraded", "overloaded answers": "fail"}


async def test_a_malformed_bestmove_fails_the_run() -> None:
    script = Scripted(good_bestmove(depth="3"), good_bestmove(), good_bestmove())
    async with FakeServer(script) as server:
        config = LoadConfig(server.url, connections=1, ramp_s=0, duration_s=20, iterations=1)
        report = await LoadRun(config, three_thinks).run()
    assert report["thinks"]["malformed"] == 1 and not report["passed"]
    assert any(key.startswith("malformed_bestmove: depth") for key in report["errors"])


async def refused_forever(session: LoadSession) -> None:
    await session.new_game("nim")
    while session.running:
        if await session.think(100) is not None:
            return


async def test_a_refusing_server_is_not_hammered() -> None:
    refusal = {"type": "error", "code": "overloaded", "message": "queue full"}  # no hint
    script = Scripted(*[refusal] * 1000)
    async with FakeServer(script) as server:
        config = LoadConfig(server.url, connections=1, ramp_s=0, duration_s=1.0)
        report = await LoadRun(config, refused_forever).run()
    # without a hint the session waits DEFAULT_RETRY_AFTER_MS (100 ms) between thinks
    assert 2 <= report["thinks"]["refused"] <= 12, report["thinks"]
    assert report["thinks"]["refusals_without_retry_hint"] == report["thinks"]["refused"]


async def test_the_command_exits_1_when_a_threshold_is_crossed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = Scripted(good_bestmove(reason="overloaded", depth=0))
    async with FakeServer(script) as server:
        parser = argparse.ArgumentParser()
        configure(parser)
        args = parser.parse_args(
            [
                "--url",
                server.url,
                "-c",
                "1",
                "--ramp",
                "0",
                "-d",
                "5",
                "-n",
                "1",
                "-q",
                "--scenario",
                "tests.clients.test_loadtest:three_thinks",
                "--max-overloaded",
                "5%",
            ]
        )
        status = await asyncio.to_thread(run, args)
    assert status == 1
    out = capsys.readouterr().out
    assert "FAILED  overloaded answers: 33.33% of 3 answered thinks" in out

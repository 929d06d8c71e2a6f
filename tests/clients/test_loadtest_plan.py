"""The load tester's honest verdicts: default thresholds, the config file, stages, the
arrival-rate mode, the time series, and a run against a deliberately overloaded server."""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import pytest

from clients.load_config import (
    DEFAULT_THRESHOLDS,
    Stage,
    Threshold,
    parse_stage,
    parse_threshold,
    read_config_file,
    target_at,
)
from clients.loadtest import (
    EXIT_DEGRADED,
    LoadConfig,
    LoadRun,
    LoadSession,
    config_from_args,
    configure,
    exit_status,
    format_report,
    percentiles,
    run,
    run_checks,
    run_status,
)
from tests.clients.fake_server import FakeServer, good_bestmove, good_state
from tests.clients.test_loadtest import Scripted, synthetic_report
from tests.server.server_harness import running_server

URL = "ws://127.0.0.1:1/ws"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(argv)


def verdict(report: dict[str, Any], config: LoadConfig) -> tuple[str, int]:
    report["checks"] = run_checks(report, config)
    report["status"] = run_status(report["checks"])
    report["passed"] = report["status"] == "passed"
    return report["status"], exit_status(report)


def test_default_thresholds_fail_a_server_that_answers_most_thinks_unsearched() -> None:
    config = LoadConfig(URL)
    assert config.thresholds == DEFAULT_THRESHOLDS
    # the run: about half the answers unsearched, 29% of thinks refused
    report = synthetic_report(overloaded_share=0.52, refused_share=0.29)
    assert verdict(report, config) == ("failed", 1)
    text = format_report(report)
    assert "PASSED" not in text and text.splitlines()[-1] == "FAILED: 1 check failed"
    assert (
        "FAILED  overloaded answers: 52.00% of 90 answered thinks were answered overloaded "
        "(degraded beyond 5.00%, fails beyond 25.00%)" in text
    )
    assert "DEGRADED refused thinks: 29.00%" in text


def test_a_few_unsearched_answers_make_the_run_degraded_with_exit_status_3() -> None:
    report = synthetic_report(overloaded_share=0.08, refused_share=0.02)
    assert verdict(report, LoadConfig(URL)) == ("degraded", EXIT_DEGRADED) == ("degraded", 3)
    assert format_report(report).splitlines()[-1] == "DEGRADED: 1 threshold crossed (exit status 3)"
    healthy = synthetic_report(overloaded_share=0.01, refused_share=0.0)
    assert verdict(healthy, LoadConfig(URL)) == ("passed", 0)
    assert format_report(healthy).splitlines()[-1] == "PASSED"


def test_a_max_option_replaces_its_metrics_defaults() -> None:
    report = synthetic_report(overloaded_share=0.3, refused_share=0.0)
    assert verdict(report, LoadConfig(URL, max_overloaded=0.5)) == ("passed", 0)
    assert verdict(report, LoadConfig(URL, thresholds=())) == ("passed", 0)


def test_k6_style_threshold_expressions() -> None:
    assert parse_threshold("bestmove_lateness", "p99 <= 50") == Threshold(
        "bestmove_lateness", "<=", 50.0, "p99"
    )
    assert parse_threshold("think_rtt", "p(95)<200").stat == "p95"
    assert parse_threshold("think_rtt", "med < 80 ms", "degraded").level == "degraded"
    assert parse_threshold("overloaded_share", "<= 5%").limit == pytest.approx(0.05)
    assert parse_threshold("refused_share", "rate < 0.1").limit == 0.1
    for metric, bad in (
        ("think_rtt", "< 50"),  # which statistic?
        ("think_rtt", "p42x <= 1"),
        ("think_rtt", "p99 <= 5%"),
        ("overloaded_share", "p99 <= 5%"),
        ("overloaded_share", "<= 150%"),
        ("think_rtt", "fast"),
    ):
        with pytest.raises(ValueError):
            parse_threshold(metric, bad)


def test_latency_thresholds_on_any_statistic() -> None:
    report = synthetic_report()
    report["latency_ms"]["think_rtt"] = percentiles([float(ms) for ms in range(1, 101)])
    config = LoadConfig(
        URL,
        thresholds=(
            parse_threshold("think_rtt", "p90 <= 95"),
            parse_threshold("think_rtt", "max < 100"),
            parse_threshold("stop_to_bestmove", "p99 <= 10"),  # never measured: fails
        ),
    )
    checks = {check["check"]: check for check in run_checks(report, config)}
    assert checks["think rtt p90"]["ok"] and not checks["think rtt max"]["ok"]
    assert checks["think rtt max"]["detail"] == "max 100.0 ms over 100 samples (limit < 100 ms)"
    assert not checks["stop to bestmove p99"]["ok"]


def test_stages_ramp_up_hold_and_ramp_down() -> None:
    stages = (Stage(2, 10), Stage(4, 10), Stage(2, 0))
    assert [target_at(stages, t) for t in (0, 1, 2, 4, 6, 7, 8, 9)] == [
        0,
        5,
        10,
        10,
        10,
        5,
        0,
        0,
    ]
    assert target_at((Stage(0, 4), Stage(3, 4)), 0) == 4, "a zero-length stage jumps"
    assert parse_stage("10s:20") == Stage(10, 20) and parse_stage("1m:0") == Stage(60, 0)
    assert parse_stage("500ms:3") == Stage(0.5, 3)
    with pytest.raises(ValueError):
        parse_stage("10")
    # the plain options are one ramp and one hold
    assert LoadConfig(URL, connections=8, ramp_s=2, duration_s=5).plan() == (
        Stage(2, 8),
        Stage(3, 8),
    )
    assert LoadConfig(URL, stages=stages).total_s == 8
    with pytest.raises(ValueError):
        LoadConfig(URL, stages=(Stage(1, 10_000),)).check()
    with pytest.raises(ValueError):
        LoadConfig(URL, mode="arrival-rate").check()  # no rate


def test_the_config_file_declares_options_stages_and_thresholds_once(tmp_path: Path) -> None:
    toml = tmp_path / "run.toml"
    toml.write_text(
        'scenario = "single"\n'
        "movetime = 50\n"
        "connections = 3\n"
        'stages = [{ duration = 1, target = 4 }, { duration = "2s", target = 4 }]\n'
        "rate = 4\n"
        "[thresholds]\n"
        'think_rtt = ["p95 <= 300", "max <= 900"]\n'
        "overloaded_share = []\n"
        "[degraded]\n"
        'refused_share = "<= 1%"\n'
    )
    config = config_from_args(parse(["--config", str(toml), "--movetime", "70"]))
    assert config.scenario == "single" and config.movetime_ms == 70, "the command line wins"
    assert config.mode == "arrival-rate" and config.connections == 3
    assert config.stages == (Stage(1, 4), Stage(2, 4))
    names = [(t.metric, t.stat, t.level) for t in config.checked_thresholds()]
    assert ("think_rtt", "p95", "fail") in names and ("think_rtt", "max", "fail") in names
    assert ("refused_share", None, "degraded") in names
    assert not any(metric == "overloaded_share" for metric, _, _ in names), "[] removes them"
    assert ("refused_share", None, "fail") not in names, "naming a metric replaces its defaults"
    assert ("dropped_share", None, "fail") in names, "unnamed metrics keep their defaults"

    as_json = tmp_path / "run.json"
    as_json.write_text(json.dumps({"connections": 5, "max-overloaded": "10%", "ramp": 0}))
    config = config_from_args(parse(["--config", str(as_json)]))
    assert (config.connections, config.max_overloaded, config.mode) == (5, 0.1, "closed")

    bad = tmp_path / "bad.toml"
    bad.write_text("conections = 5\n")
    with pytest.raises(ValueError, match="unknown setting conections"):
        read_config_file(str(bad))


def test_bad_config_or_out_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[thresholds]\nthink_rtt = "< 5"\n')
    assert run(parse(["--config", str(bad), "-q"])) == 2
    assert "name the statistic" in capsys.readouterr().err
    assert run(parse(["--out", str(tmp_path / "series.txt"), "-q"])) == 2
    assert "--out" in capsys.readouterr().err


async def one_think(session: LoadSession) -> None:
    await session.new_game("nim")
    await session.think(20)


async def test_closed_stages_ramp_the_connections_up_and_down() -> None:
    async with FakeServer(Scripted()) as server:
        config = LoadConfig(
            server.url,
            stages=(Stage(0.3, 3), Stage(0.6, 3), Stage(0.3, 0)),
            interval_s=0.1,
            thresholds=(),
        )
        load = LoadRun(config, one_think)
        report = await load.run()
    assert report["passed"] and report["thinks"]["answered"] > 3
    assert [stage["target"] for stage in report["plan"]] == [3, 3, 0]
    peak = max(row["connections"] for row in load.series)
    assert 2 <= peak <= 3
    assert load.series[-1]["connections"] == 0
    assert any(0 < row["target"] < 3 for row in load.series), "the target moved linearly"


async def slow_think(session: LoadSession) -> None:
    await session.new_game("nim")
    await session.think(300)


async def test_the_arrival_rate_mode_drops_what_the_pool_cannot_start() -> None:
    async def answer_late(message: dict[str, Any]) -> list[dict[str, Any]]:
        if message["type"] == "think":
            await asyncio.sleep(0.3)  # the fake server's think time, not synchronisation
            return [good_bestmove()]
        return [good_state()]

    async with FakeServer(answer_late) as server:
        # 20 runs a second of 0.3 s each need 6 connections; the pool has 2
        config = LoadConfig(server.url, connections=2, mode="arrival-rate", rate=20, duration_s=1)
        report = await LoadRun(config, slow_think).run()
    arrivals = report["arrivals"]
    assert 15 <= arrivals["due"] <= 21
    assert arrivals["dropped"] >= arrivals["due"] // 2
    assert arrivals["started"] + arrivals["dropped"] == arrivals["due"]
    assert report["status"] == "failed" and exit_status(report) == 1
    assert "dropped runs" in format_report(report)


async def test_out_writes_a_csv_or_json_time_series(tmp_path: Path) -> None:
    async with FakeServer(Scripted()) as server:
        for out in (f"csv={tmp_path / 'series.data'}", str(tmp_path / "series.json")):
            args = parse(
                [
                    "--url",
                    server.url,
                    "-c",
                    "2",
                    "--ramp",
                    "0",
                    "-d",
                    "0.6",
                    "--interval",
                    "0.2",
                    "-q",
                    "--scenario",
                    "tests.clients.test_loadtest_plan:one_think",
                    "--out",
                    out,
                ]
            )
            assert await asyncio.to_thread(run, args) == 0
    with open(tmp_path / "series.data", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) >= 3
    assert {"t_s", "target", "connections", "thinks_answered", "think_rtt_p95"} <= set(rows[0])
    assert sum(int(row["thinks_answered"]) for row in rows) > 0
    series = json.loads((tmp_path / "series.json").read_text())
    assert series["interval_s"] == 0.2 and len(series["rows"]) >= 3


async def test_an_overloaded_server_does_not_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """One search process, eight clients thinking 100 ms each back to back: about eight
    times what it can search. The run must not print PASSED nor exit 0."""
    async with running_server(workers=1) as server:
        args = parse(
            [
                "--url",
                f"ws://127.0.0.1:{server.port}/ws",
                "-c",
                "8",
                "--ramp",
                "0",
                "-d",
                "3",
                "--scenario",
                "think",
                "--movetime",
                "100",
                "-q",
            ]
        )
        status = await asyncio.to_thread(run, args)
    out = capsys.readouterr().out
    assert status in (1, EXIT_DEGRADED), out
    assert "PASSED" not in out
    assert out.splitlines()[-1].startswith(("FAILED", "DEGRADED")), out

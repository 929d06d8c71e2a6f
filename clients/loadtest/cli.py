"""The command line of ``arena loadtest``: options, configuration files, and the run."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
from collections.abc import Mapping
from typing import Any

from clients.client import DEFAULT_URL
from clients.load_config import (
    DEFAULT_THRESHOLDS,
    MODES,
    Mode,
    Stage,
    merge_thresholds,
    parse_stage,
    read_config_file,
    thresholds_from_tables,
)
from clients.loadtest.checks import EXIT_INTERRUPTED, EXIT_USAGE, exit_status
from clients.loadtest.config import DEFAULT_INTERVAL_S, MAX_CONNECTIONS, LoadConfig, parse_share
from clients.loadtest.report import format_report
from clients.loadtest.runner import LoadRun
from clients.loadtest.scenarios import SCENARIOS, load_scenario
from clients.loadtest.series import series_target, write_series


def _share_argument(text: str) -> float:
    try:
        return parse_share(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _stage_argument(text: str) -> Stage:
    try:
        return parse_stage(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


#: Defaults of the options a config file may also set (the command line wins
#: over the file, the file over these).
OPTION_DEFAULTS: dict[str, Any] = {
    "url": DEFAULT_URL,
    "connections": 10,
    "ramp": 1.0,
    "duration": 10.0,
    "iterations": None,
    "scenario": "mixed",
    "movetime": 100,
    "json": False,
    "seed": 1,
    "mode": "closed",
    "rate": None,
    "stages": [],
    "out": None,
    "report": None,
    "interval": DEFAULT_INTERVAL_S,
    "max_overloaded": None,
    "max_refused": None,
    "max_late_p99_ms": None,
}


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``arena loadtest``'s options to ``parser``.

    Options a config file may set default to ``None`` here, so that
    :func:`settings_from_args` can tell a given option from an absent one.
    """
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="read options, stages and thresholds from a TOML or JSON file "
        "(options given here win over it); see docs/load.md",
    )
    parser.add_argument(
        "--url", default=None, help=f"server URL, loopback only (default {DEFAULT_URL})"
    )
    parser.add_argument(
        "--connections",
        "-c",
        type=int,
        default=None,
        metavar="N",
        help="concurrent connections; in the arrival-rate mode the most that may be open "
        f"(default 10, at most {MAX_CONNECTIONS})",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=None,
        metavar="SECONDS",
        help="open the connections evenly over this long (default 1)",
    )
    parser.add_argument(
        "--duration",
        "-d",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop starting scenario runs after this long (default 10; with --stage: their sum)",
    )
    parser.add_argument(
        "--stage",
        "-s",
        dest="stages",
        action="append",
        type=_stage_argument,
        default=None,
        metavar="DURATION:TARGET",
        help="a stage: move the target (connections, or runs per second with --rate) "
        "linearly to TARGET over DURATION (10s:20); repeat for ramp up, hold, ramp down",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="PER_S",
        help="arrival-rate (open model) mode: start this many scenario runs a second "
        "whatever the server's speed, on at most --connections connections",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="closed (default; arrival-rate when --rate is given)",
    )
    parser.add_argument(
        "--iterations",
        "-n",
        type=int,
        default=None,
        metavar="N",
        help="also stop once this many scenario runs have started",
    )
    parser.add_argument(
        "--scenario",
        default=None,
        metavar="SCENARIO",
        help=f"{', '.join(SCENARIOS)}, or module:function, the module "
        "looked up in the current directory too (default mixed)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=None,
        metavar="MS",
        help="think budget of the 'think' and 'single' scenarios (default 100)",
    )
    parser.add_argument(
        "--json", action="store_true", default=None, help="speak JSON instead of msgpack"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN") or None,
        metavar="TOKEN",
        help="the server's shared secret (default: $ARENA_TOKEN; none: no token)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N", help="random seed (default 1)"
    )
    parser.add_argument("--report", metavar="FILE", help="write the JSON report here")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write a time series, one row per --interval: csv=FILE, json=FILE, "
        "or a .csv or .json path",
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"the time series' interval (default {DEFAULT_INTERVAL_S:g})",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no live progress line")
    checks = parser.add_argument_group(
        "thresholds",
        "by default a run FAILS (exit status 1) when more than 25% of its answers were "
        "unsearched ('overloaded') or 50% of its thinks were refused, and is DEGRADED "
        "(exit status 3) above 5% and 10%; an option here replaces its metric's defaults. "
        "Any metric and statistic can be limited in a --config file. Lost answers, failed "
        "connections and malformed answers always fail the run",
    )
    checks.add_argument(
        "--max-overloaded",
        type=_share_argument,
        metavar="SHARE",
        help="largest share of answered thinks answered 'overloaded' (5%% or 0.05)",
    )
    checks.add_argument(
        "--max-refused",
        type=_share_argument,
        metavar="SHARE",
        help="largest share of thinks sent that may be refused at once with an "
        "'overloaded' error (5%% or 0.05)",
    )
    checks.add_argument(
        "--max-late-p99-ms",
        type=float,
        metavar="MS",
        help="largest p99 of bestmove lateness against the think's deadline, "
        "as measured by the tester",
    )


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings: the defaults, then the config file's, then the command line's.

    ``ValueError`` for an unreadable or unknown config file or setting.
    """
    settings = dict(OPTION_DEFAULTS)
    settings["thresholds"] = None
    settings["degraded"] = None
    from_file = read_config_file(args.config) if getattr(args, "config", None) else {}
    settings.update(from_file)
    for key in OPTION_DEFAULTS:
        value = getattr(args, key, None)
        if value is not None:
            settings[key] = value
    if settings["rate"] is not None and getattr(args, "mode", None) is None:
        # a rate means the open model, unless the config file names a mode
        settings["mode"] = from_file.get("mode", "arrival-rate")
    return settings


def config_from_settings(settings: Mapping[str, Any], token: str | None) -> LoadConfig:
    """A :class:`LoadConfig` from :func:`settings_from_args`' map (``ValueError`` if bad)."""
    named = thresholds_from_tables(settings.get("thresholds"), settings.get("degraded"))
    shares = {}
    for key in ("max_overloaded", "max_refused"):
        value = settings.get(key)
        shares[key] = parse_share(value) if isinstance(value, str) else value
    stages = tuple(settings.get("stages") or ())
    mode: Mode = "arrival-rate" if settings.get("mode") == "arrival-rate" else "closed"
    connections = settings["connections"]
    if mode == "closed" and stages:  # the stages' targets are the connections
        connections = max(1, math.ceil(max(stage.target for stage in stages)))
    try:
        return LoadConfig(
            url=settings["url"],
            connections=int(connections),
            ramp_s=float(settings["ramp"]),
            duration_s=float(settings["duration"]),
            iterations=settings["iterations"],
            scenario=str(settings["scenario"]),
            movetime_ms=int(settings["movetime"]),
            encoding="json" if settings["json"] else "msgpack",
            token=token,
            seed=int(settings["seed"]),
            max_overloaded=shares["max_overloaded"],
            max_refused=shares["max_refused"],
            max_late_p99_ms=settings["max_late_p99_ms"],
            mode=mode,
            rate=None if settings["rate"] is None else float(settings["rate"]),
            stages=stages,
            thresholds=merge_thresholds(DEFAULT_THRESHOLDS, named),
            interval_s=float(settings["interval"]),
        )
    except (TypeError, KeyError) as error:
        raise ValueError(f"a setting has the wrong type: {error}") from None


def config_from_args(args: argparse.Namespace) -> LoadConfig:
    settings = settings_from_args(args)
    return config_from_settings(settings, args.token)


def run(args: argparse.Namespace) -> int:
    """Run ``arena loadtest``; the exit status (0 passed, 1 failed, 2 bad options, 3 degraded)."""
    try:
        settings = settings_from_args(args)
        config = config_from_settings(settings, args.token)
        config.check()
        if settings["out"]:
            series_target(settings["out"])
        scenario = load_scenario(config.scenario)
    except (ValueError, ImportError) as error:
        print(f"arena loadtest: {error}", file=sys.stderr)
        return EXIT_USAGE
    load = LoadRun(config, scenario, progress=None if args.quiet else sys.stderr)
    try:
        report = asyncio.run(load.run())
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    print(format_report(report))
    connections = report.get("connections", {})
    if connections.get("connect_failed_401"):
        print(
            "arena loadtest: "
            + (
                "the server refused the token: check --token or ARENA_TOKEN"
                if args.token
                else "the server needs a token: use --token or ARENA_TOKEN"
            ),
            file=sys.stderr,
        )
    if settings["report"]:
        with open(settings["report"], "w", encoding="utf-8") as file:
            json.dump(report, file, indent=2)
            file.write("\n")
    if settings["out"]:
        write_series(load.series, settings["out"], config.interval_s)
    return exit_status(report)

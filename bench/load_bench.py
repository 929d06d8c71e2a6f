"""Load benchmark (issues 7 and 11): idle memory, overload on two workers, fairness.

Starts ``python -m server --workers 2`` on a free loopback port and drives
it with the load tester (:mod:`clients.loadtest`) from this process, in
phases (``--phases``, default all):

0. **baseline**: the server alone for ``--baseline`` seconds (default 10):
   its event-loop lag with no clients at all is the machine's noise floor
   (other work on a shared machine delays any process).
1. **idle**: ``--idle`` connections (default 1,000) say hello and stay
   open; the server's resident memory (``VmRSS`` in ``/proc/<pid>/status``,
   the server process alone, not its search workers) is sampled throughout.
   Target (issue 7): growth <= 100 MB with all connections open at once.
2. **overload**: ``--thinkers`` clients (default 100) play Connect Four
   engine-against-itself with ``think`` movetime ``--movetime`` ms (default
   100) for ``--duration`` seconds (default 30) on two workers. Targets
   (issue 11): 0 lost answers; event-loop lag p99 <= 20 ms; ``bestmove``
   handed to the socket by its deadline for >= 99.9 % of thinks and never
   later than 10 ms (the server's own lateness histogram); every answer
   that got no worker marked ``overloaded`` (no depth-0 answer with another
   reason, except ``only_move``, ``proven`` and ``stopped``).
3. **fairness**: ``--abusers`` clients (default 3) send ``think`` with
   movetime 1 ms, back to back, on Nim with 16 heaps of 1000 (16,000 legal
   moves), alongside ``--polite`` well-behaved sessions (default 20) running
   the overload phase's scenario at ``--movetime``, for ``--fair-duration``
   seconds (default 30). Target (issue 11): the well-behaved sessions' p99
   round trip of a 100 ms think <= 120 ms.

Prints each figure against its target with the machine's load average
(other work shares this machine) and writes everything as JSON (``--out``).
Exit status: 0 if every target of the phases run was met, 1 otherwise.

Run: ``python bench/load_bench.py`` (about two minutes);
``--quick`` for a short smoke run; ``--phases overload,fairness`` for
some phases only; ``--server-option=--max-queue=16`` to pass options to
the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from clients.loadtest import (  # noqa: E402
    LoadConfig,
    LoadRun,
    LoadSession,
    Scenario,
    parse_metrics,
)
from clients.loadtest import think as think_scenario  # noqa: E402

#: Target of issue 7.
MAX_IDLE_GROWTH_MB = 100.0
#: Targets of issue 11.
MAX_LOOP_LAG_P99_MS = 20.0
MIN_ON_TIME_SHARE = 0.999
MAX_LATE_MS = 10.0
MAX_POLITE_RTT_P99_MS = 120.0
#: Depth-0 answers that are honest without the ``overloaded`` mark.
UNSEARCHED_OK_REASONS = ("overloaded", "only_move", "proven", "stopped")
#: The abusive clients' game: Nim with 16 heaps of 1000.
ABUSIVE_OPTIONS = {"heaps": [1000] * 16}
PHASES = ("baseline", "idle", "overload", "fairness")
#: File descriptors needed: one per connection on each side, plus slack.
FILES_NEEDED = 4096


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def load_average() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def scrape(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        return parse_metrics(response.read().decode())


def raise_open_files_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILES_NEEDED if hard == resource.RLIM_INFINITY else min(FILES_NEEDED, hard)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < FILES_NEEDED:
        print(
            f"warning: open-files limit below {FILES_NEEDED}; raise it with ulimit -n",
            file=sys.stderr,
        )


class ServerProcess:
    def __init__(self, workers: int, options: list[str] | None = None) -> None:
        self.port = free_port()
        self.command = [
            sys.executable,
            "-m",
            "server",
            "--port",
            str(self.port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            *(options or []),
        ]
        self.process = subprocess.Popen(
            self.command, cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{self.port}/healthz", timeout=1
                ) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


async def baseline_phase(server: ServerProcess, seconds: float) -> dict[str, Any]:
    from clients.loadtest import histogram_quantile_bound

    load_before = load_average()
    before = await asyncio.to_thread(scrape, server.port)
    await asyncio.sleep(seconds)
    after = await asyncio.to_thread(scrape, server.port)
    name = "arena_event_loop_lag_seconds"
    return {
        "seconds": seconds,
        "samples": int(after[f"{name}_count"] - before[f"{name}_count"]),
        **{
            f"loop_lag_p{percent}_le_ms": round(1000 * bound, 1)
            if (bound := histogram_quantile_bound(before, after, name, percent / 100)) is not None
            else None
            for percent in (50, 95, 99)
        },
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }


async def idle_phase(server: ServerProcess, connections: int, hold_s: float) -> dict[str, Any]:
    pid = server.process.pid
    baseline = rss_mb(pid)
    ramp_s = max(1.0, connections / 100)
    config = LoadConfig(
        server.url,
        connections=connections,
        ramp_s=ramp_s,
        duration_s=ramp_s + hold_s,
        scenario="idle",
    )
    load_before = load_average()
    run = asyncio.create_task(LoadRun(config, progress=None).run())
    peak_rss, peak_sessions = baseline, 0.0
    next_scrape = 0.0
    while not run.done():
        await asyncio.sleep(0.25)
        peak_rss = max(peak_rss, rss_mb(pid))
        if time.monotonic() >= next_scrape:  # every 0.5 s: scraping costs the server too
            next_scrape = time.monotonic() + 0.5
            sessions = (await asyncio.to_thread(scrape, server.port))["arena_sessions_open"]
            peak_sessions = max(peak_sessions, sessions)
    report = await run
    sessions = (await asyncio.to_thread(scrape, server.port))["arena_sessions_open"]
    growth = peak_rss - baseline
    return {
        "connections": connections,
        "peak_sessions_open": int(peak_sessions),
        "sessions_open_after": int(sessions),
        "rss_baseline_mb": round(baseline, 1),
        "rss_peak_mb": round(peak_rss, 1),
        "rss_growth_mb": round(growth, 1),
        "rss_per_connection_kb": round(growth * 1024 / connections, 1),
        "connect_ms": report["latency_ms"].get("connect"),
        "connection_events": report["connections"],
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "pass": growth <= MAX_IDLE_GROWTH_MB and peak_sessions >= connections,
    }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _at_most(value: Any, limit: float) -> bool:
    number = _number(value)
    return number is not None and number <= limit


async def overload_phase(
    server: ServerProcess, thinkers: int, movetime_ms: int, duration_s: float
) -> dict[str, Any]:
    config = LoadConfig(
        server.url,
        connections=thinkers,
        ramp_s=min(5.0, duration_s / 4),
        duration_s=duration_s,
        scenario="think",
        movetime_ms=movetime_ms,
        thresholds=(),  # overloaded on purpose: the phase's own targets judge it
    )
    load_before = load_average()
    report = await LoadRun(config, progress=sys.stderr).run()
    thinks = report["thinks"]
    view = report.get("server", {})
    late = view.get("bestmove_lateness", {})
    lag = view.get("event_loop_lag", {})
    unmarked = {
        reason: count
        for reason, count in thinks["depth0_reasons"].items()
        if reason not in UNSEARCHED_OK_REASONS
    }
    on_time = _number(late.get("on_time_share"))
    within = _number(late.get("within_10ms_share"))
    checks = {
        "no_lost_answers": thinks["lost"] == 0 and report["lost_replies"] == 0,
        "loop_lag_p99": _at_most(lag.get("p99_le_ms"), MAX_LOOP_LAG_P99_MS),
        "on_time_share": on_time is not None and on_time >= MIN_ON_TIME_SHARE,
        "never_later_than_10ms": within is not None and within >= 1.0,
        "unsearched_marked_overloaded": not unmarked,
        "loadtest_checks": report["passed"],
    }
    return {
        "report": report,
        "unsearched_not_marked": unmarked,
        "checks": checks,
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "pass": all(checks.values()),
    }


async def abusive(session: LoadSession) -> None:
    """Think at movetime 1 ms on a position with 16,000 legal moves, back to back."""
    if await session.new_game("nim", options=ABUSIVE_OPTIONS) is None:
        return
    while session.running:
        best = await session.think(1)
        if best is None and not session.refused:
            return


def fairness_scenario(abusers: int) -> Scenario:
    """The first ``abusers`` connections abuse; the others play the ``think`` scenario."""

    async def scenario(session: LoadSession) -> None:
        if session.index < abusers:
            session.group = "abusive"
            await abusive(session)
        else:
            session.group = "polite"
            await think_scenario(session)

    return scenario


async def fairness_phase(
    server: ServerProcess, abusers: int, polite: int, movetime_ms: int, duration_s: float
) -> dict[str, Any]:
    config = LoadConfig(
        server.url,
        connections=abusers + polite,
        ramp_s=min(2.0, duration_s / 4),
        duration_s=duration_s,
        scenario="fairness",
        movetime_ms=movetime_ms,
        thresholds=(),  # the abusive sessions are refused on purpose: the targets judge it
    )
    load_before = load_average()
    report = await LoadRun(config, fairness_scenario(abusers), progress=sys.stderr).run()
    rtt = report["latency_ms"].get("think_rtt[polite]", {})
    checks = {
        "no_lost_answers": report["thinks"]["lost"] == 0 and report["lost_replies"] == 0,
        "polite_rtt_p99": _at_most(rtt.get("p99"), MAX_POLITE_RTT_P99_MS),
        "loadtest_checks": report["passed"],
    }
    return {
        "report": report,
        "checks": checks,
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "pass": all(checks.values()),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files_limit()
    server = ServerProcess(workers=2, options=args.server_option)
    results: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "server_command": " ".join(server.command[1:]),
        "cpus": os.cpu_count(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    try:
        if "baseline" in args.phases:
            print(f"baseline: the server alone for {args.baseline:g} s ...", file=sys.stderr)
            results["baseline"] = await baseline_phase(server, args.baseline)
            print(json.dumps(results["baseline"]), file=sys.stderr)
        if "idle" in args.phases:
            print(f"idle: {args.idle} connections ...", file=sys.stderr)
            results["idle"] = await idle_phase(server, args.idle, args.hold)
            print(json.dumps(results["idle"], indent=1), file=sys.stderr)
            await asyncio.sleep(2)  # let the idle connections' closes settle
        if "overload" in args.phases:
            print(
                f"overload: {args.thinkers} clients at movetime {args.movetime} ms for "
                f"{args.duration:g} s ...",
                file=sys.stderr,
            )
            results["overload"] = await overload_phase(
                server, args.thinkers, args.movetime, args.duration
            )
        if "fairness" in args.phases:
            print(
                f"fairness: {args.abusers} clients thinking 1 ms on Nim 16x1000 and "
                f"{args.polite} at {args.movetime} ms for {args.fair_duration:g} s ...",
                file=sys.stderr,
            )
            results["fairness"] = await fairness_phase(
                server, args.abusers, args.polite, args.movetime, args.fair_duration
            )
    finally:
        results["server_exit_code"] = server.stop()
    return results


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def _percentiles(summary: dict[str, Any]) -> str:
    if not summary.get("count"):
        return "none"
    return (
        f"p50 {summary['p50']} p95 {summary['p95']} p99 {summary['p99']} "
        f"max {summary['max']} ms ({summary['count']})"
    )


def _share(value: Any) -> str:
    number = _number(value)
    return "n/a" if number is None else f"{number:.2%}"


def _depths(depths: dict[str, int]) -> str:
    return ", ".join(f"{depth}: {count}" for depth, count in depths.items()) or "none"


def summary(results: dict[str, Any]) -> str:
    lines: list[str] = []
    if "baseline" in results:
        base = results["baseline"]
        lines.append(
            f"baseline (no clients, {base['seconds']:g} s): event-loop lag p50 <= "
            f"{base['loop_lag_p50_le_ms']} p95 <= {base['loop_lag_p95_le_ms']} p99 <= "
            f"{base['loop_lag_p99_le_ms']} ms; load average {base['load_average_before']}"
        )
    if "idle" in results:
        idle = results["idle"]
        lines.append(
            f"idle: {idle['peak_sessions_open']} sessions open at once; server RSS "
            f"{idle['rss_baseline_mb']} -> {idle['rss_peak_mb']} MB "
            f"(+{idle['rss_growth_mb']} MB, {idle['rss_per_connection_kb']} KB per connection; "
            f"target <= {MAX_IDLE_GROWTH_MB:g} MB): {_verdict(idle['pass'])}; load average "
            f"{idle['load_average_before']} -> {idle['load_average_after']}"
        )
    if "overload" in results:
        over = results["overload"]
        report, checks = over["report"], over["checks"]
        config, thinks = report["config"], report["thinks"]
        view = report.get("server", {})
        late = view.get("bestmove_lateness", {})
        lag = view.get("event_loop_lag", {})
        queue = view.get("think_queue", {})
        lines += [
            f"overload: {config['connections']} clients thinking {config['movetime_ms']} ms "
            f"on 2 workers for {config['duration_s']:g} s; load average "
            f"{over['load_average_before']} -> {over['load_average_after']}",
            f"  lost answers: {thinks['lost']} of {thinks['sent']} thinks, "
            f"{report['lost_replies']} lost replies (target 0): "
            f"{_verdict(checks['no_lost_answers'])}",
            f"  event-loop lag p99 <= {lag.get('p99_le_ms')} ms, p50 <= {lag.get('p50_le_ms')} "
            f"ms (target p99 <= {MAX_LOOP_LAG_P99_MS:g} ms): {_verdict(checks['loop_lag_p99'])}",
            f"  bestmove handed to the socket by its deadline: {_share(late.get('on_time_share'))}"
            f" of {late.get('count')} timed thinks (target >= {MIN_ON_TIME_SHARE:.1%}): "
            f"{_verdict(checks['on_time_share'])}",
            f"  within 10 ms of the deadline: {_share(late.get('within_10ms_share'))}, latest <= "
            f"{late.get('max_le_ms')} ms (target: all): "
            f"{_verdict(checks['never_later_than_10ms'])}",
            f"  answers at depth 0 by reason {thinks['depth0_reasons'] or 'none'}; not marked "
            f"overloaded: {over['unsearched_not_marked'] or 'none'} (target none): "
            f"{_verdict(checks['unsearched_marked_overloaded'])}",
            f"  {thinks['answered']} answered ({thinks['per_s']}/s), "
            f"{thinks['overloaded_share']:.2%} overloaded, {thinks['refused']} refused at once "
            f"({thinks['refused_share']:.2%}); reasons {thinks['reasons']}; "
            f"errors {report['errors'] or 'none'}",
            f"  depth reached (depth: answers): {_depths(thinks['depths'])}",
            f"  queued_ms {_percentiles(report['latency_ms'].get('think_queued', {}))}; "
            f"server queue wait p99 <= {queue.get('p99_le_ms')} ms",
            f"  bestmove lateness (client) "
            f"{_percentiles(report['latency_ms'].get('bestmove_lateness', {}))}",
            f"  overload: {'PASS' if over['pass'] else 'FAIL'}",
        ]
    if "fairness" in results:
        fair = results["fairness"]
        report, checks = fair["report"], fair["checks"]
        groups = report.get("groups", {})
        polite, abusive_group = groups.get("polite", {}), groups.get("abusive", {})
        lag = report.get("server", {}).get("event_loop_lag", {})
        lines += [
            f"fairness: {report['config']['connections']} clients for "
            f"{report['config']['duration_s']:g} s; load average "
            f"{fair['load_average_before']} -> {fair['load_average_after']}",
            f"  polite think round trip "
            f"{_percentiles(report['latency_ms'].get('think_rtt[polite]', {}))} "
            f"(target p99 <= {MAX_POLITE_RTT_P99_MS:g} ms): {_verdict(checks['polite_rtt_p99'])}",
            f"  polite: {polite.get('answered')} answered, {polite.get('lost')} lost, "
            f"{polite.get('refused')} refused, {polite.get('overloaded_share', 0):.2%} "
            f"overloaded; reasons {polite.get('reasons')}",
            f"  abusive: {abusive_group.get('answered')} answered, {abusive_group.get('refused')} "
            f"refused; reasons {abusive_group.get('reasons')}; think round trip "
            f"{_percentiles(report['latency_ms'].get('think_rtt[abusive]', {}))}",
            f"  lost answers {report['thinks']['lost']} (target 0): "
            f"{_verdict(checks['no_lost_answers'])}; event-loop lag p99 <= "
            f"{lag.get('p99_le_ms')} ms",
            f"  fairness: {'PASS' if fair['pass'] else 'FAIL'}",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--baseline", type=float, default=10.0, help="seconds of the server alone first (10)"
    )
    parser.add_argument("--idle", type=int, default=1000, help="idle connections (1000)")
    parser.add_argument("--hold", type=float, default=5.0, help="seconds all stay open (5)")
    parser.add_argument("--thinkers", type=int, default=100, help="thinking clients (100)")
    parser.add_argument("--movetime", type=int, default=100, help="think budget in ms (100)")
    parser.add_argument("--duration", type=float, default=30.0, help="overload seconds (30)")
    parser.add_argument(
        "--abusers", type=int, default=3, help="fairness: clients thinking 1 ms on Nim 16x1000 (3)"
    )
    parser.add_argument(
        "--polite", type=int, default=20, help="fairness: well-behaved sessions (20)"
    )
    parser.add_argument("--fair-duration", type=float, default=30.0, help="fairness seconds (30)")
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help=f"comma-separated phases to run (default {','.join(PHASES)})",
    )
    parser.add_argument(
        "--server-option",
        action="append",
        default=[],
        metavar="OPTION",
        help="pass an option to the server, e.g. --server-option=--max-queue=16",
    )
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run (overrides the sizes and durations): 2 s baseline, "
        "200 idle, 40 thinkers for 5 s, fairness for 5 s",
    )
    args = parser.parse_args()
    args.phases = [phase.strip() for phase in args.phases.split(",") if phase.strip()]
    unknown = sorted(set(args.phases) - set(PHASES))
    if unknown:
        parser.error(f"unknown phases {unknown}; choose from {', '.join(PHASES)}")
    if args.quick:
        args.idle, args.thinkers, args.duration, args.hold, args.baseline = 200, 40, 5.0, 2.0, 2.0
        args.fair_duration = 5.0
    results = asyncio.run(main_async(args))
    print(summary(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    passed = [
        results[phase]["pass"] for phase in ("idle", "overload", "fairness") if phase in results
    ]
    return 0 if all(passed) else 1


if __name__ == "__main__":
    raise SystemExit(main())

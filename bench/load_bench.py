"""Load benchmark (issue 7): idle connections' memory, and 100x overload on two workers.

Starts ``python -m server --workers 2`` on a free loopback port and drives
it with the load tester (:mod:`clients.loadtest`) from this process:

0. **baseline**: the server alone for ``--baseline`` seconds (default 10):
   its event-loop lag with no clients at all is the machine's noise floor
   (other work on a shared machine delays any process).
1. **idle**: ``--idle`` connections (default 1,000) say hello and stay
   open; the server's resident memory (``VmRSS`` in ``/proc/<pid>/status``,
   the server process alone, not its search workers) is sampled throughout.
   Target: growth <= 100 MB with all connections open at once.
2. **overload**: ``--thinkers`` clients (default 200) play Connect Four
   engine-against-itself with ``think`` movetime ``--movetime`` ms (default
   100), two workers: a hundred times more demand than workers. Targets:
   no lost answers; bestmove no later than deadline + 50 ms at p99;
   event-loop lag p99 <= 20 ms; no errors (none is allowed by the protocol
   in this scenario).

Prints a summary with the machine's load average (other work shares this
machine) and writes every figure as JSON (``--out``).

Run: ``python bench/load_bench.py`` (about a minute and a half);
``--quick`` for a short smoke run.
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

from clients.loadtest import LoadConfig, LoadRun, parse_metrics  # noqa: E402

#: Targets from issue 7.
MAX_IDLE_GROWTH_MB = 100.0
MAX_LATENESS_P99_MS = 50.0
MAX_LOOP_LAG_P99_MS = 20.0
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
        print(f"warning: open-files limit below {FILES_NEEDED}; raise it with ulimit -n",
              file=sys.stderr)


class ServerProcess:
    def __init__(self, workers: int) -> None:
        self.port = free_port()
        self.command = [
            sys.executable, "-m", "server", "--port", str(self.port), "--workers", str(workers),
            "--log-level", "warning",
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
            if (bound := histogram_quantile_bound(before, after, name, percent / 100))
            is not None else None
            for percent in (50, 95, 99)
        },
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }


async def idle_phase(server: ServerProcess, connections: int, hold_s: float) -> dict[str, Any]:
    pid = server.process.pid
    baseline = rss_mb(pid)
    ramp_s = max(1.0, connections / 100)
    config = LoadConfig(server.url, connections=connections, ramp_s=ramp_s,
                        duration_s=ramp_s + hold_s, scenario="idle")
    load_before = load_average()
    run = asyncio.create_task(LoadRun(config, progress=None).run())
    peak_rss, peak_sessions = baseline, 0.0
    while not run.done():
        await asyncio.sleep(0.25)
        peak_rss = max(peak_rss, rss_mb(pid))
        if time.monotonic() % 2 < 0.25:  # scrape now and then: scraping costs the server too
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


async def overload_phase(
    server: ServerProcess, thinkers: int, movetime_ms: int, duration_s: float
) -> dict[str, Any]:
    config = LoadConfig(server.url, connections=thinkers, ramp_s=min(5.0, duration_s / 4),
                        duration_s=duration_s, scenario="think", movetime_ms=movetime_ms)
    load_before = load_average()
    report = await LoadRun(config, progress=sys.stderr).run()
    late = report["latency_ms"].get("bestmove_lateness", {})
    server_view = report.get("server", {})
    server_late = server_view.get("bestmove_lateness", {}).get("p99_le_ms")
    loop_lag = server_view.get("event_loop_lag", {}).get("p99_le_ms")
    checks = {
        "no_lost_answers": report["thinks"]["lost"] == 0 and report["lost_replies"] == 0,
        "lateness_p99_client": late.get("p99", float("inf")) <= MAX_LATENESS_P99_MS,
        "lateness_p99_server": isinstance(server_late, float | int)
        and server_late <= MAX_LATENESS_P99_MS,
        "loop_lag_p99_server": isinstance(loop_lag, float | int)
        and loop_lag <= MAX_LOOP_LAG_P99_MS,
        "no_errors": not report["errors"] and not server_view.get("errors"),
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
    server = ServerProcess(workers=2)
    results: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "server_command": " ".join(server.command[1:]),
        "cpus": os.cpu_count(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    try:
        print(f"baseline: the server alone for {args.baseline:g} s ...", file=sys.stderr)
        results["baseline"] = await baseline_phase(server, args.baseline)
        print(json.dumps(results["baseline"]), file=sys.stderr)
        print(f"idle: {args.idle} connections ...", file=sys.stderr)
        results["idle"] = await idle_phase(server, args.idle, args.hold)
        print(json.dumps(results["idle"], indent=1), file=sys.stderr)
        await asyncio.sleep(2)  # let the idle connections' closes settle
        print(f"overload: {args.thinkers} clients at movetime {args.movetime} ms ...",
              file=sys.stderr)
        results["overload"] = await overload_phase(
            server, args.thinkers, args.movetime, args.duration
        )
    finally:
        results["server_exit_code"] = server.stop()
    return results


def summary(results: dict[str, Any]) -> str:
    base = results["baseline"]
    idle = results["idle"]
    over = results["overload"]
    report = over["report"]
    late = report["latency_ms"].get("bestmove_lateness", {})
    server = report.get("server", {})
    lines = [
        f"baseline (no clients, {base['seconds']:g} s): event-loop lag p50 <= "
        f"{base['loop_lag_p50_le_ms']} p95 <= {base['loop_lag_p95_le_ms']} p99 <= "
        f"{base['loop_lag_p99_le_ms']} ms; load average {base['load_average_before']}",
        f"idle: {idle['peak_sessions_open']} sessions open at once; server RSS "
        f"{idle['rss_baseline_mb']} -> {idle['rss_peak_mb']} MB (+{idle['rss_growth_mb']} MB, "
        f"{idle['rss_per_connection_kb']} KB per connection); load average "
        f"{idle['load_average_before']} -> {idle['load_average_after']}: "
        f"{'PASS' if idle['pass'] else 'FAIL'}",
        f"overload: {report['thinks']['answered']} thinks answered "
        f"({report['thinks']['per_s']}/s), lost {report['thinks']['lost']}, "
        f"reasons {report['thinks']['reasons']}, errors {report['errors'] or 'none'}",
        f"  bestmove lateness (client) p50 {late.get('p50')} p95 {late.get('p95')} "
        f"p99 {late.get('p99')} max {late.get('max')} ms",
        f"  server: lateness p99 <= {server.get('bestmove_lateness', {}).get('p99_le_ms')} ms, "
        f"event-loop lag p50 <= {server.get('event_loop_lag', {}).get('p50_le_ms')} "
        f"p99 <= {server.get('event_loop_lag', {}).get('p99_le_ms')} ms",
        f"  load average {over['load_average_before']} -> {over['load_average_after']}; "
        f"checks {over['checks']}: {'PASS' if over['pass'] else 'FAIL'}",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", type=float, default=10.0,
                        help="seconds of the server alone first (10)")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections (1000)")
    parser.add_argument("--hold", type=float, default=5.0, help="seconds all stay open (5)")
    parser.add_argument("--thinkers", type=int, default=200, help="thinking clients (200)")
    parser.add_argument("--movetime", type=int, default=100, help="think budget in ms (100)")
    parser.add_argument("--duration", type=float, default=30.0, help="overload seconds (30)")
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--quick", action="store_true", help="200 idle, 40 thinkers, 8 s")
    args = parser.parse_args()
    if args.quick:
        args.idle, args.thinkers, args.duration, args.hold, args.baseline = 200, 40, 8.0, 2.0, 3.0
    results = asyncio.run(main_async(args))
    print(summary(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return 0 if results["idle"]["pass"] and results["overload"]["pass"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

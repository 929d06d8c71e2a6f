"""The load run's report as text, for the terminal."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from clients.loadtest.checks import EXIT_DEGRADED


def format_report(report: Mapping[str, Any]) -> str:
    """A short human summary of a report, ending with its checks."""
    thinks = report["thinks"]
    config = report["config"]
    lines = [
        f"{report['elapsed_s']} s, {config['connections']} connections, "
        f"scenario {config['scenario']}: {thinks['answered']} thinks answered "
        f"({thinks['per_s']}/s), {thinks['lost']} lost, "
        f"{thinks['aborted_on_purpose']} aborted on purpose",
        f"answers by reason: {_counts(thinks['reasons'])}; "
        f"{thinks['overloaded_share']:.2%} answered overloaded "
        "(no search process reached them in time: a fallback move)",
        f"depth reached (depth: answers): {_counts(thinks['depths'], sep=': ')}"
        + (
            f"; at depth 0: {_counts(thinks['depth0_reasons'])}" if thinks["depth0_reasons"] else ""
        ),
        f"refused at once (server queue full): {thinks['refused']} of {thinks['sent']} "
        f"thinks sent ({thinks['refused_share']:.2%}); sessions waited the server's "
        f"retry_after_ms before thinking again ({thinks['retry_waits']} waits)",
        f"other errors: {_counts(report['errors'])}; connections: {_counts(report['connections'])}",
    ]
    arrivals = report.get("arrivals")
    if arrivals:
        lines.append(
            f"arrival rate: {arrivals['started']} scenario runs started of {arrivals['due']} due; "
            f"{arrivals['dropped']} dropped ({arrivals['dropped_share']:.2%}: every pooled "
            f"connection was busy), {arrivals['failed_to_connect']} failed to connect"
        )
    lines.append(
        f"{'latency (ms)':<24}{'count':>8}" + "".join(f"{stat:>9}" for stat in TABLE_STATS)
    )
    for name, summary in report["latency_ms"].items():
        if summary.get("count"):
            lines.append(
                f"{name:<24}{summary['count']:>8}"
                + "".join(f"{summary.get(stat, math.nan):>9.1f}" for stat in TABLE_STATS)
            )
    for group, summary in report.get("groups", {}).items():
        lines.append(
            f"group {group}: {summary['answered']} answered, {summary['lost']} lost, "
            f"{summary['refused']} refused, {summary['overloaded_share']:.2%} overloaded; "
            f"reasons {_counts(summary['reasons'])}"
        )
    server = report.get("server")
    if server:
        lag, late, queue = (
            server["event_loop_lag"],
            server["bestmove_lateness"],
            server.get("think_queue", {}),
        )
        lines.append(
            f"server: event-loop lag p99 <= {lag['p99_le_ms']} ms (max <= "
            f"{lag.get('max_le_ms')} ms); queue wait p99 <= {queue.get('p99_le_ms')} ms; "
            f"worker restarts {server['worker_restarts']}; errors {_counts(server['errors'])}"
        )
        lines.append(
            f"server: {late['count']} timed bestmoves, handed to the socket by the deadline: "
            f"{_share(late.get('on_time_share'))}, within 10 ms of it: "
            f"{_share(late.get('within_10ms_share'))}, lateness p99 <= {late['p99_le_ms']} ms"
            f"; answers by reason {_counts(server.get('bestmoves', {}))}"
        )
    if report.get("server_note"):
        lines.append(f"server figures {report['server_note']}")
    checks = report.get("checks", ())
    for check in checks:
        verdict = "ok" if check["ok"] else CROSSED[check.get("level", "fail")]
        lines.append(f"{verdict:<7} {check['check']}: {check['detail']}")
    if "passed" in report:
        status = report.get("status") or ("passed" if report["passed"] else "failed")
        failed = [c for c in checks if not c["ok"] and c.get("level", "fail") == "fail"]
        degraded = [c for c in checks if not c["ok"] and c.get("level") == "degraded"]
        if status == "passed":
            lines.append("PASSED")
        elif status == "degraded":
            lines.append(
                f"DEGRADED: {len(degraded)} threshold{'s' if len(degraded) != 1 else ''} "
                f"crossed (exit status {EXIT_DEGRADED})"
            )
        else:
            lines.append(f"FAILED: {len(failed)} check{'s' if len(failed) != 1 else ''} failed")
    return "\n".join(lines)


#: The latency table's columns.
TABLE_STATS = ("min", "avg", "med", "p90", "p95", "p99", "max")


#: How a crossed check is printed, by its level.
CROSSED = {"fail": "FAILED", "degraded": "DEGRADED"}


def _counts(counts: Mapping[str, Any], sep: str = " ") -> str:
    return ", ".join(f"{key}{sep}{value}" for key, value in counts.items()) or "none"


def _share(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.2%}"

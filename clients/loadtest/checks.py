"""A load run's verdict: the checks that fail it or mark it degraded, and the exit status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clients.load_config import (
    SHARE_METRICS,
    Threshold,
)
from clients.loadtest.config import LoadConfig

#: Exit statuses of ``arena loadtest``.
EXIT_OK = 0


EXIT_CHECK_FAILED = 1


EXIT_USAGE = 2


EXIT_DEGRADED = 3


EXIT_INTERRUPTED = 130


def run_status(checks: list[dict[str, Any]]) -> str:
    """``failed`` if a fail-level check failed, ``degraded`` if only degraded-level ones did,
    else ``passed``."""
    crossed = {check.get("level", "fail") for check in checks if not check["ok"]}
    if "fail" in crossed:
        return "failed"
    return "degraded" if crossed else "passed"


def _check(name: str, ok: bool, detail: str, level: str = "fail") -> dict[str, Any]:
    return {"check": name, "ok": ok, "detail": detail, "level": level}


def run_checks(report: Mapping[str, Any], config: LoadConfig) -> list[dict[str, Any]]:
    """Every check of a run: ``{"check", "ok", "detail"}``, the detail in plain words."""
    thinks = report["thinks"]
    checks = [
        _check(
            "no lost answers",
            thinks["lost"] == 0 and report["lost_replies"] == 0,
            f"{thinks['lost']} thinks got no bestmove, {report['lost_replies']} other "
            "requests got no reply",
        ),
    ]
    failed = {
        key: count
        for key, count in report["connections"].items()
        if count
        and (
            key.startswith("connect_failed")
            or key.startswith("closed_by")
            or key == "connection_lost"
        )
    }
    checks.append(
        _check(
            "no failed connections",
            not failed,
            "none failed"
            if not failed
            else "failed: " + ", ".join(f"{key} x{count}" for key, count in sorted(failed.items())),
        )
    )
    checks.append(
        _check(
            "no malformed answers",
            thinks["malformed"] == 0,
            f"{thinks['malformed']} bestmoves broke the protocol",
        )
    )
    by_name: dict[str, list[dict[str, Any]]] = {}
    for threshold in config.checked_thresholds():
        check = threshold_check(report, threshold)
        if check is not None:
            by_name.setdefault(check["check"], []).append(check)
    checks.extend(_merge_levels(group) for group in by_name.values())
    return checks


def _merge_levels(group: list[dict[str, Any]]) -> dict[str, Any]:
    """One check per metric: the worst level crossed, every limit in the detail.

    A metric with a ``degraded`` and a ``fail`` limit (the defaults) is one
    line: ``67.14% of ... (degraded above 5.00%, fails above 25.00%)``.
    """
    if len(group) == 1:
        return group[0]
    crossed = [check for check in group if not check["ok"]]
    worst = next((c for c in crossed if c["level"] == "fail"), crossed[0] if crossed else None)
    figure = group[0]["detail"].rpartition(" (limit ")[0] or group[0]["detail"]
    limits = []
    for check in sorted(group, key=lambda check: check["level"] == "fail"):
        limit = check["detail"].rpartition(" (limit ")[2].rstrip(")")
        word = "fails" if check["level"] == "fail" else "degraded"
        limits.append(f"{word} beyond {limit}")
    return {
        "check": group[0]["check"],
        "ok": worst is None,
        "detail": f"{figure} ({', '.join(limits)})",
        "level": worst["level"] if worst is not None else "fail",
    }


def threshold_check(report: Mapping[str, Any], threshold: Threshold) -> dict[str, Any] | None:
    """The check of one threshold against the report (``None``: not measured in this mode)."""
    level = threshold.level
    if threshold.stat is None:
        section, key = SHARE_METRICS[threshold.metric]
        figures = report.get(section)
        if figures is None:
            return None  # dropped runs exist in the arrival-rate mode only
        share = figures[key]
        if threshold.metric == "overloaded_share":
            detail = (
                f"{share:.2%} of {figures['answered']} answered thinks were answered overloaded"
            )
        elif threshold.metric == "refused_share":
            detail = f"{share:.2%} of {figures['sent']} thinks sent were refused as overloaded"
        else:
            detail = f"{share:.2%} of {figures['due']} scenario runs due were dropped"
        limit = f"{threshold.limit:.2%}"
        if threshold.op != "<=":
            limit = f"{threshold.op} {limit}"
        return _check(threshold.name, threshold.holds(share), f"{detail} (limit {limit})", level)
    summary = report["latency_ms"].get(threshold.metric, {"count": 0})
    if threshold.stat != "count" and not summary.get("count"):
        what = (
            "no timed think was answered, so lateness could not be measured"
            if threshold.metric == "bestmove_lateness"
            else f"no {threshold.metric} sample, so it could not be measured"
        )
        return _check(threshold.name, False, what, level)
    value = float(summary.get(threshold.stat, 0))
    if threshold.metric == "bestmove_lateness" and threshold.stat != "count":
        detail = (
            f"{threshold.stat} {value:.1f} ms after the deadline over {summary['count']} timed "
            "thinks"
        )
    elif threshold.stat == "count":
        detail = f"{value:g} samples"
    else:
        detail = f"{threshold.stat} {value:.1f} ms over {summary['count']} samples"
    limit_text = f"{threshold.limit:g}" + ("" if threshold.stat == "count" else " ms")
    if threshold.op != "<=":
        limit_text = f"{threshold.op} {limit_text}"
    return _check(threshold.name, threshold.holds(value), f"{detail} (limit {limit_text})", level)


def exit_status(report: Mapping[str, Any]) -> int:
    """``arena loadtest``'s exit status: 0 passed, 3 degraded, 1 failed (see docs/load.md)."""
    status = report.get("status") or ("passed" if report.get("passed") else "failed")
    return {"passed": EXIT_OK, "degraded": EXIT_DEGRADED}.get(status, EXIT_CHECK_FAILED)

"""The load run's time series (``--out``): one row per interval, as CSV or JSON."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from clients.loadtest.summary import percentiles

if TYPE_CHECKING:  # the run writes its series: imported for the annotation only
    from clients.loadtest.runner import LoadRun


def series_row(run: LoadRun, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the time series: the interval's counts and latencies, and where the stages are.

    ``t_s`` is the row's end (seconds into the run); counts are over the
    interval; ``*_p50``/``*_p95``/``*_p99`` (ms) summarise the interval's
    samples only (empty when it had none).
    """
    row: dict[str, Any] = {
        "t_s": round(time.monotonic() - run.started, 3),
        "target": round(run.target, 3),
        "connections": run.connected,
    }
    for key in (
        "iterations",
        "thinks_sent",
        "thinks_answered",
        "overloaded",
        "refused",
        "lost",
        "errors",
        "dropped",
    ):
        row[key] = after[key] - before.get(key, 0)
    for name in SERIES_LATENCIES:
        values = run.recorder.samples.get(name, [])
        start = before.get("samples", {}).get(name, 0)
        summary = percentiles(values[start : after["samples"].get(name, 0)])
        for stat in ("p50", "p95", "p99"):
            row[f"{name}_{stat}"] = summary.get(stat, "")
    return row


#: Latencies the time series summarises per interval.
SERIES_LATENCIES = ("think_rtt", "bestmove_lateness")


SERIES_FORMATS = ("csv", "json")


def series_target(out: str) -> tuple[str, str]:
    """``(format, path)`` of ``--out``: ``csv=FILE`` / ``json=FILE`` (as k6 writes it), or a
    path ending ``.csv`` or ``.json``; ``ValueError`` otherwise."""
    kind, sep, path = out.partition("=")
    if sep and kind in SERIES_FORMATS and path:
        return kind, path
    for kind in SERIES_FORMATS:
        if out.endswith(f".{kind}"):
            return kind, out
    raise ValueError(f"--out {out!r}: write csv=FILE, json=FILE, or a .csv or .json path")


def write_series(rows: list[dict[str, Any]], out: str, interval_s: float) -> None:
    """Write the time series to ``out`` (see :func:`series_target`)."""
    kind, path = series_target(out)
    with open(path, "w", encoding="utf-8", newline="") as file:
        if kind == "json":
            json.dump({"interval_s": interval_s, "rows": rows}, file, indent=1)
            file.write("\n")
            return
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else ["t_s"])
        writer.writeheader()
        writer.writerows(rows)

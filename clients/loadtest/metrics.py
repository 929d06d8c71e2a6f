"""The server's own view of a load run, from its ``/metrics`` before and after."""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: Percentiles of the server's histograms in the report.
PERCENTILES = (50, 95, 99)


def metrics_url(ws_url: str) -> str:
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urlunsplit((scheme, parts.netloc, "/metrics", "", ""))


async def scrape_metrics(ws_url: str, token: str | None) -> dict[str, float] | None:
    """The server's metric samples by full name (with labels), or ``None`` if unreachable."""
    request = urllib.request.Request(
        metrics_url(ws_url), headers={"Authorization": f"Bearer {token}"} if token else {}
    )

    def fetch() -> str:
        with urllib.request.urlopen(request, timeout=5) as response:
            text: str = response.read().decode()
            return text

    try:
        text = await asyncio.to_thread(fetch)
    except (OSError, urllib.error.URLError):
        return None
    return parse_metrics(text)


def parse_metrics(text: str) -> dict[str, float]:
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        with contextlib.suppress(ValueError):
            samples[name] = float(value)
    return samples


def histogram_quantile_bound(
    before: Mapping[str, float], after: Mapping[str, float], name: str, quantile: float
) -> float | None:
    """Upper bound (a bucket's ``le``) of ``quantile`` over the observations between scrapes."""
    buckets: list[tuple[float, float]] = []
    for key, value in after.items():
        match = re.fullmatch(rf'{re.escape(name)}_bucket\{{le="([^"]+)"\}}', key)
        if match:
            bound = math.inf if match.group(1) == "+Inf" else float(match.group(1))
            buckets.append((bound, value - before.get(key, 0.0)))
    buckets.sort()
    if not buckets or buckets[-1][1] <= 0:
        return None
    total = buckets[-1][1]
    for bound, cumulative in buckets:
        if cumulative >= quantile * total:
            return bound
    return math.inf


def histogram_share_at_most(
    before: Mapping[str, float], after: Mapping[str, float], name: str, bound: float
) -> float | None:
    """Share of the observations between scrapes that were at most ``bound``.

    Exact when ``bound`` is one of the histogram's bucket bounds (otherwise
    the largest bucket bound below it is used); ``None`` with no observations.
    """
    total = after.get(f"{name}_count", 0.0) - before.get(f"{name}_count", 0.0)
    if total <= 0:
        return None
    below = 0.0
    for key, value in after.items():
        match = re.fullmatch(rf'{re.escape(name)}_bucket\{{le="([^"]+)"\}}', key)
        if match and match.group(1) != "+Inf" and float(match.group(1)) <= bound:
            below = max(below, value - before.get(key, 0.0))
    return below / total


def _labelled_deltas(
    before: Mapping[str, float], after: Mapping[str, float], name: str
) -> dict[str, int]:
    """``{label value: increase}`` of a counter with one label, e.g. errors by code."""
    deltas: dict[str, int] = {}
    for key, value in after.items():
        if key.startswith(f"{name}{{") and '"' in key:
            increase = int(value - before.get(key, 0.0))
            if increase:
                deltas[key.split('"')[1]] = increase
    return dict(sorted(deltas.items()))


#: The gauge that tells one run of a server from another (server/metrics.py).
START_TIME = "arena_start_time_seconds"
#: Samples that only grow while a server runs: counters, and histograms'
#: counts and buckets (not their sums: a lateness may be negative).
_GROWING = re.compile(r".*(_total|_count)(\{.*\})?|.*_bucket\{.*")


def readings_differ(before: Mapping[str, float], after: Mapping[str, float]) -> str | None:
    """Why two ``/metrics`` readings are not one server's before and after, else ``None``.

    A server restarted during the run, or two instances behind a proxy
    answering the two readings, gave negative counts (a review, 2026-12-07).
    """
    if before.get(START_TIME) != after.get(START_TIME):
        return (
            "the server restarted during the run, or the two readings came from "
            "different instances (behind a proxy)"
        )
    for key, value in before.items():
        if _GROWING.fullmatch(key) and after.get(key, 0.0) < value:
            return f"a counter went back ({key}): the server restarted during the run"
    return None


def server_view(before: Mapping[str, float], after: Mapping[str, float]) -> dict[str, Any]:
    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    view: dict[str, Any] = {}
    for label, name in (
        ("event_loop_lag", "arena_event_loop_lag_seconds"),
        ("bestmove_lateness", "arena_bestmove_lateness_seconds"),
        ("think_queue", "arena_think_queue_seconds"),
    ):
        count = delta(f"{name}_count")
        view[label] = {
            "count": int(count),
            "mean_ms": round(delta(f"{name}_sum") / count * 1000, 2) if count else None,
            **{
                f"p{percent}_le_ms": _ms(
                    histogram_quantile_bound(before, after, name, percent / 100)
                )
                for percent in PERCENTILES
            },
            "max_le_ms": _ms(histogram_quantile_bound(before, after, name, 1.0)),
        }
    lateness = "arena_bestmove_lateness_seconds"
    for label, bound in (("on_time_share", 0.0), ("within_10ms_share", 0.010)):
        share = histogram_share_at_most(before, after, lateness, bound)
        view["bestmove_lateness"][label] = None if share is None else round(share, 5)
    view["errors"] = _labelled_deltas(before, after, "arena_errors_total")
    view["bestmoves"] = _labelled_deltas(before, after, "arena_bestmoves_total")
    view["worker_restarts"] = int(delta("arena_worker_restarts_total"))
    view["info_dropped"] = int(delta("arena_info_dropped_total"))
    return view


def _ms(seconds: float | None) -> float | str | None:
    if seconds is None:
        return None
    if math.isinf(seconds):
        return "+Inf"
    return round(seconds * 1000, 3)

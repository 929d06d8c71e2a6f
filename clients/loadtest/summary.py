"""What a load run records: counts and latency samples, and their summaries."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Percentiles of the tester's own latency summaries (with min, avg and max).
SUMMARY_PERCENTILES = (50, 90, 95, 99)


@dataclass(slots=True)
class Recorder:
    """Every sample and count of a run (all sessions share one)."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    #: Depth reached by each answered think (``bestmove.depth``).
    depths: Counter[int] = field(default_factory=Counter)
    #: The reasons of the answers at depth 0 (nothing searched to completion).
    depth0_reasons: Counter[str] = field(default_factory=Counter)
    #: Per :attr:`LoadSession.group`: thinks answered, lost, refused, and
    #: answers by reason (``reason:<reason>``).
    groups: dict[str, Counter[str]] = field(default_factory=dict)

    def sample(self, name: str, seconds: float, group: str | None = None) -> None:
        self.sample_ms(name, seconds * 1000, group)

    def sample_ms(self, name: str, milliseconds: float, group: str | None = None) -> None:
        self.samples.setdefault(name, []).append(milliseconds)
        if group is not None:
            self.samples.setdefault(f"{name}[{group}]", []).append(milliseconds)

    def count(self, name: str, amount: int = 1, group: str | None = None) -> None:
        self.counts[name] += amount
        if group is not None:
            self.groups.setdefault(group, Counter())[name] += amount


def percentiles(values: list[float]) -> dict[str, float]:
    """The summary of ``values`` the report gives for every latency.

    ``count``, ``min``, ``avg``, ``med``, ``p90``, ``p95``, ``p99`` and
    ``max`` (the figures k6 prints), percentiles by nearest rank; ``p50``
    and ``mean`` repeat ``med`` and ``avg`` under the names earlier reports
    used, so that scripts reading them keep working.
    """
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    summary: dict[str, float] = {"count": len(ordered), "min": round(ordered[0], 2)}
    mean = round(sum(ordered) / len(ordered), 2)
    summary["avg"] = mean
    ranked = {
        percent: round(ordered[max(1, math.ceil(percent / 100 * len(ordered))) - 1], 2)
        for percent in SUMMARY_PERCENTILES
    }
    summary["med"] = ranked[50]
    for percent in SUMMARY_PERCENTILES:
        summary[f"p{percent}"] = ranked[percent]
    summary["max"] = round(ordered[-1], 2)
    summary["mean"] = mean
    return summary


def thinks_summary(
    counts: Counter[str], reasons: Mapping[str, int], elapsed: float
) -> dict[str, Any]:
    """Thinks sent, answered, lost, refused, ..., and the answers by reason."""
    answered, sent = counts["thinks_answered"], counts["thinks_sent"]
    overloaded = reasons.get("overloaded", 0)
    return {
        "sent": sent,
        "answered": answered,
        "lost": counts["lost_answers"],
        "refused": counts["thinks_refused"],
        "rejected": counts["thinks_rejected"],
        "aborted_on_purpose": counts["aborts"],
        "malformed": counts["malformed_answers"],
        "per_s": round(answered / elapsed, 1) if elapsed else 0.0,
        "reasons": dict(sorted(reasons.items())),
        "overloaded": overloaded,
        "overloaded_share": round(overloaded / answered, 5) if answered else 0.0,
        "refused_share": round(counts["thinks_refused"] / sent, 5) if sent else 0.0,
    }

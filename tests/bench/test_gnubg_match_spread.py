"""bench.gnubg_match's interval: none from too few pairs."""

from __future__ import annotations

import math

from bench.gnubg_match import MIN_PAIRS_FOR_INTERVAL, interval, spread


def test_too_few_pairs_give_no_interval() -> None:
    """A review of 2026-12-07: two pairs at -1.000 were reported "-1.000 ± 0.000"."""
    mean, half = interval([-1.0, -1.0])
    assert mean == -1.0 and math.isnan(half)
    assert spread(mean, half, 2) == "-1.000 (no interval: 2 pairs, fewer than 10)"
    values = [(-1.0) ** pair for pair in range(MIN_PAIRS_FOR_INTERVAL)]
    mean, half = interval(values)
    assert mean == 0.0 and half > 0.5
    assert spread(mean, half).startswith("+0.000 ± ")

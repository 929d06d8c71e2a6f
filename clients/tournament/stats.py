"""Ratings from results: Elo, error bars, likelihood of superiority, SPRT.

Pure functions of counts. The model is the logistic one used by
cutechess-cli and fastchess: an expected score ``s`` means an Elo
difference of ``-400 log10(1/s - 1)``, so 60% is +70.4 Elo.

* **Trinomial**: games are independent samples scoring 1, 1/2 or 0.
* **Pentanomial**: the two games of an opening (colours swapped) are one
  sample scoring 0, 1/4, ... 1 (the pair's points over 2). Pairing removes
  the opening's bias from the variance, so the error bars are honest (and
  usually narrower) when openings favour one side.

Error bars are 95% (±1.96 standard errors of the mean score, mapped through
the Elo curve, half the width of the interval as cutechess reports it).
The SPRT uses the normal approximation of the generalised log-likelihood
ratio: with ``N`` samples of mean ``s`` and variance ``v``,
``LLR = N (s1 - s0) (2s - s0 - s1) / (2v)``, where ``s0``, ``s1`` are the
scores of ``elo0`` and ``elo1``; it stops at ``ln(beta/(1-alpha))`` (H0)
or ``ln((1-beta)/alpha)`` (H1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Estimate:
    """A score with its Elo, 95% error (may be infinite) and LOS, from ``samples``."""

    score: float
    elo: float
    error: float
    los: float
    samples: int


def elo_from_score(score: float) -> float:
    """The logistic Elo difference for an expected score (±inf at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0  # + 0.0: no "-0.0" at 50%


def score_from_elo(elo: float) -> float:
    """The expected score for an Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: P(the true strength is higher), from wins and losses only."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def trinomial(wins: int, draws: int, losses: int) -> Estimate:
    """Elo with error bars from independent games."""
    values = [(1.0, wins), (0.5, draws), (0.0, losses)]
    score, variance, samples = _mean_variance(values)
    return _estimate(score, variance, samples, los(wins, losses))


def pentanomial(counts: Sequence[int]) -> Estimate:
    """Elo with error bars from pairs of games; ``counts[k]`` pairs scored ``k/2`` points.

    The LOS is the normal approximation ``Phi((s - 1/2) / se)``.
    """
    if len(counts) != 5:
        raise ValueError("a pentanomial needs five counts (pair points 0, 1/2, 1, 3/2, 2)")
    values = [(k / 4, count) for k, count in enumerate(counts)]
    score, variance, samples = _mean_variance(values)
    if samples == 0:
        return Estimate(0.5, 0.0, math.inf, 0.5, 0)
    error = math.sqrt(variance / samples)
    if error == 0:
        superiority = 0.5 if score == 0.5 else float(score > 0.5)
    else:
        superiority = 0.5 * (1 + math.erf((score - 0.5) / (error * math.sqrt(2))))
    return _estimate(score, variance, samples, superiority)


def pair_counts(pair_points: Sequence[float]) -> list[int]:
    """Pentanomial counts from each pair's points (0, 0.5, ... 2)."""
    counts = [0] * 5
    for points in pair_points:
        counts[round(points * 2)] += 1
    return counts


def _mean_variance(values: Sequence[tuple[float, int]]) -> tuple[float, float, int]:
    samples = sum(count for _, count in values)
    if samples == 0:
        return 0.5, 0.0, 0
    mean = sum(value * count for value, count in values) / samples
    variance = sum(count * (value - mean) ** 2 for value, count in values) / samples
    return mean, variance, samples


def _estimate(score: float, variance: float, samples: int, superiority: float) -> Estimate:
    if samples == 0:
        return Estimate(0.5, 0.0, math.inf, 0.5, 0)
    half_width = Z95 * math.sqrt(variance / samples)
    high = elo_from_score(score + half_width)
    low = elo_from_score(score - half_width)
    error = (high - low) / 2 if math.isfinite(high) and math.isfinite(low) else math.inf
    return Estimate(score, elo_from_score(score), error, superiority, samples)


# ----------------------------------------------------------------------
# SPRT.


@dataclass(frozen=True, slots=True)
class SprtState:
    """The log-likelihood ratio, its bounds, and the decision if one is reached."""

    llr: float
    lower: float
    upper: float
    decision: str | None  # "H0" (not better by elo1), "H1" (better), None (go on)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Stop for H0 at or below the first, for H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(score: float, variance: float, samples: int, elo0: float, elo1: float) -> float:
    """Normal-approximation log-likelihood ratio of H1 (elo1) over H0 (elo0)."""
    if samples == 0 or variance <= 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return samples * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)


def sprt_trinomial(
    wins: int, draws: int, losses: int, elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    score, variance, samples = _mean_variance([(1.0, wins), (0.5, draws), (0.0, losses)])
    return _decide(llr(score, variance, samples, elo0, elo1), alpha, beta)


def sprt_pentanomial(
    counts: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    score, variance, samples = _mean_variance([(k / 4, c) for k, c in enumerate(counts)])
    return _decide(llr(score, variance, samples, elo0, elo1), alpha, beta)


def _decide(value: float, alpha: float, beta: float) -> SprtState:
    lower, upper = sprt_bounds(alpha, beta)
    decision = "H0" if value <= lower else "H1" if value >= upper else None
    return SprtState(value, lower, upper, decision)

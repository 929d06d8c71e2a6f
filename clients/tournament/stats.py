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
Where that breaks down the interval is one-sided, never infinite on both
sides and never zero wide (:func:`score_interval`): a perfect score (all
won, or all lost) has no spread to measure, so its bound is the Wilson
score bound ``n / (n + 1.96^2)``; no spread at all between games that are
not all won or lost (all draws) is given the widest spread a score can
have, ``s (1 - s)``; an end of the interval beyond 0% or 100% is an
unbounded side (the display then shows only the other end, ``> -35``).
The SPRT is the generalised SPRT of fishtest (Michel Van den Bergh): under
each hypothesis (the mean score of ``elo0`` or ``elo1``) the outcome
distribution is fitted by maximum likelihood, and the log-likelihood ratio
of the counts stops the test at ``ln(beta/(1-alpha))`` (H0) or
``ln((1-beta)/alpha)`` (H1). For well-spread results it agrees with the
normal approximation ``N (s1 - s0) (2s - s0 - s1) / (2v)`` (:func:`llr`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054
#: Fewer samples (games, or pairs for the pentanomial) than this give no
#: interval at all: the normal approximation means nothing there.
MIN_SAMPLES = 3


@dataclass(frozen=True, slots=True)
class Estimate:
    """A score with its Elo, 95% interval and LOS, from ``samples``.

    ``low`` and ``high`` are the interval's ends in Elo (``-inf`` or
    ``+inf`` for an unbounded side); ``error`` is half its width, infinite
    when a side is unbounded.
    """

    score: float
    elo: float
    error: float
    los: float
    samples: int
    low: float = -math.inf
    high: float = math.inf


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


def score_interval(score: float, variance: float, samples: int) -> tuple[float, float]:
    """The 95% interval of the mean score, within [0, 1] (an end at 0 or 1 is unbounded Elo).

    ``score ± 1.96 sqrt(variance / samples)``, except where the sample shows
    no spread: a perfect score gets the Wilson bound ``n / (n + 1.96^2)``
    (its mirror for a perfect loss), and other results without spread (all
    draws) the widest variance a mean of ``score`` allows, ``score (1 - score)``.
    """
    if samples <= 0:
        return 0.0, 1.0
    if score >= 1:
        return samples / (samples + Z95**2), 1.0
    if score <= 0:
        return 0.0, Z95**2 / (samples + Z95**2)
    if variance <= 0:
        variance = score * (1 - score)
    half_width = Z95 * math.sqrt(variance / samples)
    return max(0.0, score - half_width), min(1.0, score + half_width)


def _estimate(score: float, variance: float, samples: int, superiority: float) -> Estimate:
    if samples == 0:
        return Estimate(0.5, 0.0, math.inf, 0.5, 0)
    low_score, high_score = score_interval(score, variance, samples)
    high = elo_from_score(high_score)
    low = elo_from_score(low_score)
    error = (high - low) / 2 if math.isfinite(high) and math.isfinite(low) else math.inf
    return Estimate(score, elo_from_score(score), error, superiority, samples, low, high)


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


def llr(score: float, variance: float, samples: float, elo0: float, elo1: float) -> float:
    """Normal-approximation log-likelihood ratio of H1 (elo1) over H0 (elo0)."""
    if samples == 0 or variance <= 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return samples * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)


def sprt_trinomial(
    wins: int, draws: int, losses: int, elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    outcomes = [(1.0, wins), (0.5, draws), (0.0, losses)]
    return _decide(generalized_llr(outcomes, elo0, elo1), alpha, beta)


def sprt_pentanomial(
    counts: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    outcomes = [(k / 4, count) for k, count in enumerate(counts)]
    return _decide(generalized_llr(outcomes, elo0, elo1), alpha, beta)


#: Pseudo-count given to outcomes never seen (as fishtest does): it lets a
#: distribution with the hypothesised mean exist even after one-sided results.
SPRT_PSEUDO_COUNT = 1e-3
#: Bisection steps for the Lagrange multiplier (the interval shrinks 2^-60).
MLE_STEPS = 60


def generalized_llr(outcomes: Sequence[tuple[float, int]], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 over H0, each fitted by maximum likelihood.

    For each hypothesis the outcome distribution closest to the observed
    one (in likelihood) among those with the hypothesised mean score is
    found; the LLR compares the observed counts under the two. Unlike the
    normal approximation it stays right when the results are one-sided
    (ten wins out of ten give ten times ``ln(s1/s0)``).
    """
    total = sum(count for _, count in outcomes)
    if total == 0:
        return 0.0
    counts = [count or SPRT_PSEUDO_COUNT for _, count in outcomes]
    values = [value for value, _ in outcomes]
    p0 = _closest_distribution(values, counts, score_from_elo(elo0))
    p1 = _closest_distribution(values, counts, score_from_elo(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(counts, p0, p1, strict=True))


def _closest_distribution(values: list[float], counts: list[float], mean: float) -> list[float]:
    """argmax sum n_i log p_i subject to sum p_i = 1 and sum p_i v_i = mean.

    The solution is ``p_i = f_i / (1 + t (v_i - mean))`` (``f`` the observed
    frequencies), with ``t`` the root of ``sum f_i d_i / (1 + t d_i) = 0``;
    that sum decreases in ``t``, so bisection finds it.
    """
    total = sum(counts)
    freqs = [count / total for count in counts]
    gaps = [value - mean for value in values]
    low = max((-1 / d for d in gaps if d > 0), default=-1e9)
    high = min((-1 / d for d in gaps if d < 0), default=1e9)
    for _ in range(MLE_STEPS):
        middle = (low + high) / 2
        if sum(f * d / (1 + middle * d) for f, d in zip(freqs, gaps, strict=True)) > 0:
            low = middle
        else:
            high = middle
    t = (low + high) / 2
    return [f / (1 + t * d) for f, d in zip(freqs, gaps, strict=True)]


def _decide(value: float, alpha: float, beta: float) -> SprtState:
    lower, upper = sprt_bounds(alpha, beta)
    decision = "H0" if value <= lower else "H1" if value >= upper else None
    return SprtState(value, lower, upper, decision)

"""Elo, error bars, LOS and SPRT against values worked out by hand; the tables that show them."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from clients.tournament.display import crosstable_text, faults_table, format_elo, pairings_table
from clients.tournament.records import (
    ADJUDICATION,
    CONNECTION_FAILED,
    PROTOCOL_ERROR,
    RULES,
    TIME_FORFEIT,
)
from clients.tournament.standings import GameResult, fault_counts
from clients.tournament.stats import (
    elo_from_score,
    llr,
    los,
    pair_counts,
    pentanomial,
    score_from_elo,
    score_interval,
    sprt_bounds,
    sprt_pentanomial,
    sprt_trinomial,
    trinomial,
)


def test_elo_of_a_score() -> None:
    # -400 log10(1/0.6 - 1) = 400 log10(1.5) = 400 * 0.176091 = 70.44
    assert elo_from_score(0.6) == pytest.approx(70.44, abs=0.01)
    # 75%: 400 log10(3) = 190.85
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.5) == 0 and str(elo_from_score(0.5)) == "0.0"
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.37)) == pytest.approx(0.37)


def test_trinomial_error_bars_and_los() -> None:
    estimate = trinomial(60, 0, 40)
    # variance per game: (60 * 0.4^2 + 40 * 0.6^2) / 100 = 0.24; se = sqrt(0.24/100) = 0.04899
    # 95%: 0.6 ± 1.96 * 0.04899 = [0.50398, 0.69602] -> Elo [+2.77, +143.91]; half width 70.57
    assert estimate.elo == pytest.approx(70.44, abs=0.01)
    assert estimate.error == pytest.approx(70.57, abs=0.02)
    # LOS = (1 + erf((60 - 40) / sqrt(2 * 100))) / 2 = (1 + erf(1.41421)) / 2 = 0.97725
    assert estimate.los == pytest.approx(0.97725, abs=1e-5)
    assert los(60, 40) == estimate.los
    assert los(0, 0) == 0.5 and los(5, 5) == 0.5
    # draws narrow the error bars: 40 wins, 40 draws, 20 losses is also 60%
    assert trinomial(40, 40, 20).error < estimate.error
    assert trinomial(0, 0, 0).samples == 0 and trinomial(3, 0, 0).error == math.inf


def test_pentanomial() -> None:
    # pair scores 0.5 and 1.0: mean 0.75, variance 0.0625, se = sqrt(0.0625/2) = 0.17678;
    # LOS = Phi(0.25 / 0.17678) = Phi(1.41421) = 0.92135
    estimate = pentanomial([0, 0, 1, 0, 1])
    assert estimate.score == 0.75 and estimate.samples == 2
    assert estimate.los == pytest.approx(0.92135, abs=1e-5)
    # pairs [2, 5, 10, 15, 8] (40 pairs): mean = (5*.25 + 10*.5 + 15*.75 + 8) / 40 = 0.6375
    estimate = pentanomial([2, 5, 10, 15, 8])
    assert estimate.score == pytest.approx(0.6375)
    assert estimate.elo == pytest.approx(98.07, abs=0.01)
    # variance = (0.81281 + 0.75078 + 0.18906 + 0.18984 + 1.05125) / 40 = 2.99375 / 40;
    # se = sqrt(0.074844 / 40) = 0.043255; 95%: 0.6375 ± 0.08478
    half = 1.959964 * math.sqrt(2.99375 / 40 / 40)
    assert half == pytest.approx(0.08478, abs=1e-5)
    expected = (elo_from_score(0.6375 + half) - elo_from_score(0.6375 - half)) / 2
    assert estimate.error == pytest.approx(expected, abs=0.01)
    assert pair_counts([0, 0.5, 1, 1, 2, 1.5]) == [1, 1, 2, 1, 1]
    with pytest.raises(ValueError):
        pentanomial([1, 2, 3])


def test_sprt() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    # elo1 = 10 -> s1 = 1 / (1 + 10^(-10/400)) = 0.514387; s0 = 0.5
    s1 = 0.514387
    # normal approximation, 60-40: 100 * 0.014387 * (1.2 - 1.014387) / (2 * 0.24) = 0.5563
    assert llr(0.6, 0.24, 100, 0, 10) == pytest.approx(0.5563, abs=1e-4)
    # generalised (exact) LLR: with wins and losses only, the fitted distributions are
    # P(win) = s1 and s0: 60 ln(s1/s0) + 40 ln((1-s1)/(1-s0)) = 1.70208 - 1.16784 = 0.5342
    state = sprt_trinomial(60, 0, 40, 0, 10, 0.05, 0.05)
    hand = 60 * math.log(s1 / 0.5) + 40 * math.log((1 - s1) / 0.5)
    assert hand == pytest.approx(0.5342, abs=1e-4)
    assert state.llr == pytest.approx(hand, abs=1e-3) and state.decision is None
    assert sprt_trinomial(600, 0, 400, 0, 10, 0.05, 0.05).decision == "H1"  # LLR 5.34
    assert sprt_trinomial(400, 0, 600, 0, 10, 0.05, 0.05).decision == "H0"  # LLR -6.17
    assert sprt_trinomial(0, 0, 0, 0, 10, 0.05, 0.05).llr == 0
    # balanced pairs favour neither hypothesis much
    assert abs(sprt_pentanomial([1, 4, 10, 4, 1], 0, 10, 0.05, 0.05).llr) < 0.5


def test_sprt_one_sided_results() -> None:
    # zero variance breaks the normal approximation; the exact LLR of n straight
    # wins is n ln(s1/s0): elo1 = 50 -> s1 = 0.571463, ln(0.571463/0.5) = 0.13359 per win
    assert sprt_trinomial(10, 0, 0, 0, 50, 0.05, 0.05).llr == pytest.approx(1.3359, abs=1e-3)
    assert sprt_trinomial(23, 0, 0, 0, 50, 0.05, 0.05).decision == "H1"  # 3.07 > 2.94
    assert sprt_trinomial(22, 0, 0, 0, 50, 0.05, 0.05).decision is None  # 2.939 < 2.944
    assert sprt_pentanomial([0, 0, 0, 0, 3], 0, 10, 0.05, 0.05).llr > 0
    assert sprt_trinomial(0, 0, 25, 0, 50, 0.05, 0.05).decision == "H0"


def test_intervals_stay_readable_for_small_and_one_sided_samples() -> None:
    # nothing, and too little, to say anything
    assert format_elo(trinomial(0, 0, 0)) == "n/a (no games)"
    assert format_elo(trinomial(1, 0, 1)) == "n/a (too few games)"
    assert format_elo(pentanomial([0, 0, 1, 0, 1]), "pairs") == "n/a (too few pairs)"
    # ten straight wins: the score's 95% lower bound is Wilson's n / (n + z^2)
    # = 10 / 13.8414 = 0.72247 -> -400 log10(1/0.72247 - 1) = 400 * 0.41550 = +166.2 Elo;
    # no upper bound
    ten = trinomial(10, 0, 0)
    assert score_interval(1.0, 0.0, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert ten.low == pytest.approx(166.2, abs=0.05) and ten.high == math.inf
    # a sweep is written as what it is, an infinite estimate, with its finite bound
    # (issue 28: "> +7.0" read as an Elo of 7)
    assert format_elo(ten) == "+inf (> +166.2)"
    assert format_elo(trinomial(0, 0, 10)) == "-inf (< -166.2)"
    # (three pairs won: Wilson's bound 3 / 6.84 = 43.9% of the points, -42.9 Elo)
    assert format_elo(pentanomial([0, 0, 0, 0, 3]), "pairs") == "+inf (> -42.9)"
    # 3 wins, 1 loss: 75% ± 1.96 sqrt(0.1875 / 4) = [0.32566, 1.17434]: beyond 100%, so
    # one-sided; -400 log10(1/0.32566 - 1) = -400 * 0.31612 = -126.4
    assert format_elo(trinomial(3, 0, 1)) == "+190.8 (> -126.4)"
    assert format_elo(trinomial(1, 0, 3)) == "-190.8 (< +126.4)"
    # all draws: no spread seen, so the widest a 50% score allows, 0.25 per game:
    # 0.5 ± 1.96 * 0.5 / sqrt(10) = [0.19010, 0.80990] -> ±251.8 Elo, not ± 0
    assert format_elo(trinomial(0, 10, 0)) == "+0.0 ± 251.8"
    # three draws: 0.5 ± 1.96 * 0.5 / sqrt(3) = 0.5 ± 0.566, past both ends
    assert format_elo(trinomial(0, 3, 0)) == "+0.0 (no 95% bound)"
    # two-sided and finite: as before
    assert format_elo(trinomial(60, 0, 40)) == "+70.4 ± 70.6"
    # never "nan", never an infinite error bar; "inf" only as a sweep's estimate
    sweep = re.compile(r"^(\+inf \(> |-inf \(< )[-+]\d+\.\d\)$")
    texts: list[tuple[tuple[int, ...], str]] = [
        (counts, format_elo(trinomial(*counts)))
        for counts in itertools.product(range(6), range(4), range(6))
    ]
    texts += [
        (pairs, format_elo(pentanomial(pairs), "pairs"))
        for pairs in itertools.product(range(3), repeat=5)
    ]
    for counts, text in texts:
        assert "nan" not in text and "± inf" not in text, (counts, text)
        assert "inf" not in text or sweep.match(text), (counts, text)


def test_fault_table_counts_losses_by_kind() -> None:
    results = [
        GameResult(0, 0, 0, 1, 0.0, TIME_FORFEIT),  # engine 0 lost on time
        GameResult(1, 0, 1, 0, 1.0, PROTOCOL_ERROR),  # engine 0 (second) broke the protocol
        GameResult(2, 1, 1, 2, 0.0, CONNECTION_FAILED),  # engine 1 unreachable
        GameResult(3, 1, 2, 1, 1.0, RULES),  # a normal loss counts nowhere
        GameResult(4, 2, 0, 2, 0.5, ADJUDICATION),
    ]
    assert [r.at_fault for r in results] == [0, 0, 1, None, None]
    counts = fault_counts(results, 3)
    assert counts[0][TIME_FORFEIT] == 1 and counts[0][PROTOCOL_ERROR] == 1
    assert counts[1][CONNECTION_FAILED] == 1 and sum(counts[2].values()) == 0
    table = faults_table(["alpha", "b", "c"], results).splitlines()
    assert table[0].split() == [
        "engine",
        "time",
        "timeout",
        "illegal",
        "disconnect",
        "protocol",
        "unreachable",
        "failed",
        "total",
    ]
    assert table[1].split() == ["alpha", "1", "0", "0", "0", "1", "0", "0", "2"]
    assert table[2].split() == ["b", "0", "0", "0", "0", "0", "1", "0", "1"]
    assert table[3].split() == ["c"] + ["0"] * 8
    # every column is right-aligned under its heading
    assert all(len(line) == len(table[0]) for line in table)


def test_crosstable_shows_full_names_in_columns_as_wide_as_them() -> None:
    """Seen: names cut to nine characters, so "full-clock" read "full-cloc" and
    "local d4" and "local d4 #2" would have been two columns headed alike."""
    names = ["local d4", "local d4 #2", "a-much-longer-engine-name", "x"]
    results = [
        GameResult(1, 0, 0, 1, 1.0),
        GameResult(2, 0, 1, 0, 0.5),
        GameResult(3, 1, 2, 3, 0.0),
    ]
    lines = crosstable_text(names, results).splitlines()
    header = lines[0]
    for name in names:
        assert f" {name}" in header
    assert [line.split("  ")[0].strip() for line in lines[1:]] == names
    # every cell ends under the end of its column's name
    ends = [header.index(name) + len(name) for name in names]
    assert all(len(line) == ends[-1] for line in lines)
    row = lines[1]
    assert row[ends[1] - len("1.5/2") : ends[1]] == "1.5/2"
    assert row[ends[0] - 1 : ends[0]] == "-"
    assert lines[4][ends[2] - len("1/1") : ends[2]] == "1/1"
    # A pair that never met is blank, as in cutechess (it read "0/0").
    assert "0/0" not in "\n".join(lines)
    assert row[ends[2] - 3 : ends[2]] == "   "


def test_the_pentanomial_line_gives_no_los_without_an_elo() -> None:
    """A review of 2026-12-07: two pairs read "Elo n/a (too few pairs), LOS
    100.0%" beside the trinomial's 97.7%."""
    two_pairs = [
        GameResult(1, 0, 0, 1, 1.0),
        GameResult(2, 0, 1, 0, 0.0),
        GameResult(3, 1, 0, 1, 1.0),
        GameResult(4, 1, 1, 0, 0.0),
    ]
    text = pairings_table(["a", "b"], two_pairs)
    assert "(2 pairs): Elo n/a (too few pairs), LOS n/a" in text, text
    three_pairs = [*two_pairs, GameResult(5, 2, 0, 1, 0.5), GameResult(6, 2, 1, 0, 0.5)]
    assert re.search(r"\(3 pairs\): Elo .*, LOS \d+\.\d%", pairings_table(["a", "b"], three_pairs))

"""The hand-made backgammon features: shot counts against the published table, primes, contact."""

from __future__ import annotations

import pytest

from engine.games.backgammon import START_BOARD
from engine.games.backgammon_features import FEATURE_NAMES, ROLLS_AT_DISTANCE, features

#: Rolls of 36 that hit a lone blot at each distance when nothing blocks the
#: way: the standard "shots" table of backgammon books (e.g. Robertie,
#: "Backgammon for Winners", and bkgm.com's probability tables).
SHOTS_TABLE = {
    1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
    15: 1, 16: 1, 18: 1, 20: 1, 24: 1,
}  # fmt: skip


def board(**points: int) -> tuple[int, ...]:
    """A board from ``p<n>=count`` (point n, 1-24) and ``bar=count``; the rest borne off."""
    counts = [0] * 25
    for name, count in points.items():
        counts[24 if name == "bar" else int(name[1:]) - 1] = count
    return tuple(counts)


def named(me: tuple[int, ...], opp: tuple[int, ...]) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, features(me, opp), strict=True))


@pytest.mark.parametrize("distance", range(1, 25))
def test_shots_at_each_distance_match_the_published_table(distance: int) -> None:
    # My checker on the bar (25 pips from home); the blot `distance` pips ahead,
    # on my point 25 - distance, which is its owner's point `distance`.
    me = board(bar=1)
    opp = board(**{f"p{distance}": 1})
    assert named(me, opp)["on_roll_shots"] * 36 == pytest.approx(SHOTS_TABLE.get(distance, 0))
    assert bin(ROLLS_AT_DISTANCE[distance]).count("1") == SHOTS_TABLE.get(distance, 0)


def test_shots_count_each_roll_once_however_many_checkers_hit() -> None:
    # Two checkers 6 and 8 pips from one blot, and a second blot 1 pip from the
    # first checker: the union of the rolls, not their sum.
    me = board(p24=1, p22=1)
    opp = board(p7=1, p2=1)  # my points 18 and 23
    rolls = ROLLS_AT_DISTANCE[6] | ROLLS_AT_DISTANCE[4] | ROLLS_AT_DISTANCE[1]
    assert named(me, opp)["on_roll_shots"] * 36 == pytest.approx(bin(rolls).count("1"))


def test_a_checker_on_the_bar_shoots_from_25() -> None:
    me = board(bar=1, p1=14)
    opp = board(p20=1, p1=14)  # the blot on its owner's 20 is my 5: 20 pips from the bar
    assert named(me, opp)["on_roll_shots"] * 36 == pytest.approx(SHOTS_TABLE[20])
    assert named(me, opp)["on_roll_back"] == 1.0


def test_the_start_position() -> None:
    values = named(START_BOARD, START_BOARD)
    for side in ("on_roll", "other"):
        assert values[f"{side}_shots"] == 0.0  # no blots
        assert values[f"{side}_prime"] == pytest.approx(1 / 6)  # no two made points in a row
        assert values[f"{side}_back"] == pytest.approx(24 / 25)
        assert values[f"{side}_home"] == pytest.approx(1 / 6)  # the 6 point
        assert values[f"{side}_blots"] == 0.0
    assert values["contact"] == 1.0


def test_a_prime_counts_consecutive_made_points_up_to_six() -> None:
    five = board(p4=2, p5=2, p6=3, p7=2, p8=2, p10=2, bar=2)
    seven = board(p2=2, p3=2, p4=2, p5=2, p6=2, p7=2, p8=3)
    other = board(p24=15)
    assert named(five, other)["on_roll_prime"] == pytest.approx(5 / 6)
    assert named(seven, other)["on_roll_prime"] == 1.0
    assert named(five, other)["on_roll_home"] == pytest.approx(3 / 6)


def test_contact_ends_when_the_armies_have_passed() -> None:
    # My rearmost on my 8 point; theirs on their 16 point, which is my 9:
    # every one of mine is past every one of theirs.
    assert named(board(p8=15), board(p16=15))["contact"] == 0.0
    # Theirs on their 18 point (my 7): mine on the 8 must still pass them.
    assert named(board(p8=15), board(p18=15))["contact"] == 1.0
    assert named(board(p8=14, bar=1), board(p1=15))["contact"] == 1.0

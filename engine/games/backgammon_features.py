"""Hand-made backgammon features: what a one-layer network cannot add up alone.

Reading guide
-------------

Tesauro's first TD-Gammon saw only the raw board (checkers per point), and
his later versions added a few features computed by hand, among them the
chance of being hit and the strength of a blockade (Tesauro, "Temporal
Difference Learning and TD-Gammon", CACM 1995). GNU Backgammon's networks
read a longer list of the same kind (hit chances, escapes, containment,
the back checker, whether contact remains). The reason is the same each
time: a network with one hidden layer can weigh points one by one, but a
quantity such as "how many of the 36 rolls hit a blot" depends on pairs
of points at a distance and on the dice, and is learned poorly from the
raw units. This project's distilled network, fitted to gnubg's
evaluations, stopped improving near an equity error of 0.046 at any size
tried on the raw encoding; with these features the same fit reaches
0.041, and the network chooses plays that gnubg judges better
(docs/backgammon.md, "Features and every play of a roll").

Per side, seen from that side (:data:`SIDE_FEATURES`), then one shared:

* ``shots``: the share of the 36 rolls with which this side, were it on
  roll, could hit a blot of the other: a checker (or one on the bar) at
  distance ``d`` from the blot, and a roll whose single die, sum, or
  doubled multiple is ``d``. Points blocked on the way are not checked:
  it is the common "direct and indirect shots" count, and the network
  corrects the rest from the board;
* ``prime``: the longest run of consecutive made points (two or more
  checkers), up to six (a full prime), divided by six;
* ``back``: how far from home this side's rearmost checker is (the bar
  is 25), divided by 25;
* ``home``: made points in this side's home board, divided by six (what
  a checker hit by this side must enter against);
* ``blots``: single checkers on the board, divided by five;
* ``contact`` (shared): 1 while some checker still has an opposing
  checker ahead of it, 0 in a pure race.

:func:`features` is the plain Python that the network reads (the search
calls it for every position it evaluates; compiled, about 1.5 µs a
position, where the network's sums cost about 4). Both boards are 25 counts from their owner's side,
index 24 the bar, as in :mod:`engine.games.backgammon`.
"""

from __future__ import annotations

from typing import Final

#: Names of the features, in the order :func:`features` returns them.
SIDE_FEATURES: Final = ("shots", "prime", "back", "home", "blots")
FEATURE_NAMES: Final = (
    *(f"on_roll_{name}" for name in SIDE_FEATURES),
    *(f"other_{name}" for name in SIDE_FEATURES),
    "contact",
)
#: A prime of six points cannot be passed; longer runs count as six.
FULL_PRIME: Final = 6
#: Scales, so that each feature lies in [0, 1] in positions of real games.
BACK_SCALE: Final = 25.0
BLOTS_SCALE: Final = 5.0


def _rolls_at_distance() -> tuple[int, ...]:
    """Bit ``r`` of entry ``d`` is set when roll ``r`` (of 36 ordered ones) covers ``d`` pips.

    A roll of two different dice covers each die and their sum; doubles cover
    one to four times the die. Entry 0 is unused.
    """
    masks = [0] * 25
    for roll in range(36):
        high, low = roll // 6 + 1, roll % 6 + 1
        doubles = {high, 2 * high, 3 * high, 4 * high}
        for distance in doubles if high == low else {high, low, high + low}:
            masks[distance] |= 1 << roll
    return tuple(masks)


#: For each distance 1-24, the rolls that can cover it (:func:`_rolls_at_distance`).
ROLLS_AT_DISTANCE: Final = _rolls_at_distance()


def side_features(board: tuple[int, ...], other: tuple[int, ...]) -> tuple[list[float], int]:
    """:data:`SIDE_FEATURES` of ``board`` against ``other``, and its rearmost point (0 if none)."""
    # Where this side has checkers, as bits (bit a: its point a + 1; bit 24: the bar).
    checkers = 0
    for index in range(25):
        if board[index]:
            checkers |= 1 << index
    # Bit d - 1 of `distances` is set when some checker is d pips behind an
    # opposing blot. The other side's point q is this side's point 25 - q,
    # that is index 23 - (q's index).
    distances = 0
    run = longest = home = blots = rearmost = 0
    for index in range(24):
        count = board[index]
        if count >= 2:
            run += 1
            longest = max(longest, run)
            if index < 6:
                home += 1
        else:
            run = 0
            if count == 1:
                blots += 1
        if count:
            rearmost = index + 1
        if other[23 - index] == 1:
            distances |= checkers >> (index + 1)
    if board[24]:
        rearmost = 25
    hits = 0
    distance = 1
    while distances:
        if distances & 1:
            hits |= ROLLS_AT_DISTANCE[distance]
        distances >>= 1
        distance += 1
    values = [
        hits.bit_count() / 36.0,
        min(longest, FULL_PRIME) / FULL_PRIME,
        rearmost / BACK_SCALE,
        home / 6.0,
        blots / BLOTS_SCALE,
    ]
    return values, rearmost


def features(me: tuple[int, ...], opp: tuple[int, ...]) -> list[float]:
    """:data:`FEATURE_NAMES` of a position, ``me`` the board of the player on roll."""
    mine, my_rearmost = side_features(me, opp)
    theirs, their_rearmost = side_features(opp, me)
    # My rearmost checker on my point m meets theirs on their point t (my
    # point 25 - t) as long as m > 25 - t: they have yet to pass each other.
    contact = 1.0 if my_rearmost + their_rearmost > 25 else 0.0
    return [*mine, *theirs, contact]

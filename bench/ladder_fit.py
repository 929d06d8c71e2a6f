"""One rating from games against several anchored opponents (a ladder).

Our chess engine plays Stockfish at several ``UCI_Elo`` levels (issue 29:
1600, 1900 and 2100, ``bash bench/stockfish_match.sh``); each level alone
gives a score and an Elo difference, but what a reader wants is one rating
on that scale with its interval. This module fits it by maximum likelihood
under the logistic Elo model that the anchors' ratings are on: a game
against an opponent rated ``r`` is expected to score
``1 / (1 + 10 ** ((r - R) / 400))`` for a player rated ``R``, a draw scoring
one half. The rating ``R`` solves "sum of scores = sum of expectations"
(the likelihood's stationary point; it exists when the player neither won
nor lost every game), found by bisection since the sum is monotone in
``R``.

The interval is the normal one, ``R ± 1.96 SE``, with the standard error
from the sandwich (robust) variance: the spread of the observed scores
around their expectations divided by the squared slope of the expected
total. Unlike the binomial variance it stays right when draws make the
per-game variance smaller than a win/loss coin's. Games are taken as
independent (the pairs played from one opening with colours swapped are
not modelled as pairs: the interval is a little too wide when the openings
favour one side and a little too narrow otherwise).

Run on a tournament database written by ``arena tournament --db``::

    python -m bench.ladder_fit --db /tmp/ladder.db --player ours \\
        --anchor sf1600=1600 --anchor sf1900=1900 --anchor sf2100=2100
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass

#: The logistic Elo model's scale: 400 points of difference give 10:1 odds.
ELO_SCALE = 400.0
#: Two-sided 95% normal quantile.
Z95 = 1.959964
#: The bisection's bracket: far outside any chess rating.
LOW, HIGH = -2000.0, 6000.0


@dataclass(frozen=True)
class LadderFit:
    """The fitted rating, with ``None`` bounds where the data gives none."""

    rating: float | None
    low: float | None
    high: float | None
    games: int
    points: float


def expected(rating: float, opponent: float) -> float:
    """The expected score of a player rated ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / ELO_SCALE))


def fit_rating(games: Sequence[tuple[float, float]]) -> LadderFit:
    """Fit one rating to ``(opponent rating, score)`` pairs (score 0, 0.5 or 1)."""
    n = len(games)
    points = sum(score for _, score in games)
    if n == 0 or points in (0.0, float(n)):
        # All wins or all losses: the likelihood grows without bound.
        return LadderFit(None, None, None, n, points)
    low, high = LOW, HIGH
    for _ in range(100):
        middle = (low + high) / 2
        if sum(expected(middle, opponent) for opponent, _ in games) < points:
            low = middle
        else:
            high = middle
    rating = (low + high) / 2
    # d/dR of E = E (1 - E) ln(10) / 400.
    slope = sum(
        expected(rating, opponent) * (1 - expected(rating, opponent)) for opponent, _ in games
    ) * (math.log(10) / ELO_SCALE)
    spread = sum((score - expected(rating, opponent)) ** 2 for opponent, score in games)
    error = math.sqrt(spread) / slope
    return LadderFit(rating, rating - Z95 * error, rating + Z95 * error, n, points)


def games_from_db(path: str, player: str, anchors: dict[str, float]) -> list[tuple[float, float]]:
    """``(anchor rating, our score)`` for every finished game of ``player`` against an anchor."""
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            raise ValueError(f"{path}: not a tournament database (no config)")
        names = [engine["name"] for engine in json.loads(row[0])["engines"]]
        rows = db.execute("SELECT first, second, first_points FROM games WHERE done = 1").fetchall()
    finally:
        db.close()
    out: list[tuple[float, float]] = []
    for first, second, first_points in rows:
        one, two = names[first], names[second]
        if one == player and two in anchors:
            out.append((anchors[two], float(first_points)))
        elif two == player and one in anchors:
            out.append((anchors[one], 1.0 - float(first_points)))
    return out


def _parse_anchor(text: str) -> tuple[str, float]:
    name, _, rating = text.partition("=")
    if not name or not rating:
        raise argparse.ArgumentTypeError(f"an anchor is NAME=RATING, not {text!r}")
    try:
        return name, float(rating)
    except ValueError:
        raise argparse.ArgumentTypeError(f"rating not a number in {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--db",
        action="append",
        required=True,
        help="a database written by arena tournament --db (repeat to pool several runs, "
        "e.g. one level a run)",
    )
    parser.add_argument("--player", required=True, help="the engine to rate")
    parser.add_argument(
        "--anchor", action="append", type=_parse_anchor, required=True, help="NAME=RATING"
    )
    args = parser.parse_args(argv)
    anchors = dict(args.anchor)
    games = [game for db in args.db for game in games_from_db(db, args.player, anchors)]
    for name, rating in anchors.items():
        own = [score for opponent, score in games if opponent == rating]
        if own:
            share = 100 * sum(own) / len(own)
            print(f"against {name} ({rating:.0f}): {sum(own):g}/{len(own)} ({share:.1f}%)")
    fit = fit_rating(games)
    if fit.rating is None or fit.low is None or fit.high is None:
        print(f"{fit.points:g}/{fit.games}: no finite rating (every game won or every game lost)")
        return 1
    print(
        f"{args.player}: {fit.points:g}/{fit.games}, rating {fit.rating:.0f} "
        f"(95% interval {fit.low:.0f} to {fit.high:.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

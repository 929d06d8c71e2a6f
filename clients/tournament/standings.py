"""Standings, pairwise results and the crosstable from finished games (pure).

Results are seen from each engine's side: a pairing's wins, draws and
losses count for its first-named engine, and its pentanomial counts use
only the pairs of games (same opening, colours swapped) with both games
finished.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from clients.tournament.records import FAULT_KINDS, RULES
from clients.tournament.stats import Estimate, pair_counts, pentanomial, trinomial


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: engine indices, the points of the one that moved first, and
    how it ended (``kind``, as in :mod:`clients.tournament.records`)."""

    game_id: int
    pair: int
    first: int
    second: int
    first_points: float
    kind: str = RULES

    @property
    def at_fault(self) -> int | None:
        """The engine index that lost by a fault, if the game ended by one."""
        if self.kind not in FAULT_KINDS or self.first_points == 0.5:
            return None
        return self.first if self.first_points == 0 else self.second


@dataclass(slots=True)
class Tally:
    """Wins, draws and losses of one side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, points: float) -> None:
        if points == 1:
            self.wins += 1
        elif points == 0:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    def estimate(self) -> Estimate:
        return trinomial(self.wins, self.draws, self.losses)


@dataclass(slots=True)
class PairingResult:
    """Engine ``a`` against engine ``b``, from ``a``'s side."""

    a: int
    b: int
    tally: Tally = field(default_factory=Tally)
    pairs: list[int] = field(default_factory=lambda: [0] * 5)

    def trinomial(self) -> Estimate:
        return self.tally.estimate()

    def pentanomial(self) -> Estimate | None:
        """``None`` until at least two complete pairs of games exist."""
        return pentanomial(self.pairs) if sum(self.pairs) >= 2 else None


def engine_tallies(results: Iterable[GameResult], engine_count: int) -> list[Tally]:
    """Each engine's record over all its games."""
    tallies = [Tally() for _ in range(engine_count)]
    for result in results:
        tallies[result.first].add(result.first_points)
        tallies[result.second].add(1 - result.first_points)
    return tallies


def ranking(tallies: Sequence[Tally]) -> list[int]:
    """Engine indices by points, then by score share, then by index."""
    return sorted(
        range(len(tallies)),
        key=lambda i: (-tallies[i].points, -(tallies[i].points / max(1, tallies[i].games)), i),
    )


def pairing_results(results: Iterable[GameResult]) -> list[PairingResult]:
    """One :class:`PairingResult` per pairing that has played, lower index as ``a``."""
    pairings: dict[tuple[int, int], PairingResult] = {}
    by_pair: dict[int, list[GameResult]] = defaultdict(list)
    for result in results:
        a, b = sorted((result.first, result.second))
        entry = pairings.setdefault((a, b), PairingResult(a, b))
        entry.tally.add(result.first_points if result.first == a else 1 - result.first_points)
        by_pair[result.pair].append(result)
    for games in by_pair.values():
        if len(games) != 2:
            continue
        a, b = sorted((games[0].first, games[0].second))
        points = sum(g.first_points if g.first == a else 1 - g.first_points for g in games)
        counts = pair_counts([points])
        entry = pairings[(a, b)]
        entry.pairs = [x + y for x, y in zip(entry.pairs, counts, strict=True)]
    return sorted(pairings.values(), key=lambda p: (p.a, p.b))


def crosstable(results: Iterable[GameResult], engine_count: int) -> list[list[Tally | None]]:
    """``table[i][j]``: engine ``i``'s record against ``j`` (``None`` on the diagonal)."""
    table: list[list[Tally | None]] = [
        [None if i == j else Tally() for j in range(engine_count)] for i in range(engine_count)
    ]
    for result in results:
        row, column = table[result.first][result.second], table[result.second][result.first]
        if row is not None and column is not None:
            row.add(result.first_points)
            column.add(1 - result.first_points)
    return table


def fault_counts(results: Iterable[GameResult], engine_count: int) -> list[dict[str, int]]:
    """For each engine, its losses by fault kind (every kind of ``FAULT_KINDS``, zeros too)."""
    counts = [dict.fromkeys(FAULT_KINDS, 0) for _ in range(engine_count)]
    for result in results:
        loser = result.at_fault
        if loser is not None:
            counts[loser][result.kind] += 1
    return counts

"""Who plays whom, in which order and from which opening: pure scheduling.

Games come in pairs: the two games of a pair share an opening with the
engines' colours swapped, and they are scheduled one after the other so
that a partial result (or an early SPRT stop) stays balanced. Round ``k``
plays opening ``k`` (cycling through the list) in every pairing.

With ``repeat=1`` (cutechess-cli without ``-repeat``) each opening is
played once: every game is a round and a "pair" of its own, with the next
opening, the engines' colours alternating from one round to the next.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game to play: engine indices (``first`` moves first) and its pair of games.

    ``game_id`` numbers the games from 1 in playing order (as on screen, in
    the records and in PGN's ``Round`` tag); ``round``, ``pair`` and
    ``opening_index`` are indices from 0.
    """

    game_id: int
    round: int
    pair: int
    opening_index: int
    first: int
    second: int


def pairings(engine_count: int, gauntlet: bool = False) -> list[tuple[int, int]]:
    """Every pairing: all against all, or engine 0 against each of the others."""
    if gauntlet:
        return [(0, other) for other in range(1, engine_count)]
    return [(a, b) for a in range(engine_count) for b in range(a + 1, engine_count)]


def schedule(
    engine_count: int,
    games_per_pair: int,
    opening_count: int,
    gauntlet: bool = False,
    repeat: int = 2,
) -> list[ScheduledGame]:
    """All games of the tournament, in playing order.

    Each pairing plays ``games_per_pair`` games: with ``repeat`` 2,
    ``ceil(games / 2)`` pairs of games, the last one a single game when the
    number is odd; with ``repeat`` 1, that many single games, each with its
    own opening, colours alternating.
    """
    if opening_count < 1:
        raise ValueError("at least one opening is needed")
    if repeat not in (1, 2):
        raise ValueError("each opening is played once or twice")
    matchups = pairings(engine_count, gauntlet)
    games: list[ScheduledGame] = []
    rounds = openings_needed(games_per_pair, repeat)
    for round_number in range(rounds):
        opening = round_number % opening_count
        for index, (a, b) in enumerate(matchups):
            pair = round_number * len(matchups) + index
            if repeat == 1:
                colours = [(a, b)] if round_number % 2 == 0 else [(b, a)]
            elif 2 * round_number + 1 < games_per_pair:
                colours = [(a, b), (b, a)]
            else:
                colours = [(a, b)]
            for first, second in colours:
                games.append(
                    ScheduledGame(len(games) + 1, round_number, pair, opening, first, second)
                )
    return games


def openings_needed(games_per_pair: int, repeat: int = 2) -> int:
    """Distinct openings a tournament can use: one per pair of games (per game
    when each opening is played once)."""
    return (games_per_pair + repeat - 1) // repeat

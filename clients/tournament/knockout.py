"""Knockout tournaments: a bracket of mini-matches, by seed (pure).

The engines are seeded in the order they are given (the first is seed 1).
The bracket has as many places as the next power of two; the places left
over are byes, which go to the top seeds (seed ``s`` meets seed
``size + 1 - s`` in the first round, the usual seeding, so seeds 1 and 2
can meet only in the final). Each match is ``games_per_match`` games,
in pairs with colours swapped from one opening as in the other formats;
the engine with more points goes through.

**Tie-break**: a match tied on points plays up to :data:`TIEBREAK_PAIRS`
more pairs of games (the next openings, colours swapped), ending as soon
as a pair leaves it untied; still tied after them, the higher seed goes
through. Everything is computed again from the stored games, so a
resumed knockout schedules exactly what it would have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clients.tournament.scheduler import ScheduledGame
from clients.tournament.standings import GameResult

#: Extra pairs of games a tied match plays before the higher seed goes through.
#: Two pairs (four games) decide most ties between engines of different
#: strength and bound the match when two engines draw every game.
TIEBREAK_PAIRS = 2

#: How a match was decided.
BY_GAMES = "games"
BY_TIEBREAK = "tie-break"
BY_SEED = "seed"
BY_BYE = "bye"


@dataclass(slots=True)
class Match:
    """One match of the bracket: engines ``a`` (the higher seed) and ``b`` (None: a bye)."""

    round: int
    slot: int
    a: int | None = None
    b: int | None = None
    games: list[ScheduledGame] = field(default_factory=list)
    a_points: float = 0.0
    b_points: float = 0.0
    played: int = 0
    winner: int | None = None
    decided_by: str | None = None

    @property
    def ready(self) -> bool:
        """Both engines known (a bye is known to be one)."""
        return self.a is not None and (self.b is not None or self.decided_by == BY_BYE)


@dataclass(slots=True)
class Bracket:
    """Every match, round by round, as far as the results decide them."""

    size: int
    rounds: list[list[Match]]

    @property
    def champion(self) -> int | None:
        return self.rounds[-1][0].winner


def bracket_order(size: int) -> list[int]:
    """Seeds (from 1) in bracket order: ``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8 places.

    Neighbours meet in the first round; seed ``s`` meets ``size + 1 - s``,
    and the top two seeds are in different halves.
    """
    order = [1]
    while len(order) < size:
        places = 2 * len(order)
        order = [seed for first in order for seed in (first, places + 1 - first)]
    return order


def bracket_size(engine_count: int) -> int:
    """The places of the bracket: the next power of two (byes fill the rest)."""
    size = 1
    while size < engine_count:
        size *= 2
    return size


def build(
    engine_count: int,
    games_per_match: int,
    schedule: Sequence[ScheduledGame],
    results: Sequence[GameResult],
) -> Bracket:
    """The bracket as the scheduled and finished games make it."""
    size = bracket_size(engine_count)
    seeds = bracket_order(size)
    first_round = []
    for slot in range(size // 2):
        a, b = seeds[2 * slot] - 1, seeds[2 * slot + 1] - 1
        match = Match(0, slot, a, b if b < engine_count else None)
        first_round.append(match)
    rounds = [first_round]
    while len(rounds[-1]) > 1:
        rounds.append([Match(len(rounds), slot) for slot in range(len(rounds[-1]) // 2)])
    done = {result.game_id: result for result in results}
    for number, matches in enumerate(rounds):
        for match in matches:
            if number > 0:
                feeders = rounds[number - 1][2 * match.slot : 2 * match.slot + 2]
                winners = [feeder.winner for feeder in feeders]
                if winners[0] is None or winners[1] is None:
                    continue
                # the higher seed (lower index) is ``a``
                match.a, match.b = sorted((winners[0], winners[1]))
            _settle(match, games_per_match, schedule, done)
    return Bracket(size, rounds)


def _settle(
    match: Match,
    games_per_match: int,
    schedule: Sequence[ScheduledGame],
    done: dict[int, GameResult],
) -> None:
    """Count the match's games and decide it if they do."""
    if match.a is None:
        return
    if match.b is None:
        match.winner, match.decided_by = match.a, BY_BYE
        return
    engines = {match.a, match.b}
    match.games = [
        game
        for game in schedule
        if game.round == match.round and {game.first, game.second} == engines
    ]
    for game in match.games:
        result = done.get(game.game_id)
        if result is None:
            continue
        match.played += 1
        first_points = result.first_points
        a_points = first_points if result.first == match.a else 1 - first_points
        match.a_points += a_points
        match.b_points += 1 - a_points
    if match.played < len(match.games) or match.played < games_per_match:
        return
    if match.a_points != match.b_points:
        match.winner = match.a if match.a_points > match.b_points else match.b
        match.decided_by = BY_GAMES if match.played == games_per_match else BY_TIEBREAK
    elif match.played >= games_per_match + 2 * TIEBREAK_PAIRS:
        match.winner, match.decided_by = match.a, BY_SEED


def next_games(
    bracket: Bracket,
    games_per_match: int,
    schedule: Sequence[ScheduledGame],
    opening_count: int,
) -> list[ScheduledGame]:
    """The games to add to the schedule now: new matches, and tie-breaks of tied ones."""
    next_id = max((game.game_id for game in schedule), default=0) + 1
    next_pair = max((game.pair for game in schedule), default=-1) + 1
    added: list[ScheduledGame] = []
    for matches in bracket.rounds:
        for match in matches:
            if match.winner is not None or match.a is None or match.b is None:
                continue
            if match.played < len(match.games):
                continue  # games still to play
            if not match.games:
                count = games_per_match
            elif match.played >= games_per_match:
                count = 2  # a tie-break pair
            else:
                continue
            pairs_before = (len(match.games) + 1) // 2
            for index in range(count):
                pair_in_match = pairs_before + index // 2
                first, second = (match.a, match.b) if index % 2 == 0 else (match.b, match.a)
                added.append(
                    ScheduledGame(
                        next_id,
                        match.round,
                        next_pair + index // 2,
                        pair_in_match % opening_count,
                        first,
                        second,
                    )
                )
                next_id += 1
            next_pair += (count + 1) // 2
    return added


def expected_games(bracket: Bracket, games_per_match: int) -> int:
    """Games scheduled so far plus those of matches to come (without tie-breaks)."""
    total = 0
    for matches in bracket.rounds:
        for match in matches:
            if match.decided_by == BY_BYE:
                continue
            # (a later round's match whose engines are not known yet counts too:
            # byes are only in the first round)
            total += max(len(match.games), games_per_match)
    return total


def bracket_text(names: Sequence[str], bracket: Bracket, games_per_match: int) -> str:
    """The bracket, round by round: each match's seeds, engines, score and who went through.

    ``  [1] alpha  1.5-0.5  [4] delta  -> alpha``; a match still being
    played says so, one whose engines are not known yet shows ``?``.
    """
    width = max(len(name) for name in names) + 4
    lines = [
        f"Knockout (seeds in --engine order; {games_per_match} game"
        f"{'s' if games_per_match != 1 else ''} a match; a tie: up to "
        f"{TIEBREAK_PAIRS} more pairs of games, then the higher seed)"
    ]
    for number, matches in enumerate(bracket.rounds):
        lines.append(round_name(number, len(bracket.rounds)))
        for match in matches:
            left = _entrant(names, match.a)
            if match.decided_by == BY_BYE:
                lines.append(f"  {left:<{width}}  bye")
                continue
            right = _entrant(names, match.b)
            score = f"{match.a_points:g}-{match.b_points:g}" if match.played else "-"
            line = f"  {left:<{width}}  {score:>7}  {right:<{width}}"
            if match.winner is not None:
                line += f"  -> {names[match.winner]}"
                if match.decided_by == BY_TIEBREAK:
                    line += " (after tie-break games)"
                elif match.decided_by == BY_SEED:
                    line += " (still tied: the higher seed)"
            elif match.games:
                line += f"  playing ({match.played} of {len(match.games)} games)"
            lines.append(line.rstrip())
    champion = bracket.champion
    lines.append(f"Winner: {names[champion]}" if champion is not None else "Winner: not yet known")
    return "\n".join(lines)


def _entrant(names: Sequence[str], index: int | None) -> str:
    return "?" if index is None else f"[{index + 1}] {names[index]}"


def round_name(number: int, rounds: int) -> str:
    """``Final``, ``Semi-finals``, ``Quarter-finals``, else ``Round 1``..."""
    from_end = rounds - 1 - number
    names = {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}
    return names.get(from_end, f"Round {number + 1}")

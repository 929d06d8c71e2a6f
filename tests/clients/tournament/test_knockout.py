"""Knockout, the third format (issue 28): seeds, byes, mini-matches, the tie-break,
the printed bracket, and a whole knockout between real servers."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.cli import main
from clients.tournament import knockout
from clients.tournament.command import configure
from clients.tournament.config import EngineSpec, TimeControl
from clients.tournament.display import Progress
from clients.tournament.knockout import (
    BY_BYE,
    BY_GAMES,
    BY_SEED,
    BY_TIEBREAK,
    TIEBREAK_PAIRS,
    bracket_order,
    bracket_text,
    build,
    next_games,
)
from clients.tournament.runner import RunSettings, TournamentRunner
from clients.tournament.scheduler import ScheduledGame
from clients.tournament.standings import GameResult
from clients.tournament.store import Store
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import TEST_BACKOFF, config, play
from tests.server.server_harness import running_server

#: Points of the first mover of a game, from the game (the policy of a simulated knockout).
Policy = Callable[[ScheduledGame], float]


def simulate(
    engines: int, games_per_match: int, policy: Policy, openings: int = 3
) -> tuple[knockout.Bracket, list[ScheduledGame]]:
    """Play a knockout to its end with ``policy`` deciding each game."""
    schedule: list[ScheduledGame] = []
    results: list[GameResult] = []
    for _ in range(100):
        bracket = build(engines, games_per_match, schedule, results)
        added = next_games(bracket, games_per_match, schedule, openings)
        if not added:
            break
        schedule += added
        for game in added:  # played at once, as if concurrently
            results.append(
                GameResult(game.game_id, game.pair, game.first, game.second, policy(game))
            )
    bracket = build(engines, games_per_match, schedule, results)
    assert next_games(bracket, games_per_match, schedule, openings) == []
    return bracket, schedule


def stronger(game: ScheduledGame) -> float:
    """The engine listed earlier (the higher seed) always wins."""
    return 1.0 if game.first < game.second else 0.0


def test_seeds_meet_in_the_usual_order() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    # the top two seeds are in different halves: they can meet only in the final
    order = bracket_order(16)
    assert 1 in order[:8] and 2 in order[8:]


def test_byes_go_to_the_top_seeds_when_not_a_power_of_two() -> None:
    bracket = build(5, 2, [], [])
    assert bracket.size == 8 and len(bracket.rounds) == 3
    first = bracket.rounds[0]
    assert [(m.a, m.b) for m in first] == [(0, None), (3, 4), (1, None), (2, None)]
    assert [m.decided_by for m in first] == [BY_BYE, None, BY_BYE, BY_BYE]
    # the one real match of the first round, seeds 4 and 5, both colours; and the
    # semi-final of seeds 2 and 3, whose byes made it known already: it starts at once
    games = next_games(bracket, 2, [], 1)
    assert [(g.game_id, g.round, g.first, g.second) for g in games] == [
        (1, 0, 3, 4),
        (2, 0, 4, 3),
        (3, 1, 1, 2),
        (4, 1, 2, 1),
    ]
    assert [g.pair for g in games] == [0, 0, 1, 1]


@pytest.mark.parametrize("engines", [2, 3, 4, 5, 6, 7, 8, 11])
def test_a_knockout_plays_one_match_fewer_than_engines(engines: int) -> None:
    bracket, schedule = simulate(engines, 2, stronger)
    assert bracket.champion == 0
    assert len(schedule) == 2 * (engines - 1)
    played = [m for r in bracket.rounds for m in r if m.decided_by != BY_BYE]
    assert len(played) == engines - 1 and all(m.decided_by == BY_GAMES for m in played)
    # each engine plays at most one match a round
    for number in range(len(bracket.rounds)):
        games = [g for g in schedule if g.round == number]
        pairs = {frozenset((g.first, g.second)) for g in games}
        assert sum(len(p) for p in pairs) == len({e for p in pairs for e in p})


def test_a_tie_plays_pairs_of_tiebreak_games_then_the_higher_seed_goes_through() -> None:
    # every game drawn: 2 games, then TIEBREAK_PAIRS pairs, then the higher seed
    bracket, schedule = simulate(2, 2, lambda game: 0.5, openings=5)
    final = bracket.rounds[0][0]
    assert final.decided_by == BY_SEED and final.winner == 0
    assert len(schedule) == 2 + 2 * TIEBREAK_PAIRS
    # tie-break pairs are new pairs from the next openings, colours swapped
    assert [g.opening_index for g in schedule] == [0, 0, 1, 1, 2, 2]
    assert [g.pair for g in schedule] == [0, 0, 1, 1, 2, 2]
    assert [(g.first, g.second) for g in schedule][2:4] == [(0, 1), (1, 0)]
    assert "(still tied: the higher seed)" in bracket_text(["a", "b"], bracket, 2)


def test_a_tiebreak_pair_that_leaves_the_match_untied_ends_it() -> None:
    def policy(game: ScheduledGame) -> float:
        if game.game_id <= 2:
            return 0.5  # the match: two draws
        return 1.0 if game.first == 1 else 0.5  # the second seed wins its tie-break game

    bracket, schedule = simulate(2, 2, policy)
    final = bracket.rounds[0][0]
    assert (final.winner, final.decided_by, len(schedule)) == (1, BY_TIEBREAK, 4)
    assert (final.a_points, final.b_points) == (1.5, 2.5)


def test_an_odd_number_of_games_a_match() -> None:
    bracket, schedule = simulate(4, 3, stronger)
    assert bracket.champion == 0 and len(schedule) == 3 * 3
    first_match = [g for g in schedule if g.round == 0 and {g.first, g.second} == {0, 3}]
    assert [(g.first, g.second) for g in first_match] == [(0, 3), (3, 0), (0, 3)]


def test_the_printed_bracket() -> None:
    names = ["alpha", "bravo", "charlie", "delta", "echo"]
    bracket, _ = simulate(5, 2, stronger)
    text = bracket_text(names, bracket, 2)
    lines = text.splitlines()
    assert lines[0].startswith("Knockout (seeds in --engine order; 2 games a match;")
    assert lines[1] == "Quarter-finals"
    assert lines[2].split() == ["[1]", "alpha", "bye"]
    assert lines[3].split() == ["[4]", "delta", "2-0", "[5]", "echo", "->", "delta"]
    assert "Semi-finals" in lines and "Final" in lines
    assert lines[-1] == "Winner: alpha"
    # before any game: the later rounds' engines are not known
    early = bracket_text(names, build(5, 2, [], []), 2)
    assert "?" in early and early.endswith("Winner: not yet known")


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    configure(parser)
    assert parser.parse_args(["--knockout"]).knockout is True
    assert "--knockout" in parser.format_help()
    status = main(
        [
            "tournament",
            "--engine",
            "local:depth=1",
            "--engine",
            "local:depth=2",
            "--depth",
            "1",
            "--knockout",
            "--gauntlet",
            "--db",
            str(tmp_path / "t.db"),
        ]
    )
    assert status == 2 and "knockout" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()


@pytest.mark.asyncio
async def test_a_knockout_between_real_servers(tmp_path: Path) -> None:
    """Seed 1 (our engine) has a bye; seeds 2 and 3 (the same first-legal-move engine)
    tie every match and tie-break, so seed 2 goes through; then the final."""
    async with (
        running_server(workers=2) as server,
        FaultyEngine("none") as two,
        FaultyEngine("none") as three,
    ):
        engines = [
            EngineSpec("engine", f"ws://127.0.0.1:{server.port}/ws", depth=2),
            EngineSpec("first-legal", two.url),
            EngineSpec("also-first-legal", three.url),
        ]
        tournament = config(engines, games=2, tc=TimeControl(depth=2), knockout=True)
        text, records = await play(tmp_path, tournament, concurrency=2)
        # a run stopped after the semi-final ended but before the final was scheduled
        # (the two are separate transactions): resuming schedules and plays the final
        store = Store.open(tmp_path / "t.db")
        store.db.execute("DELETE FROM games WHERE round = 1")
        assert len(store.results()) == 2 + 2 * TIEBREAK_PAIRS
        runner = TournamentRunner(
            store,
            RunSettings(backoff=TEST_BACKOFF),
            Progress([e.name for e in engines], 0, stream=io.StringIO(), live=False),
        )
        resumed = await runner.run()
        assert [r.round for r in store.records()[-2:]] == [1, 1]
        assert len(store.results()) == len(records)
        store.close()
        assert resumed.split("Knockout")[1] == text.split("Knockout")[1]
    semi = [r for r in records if set(r.players) == {"first-legal", "also-first-legal"}]
    final = [r for r in records if "engine" in r.players]
    assert len(semi) == 2 + 2 * TIEBREAK_PAIRS
    assert len(final) >= 2 and {r.round for r in final} == {1}
    assert all(set(r.players) == {"engine", "first-legal"} for r in final)
    assert "[1] engine" in text and "bye" in text and "Final" in text
    assert "(still tied: the higher seed)" in text and "Winner: " in text
    assert f"{len(records)} of {len(records)} games played" in text

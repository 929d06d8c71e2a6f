"""Backgammon tournaments: the referee rolls the dice, openings have rolls, faults name the loser.

Before the referee rolled, ``arena tournament --game backgammon`` could not
play: the generated openings ended at a chance state, which the balance
check could not search ("think() needs a decision state"), and from the
initial position the referee asked an engine to think at the opening roll,
which made the fault's "other player" player 2 (``KeyError: 2``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from clients.tournament.adjudication import Adjudicator
from clients.tournament.config import Adjudication, EngineSpec, Timing
from clients.tournament.openings import generate_openings
from clients.tournament.records import (
    DISCONNECT,
    ILLEGAL_MOVE,
    PROTOCOL_ERROR,
    RULES,
    TIME_FORFEIT,
    TIMEOUT,
    GameRecord,
)
from clients.tournament.referee import dice_seed
from engine.registry import create_game
from engine.search.score import Score
from server.app import ArenaServer
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import config, play
from tests.server.server_harness import running_server

asyncio_module = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def good_server() -> AsyncIterator[ArenaServer]:
    async with running_server(workers=1) as server:
        yield server


@pytest.fixture
def good(good_server: ArenaServer) -> EngineSpec:
    # depth 1: a fraction of a second a move even in the pure-Python build
    return EngineSpec("good", f"ws://127.0.0.1:{good_server.port}/ws", depth=1)


def rolls(record: GameRecord) -> list[str]:
    return [move.move for move in record.moves if move.roll]


def replay(record: GameRecord) -> str:
    """The final position the record's moves (rolls included) lead to."""
    game = create_game(record.game, record.options)
    state = (
        game.initial_state()
        if record.opening_position is None
        else game.parse_position(record.opening_position)
    )
    for move in record.moves:
        assert (game.chance_outcomes(state) is not None) == move.roll, move
        state = game.play_text(state, move.move)
    return game.format_position(state)


@asyncio_module
@pytest.mark.parametrize("random_plies", [0, 4])
async def test_a_pair_of_games_with_the_referees_dice(tmp_path: Path, random_plies: int) -> None:
    # two weak but correct engines (the first legal move) play whole games quickly
    async with FaultyEngine("none") as a, FaultyEngine("none") as b:
        tournament = config(
            [EngineSpec("a", a.url), EngineSpec("b", b.url)],
            game="backgammon",
            games=2,
            random_plies=random_plies,
            seed=7,
        )
        text, records = await play(tmp_path, tournament)
    assert len(records) == 2, text
    first, second = records
    assert first.pair == second.pair
    assert first.players == ("a", "b") and second.players == ("b", "a")
    for record in records:
        assert record.kind == RULES, record.reason
        assert record.winner in (0, 1)
        # The points the game was won for, as the rules score it (a teacher's
        # review of 2026-12-07: the standings count 1 whatever the game scored).
        game = create_game(record.game, record.options)
        outcome = game.outcome(game.parse_position(record.final_position))
        assert outcome is not None
        assert record.extra == {"dice_seed": dice_seed(7, record.pair), "points": outcome.points}
        assert replay(record) == record.final_position
        book = [move for move in record.moves if move.book]
        assert len(book) == random_plies
        if random_plies:
            assert book[0].roll and not book[1].roll  # the opening roll, then a play
        # every roll the referee made is recorded without engine figures
        referee_rolls = [move for move in record.moves if move.roll]
        assert all(move.time_ms is None and move.score is None for move in referee_rolls)
    assert "Points as the games scored them" in text, text
    # the same dice in both games of the pair, roll for roll
    shorter = min(len(rolls(first)), len(rolls(second)))
    assert shorter > 10
    assert rolls(first)[:shorter] == rolls(second)[:shorter]


@asyncio_module
async def test_different_pairs_get_different_dice(tmp_path: Path) -> None:
    async with FaultyEngine("none") as a, FaultyEngine("none") as b:
        tournament = config(
            [EngineSpec("a", a.url), EngineSpec("b", b.url)], game="backgammon", games=4
        )
        _, records = await play(tmp_path, tournament)
    assert [record.pair for record in records] == [0, 0, 1, 1]
    assert rolls(records[0])[:10] != rolls(records[2])[:10]
    assert records[0].extra["dice_seed"] != records[2].extra["dice_seed"]


@asyncio_module
@pytest.mark.parametrize(
    ("fault", "kind", "words", "reject_from"),
    [
        ("illegal", ILLEGAL_MOVE, "illegal move 'zz9'", 2),
        ("late", TIME_FORFEIT, "lost on time", 2),
        ("hang", TIMEOUT, "gave no move within", 2),
        ("disconnect", DISCONNECT, "disconnected", 2),
        ("garbage", PROTOCOL_ERROR, "broke the protocol", 2),
        ("bad_type", PROTOCOL_ERROR, "not a string", 2),
        ("error", PROTOCOL_ERROR, "error internal", 2),
        # the first move is the opening roll, the second a play: the third is a roll,
        # refused at a chance state (this once made the winner "player 2")
        ("reject", PROTOCOL_ERROR, "error illegal_move", 3),
        ("reject", PROTOCOL_ERROR, "error illegal_move", 2),
    ],
)
async def test_each_fault_loses_and_the_tournament_goes_on(
    tmp_path: Path, good: EngineSpec, fault: str, kind: str, words: str, reject_from: int
) -> None:
    # as in test_faults: "late" beyond a 100 ms margin, well before the watchdog
    margin, grace = (100, 2000) if fault == "late" else (1000, 1000)
    async with FaultyEngine(fault, late_s=0.45, reject_from=reject_from) as faulty:
        tournament = config(
            [EngineSpec("faulty", faulty.url), good],
            game="backgammon",
            games=2,
            timing=Timing(margin_ms=margin, grace_ms=grace, move_timeout_ms=5000),
        )
        started = time.monotonic()
        text, records = await play(tmp_path, tournament)
        elapsed = time.monotonic() - started
    assert len(records) == 2, text
    for record in records:
        faulty_player = record.players.index("faulty")
        assert record.winner == 1 - faulty_player, record.reason
        assert record.kind == kind, record.reason
        assert record.reason.startswith("faulty ") and words in record.reason, record.reason
    if fault == "reject" and reject_from == 3:
        for record in records:  # refused the roll the referee sent after the first play
            assert record.moves[-1].roll and len(record.moves) == 3, record.moves
    assert "good" in text.splitlines()[2], text  # ranked first
    assert elapsed < 30


def test_generated_openings_include_rolls() -> None:
    game = create_game("backgammon")
    openings = generate_openings(game, 3, 4, depth=4, max_score=300, seed=1)
    assert len(openings) == 3
    for opening in openings:
        state = game.initial_state()
        for index, text in enumerate(opening.moves):
            assert (game.chance_outcomes(state) is not None) == (index % 2 == 0)
            state = game.play_text(state, text)
        assert game.chance_outcomes(state) is not None  # the referee rolls next


def test_rolls_count_as_plies_but_keep_streaks() -> None:
    adjudicator = Adjudicator(Adjudication(resign_count=1, resign_score=500, max_plies=6))
    assert adjudicator.add_roll() is None
    assert adjudicator.add(0, None) is None  # an opening move
    assert adjudicator.add_roll() is None
    assert adjudicator.add(1, Score(value=-600)) is None
    assert adjudicator.add_roll() is None
    verdict = adjudicator.add(0, Score(value=700))  # a roll between does not break the streak
    assert verdict is not None and verdict.winner == 0, verdict
    long = Adjudicator(Adjudication(max_plies=2))
    assert long.add_roll() is None
    verdict = long.add_roll()
    assert verdict is not None and "maximum length" in verdict.reason


def test_the_points_table_counts_gammons_and_backgammons() -> None:
    from clients.tournament.display import game_points_table

    def won(first: str, second: str, winner: int, points: int) -> GameRecord:
        return GameRecord(
            game_id=0,
            round=0,
            pair=0,
            game="backgammon",
            options={},
            players=(first, second),
            opening_index=0,
            opening_position=None,
            winner=winner,
            kind=RULES,
            reason="",
            extra={"dice_seed": 1, "points": points},
        )

    records = [won("a", "b", 0, 2), won("b", "a", 0, 1), won("a", "b", 0, 3), won("b", "a", 1, 1)]
    lines = game_points_table(["a", "b"], records).splitlines()
    assert lines[0].split() == [
        "engine",
        "games",
        "won",
        "lost",
        "net",
        "a",
        "game",
        "gammons",
        "won",
    ]
    assert lines[1].split() == ["a", "4", "6", "1", "+5", "+1.250", "2"]
    assert lines[2].split() == ["b", "4", "1", "6", "-5", "-1.250", "0"]
    # Games without points (not a game of chance): no table.
    plain = dataclasses.replace(records[0], extra={})
    assert game_points_table(["a", "b"], [plain]) == ""

"""Whole tournaments between real servers: standings, records, adjudication, SPRT, PGN."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import chess.pgn
import pytest
import pytest_asyncio

from clients.tournament.config import Adjudication, EngineSpec, Sprt, TimeControl
from clients.tournament.records import ADJUDICATION, RULES, GameRecord
from clients.tournament.store import Store
from engine.registry import create_game
from server.app import ArenaServer
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import config, play
from tests.server.server_harness import running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def servers() -> AsyncIterator[tuple[ArenaServer, ArenaServer]]:
    async with running_server(workers=1) as one, running_server(workers=1) as two:
        yield one, two


def _url(server: ArenaServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


def replay(record: GameRecord) -> tuple[object, object]:
    """Replay a record with the rules: the final state and its outcome."""
    game = create_game(record.game, record.options)
    state = (
        game.initial_state()
        if record.opening_position is None
        else game.parse_position(record.opening_position)
    )
    for move in record.moves:
        state = game.play_text(state, move.move)
    assert game.format_position(state) == record.final_position
    return state, game.outcome(state)


async def test_connect4_between_two_servers(
    tmp_path: Path, servers: tuple[ArenaServer, ArenaServer]
) -> None:
    weak = EngineSpec("weak", _url(servers[0]), depth=1)
    strong = EngineSpec("strong", _url(servers[1]), depth=4)
    tournament = config(
        [weak, strong],
        game="connect4",
        games=4,
        random_plies=2,
        tc=TimeControl(base_ms=20_000, inc_ms=100),
    )
    text, records = await play(tmp_path, tournament, concurrency=2)
    assert sorted(record.game_id for record in records) == [1, 2, 3, 4]
    points = {"weak": 0.0, "strong": 0.0}
    for record in records:
        _, outcome = replay(record)
        assert record.kind == RULES and outcome is not None
        assert record.winner == outcome.winner and record.reason == outcome.reason  # type: ignore[attr-defined]
        book = [move for move in record.moves if move.book]
        assert len(book) == 2
        for ply, move in enumerate(record.moves[2:], 2):
            mover = record.players[ply % 2]
            assert move.depth is not None and move.score is not None and move.time_ms is not None
            assert move.depth <= (1 if mover == "weak" else 4) or "win_in" in move.score
            assert move.clock_ms is not None and move.clock_ms <= 20_000 + 100 * 40
        for player in (0, 1):
            points[record.players[player]] += record.points(player)
    by_pair: dict[int, list[GameRecord]] = {}
    for record in records:
        by_pair.setdefault(record.pair, []).append(record)
    for pair in by_pair.values():  # each opening twice, colours swapped
        first, second = sorted(pair, key=lambda r: r.game_id)
        assert first.players == second.players[::-1]
        assert [m.move for m in first.moves if m.book] == [m.move for m in second.moves if m.book]
    # the standings printed agree with the records
    rows = {line.split()[1]: line.split() for line in text.splitlines()[2:4]}
    assert float(rows["weak"][3]) == points["weak"] and float(rows["strong"][3]) == points["strong"]
    assert "4 of 4 games played" in text and "Elo" in text and "LOS" in text
    store = Store.open(tmp_path / "t.db")
    try:
        assert [r.to_json() for r in store.records()] == [r.to_json() for r in records]
        assert store.pending() == []
    finally:
        store.close()


async def test_maximum_length_adjudicates_a_draw(
    tmp_path: Path, servers: tuple[ArenaServer, ArenaServer]
) -> None:
    engines = [
        EngineSpec("a", _url(servers[0]), depth=2),
        EngineSpec("b", _url(servers[1]), depth=3),
    ]
    # Connect Four cannot be won before ply 7
    tournament = config(
        engines,
        game="connect4",
        games=2,
        tc=TimeControl(depth=3),
        adjudication=Adjudication(max_plies=6),
    )
    _, records = await play(tmp_path, tournament)
    assert [(r.winner, r.kind, len(r.moves)) for r in records] == [(None, ADJUDICATION, 6)] * 2
    assert "maximum length of 6 plies" in records[0].reason


async def test_sprt_stops_a_one_sided_match(
    tmp_path: Path, servers: tuple[ArenaServer, ArenaServer]
) -> None:
    async with FaultyEngine("illegal", at_think=1) as faulty:
        engines = [EngineSpec("good", _url(servers[0]), depth=1), EngineSpec("bad", faulty.url)]
        # every pair won: the LLR grows by ln(s(200)/s(0)) = 0.418 a pair; 2.94 after 8 pairs
        tournament = config(engines, games=40, sprt=Sprt(0, 200, 0.05, 0.05))
        text, records = await play(tmp_path, tournament)
    assert 14 <= len(records) <= 18
    assert "H1 accepted" in text and "stopped early" in text


async def test_an_sprt_on_games_with_unsearched_moves_comes_with_a_warning(
    tmp_path: Path, servers: tuple[ArenaServer, ArenaServer]
) -> None:
    """A review of 2026-12-07: an SPRT accepted H1 while one side made no search
    on 22% of its moves, the count only a footnote."""
    unsearched = {"reason": "time", "depth": 0}
    async with FaultyEngine("patch", patch=unsearched, at_think=1) as weak:
        engines = [EngineSpec("good", _url(servers[0]), depth=1), EngineSpec("weak", weak.url)]
        tournament = config(engines, games=6, sprt=Sprt(0, 200, 0.05, 0.05))
        text, _ = await play(tmp_path, tournament)
    assert "warning: the SPRT's games had moves answered without a search (weak " in text
    assert "good" not in text.split("warning:")[1].split(")")[0]


async def test_chess_games_as_pgn(tmp_path: Path, servers: tuple[ArenaServer, ArenaServer]) -> None:
    async with FaultyEngine("none") as weak:
        engines = [
            EngineSpec("engine", _url(servers[0]), depth=1),
            EngineSpec("first-legal", weak.url),
        ]
        tournament = config(
            engines,
            game="chess",
            games=2,
            random_plies=2,
            tc=TimeControl(depth=1),
            adjudication=Adjudication(max_plies=24),
        )
        _, records = await play(tmp_path, tournament, pgn=True)
    text = (tmp_path / "t.pgn").read_text()
    handle = io.StringIO(text)
    games = [chess.pgn.read_game(handle) for _ in records]
    assert chess.pgn.read_game(handle) is None
    for game, record in zip(games, records, strict=True):
        assert game is not None and not game.errors
        assert game.headers["White"] == record.players[0]
        assert game.headers["Result"] == record.result_text
        moves = [move.uci() for move in game.mainline_moves()]
        assert moves == [move.move for move in record.moves]
        assert game.end().board().fen().split()[:4] == record.final_position.split()[:4]
        comments = [node.comment for node in game.mainline()]
        assert comments[:2] == ["book", "book"] and "/1 " in comments[2]

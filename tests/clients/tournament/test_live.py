"""The live page's data (``clients/tournament/live.py``) and its HTTP answers (``web.py``).

No engines and no sockets: a tournament database is filled with records
by hand, the runner's watcher calls are made directly, and the server's
answers are computed from request heads.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from clients.tournament.config import ConfigError, EngineSpec, parse_engine
from clients.tournament.display import format_elo, game_points
from clients.tournament.live import (
    MAX_LOG_LINE_CHARS,
    MAX_LOG_LINES,
    MAX_NAME_CHARS,
    LiveTournament,
    clean_text,
    log_excerpt,
    move_json,
)
from clients.tournament.records import ILLEGAL_MOVE, RULES, GameRecord, MoveRecord
from clients.tournament.referee import GameSpec
from clients.tournament.runner import create_tournament
from clients.tournament.standings import crosstable, engine_tallies
from clients.tournament.store import Store
from clients.tournament.web import LivePage, parse_web_address
from tests.clients.tournament.helpers import config

HOSTILE = "<img src=x onerror=alert(1)>" + "x" * 60
#: Tic-tac-toe games: the moves, and the winner (0 moved first, None a draw).
GAMES: list[tuple[list[str], int | None]] = [
    (["b2", "a1", "b1", "a2", "b3"], 0),  # X's column b
    (["b2", "a1", "c3", "a2", "c1", "a3"], 1),  # O's column a
    (["b2", "a1", "c1", "a3", "a2", "c2", "b3", "b1", "c3"], None),
]


def _store(tmp_path: Path, names: list[str], logged: str | None = None) -> Store:
    engines = [EngineSpec(name=name, depth=1) for name in names]
    if logged is not None:
        engines.append(parse_engine(f"name={logged},cmd=python3 {logged}.py,game=tictactoe"))
    return create_tournament(tmp_path / "t.db", config(engines, games=2))


def _record(
    store: Store,
    game_id: int,
    moves: list[str],
    winner: int | None,
    move_reason: str | None = None,
    **extra: Any,
) -> GameRecord:
    scheduled = next(game for game in store.schedule() if game.game_id == game_id)
    names = [engine.name for engine in store.config().engines]
    return GameRecord(
        game_id=game_id,
        round=scheduled.round,
        pair=scheduled.pair,
        game="tictactoe",
        options={},
        players=(names[scheduled.first], names[scheduled.second]),
        opening_index=scheduled.opening_index,
        opening_position=None,
        winner=winner,
        kind=extra.pop("kind", RULES),
        reason=extra.pop("reason", "three in a row" if winner is not None else "board full"),
        moves=tuple(
            MoveRecord(move, time_ms=10, depth=1, score={"value": 0}, reason=move_reason)
            for move in moves
        ),
    )


def _spec(store: Store, game_id: int) -> GameSpec:
    scheduled = next(game for game in store.schedule() if game.game_id == game_id)
    engines = store.config().engines
    return GameSpec(
        game_id=game_id,
        round=scheduled.round,
        pair=scheduled.pair,
        opening_index=scheduled.opening_index,
        opening=store.openings()[scheduled.opening_index],
        engines=(engines[scheduled.first], engines[scheduled.second]),
    )


def _snapshot(live: LiveTournament) -> dict[str, Any]:
    version, body = live.snapshot_bytes()
    data: dict[str, Any] = json.loads(body)
    assert data["version"] == version
    return data


def test_the_numbers_are_the_text_tables_own(tmp_path: Path) -> None:
    store = _store(tmp_path, ["ann", "bob", "cy"])
    live = LiveTournament(store)
    for game_id, (moves, winner) in zip((1, 2, 3), GAMES, strict=False):
        record = _record(store, game_id, moves, winner)
        store.finish(record)
        live.finished(record)
    data = _snapshot(live)
    results = store.results()
    names = ["ann", "bob", "cy"]
    tallies = engine_tallies(results, 3)
    assert data["tournament"]["played"] == 3 and data["tournament"]["games"] == 6
    assert data["tournament"]["state"] == "running"
    for row in data["standings"]:
        tally = tallies[row["engine"]]
        assert row["name"] == names[row["engine"]]
        assert (row["points"], row["wins"], row["draws"], row["losses"]) == (
            tally.points,
            tally.wins,
            tally.draws,
            tally.losses,
        )
        if tally.games:
            assert row["elo"]["text"] == format_elo(tally.estimate())
    assert [row["rank"] for row in data["standings"]] == [1, 2, 3]
    table = crosstable(results, 3)
    for i in range(3):
        for j in range(3):
            cell = table[i][j]
            shown = data["crosstable"][i][j]
            assert (shown is None) == (cell is None)
            if cell is not None:
                assert shown == {"points": cell.points, "games": cell.games}
    assert [game["id"] for game in data["finished"]] == [3, 2, 1]  # latest first
    assert data["game_points"] == []  # not a game of chance: no points table
    live.finish()
    assert _snapshot(live)["tournament"]["state"] == "finished"


def test_the_points_with_gammons_are_the_text_tables_own(tmp_path: Path) -> None:
    """A teacher's review of 2026-12-07: backgammon's gammons counted nowhere
    but in a game's reason. Records with ``extra.points`` (the referee's, for
    games of chance) give the page the final report's points table."""
    store = _store(tmp_path, ["ann", "bob"])
    live = LiveTournament(store)
    for game_id, points in ((1, 2), (2, 1)):
        record = dataclasses.replace(
            _record(store, game_id, GAMES[0][0], 0), extra={"points": points}
        )
        store.finish(record)
        live.finished(record)
    rows = _snapshot(live)["game_points"]
    shown = game_points(["ann", "bob"], store.records())
    assert [
        (row["engine"], row["won"], row["lost"], row["net"], row["gammons"]) for row in rows
    ] == [(points.engine, points.won, points.lost, points.net, points.gammons) for points in shown]
    assert sum(row["won"] for row in rows) == 3 and all(row["games"] == 2 for row in rows)


def test_elo_infinities_are_null_and_the_json_is_strict(tmp_path: Path) -> None:
    store = _store(tmp_path, ["ann", "bob"])
    live = LiveTournament(store)
    for game_id in (1, 2):  # ann wins both: a perfect score, an infinite estimate
        moves, _ = GAMES[0]
        scheduled = next(g for g in store.schedule() if g.game_id == game_id)
        record = _record(store, game_id, moves, 0 if scheduled.first == 0 else 1)
        store.finish(record)
        live.finished(record)
    text = live.snapshot_bytes()[1].decode()
    assert "Infinity" not in text and "NaN" not in text
    data = json.loads(text)
    ann = next(row for row in data["standings"] if row["name"] == "ann")
    assert ann["points"] == 2 and ann["elo"]["elo"] is None and ann["elo"]["high"] is None
    assert ann["elo"]["text"].startswith("n/a")  # two games: too few for a figure


def test_hostile_names_and_reasons_are_bounded_and_never_html(tmp_path: Path) -> None:
    store = _store(tmp_path, [HOSTILE, "bob"])
    live = LiveTournament(store)
    moves, _ = GAMES[0]
    reason = f"{HOSTILE} played an illegal move '\x1b[31m<script>'" + "y" * 1000
    record = _record(store, 1, moves, 1, kind=ILLEGAL_MOVE, reason=reason)
    store.finish(record)
    live.finished(record)
    body = live.snapshot_bytes()[1]
    assert b"<" not in body and b">" not in body and b"&" not in body
    data = json.loads(body)
    names = {row["name"] for row in data["standings"]}
    shown = next(name for name in names if name != "bob")
    assert shown.startswith("<img src=x onerror=alert(1)>") and len(shown) == MAX_NAME_CHARS
    finished = data["finished"][0]
    assert "\x1b" not in finished["reason"] and len(finished["reason"]) <= 300
    game = live.game_bytes(1)
    assert game is not None and b"<" not in game


def test_a_fault_reason_names_the_engine_as_the_page_shows_it(tmp_path: Path) -> None:
    # The page translates a fault's reason by finding the engine's name at its
    # start, and knows names only as cut for display: a long name was not found
    # (the reason stayed English on the Portuguese page).
    long_name = "a-students-bot-with-a-very-long-file-name-indeed"
    store = _store(tmp_path, [long_name, "bob"])
    live = LiveTournament(store)
    moves, _ = GAMES[0]
    reason = f"{long_name} gave no move within 1000 ms (watchdog)"
    record = _record(store, 1, moves, 1, kind=ILLEGAL_MOVE, reason=reason)
    store.finish(record)
    live.finished(record)
    data = json.loads(live.snapshot_bytes()[1])
    shown = next(row["name"] for row in data["standings"] if row["name"] != "bob")
    assert len(long_name) > MAX_NAME_CHARS and shown == clean_text(long_name, MAX_NAME_CHARS)
    assert data["finished"][0]["reason"] == f"{shown} gave no move within 1000 ms (watchdog)"
    game = live.game(1)
    assert game is not None and game["result"]["reason"].startswith(f"{shown} gave no move")


def test_a_game_replays_from_every_position(tmp_path: Path) -> None:
    store = _store(tmp_path, ["ann", "bob"])
    live = LiveTournament(store)
    moves, winner = GAMES[2]
    record = _record(store, 1, moves, winner)
    store.finish(record)
    live.finished(record)
    game = live.game(1)
    assert game is not None
    assert [move["move"] for move in game["moves"]] == moves
    assert len(game["positions"]) == len(moves) + 1
    assert game["positions"][0] == {"position": ".........", "to_move": 0}
    assert game["positions"][1]["position"] == "....X...."  # b2 is the centre
    assert game["positions"][-1]["to_move"] == -1  # the game is over
    assert game["result"]["result"] == "1/2-1/2" and not game["running"]
    assert live.game(99) is None


def test_a_monte_carlo_move_gives_the_page_its_scale() -> None:
    # the page maps a score back to the win rate only with playouts and a valid scale
    mc = move_json(MoveRecord("d4", depth=3, score={"value": 35}, playouts=900, win_odds_scale=50))
    assert mc == {
        "move": "d4",
        "depth": 3,
        "playouts": 900,
        "win_odds_scale": 50,
        "score": {"value": 35},
    }
    assert "win_odds_scale" not in move_json(
        MoveRecord("d4", score={"value": 35}, win_odds_scale=50)
    )
    for bad in (True, 0, -50, "50", 2.5):
        move = MoveRecord("d4", playouts=900, win_odds_scale=bad)  # type: ignore[arg-type]
        assert "win_odds_scale" not in move_json(move), bad


def test_games_in_progress_follow_the_watcher_calls(tmp_path: Path) -> None:
    store = _store(tmp_path, ["ann", "bob"])
    live = LiveTournament(store)
    spec = _spec(store, 1)
    before = live.version
    live.started(spec)
    live.moved(spec, [MoveRecord("b2"), MoveRecord("a1")])
    assert live.version > before
    data = _snapshot(live)
    (running,) = data["running"]
    assert running["id"] == 1 and running["plies"] == 2
    assert running["position"] == "....X.O.." and running["to_move"] == 0
    assert running["last_move"] == "a1" and running["history"] == ["b2", "a1"]
    game = live.game(1)
    assert game is not None and game["running"] and game["result"] is None
    assert len(game["positions"]) == 3
    live.abandoned(1)
    assert _snapshot(live)["running"] == []


def test_a_bots_log_excerpt_is_what_it_wrote_during_its_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    monkeypatch.setenv("ARENA_BOT_LOGS", str(logs))
    log = logs / "ana.log"
    log.write_text("an earlier game's line\n")
    store = _store(tmp_path, ["bob"], logged="ana")
    live = LiveTournament(store)
    spec = _spec(store, 1)
    live.started(spec)
    with log.open("a") as file:
        file.write("[arena 10:00:00] request 1: comment: centre\n")
        file.write("Traceback <b>\x07 boom\n")
    running = live.game(1)
    assert running is not None
    assert running["logs"]["ana"]["lines"] == [
        "[arena 10:00:00] request 1: comment: centre",
        "Traceback <b> boom",
    ]
    moves, winner = GAMES[0]
    record = _record(store, 1, moves, winner, move_reason="engine_error")
    store.finish(record)
    live.finished(record)
    with log.open("a") as file:
        file.write("a later game's line\n")
    game = live.game(1)
    assert game is not None
    assert game["logs"]["ana"]["lines"][-1] == "Traceback <b> boom"
    assert game["bots"] == [spec.engines[0].name == "ana", spec.engines[1].name == "ana"]
    # Every move carries reason engine_error here: each counts for its mover.
    assert sum(game["engine_errors"]) == len(moves)


def test_a_log_excerpt_is_bounded(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text("".join(f"line {n} " + "z" * 500 + "\n" for n in range(1000)))
    excerpt = log_excerpt(log, 0)
    assert excerpt["cut"] and len(excerpt["lines"]) == MAX_LOG_LINES
    assert all(len(line) <= MAX_LOG_LINE_CHARS for line in excerpt["lines"])
    assert excerpt["lines"][-1].startswith("line 999 ")
    assert log_excerpt(tmp_path / "none.log", 0)["missing"]
    assert clean_text("a\tb\x00c\u202ed") == "a bcd"


# ----------------------------------------------------------------------
# The HTTP answers.


def _answer(page: LivePage, head: str) -> tuple[int, dict[str, str], bytes]:
    raw = page.answer(head.encode())
    top, _, body = raw.partition(b"\r\n\r\n")
    lines = top.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(": ")
        headers[name.lower()] = value
    return int(lines[0].split(" ")[1]), headers, body


def test_the_server_answers_only_its_own_files_and_api(tmp_path: Path) -> None:
    page = LivePage(LiveTournament(_store(tmp_path, ["ann", "bob"])), "127.0.0.1", 0)
    status, headers, body = _answer(page, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in headers["content-security-policy"]
    assert b"js/tournament.js" in body
    for path in ("/js/tournament.js", "/js/boards/connect4.js", "/js/svg.js", "/style.css"):
        assert _answer(page, f"GET {path} HTTP/1.1\r\n\r\n")[0] == 200, path
    for path in (
        "/js/../../tournament/web.py",
        "/js/%2e%2e/x.js",
        "/index.html",
        "/js/boards/../../../etc/passwd",
        "/api/game/x",
        "/api/game/1",  # not played yet
    ):
        assert _answer(page, f"GET {path} HTTP/1.1\r\n\r\n")[0] == 404, path
    assert _answer(page, "POST / HTTP/1.1\r\n\r\n")[0] == 405
    assert _answer(page, "garbage\r\n\r\n")[0] == 400
    status, headers, body = _answer(page, "HEAD / HTTP/1.1\r\n\r\n")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


def test_the_snapshot_is_answered_304_while_nothing_changed(tmp_path: Path) -> None:
    store = _store(tmp_path, ["ann", "bob"])
    live = LiveTournament(store)
    page = LivePage(live, None, 0)
    status, headers, body = _answer(page, "GET /api/snapshot HTTP/1.1\r\n\r\n")
    assert status == 200 and headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff"
    etag = headers["etag"]
    assert json.loads(body)["tournament"]["played"] == 0
    again = _answer(page, f"GET /api/snapshot HTTP/1.1\r\nIf-None-Match: {etag}\r\n\r\n")
    assert again[0] == 304 and again[2] == b""
    live.started(_spec(store, 1))
    changed = _answer(page, f"GET /api/snapshot HTTP/1.1\r\nIf-None-Match: {etag}\r\n\r\n")
    assert changed[0] == 200 and changed[1]["etag"] != etag


def test_the_web_address() -> None:
    assert parse_web_address("8080") == (None, 8080)
    assert parse_web_address("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_web_address("[::1]:9000") == ("::1", 9000)
    for bad in ("", "web", "1:2:x", "99999"):
        with pytest.raises(ConfigError):
            parse_web_address(bad)

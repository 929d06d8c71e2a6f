"""Go games as SGF: written records read back with a small SGF reader."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest

from clients.cli import main
from clients.tournament.config import Adjudication, EngineSpec, TimeControl
from clients.tournament.display import Progress
from clients.tournament.records import (
    ADJUDICATION,
    RULES,
    TIME_FORFEIT,
    GameRecord,
    MoveRecord,
    game_text,
    sgf,
)
from clients.tournament.runner import RunSettings, TournamentRunner, create_tournament
from engine.games.go import Go, GoState
from tests.clients.tournament.helpers import TEST_BACKOFF, config
from tests.server.server_harness import running_server

Node = dict[str, list[str]]


def read_sgf(text: str) -> list[list[Node]]:
    """The game trees of an SGF collection, each as its main line of nodes.

    Enough of FF[4] for these records: no variations, values unescaped.
    """
    games: list[list[Node]] = []
    index = 0
    nodes: list[Node] = []
    while index < len(text):
        char = text[index]
        if char == "(":
            nodes = []
            index += 1
        elif char == ")":
            games.append(nodes)
            index += 1
        elif char == ";":
            nodes.append({})
            index += 1
        elif char.isspace():
            index += 1
        else:
            match = re.compile(r"[A-Z]+").match(text, index)
            assert match, f"unexpected {text[index : index + 20]!r}"
            name = match.group()
            index = match.end()
            values = nodes[-1].setdefault(name, [])
            while index < len(text) and text[index] == "[":
                index += 1
                value = ""
                while text[index] != "]":
                    if text[index] == "\\":
                        index += 1
                    value += text[index]
                    index += 1
                values.append(value)
                index += 1
                while index < len(text) and text[index].isspace():
                    index += 1
    return games


def go_record(**changes: object) -> GameRecord:
    fields: dict[str, object] = {
        "game_id": 3,
        "round": 0,
        "pair": 1,
        "game": "go",
        "options": {"size": 9, "komi": 7.5},
        "players": ("mcts 2s", "alphabeta d3"),
        "opening_index": 0,
        "opening_position": None,
        "winner": 1,
        "kind": RULES,
        "reason": "white wins by 4.5",
        "moves": (
            MoveRecord("E5", book=True),
            MoveRecord(
                "C3",
                time_ms=520,
                depth=7,
                score={"value": -35},
                playouts=1234,
                win_odds_scale=50,
            ),
            MoveRecord("J9", time_ms=80, depth=3, score={"value": 12}),
            MoveRecord("pass", time_ms=10, depth=1, score={"win_in": 2}),
            MoveRecord("pass", time_ms=11, depth=1, score={"loss_in": 1}),
        ),
        "final_position": "",
        "time_control": "40/60+0.5",
        "started": "2026-11-24T08:30:00+00:00",
        "tournament": "Go [test] \\ night",
    }
    fields.update(changes)
    return GameRecord(**fields)  # type: ignore[arg-type]


def test_a_go_game_reads_back_with_its_moves_result_and_comments() -> None:
    record = go_record()
    text = game_text(record)
    assert text == sgf(record) and text.startswith("(;FF[4]GM[1]")
    (nodes,) = read_sgf(text)
    root, moves = nodes[0], nodes[1:]
    assert root["SZ"] == ["9"] and root["KM"] == ["7.5"] and root["RU"] == ["Tromp-Taylor"]
    assert root["PB"] == ["mcts 2s"] and root["PW"] == ["alphabeta d3"]
    assert root["DT"] == ["2026-11-24"] and root["RE"] == ["W+4.5"]
    assert root["EV"] == ["Go [test] \\ night"]  # escaped in the file, whole when read
    assert root["GC"] == ["white wins by 4.5"] and root["RO"] == ["1.3"]
    # The time control in SGF's own properties (it was a private TC[]).
    assert root["TM"] == ["60"] and root["OT"] == ["0.5 s added a move, 60 s again every 40 moves"]
    assert "TC" not in root
    # E5 is the centre (ee), C3 is cg (row 3 from the bottom is g from the
    # top), J9 the top-right corner (ia: no I column), passes are empty.
    assert [(next(iter(node)), next(iter(node.values()))[0]) for node in moves] == [
        ("B", "ee"),
        ("W", "cg"),
        ("B", "ia"),
        ("W", ""),
        ("B", ""),
    ]
    comments = [node["C"][0] for node in moves]
    assert comments == [
        "book",
        "win rate 33.2% 1234 playouts 0.520s",  # the mover's: 1 / (1 + e^(35/50))
        "+12/3 0.080s",
        "win in 2/1 0.010s",
        "loss in 1/1 0.011s",
    ]


@pytest.mark.parametrize(
    ("control", "expected"),
    [
        ("", {}),
        ("300+0", {"TM": ["300"]}),
        ("5+0.05 depth=4", {"TM": ["5"], "OT": ["0.05 s added a move, depth=4"]}),
        ("movetime=1000ms", {"OT": ["movetime=1000ms"]}),
    ],
)
def test_time_controls_in_sgf(control: str, expected: dict[str, list[str]]) -> None:
    (nodes,) = read_sgf(sgf(go_record(time_control=control)))
    assert {name: nodes[0][name] for name in ("TM", "OT") if name in nodes[0]} == expected


def test_a_monte_carlo_move_without_its_scale_keeps_the_raw_score() -> None:
    # An older record, or a server that sent no win_odds_scale.
    old = MoveRecord("C3", time_ms=520, depth=7, score={"value": -35}, playouts=1234)
    proven = MoveRecord("D4", time_ms=5, score={"win_in": 3}, playouts=9, win_odds_scale=50)
    (nodes,) = read_sgf(sgf(dataclasses.replace(go_record(), moves=(old, proven))))
    assert [node["C"][0] for node in nodes[1:]] == [
        "-35 1234 playouts 0.520s",
        "win in 3 9 playouts 0.005s",
    ]


def test_a_loaded_start_position_becomes_setup_stones() -> None:
    start = "X..../...../..O../...../..... O"  # white to move
    record = go_record(
        opening_position=start,
        options={"size": 5, "komi": 0.5},
        moves=(MoveRecord("B4", time_ms=5, depth=1), MoveRecord("resign")),
        winner=0,
        reason="white resigns",
    )
    (nodes,) = read_sgf(sgf(record))
    root = nodes[0]
    assert root["SZ"] == ["5"] and root["KM"] == ["0.5"]
    assert root["AB"] == ["aa"] and root["AW"] == ["cc"] and root["PL"] == ["W"]
    assert root["RE"] == ["B+R"]
    assert [node.get("W") for node in nodes[1:]] == [["bb"]]  # the resignation is no move


@pytest.mark.parametrize(
    ("winner", "kind", "reason", "result"),
    [
        (0, RULES, "black wins by 0.5", "B+0.5"),
        (1, RULES, "white wins by 12", "W+12"),
        (None, ADJUDICATION, "draw by adjudication", "0"),
        (0, ADJUDICATION, "adjudicated: black is far ahead", "B+"),
        (1, TIME_FORFEIT, "mcts 2s lost on time", "W+T"),
        (0, "illegal_move", "alphabeta d3 played an illegal move", "B+F"),
    ],
)
def test_results(winner: int | None, kind: str, reason: str, result: str) -> None:
    (nodes,) = read_sgf(sgf(go_record(winner=winner, kind=kind, reason=reason)))
    assert nodes[0]["RE"] == [result]


def test_a_collection_of_games_reads_back_as_many_trees() -> None:
    text = sgf(go_record()) + sgf(go_record(game_id=4, winner=0, reason="black wins by 1.5"))
    assert [game[0]["RE"] for game in read_sgf(text)] == [["W+4.5"], ["B+1.5"]]


def _played(game: Go, state: GoState, count: int) -> tuple[GoState, list[str]]:
    """Up to ``count`` moves chosen deterministically (a spread of points, a pass now and then)."""
    moves = []
    for ply in range(count):
        legal = game.legal_moves(state)
        if not legal:
            break
        move = legal[(ply * 7919) % len(legal)] if ply % 9 != 8 else legal[-1]
        moves.append(game.format_move(state, move))
        state = game.play(state, move)
    return state, moves


@pytest.mark.parametrize("start", [None, "X..../.O.../..X../...O./..... O"])
def test_the_engines_sgf_reader_replays_a_written_game(start: str | None) -> None:
    game = Go(size=5, komi=0.5)
    state, moves = _played(game, game.parse_position(start) if start else game.initial_state(), 40)
    assert len(moves) >= 20 and state.black_captures + state.white_captures > 0
    record = go_record(
        options={"size": 5, "komi": 0.5},
        opening_position=start,
        moves=tuple(MoveRecord(move, time_ms=1, depth=1) for move in moves),
    )
    read = game.parse_position(sgf(record))
    assert game.format_position(read) == game.format_position(state)
    assert (read.ply, read.passes) == (state.ply, state.passes)
    assert (read.black_captures, read.white_captures) == (
        state.black_captures,
        state.white_captures,
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_a_go_tournament_writes_its_games_as_sgf(tmp_path: Path) -> None:
    async with running_server(workers=2) as server:
        url = f"ws://127.0.0.1:{server.port}/ws"
        engines = [
            EngineSpec("one", url, movetime_ms=40),
            EngineSpec("two", url, movetime_ms=40),
        ]
        tournament = config(
            engines,
            game="go",
            games=2,
            tc=TimeControl(movetime_ms=40),  # Go's default search (MCTS) ignores depth
            options={"size": 5},
            adjudication=Adjudication(max_plies=12),  # short games: drawn at 12 plies
        )
        store = create_tournament(tmp_path / "t.db", tournament)
        settings = RunSettings(
            backoff=TEST_BACKOFF, jsonl_path=tmp_path / "t.jsonl", pgn_path=tmp_path / "t.sgf"
        )
        progress = Progress(["one", "two"], 2, stream=io.StringIO(), live=False)
        try:
            await TournamentRunner(store, settings, progress).run()
            records = store.records()
        finally:
            store.close()
    games = read_sgf((tmp_path / "t.sgf").read_text())
    assert len(games) == len(records) == 2
    go = Go(size=5)
    for nodes, record in zip(games, records, strict=True):
        root = nodes[0]
        assert root["SZ"] == ["5"] and root["PB"] == [record.players[0]]
        assert root["RE"] == ["0"] and len(nodes) == 13  # the root and 12 moves
        played = [node.get("B", node.get("W", ["?"]))[0] for node in nodes[1:]]
        assert len(played) == len([m for m in record.moves if m.move != "resign"])
        final = go.parse_position(sgf(record))
        assert go.format_position(final) == record.final_position


def test_arena_tournament_names_the_sgf_file_after_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        [
            "tournament",
            "--game",
            "go",
            "--option",
            "size=5",
            "--engine",
            "local:movetime=30",
            "--engine",
            "local:movetime=40",
            "--movetime",
            "40",
            "--max-plies",
            "8",
            "--games",
            "2",
            "--db",
            str(tmp_path / "go.db"),
            "--quiet",
        ]
    )
    assert status == 0, capsys.readouterr().out
    assert not (tmp_path / "go.pgn").exists()
    games = read_sgf((tmp_path / "go.sgf").read_text())
    assert [game[0]["SZ"] for game in games] == [["5"], ["5"]]
    # The root and up to 8 moves: under load a 30 ms move can be lost on time, which
    # ends that game early (the suite beside two other jobs saw it); each game has its result.
    assert all(2 <= len(game) <= 9 and game[0].get("RE") for game in games)


def test_a_program_that_reports_no_search_gets_no_evaluation_in_its_comment() -> None:
    """A review of 2026-12-07: GNU Go's moves (GTP: depth 1, score 0 by the
    protocol, reason "engine") were commented "+0/1 0.006s", which reads as
    an evaluation GNU Go never gave. A bot that reports its own still has it."""
    record = go_record(
        moves=(
            MoveRecord("E5", time_ms=6, depth=1, score={"value": 0}, reason="engine"),
            MoveRecord("C3", time_ms=40, depth=4, score={"value": 25}, reason="engine"),
        )
    )
    (nodes,) = read_sgf(game_text(record))
    assert [node["C"][0] for node in nodes[1:]] == ["0.006s", "+25/4 0.040s"]

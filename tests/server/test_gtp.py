"""``arena gtp``: the GTP 2 commands, the program on stdin/stdout, and a match against GNU Go."""

from __future__ import annotations

import io

from engine.registry import create_game
from engine.search.limits import Limits
from engine.search.results import SearchResult
from server.frontends.gtp import Genmove, GtpEngine, serve

#: Commands the issue names; every one must be listed and known.
REQUIRED_COMMANDS = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "final_score",
    "showboard",
    "time_settings",
    "time_left",
    "quit",
]


def ask(engine: GtpEngine, line: str) -> str:
    """The result of a command that must succeed."""
    answer = engine.execute(line)
    assert isinstance(answer, str) and answer.endswith("\n\n"), answer
    assert answer.startswith("="), answer
    return answer[1:].strip()


def refused(engine: GtpEngine, line: str) -> str:
    answer = engine.execute(line)
    assert isinstance(answer, str) and answer.startswith("?"), answer
    return answer[1:].strip()


def test_identity_and_the_command_list() -> None:
    engine = GtpEngine(playouts=50)
    assert ask(engine, "protocol_version") == "2"
    assert ask(engine, "name") == "alphabeta-arena"
    assert ask(engine, "version")
    listed = ask(engine, "list_commands").split("\n")
    assert set(REQUIRED_COMMANDS) <= set(listed)
    for command in REQUIRED_COMMANDS:
        assert ask(engine, f"known_command {command}") == "true"
    assert ask(engine, "known_command fly") == "false"
    assert refused(engine, "fly") == "unknown command"


def test_ids_are_echoed_and_comments_and_blank_lines_ignored() -> None:
    engine = GtpEngine(playouts=50)
    assert engine.execute("12 name # who are you\n") == "=12 alphabeta-arena\n\n"
    assert engine.execute("   # only a comment\n") is None
    assert engine.execute("\n") is None
    assert engine.execute("7 boardsize 3") == "?7 unacceptable size\n\n"
    assert engine.execute("8\tkomi\t6.5") == "=8\n\n"


def test_play_undo_and_illegal_moves() -> None:
    engine = GtpEngine(playouts=50)
    ask(engine, "boardsize 9")
    ask(engine, "clear_board")
    ask(engine, "play black D4")
    ask(engine, "play w e5")
    assert refused(engine, "play b D4") == "illegal move"  # occupied
    assert refused(engine, "play b Z9") == "illegal move"
    assert refused(engine, "play purple D5") == "syntax error"
    assert [text for _, text in engine.moves] == ["D4", "E5"]
    ask(engine, "undo")
    ask(engine, "undo")
    assert refused(engine, "undo") == "cannot undo"
    assert engine.moves == []


def test_two_moves_of_one_colour_are_accepted_as_for_handicap_stones() -> None:
    engine = GtpEngine(playouts=50)
    ask(engine, "play b C3")
    ask(engine, "play b G7")
    board = ask(engine, "showboard")
    assert board.count("X") >= 2
    order = engine.execute("genmove w")  # white searches the board with both stones on it
    assert isinstance(order, Genmove) and engine.game.to_move(order.state) == 1
    legal = {
        engine.game.format_move(order.state, move) for move in engine.game.legal_moves(order.state)
    }
    assert legal.isdisjoint({"C3", "G7"}) and "D4" in legal


def test_genmove_asks_for_a_search_and_plays_its_move() -> None:
    engine = GtpEngine(playouts=200)
    ask(engine, "boardsize 7")
    order = engine.execute("7 genmove b")
    assert isinstance(order, Genmove)
    assert order.command_id == "7" and order.colour == 0 and order.algorithm == "mcts"
    assert order.limits == Limits(nodes=200) and engine.moves == []
    result = SearchResult.unsearched("D4", "time", 0)
    assert engine.genmove_answer(order, result) == "=7 D4\n\n"
    assert engine.moves == [(0, "D4")]
    assert refused(engine, "play w D4") == "illegal move"


def test_genmove_plays_a_legal_move_searched_by_the_worker_pool() -> None:
    commands = "boardsize 7\nclear_board\n1 genmove b\n2 genmove white\nquit\n"
    engine = GtpEngine(playouts=200)
    out = io.StringIO()
    assert serve(engine, io.StringIO(commands), out) == 0
    answers = out.getvalue().split("\n\n")
    assert answers[:2] == ["=", "="] and answers[4:] == ["=", ""], answers
    black, white = answers[2].removeprefix("=1 "), answers[3].removeprefix("=2 ")
    game = create_game("go", {"size": 7, "komi": 7.5})
    assert game.parse_move(game.initial_state(), black) is not None
    assert engine.moves == [(0, black), (1, white)] and white != black


def test_final_score_counts_area_with_komi() -> None:
    engine = GtpEngine(playouts=50)
    ask(engine, "boardsize 5")
    ask(engine, "komi 0.5")
    assert ask(engine, "final_score") == "W+0.5"  # an empty board: komi only
    # A black wall on column C: black owns columns A-C (15 points), white D-E (10).
    for row in range(1, 6):
        ask(engine, f"play b C{row}")
        ask(engine, f"play w D{row}")
    assert ask(engine, "final_score") == "B+4.5"


def test_time_settings_and_time_left_drive_the_search_clock() -> None:
    engine = GtpEngine()
    ask(engine, "time_settings 60 10 5")
    ask(engine, "time_left b 30 0")
    assert engine._limits(0).clock is not None
    assert engine._limits(0).clock.time_ms == 30_000 + 2_000  # main time and a share of byo-yomi
    ask(engine, "time_left w 8 3")
    assert engine._limits(1).clock == engine.time.clock(1)  # type: ignore[union-attr]
    assert engine._limits(1).clock.moves_to_go == 3  # type: ignore[union-attr]
    ask(engine, "time_settings 0 1 0")  # GTP: no time limit
    assert engine._limits(0).movetime_ms == engine.movetime_ms
    assert refused(engine, "time_settings 1 2") == "syntax error"


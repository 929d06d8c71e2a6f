"""``arena gtp``: the GTP 2 commands, the program on stdin/stdout, and a match against GNU Go."""

from __future__ import annotations

import dataclasses
import io
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.games.go import RESIGN_BELOW, RESIGN_CONSECUTIVE, RESIGN_MIN_PLAYOUTS
from engine.registry import create_game
from engine.search.limits import Clock, Limits, plan_deadlines
from engine.search.mcts import score_from_win_rate
from engine.search.results import SearchResult, SearchStats
from engine.search.score import Score
from server.frontends.gtp import (
    MAX_SIZE,
    MIN_SIZE,
    WINRATE_COMMAND,
    Genmove,
    GtpEngine,
    TimeSettings,
    serve,
)
from tests.timing import UNIT

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
    "kgs-time_settings",
    "quit",
    # issue 30: as Go tools use GTP
    "final_status_list",
    "kgs-genmove_cleanup",
    "loadsgf",
    "reg_genmove",
    "gogui-analyze_commands",
    # GTP 2's tournament set: handicap games
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
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
    assert refused(engine, "known_command") == "syntax error"  # GTP 2: one argument
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


def _hopeless(move: str, pv: tuple[str, ...]) -> SearchResult:
    """A search's answer giving the mover no chance, after many playouts."""
    result = SearchResult.unsearched(move, "time", 0)
    info = dataclasses.replace(
        result.info, score=Score(value=-1000), playouts=RESIGN_MIN_PLAYOUTS, pv=pv
    )
    return dataclasses.replace(result, info=info)


def test_genmove_resigns_only_when_searches_in_a_row_stay_below_the_threshold() -> None:
    # A board two-fifths full (past the opening), Black to move and lost.
    engine = GtpEngine(playouts=200)
    ask(engine, "boardsize 5")
    for ply, vertex in enumerate(["A1", "E5", "A2", "E4", "A3", "E3", "A4", "E2", "B1", "D5"]):
        ask(engine, f"play {'b' if ply % 2 == 0 else 'w'} {vertex}")
    colour_moves = ["C3", "C4", "B3", "B4", "C2", "D2"]
    answers = []
    for ply in range(RESIGN_CONSECUTIVE):
        black, white = colour_moves[2 * ply], colour_moves[2 * ply + 1]
        # The server's search said resign (its line starts with the best move)...
        order = engine.execute("genmove b")
        assert isinstance(order, Genmove)
        answers.append(engine.genmove_answer(order, _hopeless("resign", (black,))))
        if answers[-1] != "= resign\n\n":
            ask(engine, f"play w {white}")
    # ... and Black played its best move until the third search in a row.
    assert answers[:-1] == [f"= {colour_moves[2 * i]}\n\n" for i in range(RESIGN_CONSECUTIVE - 1)]
    assert answers[-1] == "= resign\n\n"
    # A search with hope in between starts the count again; reg_genmove
    # tells what a genmove would do without counting.
    ask(engine, "undo")
    ask(engine, "undo")
    engine.low_searches.counts = [0, 0]
    order = engine.execute("genmove b")
    assert isinstance(order, Genmove)
    assert engine.genmove_answer(order, _hopeless("B5", ("B5",))) == "= B5\n\n"
    assert engine.low_searches.counts[0] == 1
    ask(engine, "undo")
    order = engine.execute("genmove b")
    assert isinstance(order, Genmove)
    assert engine.genmove_answer(order, SearchResult.unsearched("B5", "time", 0)) == "= B5\n\n"
    assert engine.low_searches.counts[0] == 0
    # A short think on a kept tree: its root's win rate rests on the reused
    # playouts too, and it counts (issue 30: at 100 ms a move none did).
    ask(engine, "undo")
    short = _hopeless("B5", ("B5",))
    short = dataclasses.replace(
        short,
        info=dataclasses.replace(short.info, playouts=RESIGN_MIN_PLAYOUTS // 4),
        stats=SearchStats(reused_visits=RESIGN_MIN_PLAYOUTS),
    )
    order = engine.execute("genmove b")
    assert isinstance(order, Genmove)
    assert engine.genmove_answer(order, short) == "= B5\n\n"
    assert engine.low_searches.counts[0] == 1
    engine.low_searches.counts = [0, 0]
    ask(engine, "undo")
    engine.low_searches.counts = [RESIGN_CONSECUTIVE - 1, 0]
    order = engine.execute("reg_genmove b")
    assert isinstance(order, Genmove) and not order.register
    assert engine.genmove_answer(order, _hopeless("B5", ("B5",))) == "= resign\n\n"
    assert engine.low_searches.counts[0] == RESIGN_CONSECUTIVE - 1
    # clear_board forgets the count; with resigning off the best move is always played.
    ask(engine, "clear_board")
    assert engine.low_searches.counts == [0, 0]
    quiet = GtpEngine(playouts=200, resign_below=0)
    quiet.low_searches.counts = [RESIGN_CONSECUTIVE - 1, 0]
    order = quiet.execute("genmove b")
    assert isinstance(order, Genmove)
    assert quiet.genmove_answer(order, _hopeless("resign", ("C3",))) == "= C3\n\n"


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


def test_kgs_time_settings_are_time_settings() -> None:
    # The review of 2026-12-07: "? unknown command" (KGS sends it first).
    engine = GtpEngine()
    assert ask(engine, "known_command kgs-time_settings") == "true"
    ask(engine, "kgs-time_settings byoyomi 600 30 5")  # a move in each 30 s period
    assert engine.time == TimeSettings(600_000, 30_000, 1)
    ask(engine, "kgs-time_settings canadian 300 60 10")
    assert engine.time == TimeSettings(300_000, 60_000, 10)
    ask(engine, "kgs-time_settings absolute 120")
    assert engine.time == TimeSettings(120_000, 0, 0)
    ask(engine, "kgs-time_settings byoyomi 90 10 0")  # no periods: sudden death
    assert engine.time == TimeSettings(90_000, 0, 0)
    ask(engine, "kgs-time_settings none")
    assert engine.time is not None and engine.time.unlimited
    for bad in ("", "fischer 60 5", "byoyomi 60 10", "none 5", "byoyomi 60 10 -1"):
        assert refused(engine, f"kgs-time_settings {bad}") == "syntax error"


# ----------------------------------------------------------------------
# As Go tools use GTP (issue 30).

#: Black's wall on E, White's on F, a dead White stone at B5 in Black's area.
WALLS = [(f"E{row}", f"F{row}") for row in range(1, 10)]


def walls_with_a_dead_stone(engine: GtpEngine) -> None:
    ask(engine, "boardsize 9")
    ask(engine, "clear_board")
    for black, white in WALLS:
        ask(engine, f"play b {black}")
        ask(engine, f"play w {white}")
    ask(engine, "play w B5")


def test_final_status_list_names_the_dead_stones() -> None:
    engine = GtpEngine(playouts=50)
    walls_with_a_dead_stone(engine)
    assert ask(engine, "final_status_list dead") == "B5"
    alive = ask(engine, "final_status_list alive").split()
    assert len(alive) == 18 and "B5" not in alive and "E5" in alive
    assert ask(engine, "final_status_list seki") == ""
    assert refused(engine, "final_status_list undead") == "syntax error"


def test_kgs_genmove_cleanup_and_reg_genmove_ask_for_searches() -> None:
    engine = GtpEngine(playouts=50)
    walls_with_a_dead_stone(engine)
    order = engine.execute("kgs-genmove_cleanup b")
    assert isinstance(order, Genmove) and order.cleanup and order.register
    registered = engine.execute("3 reg_genmove b")
    assert isinstance(registered, Genmove) and registered.register is False
    before = list(engine.moves)
    assert (
        engine.genmove_answer(registered, SearchResult.unsearched("A1", "time", 0)) == "=3 A1\n\n"
    )
    assert engine.moves == before  # reg_genmove plays nothing


def cleanup_answer(before: str) -> tuple[GtpEngine, str]:
    """The walls with a dead stone, the commands ``before``, then Black's
    ``kgs-genmove_cleanup`` served over the worker pool: the engine and its answer."""
    commands = "".join(f"play b {b}\nplay w {w}\n" for b, w in WALLS)
    commands += f"play w B5\n{before}1 kgs-genmove_cleanup b\nquit\n"
    engine = GtpEngine(playouts=100)
    out = io.StringIO()
    assert serve(engine, io.StringIO(commands), out) == 0
    return engine, out.getvalue().split("\n\n")[-3]


def test_the_clean_up_search_plays_on_over_the_worker_pool() -> None:
    engine, answer = cleanup_answer("")
    # a move, not a pass (the worker captures before passing), now played
    assert answer.startswith("=1 ") and answer[3:] not in ("pass", "resign"), answer
    assert engine.moves[-1] == (0, answer[3:])


def test_loadsgf_sets_up_the_record_before_a_move_number(tmp_path: Path) -> None:
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[1]SZ[7]KM[6.5]C[a comment];B[dd];W[cc];B[ee])")
    engine = GtpEngine(playouts=50)
    assert ask(engine, f"loadsgf {record}") == "white"
    board = ask(engine, "showboard")
    assert board.count("X") >= 2 and engine.game.size == 7
    # The record's komi, as GTP 2 says and GNU Go does (a review of
    # 2026-12-07: the controller's 7.5 stayed).
    assert engine.game.options["komi"] == 6.5
    assert ask(engine, f"loadsgf {record} 2") == "white"  # before move 2: B[dd] only
    state = engine.state
    stones = [p for p in engine.game.points if state.board[p]]
    assert [engine.game.format_move(state, p) for p in stones] == ["D4"]
    assert refused(engine, f"loadsgf {tmp_path / 'missing.sgf'}") == "cannot load file"
    (tmp_path / "bad.sgf").write_text("not sgf")
    assert refused(engine, f"loadsgf {tmp_path / 'bad.sgf'}").startswith("cannot load file")
    # A file whose moves break the rules is refused and changes nothing (the
    # review of 2026-12-06: the board was left empty, 9x9, Black to play).
    board = ask(engine, "showboard")
    (tmp_path / "illegal.sgf").write_text("(;GM[1]SZ[9];B[ee];W[ee])")
    why = refused(engine, f"loadsgf {tmp_path / 'illegal.sgf'}")
    assert why.startswith("cannot load file") and "not a legal move" in why, why
    assert ask(engine, "showboard") == board and engine.game.size == 7
    assert engine.game.options["komi"] == 6.5
    # No KM: the controller's komi stays.
    ask(engine, "komi 0.5")
    (tmp_path / "nokomi.sgf").write_text("(;GM[1]SZ[9];B[ee])")
    assert ask(engine, f"loadsgf {tmp_path / 'nokomi.sgf'}") == "white"
    assert engine.game.options["komi"] == 0.5


def test_gogui_analyze_commands_give_a_win_rate_and_an_ownership_map() -> None:
    engine = GtpEngine(playouts=50)
    commands = ask(engine, "gogui-analyze_commands").split("\n")
    assert commands == ["string/Win rate/arena-winrate", "gfx/Ownership/arena-ownership"]
    assert ask(engine, "arena-winrate") == "no search yet"
    walls_with_a_dead_stone(engine)
    influence = ask(engine, "arena-ownership").split()
    assert influence[0] == "INFLUENCE" and len(influence) == 1 + 2 * 81
    shares = dict(zip(influence[1::2], map(float, influence[2::2]), strict=True))
    assert shares["E5"] > 0 > shares["F5"] and all(-1 <= v <= 1 for v in shares.values())
    order = engine.execute("genmove b")
    assert isinstance(order, Genmove)
    engine.genmove_answer(order, SearchResult.unsearched("A1", "time", 0))
    assert ask(engine, "arena-winrate").startswith("black's chance of winning 50.0%")


def test_without_time_left_the_engine_counts_its_own_clock() -> None:
    """Issue 30: 75 s of a 60 s clock spent in 37 moves, the main time taken afresh each move."""
    engine = GtpEngine()
    ask(engine, "time_settings 60 0 0")  # 60 s sudden death, and no time_left ever
    assert engine.time is not None
    first = engine._limits(0).clock
    assert first is not None and first.time_ms == 60_000
    engine.time.spend(0, 2_000)
    after = engine._limits(0).clock
    assert after is not None and after.time_ms == 58_000
    assert engine._limits(1).clock == first  # White's clock is its own
    spent = 2_000
    for _ in range(200):  # every move spends the whole share it was planned
        clock = engine._limits(0).clock
        assert clock is not None
        planned = plan_deadlines(Limits(clock=clock), 0.0).hard
        assert planned is not None
        engine.time.spend(0, math.ceil(planned * 1000))
        spent += math.ceil(planned * 1000)
    assert spent < 60_000  # never over the clock
    # byo-yomi: 10 s for 5 stones, started when the main time is spent
    ask(engine, "time_settings 1 10 5")
    engine.time.spend(1, 1_500)
    assert (engine.time.left_ms[1], engine.time.stones_left[1]) == (9_500, 5)
    for _ in range(5):
        engine.time.spend(1, 1_000)
    assert (engine.time.left_ms[1], engine.time.stones_left[1]) == (10_000, 5)  # a new period
    ask(engine, "time_left w 3 2")  # the controller's word wins
    assert (engine.time.left_ms[1], engine.time.stones_left[1]) == (3_000, 2)


# ----------------------------------------------------------------------
# The Go review of 2026-11-29: GTP as controllers use it.


def test_a_game_goes_on_after_two_passes_and_past_its_length() -> None:
    """Two passes, or 2 x size² plies, ended the game: every later play was refused
    and genmove passed at once. The controller ends a GTP game (KGS's clean-up phase,
    GoGui playing on), as GNU Go lets it."""
    engine = GtpEngine(playouts=50)
    for line in ("play b e5", "play w pass", "play b pass", "play w d4"):
        ask(engine, line)
    assert isinstance(engine.execute("genmove b"), Genmove)
    assert isinstance(engine.execute("kgs-genmove_cleanup b"), Genmove)
    # the length bound (162 plies on 9x9) does not end it either
    engine.states[-1] = engine.state._replace(ply=engine.game.max_length)
    ask(engine, "play b c3")
    assert isinstance(engine.execute("genmove w"), Genmove)


def test_the_dead_stone_is_captured_in_a_clean_up_after_two_passes() -> None:
    _, answer = cleanup_answer("play b pass\nplay w pass\n")
    assert answer.startswith("=1 ") and answer[3:] not in ("pass", "resign"), answer


def test_komi_keeps_the_loaded_board_and_takes_any_number(tmp_path: Path) -> None:
    """komi after loadsgf emptied the board; komi 1000 was refused, and every later
    clear_board and boardsize failed with it (GTP: "must accept the komi even if it
    should be ridiculous")."""
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[1]SZ[9];B[ee];W[cc];B[gg])")
    engine = GtpEngine(playouts=50)
    ask(engine, f"loadsgf {record}")
    before = engine.state
    ask(engine, "komi 6.5")
    assert engine.state == before and engine.game.options["komi"] == 6.5
    assert ask(engine, "komi 1000") == ""
    assert engine.game.options["komi"] == 150  # the most the game takes
    assert ask(engine, "final_score").startswith("W+")
    ask(engine, "boardsize 13")
    ask(engine, "clear_board")
    ask(engine, "play b M13")
    assert engine.game.size == 13


def test_resign_is_no_vertex_for_play() -> None:
    engine = GtpEngine(playouts=50)
    ask(engine, "play b d4")
    assert refused(engine, "play b resign") == "illegal move"
    ask(engine, "play w e5")


def test_final_status_list_gives_one_string_a_line() -> None:
    engine = GtpEngine(playouts=50)
    walls_with_a_dead_stone(engine)
    lines = ask(engine, "final_status_list alive").split("\n")
    assert sorted(lines) == ["E9 E8 E7 E6 E5 E4 E3 E2 E1", "F9 F8 F7 F6 F5 F4 F3 F2 F1"]


def _resign_at(chance: float, scale: int, pv: str) -> SearchResult:
    """The server's search saying ``resign`` (it does below its 5%) at this chance of winning."""
    result = SearchResult.unsearched("resign", "time", 0)
    score = Score(value=score_from_win_rate(chance, scale))
    info = dataclasses.replace(result.info, score=score, playouts=RESIGN_MIN_PLAYOUTS, pv=(pv,))
    return dataclasses.replace(result, info=info)


def test_resign_below_is_the_threshold_whichever_side_of_the_servers_it_is() -> None:
    # arena gtp --resign-below 0.02 resigned at the server's 5%: any
    # "resign" from the server's search counted as low. Now the engine's
    # rule is applied again with the threshold arena gtp was given.
    for below, chance, resigns in ((0.02, 0.04, False), (0.02, 0.01, True), (0.1, 0.07, True)):
        engine = GtpEngine(playouts=200, resign_below=below)
        ask(engine, "boardsize 5")
        for ply, vertex in enumerate(["A1", "E5", "A2", "E4", "A3", "E3", "A4", "E2", "B1", "D5"]):
            ask(engine, f"play {'b' if ply % 2 == 0 else 'w'} {vertex}")
        scale = engine.game.win_odds_scale
        answers = []
        for black, white in (("C3", "C4"), ("B3", "B4"), ("C2", "D2")):
            order = engine.execute("genmove b")
            assert isinstance(order, Genmove)
            low = _resign_at(chance, scale, black)
            if chance > RESIGN_BELOW:  # above the server's threshold: its best move
                low = dataclasses.replace(low, move=black)
            answers.append(engine.genmove_answer(order, low))
            if answers[-1] != "= resign\n\n":
                ask(engine, f"play w {white}")
        assert (answers[-1] == "= resign\n\n") == resigns, (below, chance, answers)


def test_the_win_rate_names_the_move_played() -> None:
    engine = GtpEngine(playouts=50)
    order = engine.execute("genmove b")
    assert isinstance(order, Genmove)
    low = SearchResult.unsearched("resign", "time", 0)
    low = dataclasses.replace(low, info=dataclasses.replace(low.info, pv=("C3",)))
    assert engine.genmove_answer(order, low) == "= C3\n\n"
    assert ask(engine, "arena-winrate").endswith(", C3)")


def test_a_new_game_starts_with_full_clocks() -> None:
    """A review of 2026-12-07: time_settings sent once, then clear_board before each
    game (as match controllers do); the clock this engine counted for itself in the
    first game carried over, and every move of the next was unsearched."""
    engine = GtpEngine()
    ask(engine, "time_settings 1 0 0")
    assert engine.time is not None
    engine.time.spend(0, 1_000)
    engine.time.spend(1, 990)
    assert engine.time.left_ms == [0, 10]
    ask(engine, "clear_board")
    assert engine.time.left_ms == [None, None]
    assert engine._limits(0).clock == Clock(1_000) == engine._limits(1).clock


def test_main_time_spent_plans_the_byo_yomi_period_that_follows() -> None:
    """A review of 2026-12-07: ``time_left w 0 0`` with a 5 s byo-yomi period of one
    stone to come was planned as 5 s for the rest of the game (0.09 s a move)."""
    engine = GtpEngine()
    ask(engine, "time_settings 0 5 1")
    ask(engine, "time_left w 0 0")
    assert engine._limits(1).clock == Clock(5_000, moves_to_go=1)


def test_threads_pool_the_searches_of_several_processes() -> None:
    """``arena gtp --threads 2``: each genmove is searched in two processes at
    once (root parallelism) and answered with the move most visited over both;
    the answer counts both searches' playouts."""
    commands = f"boardsize 7\nclear_board\n1 genmove b\n2 {WINRATE_COMMAND}\nquit\n"
    engine = GtpEngine(playouts=200, threads=2)
    out = io.StringIO()
    assert serve(engine, io.StringIO(commands), out) == 0
    answers = out.getvalue().split("\n\n")
    black = answers[2].removeprefix("=1 ")
    game = create_game("go", {"size": 7, "komi": 7.5})
    assert game.parse_move(game.initial_state(), black) is not None
    said = re.search(r"\((\d+) playouts", answers[3])
    assert said is not None and int(said.group(1)) == 400, answers[3]


#: GNU Go 3.8's answers to ``fixed_handicap N`` (``gnugo --mode gtp``,
#: 2026-12-07), by board size and N; None where it answers "invalid handicap".
GNUGO_FIXED_HANDICAP: dict[int, dict[int, str | None]] = {
    7: {2: "E5 C3", 3: "C5 E5 C3", 4: "C5 E5 C3 E3", 5: None},
    8: {2: "F6 C3", 4: "C6 F6 C3 F3", 5: None},
    9: {
        2: "G7 C3",
        3: "C7 G7 C3",
        5: "C7 G7 E5 C3 G3",
        6: "C7 G7 C5 G5 C3 G3",
        7: "C7 G7 C5 E5 G5 C3 G3",
        8: "C7 E7 G7 C5 G5 C3 E3 G3",
        9: "C7 E7 G7 C5 E5 G5 C3 E3 G3",
        10: None,
    },
    12: {2: "J9 D4", 4: "D9 J9 D4 J4", 5: None},
    13: {2: "K10 D4", 5: "D10 K10 G7 D4 K4", 8: "D10 G10 K10 D7 K7 D4 G4 K4"},
    19: {2: "Q16 D4", 6: "D16 Q16 D10 Q10 D4 Q4", 9: "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4"},
    5: {2: None},
}


def test_fixed_handicap_places_gtp_2s_table_as_gnu_go_does() -> None:
    """The review of 2026-12-07: ``fixed_handicap`` and the free handicap
    commands (GTP 2's tournament set, section 6.2) were unknown, so a
    controller that sends them could not start a handicap game."""
    for size, answers in GNUGO_FIXED_HANDICAP.items():
        for count, vertices in answers.items():
            engine = GtpEngine(playouts=50)
            ask(engine, f"boardsize {size}")
            if vertices is None:
                assert refused(engine, f"fixed_handicap {count}") == "invalid number of stones"
                continue
            placed = ask(engine, f"fixed_handicap {count}")
            assert sorted(placed.split()) == sorted(vertices.split()), (size, count)
            # Black's stones, White to move, and no move to undo.
            assert engine.game.to_move(engine.state) == 1
            assert board_stones(engine) == {v: "X" for v in vertices.split()}
            assert refused(engine, "undo") == "cannot undo"


def board_stones(engine: GtpEngine) -> dict[str, str]:
    state = engine.state
    return {
        engine.game.format_move(state, p): "X" if state.board[p] == 1 else "O"
        for p in engine.game.points
        if state.board[p] != 0
    }


def test_free_handicap_is_placed_by_the_engine_or_set_by_the_controller() -> None:
    engine = GtpEngine(playouts=50)
    ask(engine, "boardsize 9")
    for count in (2, 9, 12, 80):
        ask(engine, "clear_board")
        placed = ask(engine, f"place_free_handicap {count}").split()
        assert len(placed) == len(set(placed)) == count
        assert set(board_stones(engine)) == set(placed)
    ask(engine, "clear_board")
    assert refused(engine, "place_free_handicap 1") == "invalid number of stones"
    assert refused(engine, "place_free_handicap 81") == "invalid number of stones"
    assert ask(engine, "set_free_handicap C3 G7 E5") == "C3 E5 G7"
    assert board_stones(engine) == {"C3": "X", "E5": "X", "G7": "X"}
    order = engine.execute("genmove w")  # White answers the handicap
    assert isinstance(order, Genmove) and engine.game.to_move(order.state) == 1
    assert refused(engine, "set_free_handicap D4 D5") == "board not empty"
    assert refused(engine, "fixed_handicap 2") == "board not empty"
    ask(engine, "clear_board")
    ask(engine, "play b A1")
    assert refused(engine, "set_free_handicap C3 G7") == "board not empty"
    ask(engine, "clear_board")
    for bad in ("C3", "C3 C3", "pass C3", "C3 Z9", "C3 J10"):
        assert refused(engine, f"set_free_handicap {bad}") == "bad vertex list", bad
    assert engine.moves == [] and not board_stones(engine)
    # A board too small for the table still takes a free handicap.
    ask(engine, "boardsize 5")
    assert refused(engine, "fixed_handicap 2") == "invalid number of stones"
    assert len(ask(engine, "place_free_handicap 2").split()) == 2


GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_fixed_handicap_agrees_with_gnu_go_on_every_size_and_count() -> None:
    assert GNUGO is not None
    cases = [(size, count) for size in range(MIN_SIZE, MAX_SIZE + 1) for count in range(2, 11)]
    script = "".join(f"boardsize {s}\nclear_board\nfixed_handicap {n}\n" for s, n in cases)
    output = subprocess.run(
        [GNUGO, "--mode", "gtp"],
        input=script + "quit\n",
        capture_output=True,
        text=True,
        timeout=60 * UNIT,
        check=True,
    ).stdout
    answers = [a.strip() for a in output.split("\n\n") if a.strip()]
    # Three answers a case (boardsize, clear_board, fixed_handicap), then quit's.
    theirs = answers[2::3][: len(cases)]
    for (size, count), answer in zip(cases, theirs, strict=True):
        engine = GtpEngine(playouts=50)
        ask(engine, f"boardsize {size}")
        ours = engine.execute(f"fixed_handicap {count}")
        assert isinstance(ours, str)
        if answer.startswith("?"):
            assert ours.startswith("?"), (size, count, ours)
        else:
            assert sorted(ours[1:].split()) == sorted(answer[1:].split()), (size, count)

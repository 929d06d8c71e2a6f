"""External engines behind the server (server.external): specs, translation, faults, Stockfish."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import chess
import pytest

from engine.registry import create_game
from engine.search.limits import CLOCK_SAFETY_MS, Clock, Deadlines, Limits, plan_deadlines
from engine.search.score import Score
from server.external import (
    ExternalEngine,
    check_externals,
    go_command,
    offered_algorithms,
    parse_external,
    parse_info,
)
from server.programs.gtp import setup_commands
from server.programs.uci import UciOption, multipv_value
from tests.server.server_harness import (
    UNIT,
    RawClient,
    raw_client,
    running_server,
    wait_until,
)

FAKE = Path(__file__).with_name("fake_uci_engine.py")
STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
)


def fake(mode: str, name: str = "fake", default: bool = False) -> ExternalEngine:
    return ExternalEngine("chess", name, "uci", (sys.executable, str(FAKE), mode), (), default)


def fake_gtp(mode: str, name: str | None = None) -> ExternalEngine:
    """The fake GTP engine (fake_gtp_engine.py) in ``mode``, named after it by default."""
    program = (sys.executable, str(FAKE.with_name("fake_gtp_engine.py")), mode)
    return ExternalEngine("go", name or mode, "gtp", program, ())


# ----------------------------------------------------------------------
# Specs and translation.


def test_specs_name_the_game_the_program_and_its_options() -> None:
    plain = parse_external("chess=uci:/usr/games/stockfish")
    assert (plain.game, plain.name, plain.default) == ("chess", "stockfish", True)
    assert plain.argv == ("/usr/games/stockfish",) and plain.options == ()
    named = parse_external("chess:sf5=uci:stockfish --flag?Skill Level=5&Hash=16")
    assert (named.name, named.default, named.argv) == ("sf5", False, ("stockfish", "--flag"))
    assert named.options == (("Skill Level", "5"), ("Hash", "16"))
    for bad, why in (
        ("chess", "expected"),
        ("draughts=uci:x", "unknown game"),
        ("chess=xboard:crafty", "protocol"),
        ("go=uci:stockfish", "plays chess"),
        ("chess=uci:", "no command"),
        ("chess:mcts=uci:stockfish", "own searches"),
        ("chess=uci:stockfish?Hash", "Option=Value"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_external(bad)
    with pytest.raises(ValueError, match="two default"):
        check_externals([plain, parse_external("chess=uci:other")])
    with pytest.raises(ValueError, match="two engines"):
        check_externals([named, parse_external("chess:sf5=uci:other")])
    assert offered_algorithms("chess", ["alphabeta", "mcts"], [named, plain]) == [
        "stockfish",
        "alphabeta",
        "mcts",
        "sf5",
    ]


def test_info_lines_become_our_reports() -> None:
    info = parse_info(
        "info depth 12 seldepth 17 multipv 1 score cp -34 lowerbound nodes 9000 nps 90000 "
        "hashfull 12 tbhits 0 time 100 pv e7e5 g1f3",
        5,
    )
    assert info is not None
    assert (info.depth, info.seldepth, info.score, info.nodes, info.time_ms, info.hashfull) == (
        12,
        17,
        Score(value=-34),
        9000,
        100,
        12,
    )
    assert info.pv == ("e7e5", "g1f3")
    mate = parse_info("info depth 5 score mate 3 pv d1h5", 5)
    mated = parse_info("info depth 5 score mate -2 pv g2g4", 5)
    assert mate is not None and mate.score == Score(win_in=5)
    assert mated is not None and mated.score == Score(loss_in=4)
    for useless in (
        "info string NNUE evaluation enabled",
        "info depth 3 currmove e2e4 currmovenumber 1",
        "info depth x score cp y pv",
        "info depth 4 score cp 3",
    ):
        assert parse_info(useless, 5) is None


def test_out_of_range_figures_are_clamped_not_the_report_dropped() -> None:
    """The ops review of 2026-11-29: a depth-7 report with nodes -5 and nps 1e9 was
    dropped whole, and the engine's move then went out as depth 0, "nothing searched"."""
    info = parse_info(
        "info depth 7 seldepth 99999999 score cp 99999999999 nodes -5 nps 1e9 pv e2e4", 5
    )
    assert info is not None and info.depth == 7 and info.seldepth == 1000
    assert info.nodes == 0 and info.nps == 10**9 and info.score == Score(value=100_000)


def test_a_lines_rank_is_read_and_nonsense_ranks_are_no_report() -> None:
    second = parse_info("info depth 9 multipv 2 score cp 5 pv e2e4", 5)
    assert second is not None and second.multipv == 2
    plain = parse_info("info depth 9 score cp 5 pv e2e4", 5)
    assert plain is not None and plain.multipv == 1
    for bad in ("0", "-1", "17", str(10**30), "x"):
        assert parse_info(f"info depth 9 multipv {bad} score cp 5 pv e2e4", 5) is None


def test_multipv_is_set_within_what_the_engine_declares() -> None:
    declared = {"multipv": UciOption("MultiPV", "spin", 1, 5)}
    assert multipv_value(declared, 3) == 3
    assert multipv_value(declared, 16) == 5
    assert multipv_value({"multipv": UciOption("MultiPV", "spin", 2, 500)}, 1) == 2
    assert multipv_value({"multipv": UciOption("MultiPV", "spin", None, -4)}, 3) == 1
    assert multipv_value({"multipv": UciOption("MultiPV", "check")}, 3) is None
    assert multipv_value({"hash": UciOption("Hash", "spin", 1, 64)}, 3) is None


def test_go_gives_the_engine_what_is_left_of_the_deadline() -> None:
    assert go_command(Limits(depth=9), Deadlines(0.0, None, None), 0, 0.0) == "go depth 9"
    assert go_command(Limits(), Deadlines(0.0, None, None), 0, 0.0) == "go infinite"
    timed = go_command(Limits(movetime_ms=500), Deadlines(10.0, 10.5, 10.5), 0, 10.1)
    assert timed == "go movetime 390"  # 10 ms kept for the answer's way back


def test_a_clock_is_given_to_a_uci_engine_which_keeps_its_own_time() -> None:
    """A review of 2026-12-07: on --tc 2+0 an engine was sent "go movetime
    182" (the server's own planning, a third of what it had) and lost on time
    with 1990 ms left. It gets the clock, as under cutechess, and only an
    answer beyond the time left is late."""
    clock = Limits(clock=Clock(time_ms=2000, inc_ms=50, moves_to_go=20))
    deadlines = plan_deadlines(clock, 10.0, own_clock=True)
    assert deadlines.hard == pytest.approx(10.0 + (2000 - CLOCK_SAFETY_MS) / 1000)
    assert go_command(clock, deadlines, 0, 10.5) == (
        "go wtime 1470 btime 1470 winc 50 binc 50 movestogo 20"
    )
    ours = plan_deadlines(clock, 10.0)  # our own search's planning, for comparison
    assert ours.hard is not None and ours.hard < 10.5
    # A deadline cut sooner than the clock (a move time beside it, the
    # server's cap) is a movetime; the clock is still the clock (a review
    # of 2026-12-07: "go wtime 174 btime 174 movetime 174" for a 3 s clock).
    both = Limits(movetime_ms=200, clock=Clock(time_ms=3000))
    cut = plan_deadlines(both, 0.0, own_clock=True)
    assert go_command(both, cut, 0, 0.0) == "go wtime 2970 btime 2970 movetime 190"
    capped = plan_deadlines(Limits(clock=Clock(time_ms=600_000)), 0.0, own_clock=True)
    capped = capped.capped(5.0)  # the server's longest think: 5 s
    assert go_command(Limits(clock=Clock(time_ms=600_000)), capped, 0, 0.0) == (
        "go wtime 599970 btime 599970 movetime 4990"
    )


def test_a_uci_engine_is_told_its_opponents_clock_too() -> None:
    """The last note's known gap: the think carried the mover's clock only, so
    an engine was told its own time as both ``wtime`` and ``btime`` (Stockfish
    weighs its time against its opponent's). The clock's ``opponent_ms`` is
    the other side's, by colour."""
    limits = Limits(clock=Clock(time_ms=2000, inc_ms=50, opponent_ms=9000))
    deadlines = plan_deadlines(limits, 10.0, own_clock=True)
    white = go_command(limits, deadlines, 0, 10.5)
    assert white == "go wtime 1470 btime 9000 winc 50 binc 50"
    black = go_command(limits, deadlines, 1, 10.5)
    assert black == "go wtime 9000 btime 1470 winc 50 binc 50"
    # A flag-fallen opponent is told 1 ms, never 0 (some engines read 0 as unset).
    flagged = Limits(clock=Clock(time_ms=2000, opponent_ms=0))
    assert "btime 1 " in go_command(flagged, deadlines, 0, 10.5) + " "


# ----------------------------------------------------------------------
# Through the server.


@pytest.mark.asyncio
async def test_an_engine_on_a_clock_keeps_its_own_time_and_a_bare_bestmove_counts() -> None:
    """A review of 2026-12-07, with arena tournament --tc 2+0: an engine that
    answered in 0.45 s with 1990 ms left lost on time (the server had told it
    "go movetime 182" and answered for it there); an engine whose bestmove
    came with no info line lost on time too (its own move, read as depth 0)."""
    engines = (fake("sleepy", "sleepy"), fake("noinfo", "noinfo"))
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        # Our own planning gives this clock a hard deadline of about 200 ms;
        # the engine takes 300 ms of its 2 s.
        clock = {"clock": {"time_ms": 2000, "inc_ms": 0}}
        _, best = await client.think(2, clock, algorithm="sleepy")
        assert (best["depth"], best["reason"]) != (0, "time"), best
        assert best["depth"] >= 1 and best["time_ms"] >= 250, best
        _, best = await client.think(3, {"movetime_ms": 1000}, algorithm="noinfo")
        assert best["depth"] == 1 and best["move"] != "" and best["time_ms"] < 900, best


@pytest.mark.asyncio
async def test_a_uci_engine_hears_of_each_new_game_and_of_its_opponents_clock() -> None:
    """The last note's known gaps: a UCI program kept between games was never
    sent ``ucinewgame`` (it took the next game for the last one), and it was
    told its own time as its opponent's. Each ``new_game`` is a new game for
    the program, the moves of one game are not; ``clock.opponent_ms`` is the
    other side's ``btime`` or ``wtime``."""
    engines = (fake("newgames", "newgames"), fake("otherclock", "otherclock"))
    async with running_server(externals=engines) as server, raw_client(server.port) as client:

        async def told(think_id: int, limits: dict[str, Any], algorithm: str) -> int:
            infos, best = await client.think(think_id, limits, algorithm=algorithm)
            assert best["reason"] != "engine_error", best
            return int(infos[-1]["score"]["value"])

        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        depth = {"depth": 1}
        assert await told(2, depth, "newgames") == 1
        await client.request({"type": "move", "id": 3, "move": "e2e4"})
        await client.request({"type": "move", "id": 4, "move": "e7e5"})
        assert await told(5, depth, "newgames") == 1  # the same game
        await client.request({"type": "new_game", "id": 6, "game": "chess"})
        assert await told(7, depth, "newgames") == 2  # a new one, from the same start
        clock = {"clock": {"time_ms": 2000, "opponent_ms": 9000}}
        assert await told(8, clock, "otherclock") == 9000  # White to move: btime
        await client.request({"type": "move", "id": 9, "move": "d2d4"})
        assert await told(10, clock, "otherclock") == 9000  # Black to move: wtime
        # A client that does not say it: the mover's own clock, as before.
        alone = await told(11, {"clock": {"time_ms": 2000}}, "otherclock")
        assert 1000 < alone <= 2000


@pytest.mark.asyncio
async def test_an_external_engine_thinks_streams_and_stops() -> None:
    engines = (fake("ok", "fake", default=True), fake("ok", "second"))
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        welcome = await client.request({"type": "hello", "id": 0})
        chess_entry = next(g for g in welcome["games"] if g["name"] == "chess")
        assert chess_entry["algorithms"][0] == "fake" and chess_entry["algorithms"][-1] == "second"
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        # Long enough for the fake engine to report its second depth ("mate 2")
        # on a loaded machine too: at 150 ms it once reported only its first.
        infos, best = await client.think(2, {"movetime_ms": int(400 * UNIT)})
        assert best["algorithm"] == "fake" and best["reason"] == "time"
        assert chess.Move.from_uci(best["move"]) in chess.Board().legal_moves
        assert infos and infos[-1]["score"] == {"win_in": 3}  # "mate 2" is 3 plies
        await client.send({"type": "think", "id": 3, "limits": {}, "algorithm": "second"})
        await client.recv()  # the first report: the search runs
        stopped_at = time.monotonic()
        await client.send({"type": "stop", "id": 3})
        _, best = await client.collect(3)
        assert best["reason"] == "stopped" and best["algorithm"] == "second"
        assert time.monotonic() - stopped_at < 1 * UNIT
        _, own = await client.think(5, {"depth": 2}, algorithm="alphabeta")
        assert own["algorithm"] == "alphabeta" and own["depth"] == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["crash", "illegal", "garbage"])
async def test_a_failing_engine_still_answers_every_think(mode: str) -> None:
    engines = (fake(mode, default=True),)
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        # The second think gets a new program (started in the background as
        # the first failed): time enough for it to start, it fails at once.
        # A garbage engine searches to the deadline, which must leave its
        # program time to start: at 300 ms, with a CPU-bound program beside
        # two test processes, it was still starting (engine_error).
        movetime_ms = int((1000 if mode == "garbage" else 3000) * UNIT)
        for think_id in (2, 3):
            _, best = await client.think(think_id, {"movetime_ms": movetime_ms})
            assert chess.Move.from_uci(best["move"]) in chess.Board().legal_moves
            expected = "time" if mode == "garbage" else "engine_error"
            assert best["reason"] == expected, best
            if mode != "garbage":
                assert best["move"] == "a2a3"  # the move of its last report


def _running(mode: str) -> int:
    count = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if str(FAKE).encode() in words and mode.encode() in words:
            count += 1
    return count


@pytest.mark.asyncio
async def test_a_hung_engine_is_answered_by_the_deadline_and_replaced() -> None:
    engines = (fake("hang", default=True),)
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        for think_id in (2, 3):
            started = time.monotonic()
            _, best = await client.think(think_id, {"movetime_ms": 200})
            assert time.monotonic() - started < 0.2 + 1 * UNIT
            assert chess.Move.from_uci(best["move"]) in chess.Board().legal_moves
        # Each hung program was killed when its search was given up.
        deadline = time.monotonic() + 5 * UNIT
        while _running("hang") > 1 and time.monotonic() < deadline:
            await client.request({"type": "hello", "id": 9})
        assert _running("hang") <= 1
    # And the last one when the server stopped: its end comes with its
    # search process's (a signal from the kernel), a moment after the server
    # is down (a fresh-clone CI run of 2026-12-07 looked too soon).
    deadline = time.monotonic() + 5 * UNIT
    while _running("hang") > 0:
        assert time.monotonic() < deadline, "a hung program outlived the server"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
@pytest.mark.skipif(STOCKFISH is None, reason="stockfish is not installed (apt install stockfish)")
async def test_stockfish_behind_the_server() -> None:
    assert STOCKFISH is not None
    stockfish = parse_external(f"chess:sf=uci:{STOCKFISH}?Hash=16&Threads=1")
    async with running_server(externals=(stockfish,)) as server, raw_client(server.port) as client:
        await client.request(
            {"type": "new_game", "id": 1, "game": "chess", "moves": ["e2e4", "e7e5", "g1f3"]}
        )
        # A depth limit: at 300 ms a move a loaded machine (CI, 2026-11-30)
        # had Stockfish still starting at the deadline (depth 0, no info).
        infos, best = await client.think(2, {"depth": 6}, algorithm="sf")
        board = chess.Board()
        for move in ("e2e4", "e7e5", "g1f3"):
            board.push_uci(move)
        assert chess.Move.from_uci(best["move"]) in board.legal_moves
        assert best["depth"] >= 5, (best, infos[-3:])
        assert infos and infos[-1]["pv"][0] in {best["move"], *best["pv"]}
        # Three lines from one search (Stockfish's MultiPV), best first.
        # (Depth limits: a loaded machine cannot starve these thinks of time.)
        groups, best = await think_lines(client, 3, 3, {"depth": 10}, "sf")
        assert best["reason"] == "depth" and groups, best
        for group in groups:
            assert len(group) == 3
            assert_lines(board, group)
        assert best["move"] == groups[-1][0]["pv"][0]
        # One line again: Stockfish's MultiPV back to 1.
        groups, best = await think_lines(client, 4, 1, {"depth": 8}, "sf")
        assert groups and all(len(group) == 1 for group in groups), best


async def think_lines(
    client: RawClient, think_id: int, multipv: int, limits: dict[str, Any], algorithm: str
) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
    """A think asking ``multipv`` lines: its reports grouped (each group starts at line 1)."""
    await client.send(
        {
            "type": "think",
            "id": think_id,
            "limits": limits,
            "algorithm": algorithm,
            "multipv": multipv,
        }
    )
    infos, best = await client.collect(think_id)
    groups: list[list[dict[str, Any]]] = []
    for info in infos:
        rank = info.get("multipv", 1)
        if rank == 1:
            groups.append([])
        assert groups, infos
        groups[-1].append(info)
    return groups, best


def assert_lines(board: chess.Board, group: list[dict[str, Any]]) -> None:
    """Ranked 1..k, distinct first moves, every pv legal from ``board``."""
    assert [info.get("multipv", 1) for info in group] == list(range(1, len(group) + 1)), group
    assert len({info["pv"][0] for info in group}) == len(group)
    for info in group:
        play = board.copy()
        for move in info["pv"]:
            assert chess.Move.from_uci(move) in play.legal_moves, info
            play.push_uci(move)


@pytest.mark.asyncio
async def test_an_engines_lines_are_relayed_as_asked() -> None:
    """MultiPV set from the think's multipv; the engine's hostile ranks are dropped."""
    engines = (fake("multipv", "lines"), fake("ok", "single"))
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        board = chess.Board()
        # Depth limits, not time: a loaded machine cannot cut a think short.
        groups, best = await think_lines(client, 2, 3, {"depth": 4}, "lines")
        assert best["algorithm"] == "lines" and best["reason"] == "depth"
        assert len(groups) == 4
        for group in groups:
            assert len(group) == 3
            assert_lines(board, group)
            assert [info["score"] for info in group] == [{"value": 299 - i} for i in range(3)]
        assert best["move"] == groups[-1][0]["pv"][0] and best["score"] == {"value": 299}
        # Back to one line: MultiPV is set to 1 again (line 1 scores 99).
        groups, best = await think_lines(client, 3, 1, {"depth": 3}, "lines")
        assert len(groups) == 3 and all(len(group) == 1 for group in groups)
        assert all("multipv" not in group[0] for group in groups)
        assert best["score"] == {"value": 99}
        # More lines than the engine allows: its max (5).
        groups, best = await think_lines(client, 4, 16, {"depth": 2}, "lines")
        assert len(groups) == 2 and all(len(group) == 5 for group in groups)
        assert_lines(board, groups[-1])
        # An engine without the option gives its one line, as multipv 1.
        groups, best = await think_lines(client, 5, 3, {"depth": 3}, "single")
        assert groups and all(len(group) == 1 for group in groups)
        assert all(group[0]["multipv"] == 1 for group in groups)
        assert best["move"] in {m.uci() for m in board.legal_moves}


GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)


@pytest.mark.asyncio
@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
async def test_gnu_go_behind_the_server_plays_and_is_stopped() -> None:
    assert GNUGO is not None
    # Level 1 answers in a tenth of a second here; level 10 took more than
    # the 3 s of this think beside a CPU-bound program (and the pool's guard
    # answered for it).
    gnugo = parse_external(f"go=gtp:{GNUGO} --mode gtp --level 1")
    assert (gnugo.name, gnugo.protocol, gnugo.default) == ("gnugo", "gtp", True)
    async with running_server(externals=(gnugo,)) as server, raw_client(server.port) as client:
        moves = ["C3", "G7", "C7", "G3", "E5"]
        reply = await client.request(
            {"type": "new_game", "id": 1, "game": "go", "options": {"size": 9}, "moves": moves}
        )
        _, best = await client.think(2, {"movetime_ms": int(3000 * UNIT)})
        assert best["algorithm"] == "gnugo" and best["move"] in reply["legal_moves"]
        assert best["move"] == best["move"].upper()  # our notation, not GTP's
        # It answered by itself within its time: a search stands behind the move.
        assert (best["reason"], best["depth"]) == ("engine", 1), best


#: White to move takes a Black stone at A8 by A9: a simple ko, Black may not retake at A8.
#: Given the stones alone, GNU Go 3.8 level 1 answered A8 (a review, 2026-12-07).
BEFORE_KO = (
    ".XXX...../XOOX.X.../O.OXXX.../.O.OOXOX./....OOXX./..O..OOOX/....OXXX./.O.OOX.../...OXX... O"
)


def test_a_gtp_program_is_told_the_ko_by_the_capture_played_last() -> None:
    game = create_game("go", {"size": 9})
    before = game.parse_position(BEFORE_KO)
    state = game.play(before, game.parse_move(before, "A9"))
    assert game.format_move(state, state.ko) == "A8"
    commands = setup_commands(game, state)
    assert commands[:3] == ["boardsize 9", "clear_board", "komi 7.5"]
    assert "play black A8" in commands and commands[-1] == "play white A9"
    # Played by our own rules, they give the same board and the same ko.
    replayed = game.parse_position("/".join(["." * 9] * 9) + " X")
    for command in commands[3:]:
        _, colour, vertex = command.split()
        if replayed.player != (0 if colour == "black" else 1):
            replayed = game.play(replayed, game.parse_move(replayed, "pass"))
        replayed = game.play(replayed, game.parse_move(replayed, vertex))
    assert replayed.board == state.board and replayed.ko == state.ko
    # With no ko, the stones alone, in board order.
    quiet = game.parse_position(BEFORE_KO)
    assert [c.split()[1] for c in setup_commands(game, quiet)[3:]].count("black") == sum(
        1 for point in game.points if quiet.board[point] == 1
    )


@pytest.mark.asyncio
@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
async def test_gnu_go_behind_the_server_does_not_retake_a_ko() -> None:
    """A review of 2026-12-07: a tournament game lost by GNU Go, "the engine
    answered A8, illegal", a ko retake: it had been given the stones only."""
    assert GNUGO is not None
    gnugo = parse_external(f"go=gtp:{GNUGO} --mode gtp --level 1")
    async with running_server(externals=(gnugo,)) as server, raw_client(server.port) as client:
        reply = await client.request(
            {"type": "new_game", "id": 1, "game": "go", "position": BEFORE_KO, "moves": ["A9"]}
        )
        assert "A8" not in reply["legal_moves"]
        _, best = await client.think(2, {"movetime_ms": int(3000 * UNIT)}, algorithm="gnugo")
        assert (best["reason"], best["depth"]) == ("engine", 1), best
        assert best["move"] in reply["legal_moves"] or best["move"] == "pass", best


#: Black's wall on E, White's on F, a dead White stone at B5 in Black's area; Black to move.
DEAD_IN_BLACKS_AREA = "/".join(["....XO..."] * 4 + [".O..XO..."] + ["....XO..."] * 4) + " X"


@pytest.mark.asyncio
@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
async def test_a_clean_up_think_asks_gnu_go_kgs_genmove_cleanup() -> None:
    """Issue 30: GNU Go's genmove passes with a dead stone left; its clean-up command takes it."""
    assert GNUGO is not None
    # Japanese rules, no --capture-all-dead: the flags that gave wrong results
    gnugo = parse_external(f"go=gtp:{GNUGO} --mode gtp --level 1")
    async with running_server(externals=(gnugo,)) as server, raw_client(server.port) as client:
        await client.request(
            {"type": "new_game", "id": 1, "game": "go", "position": DEAD_IN_BLACKS_AREA}
        )
        _, best = await client.think(2, {"movetime_ms": 5000}, algorithm="gnugo")
        assert best["move"] == "pass", best  # genmove: B5 is dead, nothing to gain
        await client.send(
            {
                "type": "think",
                "id": 3,
                "limits": {"movetime_ms": 5000},
                "algorithm": "gnugo",
                "cleanup": True,
            }
        )
        _, best = await client.collect(3)
        # a move in Black's area, on the way to taking B5 (not a pass)
        assert best["move"] != "pass" and best["move"][0] in "ABCD", best


@pytest.mark.asyncio
async def test_a_clean_up_think_asks_genmove_of_an_engine_without_the_command() -> None:
    quick = fake_gtp("quick")
    async with running_server(externals=(quick,)) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "go"})
        request = {"type": "think", "id": 2, "limits": {"movetime_ms": 2000}}
        await client.send({**request, "algorithm": "quick", "cleanup": True})
        _, best = await client.collect(2)
        assert (best["move"], best["reason"]) == ("pass", "engine"), best


@pytest.mark.asyncio
async def test_a_gtp_engine_on_a_clock_is_told_its_time_as_absolute_time() -> None:
    """Today's change: a clock is given to a GTP program as it stands
    (``time_settings S 0 0``, ``time_left C S 0``); a move time, as one
    byo-yomi period of one stone."""
    engine = fake_gtp("clock", "timed")
    async with running_server(externals=(engine,)) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "go"})
        clock = {"clock": {"time_ms": 5000, "inc_ms": 0}}
        _, best = await client.think(2, clock, algorithm="timed")
        assert (best["move"], best["reason"]) == ("pass", "engine"), best
        # The opponent's clock, when the think gives it, is told as well (before
        # the failures below: two in a row hold the program back a second).
        told = {"clock": {"time_ms": 5000, "opponent_ms": 9000}}
        _, best = await client.think(5, told, algorithm="timed")
        assert (best["move"].upper(), best["reason"]) == ("A1", "engine"), best
        _, best = await client.think(3, {"movetime_ms": 2000}, algorithm="timed")
        assert best["reason"] == "engine_error", best  # told as byo-yomi: the fake refuses
        # A clock cut short by a move time is told as that move time (told
        # as the clock, GNU Go took a 5 s cap for its 10 minutes).
        both = {"clock": {"time_ms": 600_000}, "movetime_ms": 2000}
        _, best = await client.think(4, both, algorithm="timed")
        assert best["reason"] == "engine_error", best


@pytest.mark.asyncio
async def test_a_gtp_engine_is_stopped_by_killing_it() -> None:
    """GTP has no stop: the program is ended and the think gets a legal move at once."""
    slow = fake_gtp("slow")
    async with running_server(externals=(slow,)) as server, raw_client(server.port) as client:
        reply = await client.request({"type": "new_game", "id": 1, "game": "go"})
        await client.send({"type": "think", "id": 2, "limits": {}, "algorithm": "slow"})
        await wait_until(lambda: server.pool.busy_worker_pids())
        stopped_at = time.monotonic()
        await client.send({"type": "stop", "id": 2})
        _, best = await client.collect(2)
        assert time.monotonic() - stopped_at < 1 * UNIT
        assert best["reason"] == "stopped" and best["move"] in reply["legal_moves"]
        started = time.monotonic()
        _, best = await client.think(3, {"movetime_ms": 300}, algorithm="slow")
        assert time.monotonic() - started < 0.3 + 1 * UNIT
        assert best["move"] in reply["legal_moves"]


@pytest.mark.asyncio
async def test_an_engine_dies_with_its_search_process() -> None:
    """A worker the pool kills (or that crashes) takes its engine program with it."""
    engines = (fake("ok", default=True),)
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "chess"})
        await client.send({"type": "think", "id": 2, "limits": {}})
        await client.recv()  # searching: the worker is busy
        (worker,) = server.pool.busy_worker_pids()
        children = [
            int(child)
            for task in Path(f"/proc/{worker}/task").iterdir()
            for child in (task / "children").read_text().split()
        ]
        engine_pids = [pid for pid in children if _is_fake(pid)]
        assert engine_pids, "the worker runs the engine program"
        os.kill(worker, signal.SIGKILL)
        _, best = await client.collect(2)
        assert best["reason"] == "worker_lost"
        deadline = time.monotonic() + 5 * UNIT
        while any(Path(f"/proc/{pid}").exists() for pid in engine_pids):
            assert time.monotonic() < deadline, "the engine outlived its worker"
            await asyncio.sleep(0.05)


def _is_fake(pid: int) -> bool:
    try:
        return str(FAKE).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False

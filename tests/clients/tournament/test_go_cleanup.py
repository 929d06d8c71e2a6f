"""Go results that are right: dead stones come off the board before the count.

Seen (issue 30): GNU Go passes with its opponent's dead stones still in
its area, and the referee's count took them as alive, crediting the wrong
engine with the game. Now two passes on a board that cannot be counted as
it stands start a clean-up phase (``clients.tournament.go_cleanup``), and
a game against real GNU Go is recorded with GNU Go's own ``final_score``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clients.tournament.config import (
    EngineSpec,
    OpeningSource,
    TimeControl,
    Timing,
    TournamentConfig,
)
from clients.tournament.go_cleanup import countable, settled, unsettled_points
from clients.tournament.local import externals_status
from clients.tournament.records import ENGINE_FAILURE, RULES, GameRecord, replay
from engine.registry import create_game
from tests.clients.tournament.faulty_engine import FaultyEngine
from tests.clients.tournament.helpers import config, play

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)
#: The README's command for GNU Go behind our server (area scoring, dead stones captured).
GNUGO_COMMAND = "--mode gtp --chinese-rules --capture-all-dead --level 5"
#: A 5x5 board: a Black wall, and a dead White stone in Black's area (Black to move).
DEAD_STONE = "..X../..X../..XO./..X../..X.. X"


def test_settled_boards() -> None:
    assert settled("/".join(["........."] * 9) + " X")
    assert settled("..X../..X../..X../..X../..X.. X")  # every empty point is Black's
    assert settled("XXO../XXO../XXO../XXO../XXO.. O")  # a border: both areas are clean
    assert not settled(DEAD_STONE)
    assert unsettled_points(DEAD_STONE) == 9  # the right side borders the dead stone
    # a neutral point between two living walls (dame) is not counted for anyone
    assert unsettled_points("XX.OO/XX.OO/XXXOO/XX.OO/XX.OO O") == 4


#: The final board of a game against GNU Go level 5 at 60 ms a move, 2026-11-29
#: (a CPU hog beside the suite): Black's last group, bottom left, has one eye
#: space of two points (A1, A2) and no White stone inside, so every empty
#: region borders one colour: "settled". The referee counted it W+76.5;
#: GNU Go's final_score, taking the group for dead, W+88.5.
ONE_EYED = (
    "OOOOOO.O./O.O.O.O.O/OOOOOOOOO/OOOOO.OOO/OOOOOO..O/OOOOOO.../XXOOOOOOO/.XO.O.O.O/.XOOOOOOO X"
)


def test_a_dead_group_round_a_two_point_eye_space_is_not_countable() -> None:
    game = create_game("go", {"size": 9, "komi": 7.5})
    assert settled(ONE_EYED)  # the check the referee made alone before
    assert not countable(game, game.parse_position(ONE_EYED))
    # the boards above: a settled one with no dead stones is countable
    small = create_game("go", {"size": 5})
    assert countable(small, small.parse_position("..X../..X../..X../..X../..X.. X"))
    assert not countable(small, small.parse_position(DEAD_STONE))


def _cleanup_config(
    tmp_path: Path, engines: list[EngineSpec], position: str = DEAD_STONE, size: int = 5
) -> TournamentConfig:
    openings = tmp_path / "openings.txt"
    openings.write_text(position + "\n")
    return dataclasses.replace(
        config(engines, game="go", games=2),
        options={"size": size},
        openings=OpeningSource(path=str(openings)),
    )


@pytest.mark.asyncio
async def test_passes_beside_a_one_eyed_group_start_a_clean_up_phase(tmp_path: Path) -> None:
    async with FaultyEngine("pass") as a, FaultyEngine("pass") as b:
        engines = [EngineSpec("a", a.url), EngineSpec("b", b.url)]
        tournament = dataclasses.replace(
            _cleanup_config(tmp_path, engines, ONE_EYED, 9), games_per_pair=1
        )
        _, records = await play(tmp_path, tournament)
        assert a.cleanup_thinks + b.cleanup_thinks == 2
    (record,) = records
    assert record.extra == {"cleanup_ply": 2}
    # nobody took the group: stones left after the clean-up count as alive
    assert record.reason == "white wins by 76.5 (counted after a clean-up phase)"


@pytest.mark.asyncio
async def test_passes_on_a_board_with_a_dead_stone_start_a_clean_up_phase(
    tmp_path: Path,
) -> None:
    async with FaultyEngine("pass") as a, FaultyEngine("pass") as b:
        engines = [EngineSpec("a", a.url), EngineSpec("b", b.url)]
        text, records = await play(tmp_path, _cleanup_config(tmp_path, engines))
        for engine in (a, b):
            # each game: the opening, then the board after the two passes (passes forgotten)
            assert engine.new_games == [DEAD_STONE, DEAD_STONE] * 2, engine.new_games
            assert engine.cleanup_thinks == 2  # one think of each game's clean-up phase
    assert len(records) == 2, text
    for record in records:
        assert [move.move for move in record.moves] == ["pass"] * 4
        assert record.extra == {"cleanup_ply": 2}
        assert record.kind == RULES
        # stones left after the clean-up count as alive: 5 + 10 for Black, 1 + 7.5 for White
        assert record.winner == 0
        assert record.reason == "black wins by 6.5 (counted after a clean-up phase)"
        assert record.result_text == "B+6.5"  # as Go players write it (issue 28)
        assert record.to_json()["result"] == "B+6.5"
        movers = [game.to_move(state) for game, state, _ in replay(record)]
        assert movers == [0, 1, 0, 1]


@pytest.mark.asyncio
async def test_a_resignation_in_the_clean_up_phase_is_no_count(tmp_path: Path) -> None:
    """The Go review of 2026-11-29: "white resigns (counted after a clean-up phase)"."""
    async with FaultyEngine("cleanup_resign") as a, FaultyEngine("pass") as b:
        engines = [EngineSpec("a", a.url), EngineSpec("b", b.url)]
        tournament = dataclasses.replace(_cleanup_config(tmp_path, engines), games_per_pair=1)
        _, records = await play(tmp_path, tournament)
    (record,) = records
    assert record.moves[-1].move == "resign" and record.extra == {"cleanup_ply": 2}
    assert record.reason == "black resigns", record.reason
    assert record.result_text == "W+R"


@pytest.mark.asyncio
async def test_a_settled_board_is_counted_at_the_first_two_passes(tmp_path: Path) -> None:
    async with FaultyEngine("pass") as a, FaultyEngine("pass") as b:
        tournament = dataclasses.replace(
            config([EngineSpec("a", a.url), EngineSpec("b", b.url)], game="go", games=1),
            options={"size": 5},
        )
        _, records = await play(tmp_path, tournament)
        assert a.cleanup_thinks == b.cleanup_thinks == 0
    (record,) = records
    assert [move.move for move in record.moves] == ["pass", "pass"]
    assert record.extra == {}
    assert record.reason == "white wins by 7.5"
    assert record.result_text == "W+7.5"


@pytest.mark.asyncio
async def test_a_resigning_bestmove_ends_the_game_for_the_other_side(tmp_path: Path) -> None:
    async with FaultyEngine("resign") as a, FaultyEngine("none") as b:
        tournament = dataclasses.replace(
            config([EngineSpec("a", a.url), EngineSpec("b", b.url)], game="go", games=1),
            options={"size": 5},
        )
        _, records = await play(tmp_path, tournament)
    (record,) = records
    assert record.moves[-1].move == "resign" and len(record.moves) == 3
    assert record.winner == 1 and record.reason == "black resigns"
    assert record.result_text == "W+R"


# ----------------------------------------------------------------------------------
# Against real GNU Go, behind our server as the README shows.


#: Black's wall on E, White's on F, a dead White stone at B5 in Black's area.
#: GNU Go's count (dead B5 removed): B+1.5; counting B5 alive: W+35.5.
DEAD_IN_BLACKS_AREA = "/".join(["....XO..."] * 4 + [".O..XO..."] + ["....XO..."] * 4) + " X"


class GnuGoServer:
    """``arena serve --external "go=gtp:gnugo ARGS"`` in a child process, as the README runs it."""

    def __init__(self, arguments: str) -> None:
        self.arguments = arguments
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def __aenter__(self) -> GnuGoServer:
        assert GNUGO is not None
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "clients",
                "serve",
                "--port",
                str(self.port),
                "--workers",
                "1",
                "--log-level",
                "warning",
                "--external",
                f"go=gtp:{GNUGO} {self.arguments}",
                # As the tournament's own local server: the search process
                # serves once GNU Go is up, so that on a loaded machine no
                # think finds it still starting (answered engine_error, a
                # lost game since the referee counts that a failure).
                "--program-wait",
                "10",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
        )
        deadline = time.monotonic() + 60
        while True:  # wait for the server to listen
            if self.process.poll() is not None:
                raise RuntimeError(self.process.stderr.read() if self.process.stderr else "")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("arena serve did not start") from None
                await asyncio.sleep(0.2)  # polling a port: no event to wait on
                continue
            health = f"http://127.0.0.1:{self.port}/healthz"
            status = await asyncio.to_thread(externals_status, health)
            if status and all(value == "ok" for value in status.values()):
                return self
            if time.monotonic() > deadline:
                raise RuntimeError(f"GNU Go behind arena serve is not ok: {status}")
            await asyncio.sleep(0.2)  # polling /healthz, as the tournament's LocalServer does

    async def __aexit__(self, *exc: object) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(process.wait, 30)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def gnu_go_failed(record: GameRecord) -> bool:
    """A game GNU Go lost by failing: no count to check.

    GNU Go 3.8 answers moves positional superko forbids (1 game in 12 of a
    tournament on 2026-11-30), and at 60-200 ms a move on a loaded machine
    (CI) it may be cut off and still be starting again at its next think;
    its server answers those thinks engine_error, which loses the game.
    """
    loser = record.players[1 - (record.winner or 0)]
    return record.kind == ENGINE_FAILURE and loser.startswith("gnugo")


def gnugo_final_score(position: str, size: int, komi: float) -> str:
    """GNU Go's own ``final_score`` of a position (its dead stones judged by GNU Go)."""
    assert GNUGO is not None
    rows = position.split()[0].split("/")
    columns = "ABCDEFGHJKLMNOPQRST"
    commands = [f"boardsize {size}", "clear_board", f"komi {komi}"]
    for row, line in enumerate(rows):
        for column, point in enumerate(line):
            if point in "XO":
                colour = "black" if point == "X" else "white"
                commands.append(f"play {colour} {columns[column]}{size - row}")
    commands += ["final_score", "quit"]
    done = subprocess.run(
        [GNUGO, "--mode", "gtp", "--chinese-rules"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [line for line in done.stdout.splitlines() if line[:1] in ("=", "?")]
    assert all(answer.startswith("=") for answer in answers), done.stdout
    return answers[-2].removeprefix("=").strip()


def go_result(record: GameRecord) -> str:
    """The record's result as Go players write it: ``B+4.5``, ``W+0.5``, ``0``."""
    if record.winner is None:
        return "0"
    colour = "B+" if record.winner == 0 else "W+"
    if record.moves and record.moves[-1].move == "resign":
        return colour + "R"
    return colour + record.reason.split(" wins by ", 1)[1].split()[0]


@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
@pytest.mark.asyncio
async def test_results_against_gnu_go_are_gnu_gos_own_count(tmp_path: Path) -> None:
    async with GnuGoServer(GNUGO_COMMAND) as gnugo:
        tournament = dataclasses.replace(
            config(
                [
                    EngineSpec("ours", "local", algorithm="mcts"),
                    EngineSpec("gnugo", gnugo.url),
                ],
                game="go",
                games=2,
                # 60 ms a move: some 200 playouts, under RESIGN_MIN_PLAYOUTS (500) even on
                # a machine twice as fast, so that our side plays on and both games
                # end in a count to check (at 200 ms it could resign both, and the
                # games took 40 s of the suite).
                tc=TimeControl(movetime_ms=60),
                # a loaded machine and the pure-Python build: no loss on time
                timing=Timing(margin_ms=5000, grace_ms=5000, move_timeout_ms=30000),
            ),
            options={"size": 9, "komi": 7.5},
        )
        text, records = await play(tmp_path, tournament)
    assert len(records) == 2, text
    assert {record.players[0] for record in records} == {"ours", "gnugo"}  # both colours
    for record in records:
        if gnu_go_failed(record):
            continue
        assert record.kind == RULES, record.reason
        result = go_result(record)
        if result.endswith("+R"):  # a resignation (GNU Go's, often): no count to check
            assert "resigns" in record.reason, record.reason
            continue
        assert result == gnugo_final_score(record.final_position, 9, 7.5), record
        assert record.result_text == result


@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
@pytest.mark.asyncio
async def test_a_counted_game_against_gnu_go_is_gnu_gos_own_count_in_both_colours(
    tmp_path: Path,
) -> None:
    """The test above can see only resignations: GNU Go resigned both of its games
    in a run of 2026-11-29, and then no count was checked. Here GNU Go, as the README
    runs it, may not resign (--never-resign), and the games start from a settled
    board (Black ahead by 1.5), where our search, as Black, wins on the count; as
    White it may resign a lost game. Every game that is counted is GNU Go's count.
    At 100 ms a move our search once filled its own area down to one eye after the
    length bound, which GNU Go then counts dead: 200 ms, where it did not in 8 runs."""
    openings = tmp_path / "openings.txt"
    openings.write_text(DEAD_IN_BLACKS_AREA + "\n")
    async with GnuGoServer(GNUGO_COMMAND + " --never-resign") as gnugo:
        ours = EngineSpec("ours", "local", algorithm="mcts")
        tournament = dataclasses.replace(
            config(
                [ours, EngineSpec("gnugo", gnugo.url)],
                game="go",
                games=2,
                tc=TimeControl(movetime_ms=200),
                timing=Timing(margin_ms=5000, grace_ms=5000, move_timeout_ms=30000),
            ),
            options={"size": 9, "komi": 7.5},
            openings=OpeningSource(path=str(openings)),
        )
        text, records = await play(tmp_path, tournament)
    assert {record.players[0] for record in records} == {"ours", "gnugo"}, text
    counted = 0
    for record in records:
        if gnu_go_failed(record):
            continue
        result = go_result(record)
        if result.endswith("+R"):
            assert record.players[int(result[0] == "B")] == "ours", record.reason
            continue
        assert result == gnugo_final_score(record.final_position, 9, 7.5), record
        counted += 1
    failures = sum(gnu_go_failed(record) for record in records)
    assert counted >= 1 or failures, [record.reason for record in records]


@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
@pytest.mark.asyncio
async def test_gnu_go_without_capture_all_dead_cleans_up(tmp_path: Path) -> None:
    # the flags of the wrong results (Japanese rules, dead stones left):
    # GNU Go passes with B5 on the board; the clean-up phase must take it off
    openings = tmp_path / "openings.txt"
    openings.write_text(DEAD_IN_BLACKS_AREA + "\n")
    async with GnuGoServer("--mode gtp --level 1") as gnugo:
        tournament = dataclasses.replace(
            config(
                [EngineSpec("gnugo a", gnugo.url), EngineSpec("gnugo b", gnugo.url)],
                game="go",
                games=1,
                timing=Timing(margin_ms=5000, grace_ms=5000, move_timeout_ms=30000),
            ),
            options={"size": 9, "komi": 7.5},
            openings=OpeningSource(path=str(openings)),
        )
        _, records = await play(tmp_path, tournament)
    (record,) = records
    assert gnugo_final_score(DEAD_IN_BLACKS_AREA, 9, 7.5) == "B+1.5"
    if gnu_go_failed(record):  # CI, 2026-11-30: no count to check
        pytest.skip(f"GNU Go lost by failing: {record.reason}")
    assert go_result(record) == gnugo_final_score(record.final_position, 9, 7.5), record


@pytest.mark.skipif(GNUGO is None, reason="gnugo is not installed (apt install gnugo)")
@pytest.mark.asyncio
async def test_gnu_go_takes_a_one_eyed_group_before_the_count(tmp_path: Path) -> None:
    # The board the referee once counted W+76.5: Black passes at once, and the
    # count must be GNU Go's own (W+88.5), in the game's normal moves or in a
    # clean-up phase.
    async with FaultyEngine("pass") as black, GnuGoServer(GNUGO_COMMAND) as gnugo:
        tournament = dataclasses.replace(
            _cleanup_config(
                tmp_path,
                [EngineSpec("passer", black.url), EngineSpec("gnugo", gnugo.url)],
                ONE_EYED,
                9,
            ),
            games_per_pair=1,
            options={"size": 9, "komi": 7.5},
            timing=Timing(margin_ms=5000, grace_ms=5000, move_timeout_ms=30000),
        )
        _, records = await play(tmp_path, tournament)
    (record,) = records
    assert gnugo_final_score(ONE_EYED, 9, 7.5) == "W+88.5"
    if gnu_go_failed(record):  # seen 2026-12-07 beside a GNU Go match at nice -5
        pytest.skip(f"GNU Go lost by failing: {record.reason}")
    assert go_result(record) == "W+88.5", record

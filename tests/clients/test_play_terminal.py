"""``arena play`` commands (scripted input) and one real game in a tmux terminal."""

from __future__ import annotations

import asyncio
import io
import os
import re
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from clients.client import EngineTerminatedError
from clients.play import Notation, play, score_text, use_color
from engine.search.score import Score
from tests.timing import UNIT, wait_until_async

Reader = Callable[[str], Awaitable[str | None]]
REPO = Path(__file__).resolve().parents[2]
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def scripted(lines: list[str], prompts: list[str] | None = None) -> Reader:
    """Answers in order; ``FIRST`` answers the first legal move the prompt lists."""
    feed = iter(lines)

    async def read(prompt: str) -> str | None:
        if prompts is not None:
            prompts.append(prompt)
        line = next(feed, None)
        if line == "FIRST":
            listed = re.search(r"\[(.*?)(?: \.\.\.)?\]", prompt)
            assert listed, prompt
            separator = ", " if ", " in listed.group(1) else " "
            return listed.group(1).split(separator)[0]
        return line

    return read


async def play_scripted(
    url: str,
    game: str,
    lines: list[str],
    depth: int | None = 1,
    movetime_ms: int | None = None,
    **given: Any,
) -> tuple[int, str, list[str]]:
    """A game of ``arena play`` against the engine at ``depth`` (or ``movetime_ms``),
    the person's lines ``lines``: its exit status, what it wrote and the prompts it showed."""
    out = io.StringIO()
    prompts: list[str] = []
    status = await play(
        url,
        game,
        depth=depth,
        movetime_ms=movetime_ms,
        out=out,
        read=scripted(lines, prompts),
        **given,
    )
    return status, out.getvalue(), prompts


@pytest.mark.asyncio(loop_scope="module")
async def test_chess_commands_hints_and_san(url: str) -> None:
    out = io.StringIO()
    status = await play(
        url,
        "chess",
        depth=1,
        movetime_ms=None,
        out=out,
        read=scripted(["", "zz", "help", "hint", "e4", "undo", "flip", "quit"]),
    )
    text = out.getvalue()
    assert status == 0
    assert "type a move like" in text and "'' is not a legal move" not in text
    assert "'zz' is not a legal move; type a move like" in text
    assert "commands:" in text and "undo" in text and "flip" in text
    hint = re.search(r"^hint: (\S+)", text, re.MULTILINE)
    assert hint and not re.fullmatch(r"[a-h][1-8][a-h][1-8]", hint.group(1))  # SAN
    assert "moves: 1. e4" in text
    played = re.search(r"^engine plays (\S+) \(([a-h][1-8][a-h][1-8])\)", text, re.MULTILINE)
    assert played, text  # SAN, then the UCI move
    after_undo = text.split("undone\n", 1)[1]
    assert after_undo.startswith(" 8  r  n  b  q  k  b  n  r")
    assert " 1  R  N  B  K  Q  B  N  R" in after_undo  # flipped
    assert text.rstrip().endswith("bye")
    assert "\x1b[" not in text  # not a terminal: no colours
    assert "gnubg ID" not in text  # backgammon only


@pytest.mark.asyncio(loop_scope="module")
async def test_backgammon_undo_returns_to_the_same_roll(url: str) -> None:
    status, text, prompts = await play_scripted(url, "backgammon", ["FIRST", "undo", "quit"])
    assert status == 0 and "undone" in text
    assert "opening roll: X White throws" in text and "O Black throws" in text
    assert " BAR " in text and "pips " in text
    # Under the board, after the opening roll (gnubg has no position before it).
    ids = re.findall(r"^gnubg ID: (\S+)$", text, re.MULTILINE)
    assert ids and all(re.fullmatch(r"[A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12}", i) for i in ids)
    assert text.index("gnubg ID: ") > text.index("pips ")
    assert len(prompts) == 3
    assert prompts[2] == prompts[0]  # the same dice and choices as before


#: Othello, Black (X) to move with no legal move while White has one.
OTHELLO_BLACK_MUST_PASS = "XXXXXX--OXXXXXXXXOXXXOXXXXOXXXXXXXOOXOXXXOXOXXOXXOOXXOOXXOXXXXXX X"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_player_without_a_move_passes_without_being_asked(url: str) -> None:
    out = io.StringIO()
    prompts: list[str] = []
    status = await play(
        url,
        "othello",
        position=OTHELLO_BLACK_MUST_PASS,
        depth=1,
        movetime_ms=None,
        out=out,
        read=scripted(["quit"], prompts),
    )
    text = out.getvalue()
    assert status == 0
    assert "no legal move: you pass" in text
    assert "engine plays" in text, "the engine moved after the pass"
    assert all("[pass]" not in prompt for prompt in prompts), "nobody asked to type pass"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_monte_carlo_score_is_shown_with_its_win_rate(url: str) -> None:
    """The engine's move line gives an mcts score with the win rate it was
    mapped from (welcome.games[].win_odds_scale); an alpha-beta score stays a value."""
    out = io.StringIO()
    await play(
        url,
        "connect4",
        human=0,
        movetime_ms=int(200 * UNIT),
        depth=None,
        algorithm="mcts",
        out=out,
        read=scripted(["flip", "4", "quit"]),
    )
    # A board drawn one way up says so (the review of 2026-11-29: flip did nothing, silently).
    assert "flip: a Connect Four board is drawn one way up only" in out.getvalue()
    played = re.search(
        r"^engine plays .*\(score (.+?) for (.+?), (\d+) playouts", out.getvalue(), re.M
    )
    assert played, out.getvalue()
    assert re.fullmatch(r"[+-]\d+ \(\d{1,3}%\)|(win|loss) in \d+ pl(y|ies)|draw", played[1])
    assert played[2].endswith("Yellow")  # whose score: the engine's (a review, 2026-12-07)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("human", "first"), [(0, "your turn"), (1, "engine plays")])
async def test_who_moves_first_from_a_position_with_black_to_move(
    url: str, human: int, first: str
) -> None:
    # Seen in tmux: `arena play --game chess --position <Black to move>
    # --engine-first` (human 1) asked the person for Black's move, and
    # without the flag (human 0) the engine played Black's move first.
    out = io.StringIO()
    read = scripted(["quit"])
    status = await play(url, "chess", position=AFTER_E4, depth=1, human=human, out=out, read=read)
    assert status == 0
    text = out.getvalue()
    assert first in text and ("engine plays" in text) == (human == 1)


def test_score_text_maps_a_value_back_to_its_win_rate() -> None:
    assert score_text(Score(value=23), 500, 32) == "+23 (67%)"
    assert score_text(Score(value=23), None, 32) == "+23"  # alpha-beta: no playouts
    assert score_text(Score(value=23), 500, None) == "+23"  # a server before 0.6
    assert score_text(Score(win_in=3), 500, 32) == "win in 3 plies"
    # Chess counts moves, as the web page does (a review in tmux, 2026-12-07:
    # "win in 7" for a mate in 4).
    assert score_text(Score(win_in=7), None, None, game="chess") == "mate in 4 moves"
    assert score_text(Score(loss_in=2), None, None, game="chess") == "mated in 1 move"
    assert score_text(Score(loss_in=1), None, None, game="nim") == "loss in 1 ply"


@pytest.mark.asyncio(loop_scope="module")
async def test_game_over_offers_undo_and_new(url: str) -> None:
    out = io.StringIO()
    prompts: list[str] = []
    status = await play(
        url,
        "nim",
        options={"heaps": [1]},
        movetime_ms=50,
        out=out,
        read=scripted(["1:1", "e4", "undo", "new", "quit"], prompts),
    )
    text = out.getvalue()
    assert status == 0
    assert "you win" in text
    assert prompts[1].startswith("game over")
    assert "the game is over; type new, undo or quit" in text
    assert text.count("heap 1: | (1)") >= 3  # start, after undo, new game
    assert "new game" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_resign_in_chess_ends_the_game_as_a_loss(url: str, tmp_path: Path) -> None:
    # A review of 2026-12-07: `resign` worked in Go only; in chess it was
    # "'resign' is not a legal move".
    out = io.StringIO()
    path = tmp_path / "resigned.pgn"
    prompts: list[str] = []
    status = await play(
        url,
        "chess",
        depth=1,
        movetime_ms=None,
        out=out,
        pgn=str(path),
        read=scripted(["e4", "resign", "e5", "quit"], prompts),
    )
    text = out.getvalue()
    assert status == 0
    assert "you resign: black (engine) wins" in text.lower(), text
    assert prompts[2].startswith("game over") and "the game is over" in text
    record = path.read_text()
    assert '[Result "0-1"]' in record and record.rstrip().endswith("{White resigns.} 0-1")
    # How it ended is in the record (a review of 2026-12-07 read a bare 0-1).
    assert '[Termination "normal"]' in record
    game = chess.pgn.read_game(io.StringIO(record))
    assert game is not None and not game.errors and game.end().comment == "White resigns."


@pytest.mark.asyncio(loop_scope="module")
async def test_undo_after_resign_takes_the_resignation_back(url: str) -> None:
    """A review of 2026-12-07: after `resign`, `undo` went back a whole move
    (Nim's heaps from 1 4 5 to 3 4 5), or at the first move said "nothing to
    undo", the game left lost."""
    lines = ["1:1", "resign", "undo", "resign", "undo", "quit"]
    status, text, prompts = await play_scripted(url, "nim", lines, depth=3)
    assert status == 0
    assert text.count("resignation taken back") == 2, text
    assert "nothing to undo" not in text
    # The same position each time: the person to move again, after 1:1 and the reply.
    assert prompts[1] == prompts[3] == prompts[5], prompts
    assert prompts[2].startswith("game over") and prompts[4].startswith("game over")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_set_up_position_waiting_for_dice_has_no_opening_roll(url: str) -> None:
    """A review of 2026-12-07: from a position with Black to roll, "opening
    roll: X White throws 6, O Black throws 2" (White threw nothing)."""
    status, text, _ = await play_scripted(
        url, "backgammon", ["quit"], position="sGfwATDgc/ABMA 1 -"
    )
    assert status == 0
    assert "opening roll" not in text and re.search(r"^dice: \d-\d$", text, re.MULTILINE), text
    # The engine's score in points (a bare +1539 read as nothing: the same review).
    played = re.search(r"^engine plays .*\(score ([^,]+)", text, re.MULTILINE)
    assert played and re.fullmatch(r"[+-]\d\.\d{3} points", played.group(1).split(" for ")[0]), text


@pytest.mark.asyncio(loop_scope="module")
async def test_pgn_of_a_chess_game(url: str, tmp_path: Path) -> None:
    out = io.StringIO()
    path = tmp_path / "game.pgn"
    await play(
        url,
        "chess",
        depth=1,
        movetime_ms=None,
        out=out,
        pgn=str(path),
        read=scripted(["Nf3", "quit"]),
    )
    pgn = path.read_text()
    assert '[White "you"]' in pgn and '[Black "engine"]' in pgn and '[Result "*"]' in pgn
    assert '[Termination "unterminated"]' in pgn
    assert re.search(r"^1\. Nf3 \S+ \*$", pgn, re.MULTILINE), pgn


@pytest.mark.asyncio(loop_scope="module")
async def test_go_to_the_end_by_passing(url: str) -> None:
    out = io.StringIO()
    prompts: list[str] = []
    # A vertex typed in lower case, then passes until the engine passes too
    # (the game ends after two passes in a row, or at its ply bound).
    status = await play(
        url,
        "go",
        options={"size": 5, "komi": 0.5},
        movetime_ms=50,
        out=out,
        read=scripted(["c3", *["pass"] * 30, "quit"], prompts),
    )
    text = out.getvalue()
    assert status == 0
    assert "    A B C D E" in text
    assert " 3  . .(X). .  3" in text  # the stone just played, marked
    assert "O (white) to move" in text and "captures: X (black) 0, O (white) 0" in text
    assert re.search(
        r"^area \(x, o: territory\): X \(black\) \d+, O \(white\) \d+ \+ komi 0\.5 = ",
        text,
        re.MULTILINE,
    )
    assert re.search(
        r"^(black|white) wins by \d+\.5: (you win|the engine wins)$", text, re.MULTILINE
    )
    assert any(prompt.startswith("game over") for prompt in prompts)
    assert text.rstrip().endswith("bye")
    # Each answer's line is the last shown before it (a review of 2026-12-07:
    # "pv A9 B9 ..." above "engine plays pass", the pass rule's answer).
    lines = text.splitlines()
    for index, line in enumerate(lines):
        played = re.match(r"engine plays (\S+)", line)
        # (A resignation keeps the search's line: its first move is the best found.)
        if played and played.group(1) != "resign" and index > 0 and " pv " in lines[index - 1]:
            assert lines[index - 1].split(" pv ")[1].split()[0] == played.group(1), lines[index - 1]


def test_colours_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Terminal()) and not use_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Terminal())


# ----------------------------------------------------------------------
# A real terminal.

WAIT_S = 60.0 * UNIT


async def _tmux(socket: str, *args: str) -> str:
    process = await asyncio.create_subprocess_exec(
        "tmux",
        "-L",
        socket,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, _ = await asyncio.wait_for(process.communicate(), 30 * UNIT)
    return stdout.decode(errors="replace")


async def _play_in_tmux(socket: str, url: str, *options: str, colour: bool = False) -> None:
    """``arena play`` with ``options`` in a new tmux session ``play``, 100 by
    50; its exit status is shown as ``EXIT=N`` when it ends. ``colour``: with
    ``NO_COLOR`` unset, as a terminal's user has it."""
    command = shlex.join([sys.executable, "-m", "clients", "play", "--url", url, *options])
    prefix = "env -u NO_COLOR " if colour else ""
    await _tmux(
        socket,
        *("new-session", "-d", "-s", "play", "-x", "100", "-y", "50", "-c", str(REPO)),
        f"{prefix}{command}; echo EXIT=$?; sleep 30",
    )


async def _connect_four_in_tmux(socket: str, url: str) -> None:
    """``arena play`` of Connect Four in a new tmux session ``play``."""
    await _play_in_tmux(socket, url, "--game", "connect4")


async def _play_on_pipes(url: str, game: str, *options: str) -> asyncio.subprocess.Process:
    """``arena play`` with stdin and stdout (stderr with it) on pipes."""
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "clients", "play", "--url", url, "--game", game, *options),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=REPO,
    )


async def _wait_for(socket: str, pattern: str, count: int = 1) -> str:
    deadline = time.monotonic() + WAIT_S
    screen = ""
    while time.monotonic() < deadline:
        screen = await _tmux(socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "play")
        if len(re.findall(pattern, screen)) >= count:
            return screen
        await asyncio.sleep(0.2)
    raise AssertionError(f"no {pattern!r} on the screen in {WAIT_S} s:\n{screen}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.asyncio(loop_scope="module")
async def test_a_game_in_tmux(url: str) -> None:
    socket = f"arena-play-test-{os.getpid()}"
    try:
        await _play_in_tmux(socket, url, "--game", "othello", "--movetime", "50", colour=True)
        screen = await _wait_for(socket, r"your move \[")
        assert "discs: X (black) 2, O (white) 2; X (black) to move  (+ legal moves)" in screen
        await _tmux(socket, "send-keys", "-t", "play", "d3", "Enter")
        screen = await _wait_for(socket, r"your move \[", 2)
        assert "engine plays" in screen
        assert "discs: X (black) 4, O (white) 1" in screen
        await _tmux(socket, "send-keys", "-t", "play", "zz", "Enter")
        await _wait_for(socket, r"'zz' is not a legal move")
        coloured = await _tmux(socket, "capture-pane", "-p", "-e", "-t", "play")
        assert "\x1b[" in coloured  # a terminal gets colours
        await _tmux(socket, "send-keys", "-t", "play", "quit", "Enter")
        await _wait_for(socket, r"(?m)^bye")
    finally:
        await _tmux(socket, "kill-server")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.asyncio(loop_scope="module")
async def test_go_in_tmux(url: str) -> None:
    socket = f"arena-play-go-test-{os.getpid()}"
    try:
        await _play_in_tmux(
            socket, url, "--game", "go", "--option", "size=7", "--movetime", "50", colour=True
        )
        screen = await _wait_for(socket, r"your move \[")
        assert "    A B C D E F G" in screen and "X (black) to move" in screen
        await _tmux(socket, "send-keys", "-t", "play", "d4", "Enter")
        screen = await _wait_for(socket, r"your move \[", 2)
        assert "engine plays" in screen and "last move: D4" in screen
        coloured = await _tmux(socket, "capture-pane", "-p", "-e", "-t", "play")
        assert "\x1b[" in coloured  # stones in colour
        await _tmux(socket, "send-keys", "-t", "play", "D4", "Enter")  # taken now
        await _wait_for(socket, r"'D4' is not a legal move")
        await _tmux(socket, "send-keys", "-t", "play", "quit", "Enter")
        await _wait_for(socket, r"(?m)^bye")
    finally:
        await _tmux(socket, "kill-server")


def test_chess_notation_from_a_position() -> None:
    notation = Notation("chess", None, AFTER_E4)
    assert notation.move_list(("e7e5", "g1f3")) == "1... e5 2. Nf3"
    assert notation.line(("e7e5",), ("g1f3", "b8c6")) == ["Nf3", "Nc6"]
    assert notation.line((), ("zz",)) == ["zz"]  # odd input is shown as it came
    long_game = tuple(
        move
        for file in "abcdef"
        for move in (f"{file}2{file}3", f"{file}7{file}6", f"{file}3{file}4", f"{file}6{file}5")
    )  # a3 a6 a4 a5 b3 b6 ... f4 f5
    shown = Notation("chess", None, None).move_list(long_game)
    assert shown.startswith("... ") and shown[4].isdigit() and len(shown) <= 100
    assert shown.endswith("11. f3 f6 12. f4 f5")
    other = Notation("checkers", None, None)
    assert other.line((), ("11-15",)) == ["11-15"] and other.move_list(()) == ""


@pytest.mark.asyncio(loop_scope="module")
async def test_pgn_keeps_the_games_left_and_not_a_mate_taken_back(url: str, tmp_path: Path) -> None:
    """The review of 2026-12-06: a game left with `new` never reached --pgn, and a
    mate taken back with `undo` stayed in the file as a finished 1-0 game."""
    path = tmp_path / "games.pgn"
    await play(
        url,
        "chess",
        depth=1,
        movetime_ms=None,
        out=io.StringIO(),
        pgn=str(path),
        read=scripted(["Nf3", "new", "e4", "quit"]),
    )
    games = path.read_text()
    assert games.count('[Result "*"]') == 2, games
    assert re.search(r"^1\. Nf3 \S+ \*$", games, re.MULTILINE), games
    assert re.search(r"^1\. e4 \S+ \*$", games, re.MULTILINE), games
    mate = tmp_path / "mate.pgn"
    await play(
        url,
        "chess",
        depth=1,
        movetime_ms=None,
        position="6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        out=io.StringIO(),
        pgn=str(mate),
        read=scripted(["Ra8", "undo", "quit"]),
    )
    assert not mate.exists() or "1-0" not in mate.read_text(), mate.read_text()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.asyncio(loop_scope="module")
async def test_ctrl_c_at_the_prompt_leaves_at_once(url: str) -> None:
    # A review in tmux (2026-12-07): Ctrl-C at the move prompt echoed ^C and
    # the program went on until Enter was pressed (asyncio.run waited for
    # the thread blocked in input()).
    socket = f"arena-play-ctrl-c-{os.getpid()}"
    try:
        await _connect_four_in_tmux(socket, url)
        await _wait_for(socket, r"your move \[")
        await _tmux(socket, "send-keys", "-t", "play", "C-c")
        screen = await _wait_for(socket, r"EXIT=\d+")
        assert "EXIT=130" in screen, screen
    finally:
        await _tmux(socket, "kill-server")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_full_connect_four_column_is_explained(url: str) -> None:
    # A review of 2026-12-07: "'4' is not a legal move; type a move like 5".
    out = io.StringIO()
    status = await play(
        url,
        "connect4",
        position="444444",
        movetime_ms=50,
        out=out,
        read=scripted(["4", "9", "x", "quit"]),
    )
    text = out.getvalue()
    assert status == 0
    assert "'4' is not a legal move: column 4 is full" in text
    assert "'9' is not a legal move: the columns are 1 to 7" in text
    assert "'x' is not a legal move: a move is a column number, 1 to 7" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_a_log_shows_each_depth_once(url: str) -> None:
    """A review of 2026-12-07: written to a file or a pipe, ``arena play``
    showed some depths twice: a new best move inside an unfinished
    iteration, then the same line again when the iteration completed."""
    status, text, _ = await play_scripted(url, "chess", ["e4", "d4", "quit"], depth=7)
    assert status == 0
    thinks = text.split("engine plays")[:-1]
    assert len(thinks) == 2
    for part in thinks:
        depths = [int(found) for found in re.findall(r"^  depth +(\d+) ", part, re.MULTILINE)]
        assert depths == list(range(1, 8)), depths


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.asyncio(loop_scope="module")
async def test_a_byte_that_is_no_utf8_is_an_illegal_move_and_arrows_edit_the_line(
    url: str,
) -> None:
    """A review in tmux (2026-12-07): one byte 0xE9 (Latin-1 é) typed at the
    prompt ended arena play with a UnicodeEncodeError, the game lost; and the
    arrow keys wrote escape codes into the move ('d4\\x1b[e')."""
    socket = f"arena-play-bytes-{os.getpid()}"
    try:
        await _connect_four_in_tmux(socket, url)
        await _wait_for(socket, r"your move \[")
        await _tmux(socket, "send-keys", "-t", "play", "-H", "e9", "0d")
        screen = await _wait_for(socket, r"your move \[", 2)  # asked again
        assert "EXIT=" not in screen and "Error" not in screen, screen
        # Left, Backspace and a new digit: readline edits the line, "14" -> "4".
        await _tmux(socket, "send-keys", "-t", "play", "14", "Left", "BSpace", "Enter")
        screen = await _wait_for(socket, r"engine plays")
        assert "not a legal move" not in screen.rpartition("is not a legal move")[2], screen
        await _tmux(socket, "send-keys", "-t", "play", "quit", "Enter")
        screen = await _wait_for(socket, r"EXIT=\d+")
        assert "EXIT=0" in screen, screen
    finally:
        await _tmux(socket, "kill-server")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_byte_that_is_no_utf8_on_a_pipe_is_an_illegal_move(url: str) -> None:
    """The same byte from a pipe (no line editing): said to be no legal move."""
    process = await _play_on_pipes(url, "connect4")
    said, _ = await asyncio.wait_for(process.communicate(b"\xe94\nquit\n"), 60 * UNIT)
    text = said.decode(errors="replace")
    assert process.returncode == 0, text
    assert "'\ufffd4' is not a legal move" in text, text


def test_a_pgn_path_that_cannot_be_written_is_refused_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review in tmux (2026-12-07): --pgn /nonexistent/dir/x.pgn was found at
    the end of the game, which was lost, and the error said the server could
    not be reached."""
    from clients.cli import main

    url = "ws://127.0.0.1:9/ws"  # never reached: the path is checked first
    for path, said in (
        (str(tmp_path / "no" / "x.pgn"), "no folder"),
        (str(tmp_path), "is a folder"),
    ):
        assert main(["play", "--url", url, "--game", "chess", "--pgn", path]) == 2
        assert said in capsys.readouterr().err


@pytest.mark.asyncio(loop_scope="module")
async def test_the_game_is_saved_when_the_server_goes_or_the_search_is_interrupted(
    tmp_path: Path,
) -> None:
    """A review in tmux (2026-12-07): with the server gone, every move said
    "connection closed" and the prompt came back; Ctrl-C during the engine's
    search left without writing --pgn. Both end play, the game saved."""
    from tests.server.server_harness import running_server

    pgn = tmp_path / "games.pgn"
    async with running_server() as server:
        url = f"ws://127.0.0.1:{server.port}/ws"

        async def leave_after_e4(prompt: str) -> str | None:
            if "e4" not in out.getvalue():
                return "e4"
            await server.shutdown()  # the server goes away
            return "d4"

        out = io.StringIO()
        with pytest.raises(EngineTerminatedError):
            await play(url, "chess", depth=1, movetime_ms=None, pgn=str(pgn), out=out,
                       read=leave_after_e4)  # fmt: skip
    assert "1. e4" in pgn.read_text() and "saved the game" in out.getvalue()

    async with running_server() as server:
        url = f"ws://127.0.0.1:{server.port}/ws"
        out = io.StringIO()
        task = asyncio.create_task(
            play(url, "chess", movetime_ms=600_000, pgn=str(pgn), out=out, read=scripted(["d4"]))
        )
        await wait_until_async(lambda: "is thinking" in out.getvalue(), 30 * UNIT, "the search")
        task.cancel()  # as asyncio.run does at Ctrl-C
        with pytest.raises(asyncio.CancelledError):
            await task
    assert pgn.read_text().count("1. d4") == 1


@pytest.mark.asyncio(loop_scope="module")
async def test_a_paste_too_long_for_a_move_is_said_in_the_players_words(url: str) -> None:
    """A review in tmux (2026-12-07): a 20,000-character paste was answered
    with the protocol's words, "'move' is at most 128 characters"."""
    status, text, _ = await play_scripted(url, "connect4", ["4" * 20_000, "quit"])
    assert status == 0 and "that is no move (20000 characters); type help" in text
    assert "'move'" not in text


@pytest.mark.asyncio(loop_scope="module")
async def test_go_from_an_sgf_counts_captures_and_a_resignation_names_no_side_to_move(
    url: str,
) -> None:
    """A review in tmux (2026-12-07): from an SGF --position the captures line
    never showed (the count read the start as a board), and after a
    resignation the board still said "X (black) to move"."""
    sgf = "(;GM[1]SZ[5]KM[7.5]AB[bc][ad][be]AW[cc][bd][dd][ce]PL[B])"
    status, text, _ = await play_scripted(
        url, "go", ["resign", "quit"], options={"size": 5}, position=sgf
    )
    assert status == 0, text
    assert "captures: X (black) 0, O (white) 0" in text, text
    ended = text.rpartition("black resigns")[0].rpartition("captures:")[2]
    assert "to move" not in ended, text


def test_an_en_passant_capture_may_carry_its_mark() -> None:
    """A review in tmux (2026-12-07): exd6 e.p. and exd6ep were refused."""
    from clients.play import _typed_move

    for typed in ("exd6 e.p.", "exd6ep", "exd6 ep", "exd6e.p."):
        assert _typed_move("chess", typed) == "exd6"
    assert _typed_move("chess", "Kxe3") == "Kxe3" and _typed_move("othello", "e3ep") == "e3ep"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_gone_while_the_person_thinks_ends_play_at_once(tmp_path: Path) -> None:
    """A re-review of 2026-12-07: a server that went away while the prompt
    waited was noticed only at the next line typed (more than 10 s later)."""
    from tests.server.server_harness import running_server

    pgn = tmp_path / "games.pgn"
    never = asyncio.Event()
    async with running_server() as server:
        url = f"ws://127.0.0.1:{server.port}/ws"
        out = io.StringIO()

        async def think_long(prompt: str) -> str | None:
            if "e4" not in out.getvalue():
                return "e4"
            asyncio.get_running_loop().create_task(server.shutdown())  # it goes meanwhile
            await never.wait()  # the person takes their time
            return None

        with pytest.raises(EngineTerminatedError):
            await asyncio.wait_for(
                play(url, "chess", depth=1, movetime_ms=None, pgn=str(pgn), out=out,
                     read=think_long),
                30 * UNIT,
            )  # fmt: skip
    assert "1. e4" in pgn.read_text()


@pytest.mark.asyncio(loop_scope="module")
async def test_sigterm_saves_the_game_as_ctrl_c_does(url: str, tmp_path: Path) -> None:
    """A re-review of 2026-12-07: closing the terminal (SIGHUP) or SIGTERM left
    without writing --pgn."""
    pgn = tmp_path / "games.pgn"
    process = await _play_on_pipes(url, "chess", "--depth", "1", "--pgn", str(pgn))
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"e4\n")
    await process.stdin.drain()
    seen = b""
    while seen.count(b"your move") < 2:  # its reply played, asked again
        chunk = await asyncio.wait_for(process.stdout.read(4096), 60 * UNIT)
        assert chunk, seen.decode(errors="replace")
        seen += chunk
    process.send_signal(signal.SIGTERM)
    await asyncio.wait_for(process.wait(), 30 * UNIT)
    assert process.returncode == 128 + signal.SIGTERM
    assert "1. e4" in pgn.read_text()


@pytest.mark.asyncio(loop_scope="module")
async def test_go_games_are_saved_as_sgf(url: str, tmp_path: Path) -> None:
    """A review of 2026-12-07: the terminal had no way to save a Go game (--pgn
    is chess's); --sgf appends each Go game, resigned, finished or left."""
    from tests.clients.tournament.test_sgf import read_sgf

    path = tmp_path / "games.sgf"
    start = "(;GM[1]SZ[5]KM[7.5]AB[bc][ad][be]AW[cc][bd][dd][ce]PL[B])"
    out = io.StringIO()
    status = await play(
        url,
        "go",
        options={"size": 5},
        position=start,
        movetime_ms=50,
        out=out,
        pgn=str(path),
        read=scripted(["a1", "resign", "new", "e1", "quit"]),
    )
    text = out.getvalue()
    assert status == 0, text
    assert text.count(f"saved the game to {path}") == 2, text
    resigned, left = read_sgf(path.read_text())
    root = resigned[0]
    assert root["SZ"] == ["5"] and root["KM"] == ["7.5"] and root["PB"] == ["you"]
    assert root["RE"] == ["W+R"] and root["EV"] == ["arena play"]
    assert sorted(root["AB"]) == ["ad", "bc", "be"] and root["PL"] == ["B"]
    moves = [(colour, values[0]) for node in resigned[1:] for colour, values in node.items()]
    assert moves[0] == ("B", "ae") and all(colour in ("B", "W") for colour, _ in moves)
    assert "C" not in resigned[1]  # no figures known of a move played here
    assert "RE" not in left[0]  # left unfinished: no result
    assert next(iter(left[1].items())) == ("B", ["ee"])


def test_sgf_is_refused_for_a_game_other_than_go(capsys: pytest.CaptureFixture[str]) -> None:
    from clients.cli import main

    assert main(["play", "--game", "chess", "--sgf", "games.sgf"]) == 2
    assert "--sgf records Go games only, not chess" in capsys.readouterr().err


#: A think far longer than any test: only "move now" can end it in time.
LONG_THINK_MS = 600_000


@pytest.mark.asyncio(loop_scope="module")
async def test_enter_while_the_engine_thinks_makes_it_move_now(url: str) -> None:
    # A known gap of 2026-12-07: arena play had no "move now"; a long
    # --movetime could only be waited out or left with Ctrl-C.
    started = time.monotonic()
    status, text, prompts = await play_scripted(
        url, "connect4", ["", "quit"], depth=None, movetime_ms=LONG_THINK_MS, human=1, move_now=True
    )
    assert status == 0
    assert time.monotonic() - started < 20 * UNIT
    assert "is thinking... (scores for X Red); Enter: move now" in text, text
    assert re.search(r"^engine plays [1-7]", text, re.MULTILINE), text
    assert prompts[0] == ""  # read while the engine thought, with no prompt of its own
    assert prompts[1].startswith("your move [")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_line_typed_while_the_engine_thinks_waits_for_the_prompt(url: str) -> None:
    status, text, prompts = await play_scripted(
        url, "connect4", ["4", "quit"], depth=2, human=1, move_now=True
    )
    assert status == 0
    # One read, while the engine thought: the engine's think was not cut
    # short (a move is not "move now"), and the line was the answer to the
    # prompt that came after, shown there as if typed at it.
    assert prompts[0] == ""
    assert re.search(r"^engine plays [1-7]", text, re.MULTILINE), text
    assert re.search(r"your move \[[^\]]*\] \(help for commands\): 4\n", text), text
    assert text.count("is thinking") == 2  # 4 was played, the engine answered


@pytest.mark.asyncio(loop_scope="module")
async def test_scripts_and_logs_are_not_read_during_a_think(url: str) -> None:
    # Without a terminal (move_now left to play()), a think reads nothing:
    # a piped script's lines are moves, and an empty one must not stop it.
    status, text, prompts = await play_scripted(url, "connect4", ["4", "quit"], human=1)
    assert status == 0
    assert "" not in prompts and "Enter: move now" not in text


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.asyncio(loop_scope="module")
async def test_move_now_in_tmux(url: str) -> None:
    socket = f"arena-play-move-now-{os.getpid()}"
    try:
        await _play_in_tmux(
            socket, url, "--game", "connect4", "--movetime", str(LONG_THINK_MS), "--engine-first"
        )
        await _wait_for(socket, r"Enter: move now")
        await _wait_for(socket, r"depth +\d+")  # searching
        await _tmux(socket, "send-keys", "-t", "play", "Enter")
        screen = await _wait_for(socket, r"your move \[")
        assert re.search(r"(?m)^engine plays [1-7]", screen), screen
        await _tmux(socket, "send-keys", "-t", "play", "quit", "Enter")
        await _wait_for(socket, r"EXIT=0")
    finally:
        await _tmux(socket, "kill-server")


@pytest.mark.asyncio(loop_scope="module")
async def test_enter_after_a_move_typed_ahead_still_stops_the_think(url: str) -> None:
    # A review of 2026-12-08: once a move had been typed during a think, the
    # reading stopped there; the Enter after it waited for the next think
    # and stopped that one at once (a depth-1 move played).
    started = time.monotonic()
    status, text, prompts = await play_scripted(
        url,
        "connect4",
        ["4", "", "", "quit"],
        depth=None,
        movetime_ms=LONG_THINK_MS,
        human=1,
        move_now=True,
    )
    assert status == 0
    assert time.monotonic() - started < 20 * UNIT
    # Both thinks stopped by their own Enter, the typed move played between.
    assert text.count(", stopped)") == 2, text
    assert re.search(r"your move \[[^\]]*\] \(help for commands\): 4\n", text), text
    assert prompts[:3] == ["", "", ""]  # three lines read during the first two thinks


@pytest.mark.asyncio(loop_scope="module")
async def test_quit_typed_during_a_think_leaves_without_waiting_it_out(url: str) -> None:
    # A review of 2026-12-08: "quit" typed during a 20 s think left only
    # when the think had run its whole time.
    started = time.monotonic()
    status, text, _ = await play_scripted(
        url, "connect4", ["quit"], depth=None, movetime_ms=LONG_THINK_MS, human=1, move_now=True
    )
    assert status == 0 and text.rstrip().endswith("bye")
    assert time.monotonic() - started < 20 * UNIT

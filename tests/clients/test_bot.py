"""A Python function as a bot (issue 31, item 2): ``clients.bot`` and ``arena bot``."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from clients.bot import Answer, BotLoadError, Decision, load, serve_lines
from clients.cli import main
from clients.client import connect
from engine.registry import create_game
from tests.timing import UNIT

FUNCTION_BOT = """
from clients.bot import Answer, Decision


def choose(decision: Decision) -> Answer:
    game, state = decision.game, decision.state
    for move in game.legal_moves(state):  # a win if there is one
        outcome = game.outcome(game.play(state, move))
        if outcome is not None and outcome.winner == decision.to_move:
            return Answer(game.format_move(state, move), score=1000, comment="win")
    return Answer(decision.legal[0], depth=1)
"""

CLASS_BOT = """
from clients.bot import Bot


class Counter(Bot):
    def __init__(self):
        self.calls = 0

    def choose(self, decision):
        self.calls += 1
        return decision.legal[self.calls % len(decision.legal)]
"""

MARKED_BOT = """
from clients.bot import bot


def helper(decision):
    return "no"


@bot
def mine(decision):
    return decision.legal[-1]
"""


def request(game_name: str, position: str | None = None) -> str:
    game = create_game(game_name)
    state = game.initial_state() if position is None else game.parse_position(position)
    legal = [game.format_move(state, move) for move in game.legal_moves(state)]
    body = {
        "request": 1,
        "game": game_name,
        "options": dict(game.options),
        "position": game.format_position(state),
        "start": game.format_position(state),
        "moves": [],
        "legal": legal,
        "to_move": game.to_move(state),
        "player": game.players[game.to_move(state)],
        "time_left_ms": 1000,
        "budget_ms": 1000,
    }
    return json.dumps(body) + "\n"


def answers(choose: object, *lines: str) -> list[dict[str, object]]:
    out = io.StringIO()
    serve_lines(choose, io.StringIO("".join(lines)), out)  # type: ignore[arg-type]
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_function_a_bot_class_and_a_marked_function_are_bots(tmp_path: Path) -> None:
    for name, text in (("f.py", FUNCTION_BOT), ("c.py", CLASS_BOT), ("m.py", MARKED_BOT)):
        (tmp_path / name).write_text(text)
    # Connect Four: first has three in column 1, a win at 1.
    assert answers(load(f"{tmp_path}/f.py:choose"), request("connect4", "121212")) == [
        {"move": "1", "score": 1000, "comment": "win", "request": 1}
    ]
    assert answers(load(f"{tmp_path}/f.py"), request("nim")) == [
        {"move": "1:1", "depth": 1, "request": 1}
    ]
    counter = load(f"{tmp_path}/c.py")
    assert [a["move"] for a in answers(counter, request("nim"), request("nim"))] == ["1:2", "1:3"]
    assert answers(load(f"{tmp_path}/m.py"), request("tictactoe")) == [{"move": "c1", "request": 1}]
    with pytest.raises(BotLoadError):
        load(f"{tmp_path}/f.py:nothing")
    with pytest.raises(BotLoadError):
        load(f"{tmp_path}/missing.py")
    assert Answer("4", pv=["4", "3"]).to_line() == '{"move": "4", "pv": ["4", "3"]}'
    # A comment is cut to what the server keeps: the line stays far below its 16 KiB.
    assert len(Answer("4", comment="c" * 20000).to_line(7)) < 600


def test_a_students_engine_py_beside_the_bot_does_not_replace_ours(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(FUNCTION_BOT)
    for name in ("engine.py", "clients.py", "server.py", "protocol.py"):
        (tmp_path / name).write_text("raise SystemExit('a student file was imported')\n")
    done = subprocess.run(
        [sys.executable, "-P", "-m", "clients.bot", "mybot.py"],
        input=request("connect4"),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30 * UNIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"move": "1", "depth": 1, "request": 1}


def test_a_module_beside_the_bot_imports_and_one_named_like_ours_is_told_to_rename(
    tmp_path: Path,
) -> None:
    # The review of 2026-12-07: docs/bots.md said an engine.py beside the bot
    # was the student's to import; `from engine import helper` failed with an
    # ImportError naming this project's engine package.
    (tmp_path / "helpers.py").write_text("def first(moves):\n    return moves[0]\n")
    (tmp_path / "good.py").write_text(
        "from helpers import first\n\ndef choose(state):\n    return first(state.legal)\n"
    )
    assert answers(load(f"{tmp_path}/good.py"), request("nim")) == [{"move": "1:1", "request": 1}]
    (tmp_path / "engine.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "clash.py").write_text(
        "from engine import helper\n\ndef choose(state):\n    return 0\n"
    )
    with pytest.raises(BotLoadError, match=r"rename engine\.py beside it"):
        load(f"{tmp_path}/clash.py")


def test_a_score_that_is_not_a_number_is_left_out_and_the_move_stands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The review of 2026-12-07: Answer(move, score=float("nan")) was sent as
    # NaN, refused by the server with the move, and every move was played for
    # the bot.
    def choose(decision: Decision) -> Answer:
        return Answer(decision.legal[0], score=float("nan"))  # type: ignore[arg-type]

    assert answers(choose, request("nim")) == [{"move": "1:1", "request": 1}]
    assert "score nan is not a number or a score object: left out" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("score", "sent"),
    [
        ({"draw": True}, True),
        ({"win_in": 3}, True),
        ({"loss_in": 2}, True),
        ({"value": -40}, True),
        ({"win_in": 0}, False),
        ({"win_in": 1000}, True),
        ({"loss_in": 10**30}, False),  # beyond what the server takes: the move was lost
        ({"draw": 1}, False),
        ({"win_in": 3, "draw": True}, False),
        ({"mate": 2}, False),
    ],
)
def test_score_objects_go_to_the_server(
    score: dict[str, int | bool], sent: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # A second review of 2026-12-07: docs/bots.md lists score objects, and a
    # function bot's were left out as "not a number".
    def choose(decision: Decision) -> Answer:
        return Answer(decision.legal[0], score=score)

    expected: dict[str, object] = {"move": "1:1", "request": 1}
    if sent:
        expected["score"] = score
    assert answers(choose, request("nim")) == [expected]
    assert ("left out" in capsys.readouterr().err) is not sent


def test_arena_bot_versus_plays_a_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mybot.py").write_text(FUNCTION_BOT)
    monkeypatch.chdir(tmp_path)  # its log: bot-logs/mybot.log here
    status = main(
        [
            "bot",
            f"{tmp_path}/mybot.py:choose",
            "--game",
            "tictactoe",
            "--versus",
            "local:depth=2",
            "--movetime",
            "300",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "2 of 2 games played" in out and "mybot" in out
    assert (tmp_path / "bot-logs" / "mybot.log").exists()


def test_a_function_that_prints_keeps_its_answers_clean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A review of 2026-12-07: print(decision.legal) in choose() went into the
    answers, where a line starting with "{" or "[" was read as the answer.
    Prints go to stderr (the bot's log)."""

    def choose(decision: Decision) -> Answer:
        print({"legal": decision.legal})
        print("thinking")
        return Answer("4")

    game = create_game("connect4")
    start = game.format_position(game.initial_state())
    assert answers(choose, request("connect4", start)) == [{"move": "4", "request": 1}]
    assert "{'legal': ['1'" in capsys.readouterr().err


def test_a_move_that_is_no_string_is_refused_with_how_to_write_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A review of 2026-12-07: a search that returned the engine's own move
    object (Connect Four's engine move 3, column "4") was sent as str(3), "3",
    another legal column, every move and without a word. A move that is no
    string is refused (that move is played for the bot) and the log says how
    the game writes it."""

    def engine_move(decision: Decision) -> Answer:
        game, state = decision.game, decision.state
        return Answer(game.legal_moves(state)[3], comment="forgot format_move")

    game = create_game("connect4")
    start = game.format_position(game.initial_state())
    (reply,) = answers(engine_move, request("connect4", start))
    assert set(reply) == {"error", "request"}
    why = str(reply["error"])
    assert "not a string" in why and "game.format_move(state, move) = '4'" in why
    assert "not a string" in capsys.readouterr().err
    # A number that is no engine move is refused too (a chess move is no number).
    (reply,) = answers(lambda decision: 4, request("chess"))
    assert "not a string" in str(reply["error"]) and "format_move(" not in str(reply["error"])


def test_a_depth_or_pv_the_server_would_refuse_is_left_out_not_the_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A review of 2026-12-07: a bad score was left out and the move played,
    but a pv of engine moves or a depth of 2.0 cost the whole answer."""

    def sloppy(decision: Decision) -> Answer:
        game, state = decision.game, decision.state
        return Answer(decision.legal[0], depth=2.0, pv=list(game.legal_moves(state))[:2])  # type: ignore[arg-type]

    (reply,) = answers(sloppy, request("connect4"))
    assert reply == {"move": "1", "depth": 2, "request": 1}
    assert "pv is not a list of moves written as strings" in capsys.readouterr().err
    (reply,) = answers(lambda d: Answer(d.legal[0], depth="deep"), request("connect4"))  # type: ignore[arg-type]
    assert reply == {"move": "1", "request": 1}


def test_a_function_that_raises_answers_an_error_and_serves_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A student's exception costs that move (``{"error": ...}``), not the program."""

    game = create_game("tictactoe")
    start = game.format_position(game.initial_state())

    def choose(decision: Decision) -> str:
        if decision.position == start:
            raise ValueError("no idea")
        return "b2"

    later = game.format_position(game.play_text(game.initial_state(), "a1"))
    replies = answers(choose, request("tictactoe"), request("tictactoe", later))
    # Each answer names its request (docs/bots.md): a late one is then told apart.
    assert replies == [
        {"error": "ValueError: no idea", "request": 1},
        {"move": "b2", "request": 1},
    ]
    assert "ValueError: no idea" in capsys.readouterr().err


def test_a_bot_imports_only_its_own_game() -> None:
    """A bot's start pays for its game, not for every game (numpy, the backgammon network)."""
    code = (
        "import sys, clients.bot\n"
        "from engine.catalog import game_class\n"
        "game_class('connect4')\n"
        "prefixes = ('engine.games', 'numpy', 'clients.client')\n"
        "print(sorted(m for m in sys.modules if m.startswith(prefixes)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout
    assert "engine.games.connect4" in loaded
    assert "numpy" not in loaded and "engine.games.backgammon" not in loaded
    assert "clients.client" not in loaded


def test_a_python_bot_plays_its_own_moves_at_short_move_times(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reproduces the review of 2026-11-29: at the README's class-tournament times (500 ms,
    and 200) a function bot answered none of its moves.

    Its process took 0.6 s to start (the client library and every game,
    numpy included, were imported before the first request), the first
    request was sent while it was starting, and a bot ended for a late
    answer met the next request starting again. The bot is now taken for
    started only once it waits for its first request, and it imports only
    its game.
    """
    (tmp_path / "mybot.py").write_text(FUNCTION_BOT)
    monkeypatch.chdir(tmp_path)
    status = main(
        [
            "bot",
            f"{tmp_path}/mybot.py:choose",
            "--game",
            "connect4",
            "--versus",
            "local:depth=1",
            "--movetime",
            str(int(200 * UNIT)),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "2 of 2 games played" in out
    failed = re.search(r"mybot: (\d+) moves? played for it", out)
    assert failed is None or failed.group(1) == "0", out


def test_arena_bot_says_its_bot_cannot_start_without_tournament_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: a bot with a syntax error ended arena bot with
    "without them 1 entrant would play, fewer than two: the tournament stops"."""
    (tmp_path / "broken.py").write_text("def choose(decision:\n    return 0\n")
    monkeypatch.chdir(tmp_path)
    status = main(
        ["bot", "broken.py", "--game", "tictactoe", "--versus", "local:depth=1",
         "--movetime", str(int(200 * UNIT))]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 3, err
    assert "broken cannot be used" in err and "SyntaxError" in err, err
    assert "tournament" not in err and "entrant" not in err, err


def test_arena_bot_runs_a_bot_with_a_loop_of_its_own_as_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: `arena bot connect4.py` on the README's example
    (a loop reading its requests) ran it through clients.bot: it played, and
    then every copy's log said the file had no choose function, exit status
    2. It runs as a --bots folder runs it; a file that is no bot is said so."""
    example = Path(__file__).parents[2] / "examples" / "bots" / "connect4.py"
    (tmp_path / "loop.py").write_text(example.read_text())
    (tmp_path / "notes.py").write_text("X = 1\n")
    monkeypatch.chdir(tmp_path)
    status = main(
        ["bot", "loop.py", "--game", "connect4", "--versus", "local:depth=1",
         "--movetime", str(int(300 * UNIT)), "--games", "1"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0, out + err
    log = (tmp_path / "bot-logs" / "loop.log").read_text()
    assert "no choose function" not in log and "exit status 2" not in log, log
    assert main(["bot", "notes.py", "--game", "connect4", "--versus", "local:depth=1"]) == 2
    assert "notes.py is no bot" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.asyncio
async def test_arena_bot_port_serves_the_function_as_an_engine_server(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(FUNCTION_BOT)
    port = _free_port()
    env = dict(os.environ, ARENA_BOT_LOGS=str(tmp_path / "logs"))
    server = subprocess.Popen(
        [sys.executable, "-m", "clients", "bot", "mybot.py:choose", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"ws://127.0.0.1:{port}/ws"
        deadline = asyncio.get_running_loop().time() + 30 * UNIT
        while True:
            try:
                async with connect(url) as engine:
                    await engine.new_game("connect4", moves=["1", "2", "1", "2", "1", "2"])
                    # The bot may still be importing the engine (a second
                    # or more on a busy machine): its first move has time.
                    best = await engine.think(movetime_ms=int(5000 * UNIT))
                    break
            except OSError:
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.1)
        assert (best.move, best.reason) == ("1", "engine")
        assert "mybot" in (tmp_path / "logs" / "mybot.log").read_text()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30 * UNIT)


def test_arena_bots_messages_are_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review of 2026-12-06: `arena bot --game nosuch` said "arena tournament: unknown game"."""
    source = tmp_path / "ok.py"
    source.write_text("def choose(decision):\n    return decision.legal[0]\n")
    status = main(["bot", f"{source}:choose", "--game", "nosuch", "--versus", "local:depth=1"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("arena bot: unknown game 'nosuch'"), err


def test_a_choose_that_returns_nothing_is_said_to_have_returned_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A second review of 2026-12-07: the log read "the engine answered None,
    # illegal" for a choose that fell off its end.
    def choose(decision: Decision) -> str:
        return None  # type: ignore[return-value]

    (reply,) = answers(choose, request("nim"))
    assert reply == {
        "error": "choose returned None (no move): a return statement is missing?",
        "request": 1,
    }
    assert "choose returned None" in capsys.readouterr().err

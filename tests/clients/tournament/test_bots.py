"""Bots in a tournament (issue 31, item 3 first half): ``--bots DIR``, ``cmd=`` engines.

Each bot in a folder is one entrant named after its file, run by the local
server as a ``cmd:`` bot (docs/bots.md), with reference engines; a hostile
bot loses its moves (``engine_error`` in the record, its log says why) and
never stalls the tournament. The local server imports our packages, not a
student's ``engine.py`` beside the bots.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
from itertools import takewhile
from pathlib import Path

import pytest

from clients.cli import build_parser, main
from clients.tournament.bots import (
    SUMMARY_NOTE_CHARS,
    bot_command,
    bot_digests,
    bot_summary,
    folder_engines,
    log_sizes,
    reference_engines,
    skipped_files,
)
from clients.tournament.command import config_from_args
from clients.tournament.config import ALGORITHM_NAME, ConfigError, EngineSpec, parse_engine
from clients.tournament.records import RULES, GameRecord, MoveRecord
from clients.tournament.runner import create_tournament
from engine.registry import create_game
from protocol.limits import MAX_ALGORITHM_CHARS
from tests.timing import UNIT

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bots"
GARBAGE_BOT = "import sys\nfor line in sys.stdin:\n    print('thinking...', flush=True)\n"
#: A bot that answers one illegal move in the whole tournament (a flag file
#: beside it remembers), then plays: one failure, and the moves its restart
#: costs, never lose it a game.
ONCE_ILLEGAL_BOT = (
    "from pathlib import Path\n"
    "from clients.bot import Decision\n\n\n"
    "def choose(decision: Decision) -> str:\n"
    "    flag = Path(__file__).with_suffix('.failed')\n"
    "    if len(decision.moves) >= 2 and not flag.exists():\n"
    "        flag.write_text('once')\n"
    "        return '99'\n"
    "    return decision.legal[0]\n"
)
LIBRARY_BOT = (
    "from clients.bot import Decision\n\n\n"
    "def choose(decision: Decision) -> str:\n"
    "    return decision.legal[-1]\n"
)


def test_a_cmd_engine_is_a_program_the_local_server_runs() -> None:
    spec = parse_engine("name=ana,cmd=python3 ana.py,game=connect4")
    assert spec.is_local and spec.command == "python3 ana.py" and spec.proto == "cmd"
    assert spec.external_spec("connect4") == "connect4:ana=cmd:python3 ana.py"
    # cutechess-cli's quotes, a name from the file, a UCI program and its options.
    spec = parse_engine('cmd="python3 /bots/bob.py"')
    assert (spec.name, spec.algorithm, spec.command) == ("bob", "bob", "python3 /bots/bob.py")
    spec = parse_engine("name=sf,cmd=/usr/games/stockfish,proto=uci,option.Skill Level=3")
    assert spec.external_spec("chess") == "chess:sf=uci:/usr/games/stockfish?Skill Level=3"
    # A name the server's own searches use, or one no think could ask for, is changed.
    assert parse_engine("name=mcts,cmd=./x").algorithm == "mcts_bot"
    assert parse_engine("name=my bot,cmd=./x").algorithm == "my_bot"
    # A bot named after a long file: a think's algorithm is at most 32 characters
    # (protocol.md), so the name is cut, and two that begin alike stay apart.
    # (Before, the name was cut at 64: every think of such a bot failed with
    # bad_message "'algorithm' is at most 32 characters".)
    long_a = parse_engine("cmd=python3 a_students_connect_four_bot_with_a_very_long_name.py")
    long_b = parse_engine("cmd=python3 a_students_connect_four_bot_with_a_very_long_name2.py")
    assert long_a.name == "a_students_connect_four_bot_with_a_very_long_name"
    for spec in (long_a, long_b):
        assert spec.algorithm is not None and len(spec.algorithm) == MAX_ALGORITHM_CHARS
        assert ALGORITHM_NAME.fullmatch(spec.algorithm)
    assert long_a.algorithm != long_b.algorithm
    assert long_a.algorithm == parse_engine(f"name={long_a.name},cmd=./x").algorithm
    for bad in (
        "cmd=./x,proto=xboard",
        "cmd=./x,option.Hash=16",
        "cmd=./x,url=ws://h/ws",
        "local:depth=2,proto=uci",
        "cmd=",
    ):
        with pytest.raises(ConfigError):
            parse_engine(bad)


def test_a_bot_whose_path_needs_quotes_keeps_them(tmp_path: Path) -> None:
    """Seen: ``my bot.py`` in a --bots folder: the closing quote was stripped and the
    local server exited with "No closing quotation"."""
    (tmp_path / "my bot.py").write_text(GARBAGE_BOT)
    (tmp_path / "lone bot").write_text("#!/bin/sh\n")
    (tmp_path / "lone bot").chmod(0o755)
    engines = {engine.name: engine for engine in folder_engines(str(tmp_path))}
    assert shlex.split(engines["my bot"].command)[-1] == str((tmp_path / "my bot.py").resolve())
    assert shlex.split(engines["lone bot"].command) == [str((tmp_path / "lone bot").resolve())]


def test_a_bots_folder_makes_one_entrant_per_bot(tmp_path: Path) -> None:
    (tmp_path / "ana.py").write_text(GARBAGE_BOT)
    (tmp_path / "lib.py").write_text(LIBRARY_BOT)
    (tmp_path / "bob.js").write_text("// a bot\n")
    (tmp_path / "README.md").write_text("not a bot\n")
    (tmp_path / ".hidden.py").write_text("")
    (tmp_path / "notes").write_text("not executable\n")
    binary = tmp_path / "cbot"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    if shutil.which("node") is None:
        (tmp_path / "bob.js").unlink()
    engines = folder_engines(str(tmp_path))
    names = [engine.name for engine in engines]
    assert names == sorted(["ana", "cbot", "lib"] + (["bob"] if shutil.which("node") else []))
    commands = {engine.name: engine.command or "" for engine in engines}
    assert commands["ana"].endswith("ana.py") and "clients.bot" not in commands["ana"]
    assert "-P -m clients.bot" in commands["lib"]
    assert bot_command(tmp_path / "README.md") is None
    assert [e.name for e in reference_engines("1,3")] == ["reference d1", "reference d3"]
    assert reference_engines("none") == []
    with pytest.raises(ConfigError):
        folder_engines(str(tmp_path / "nowhere"))
    # A script its author forgot to chmod was left out without a word, and a
    # helper module beside the bots was run as one and stopped the tournament
    # (reviews of 2026-12-07): neither is an entrant, and the command names them.
    (tmp_path / "my_engine.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "bare.py").write_text("def choose(decision):\n    return decision.legal[0]\n")
    engines = folder_engines(str(tmp_path))
    assert "my_engine" not in [engine.name for engine in engines]
    bare = next(engine for engine in engines if engine.name == "bare")
    assert "-P -m clients.bot" in (bare.command or "")  # a function bot without the import
    # Only a script is told to chmod +x; a folder, a Makefile or the
    # tournament's own records are named or passed over (a review of 2026-12-07).
    (tmp_path / "run.sh").write_text("#!/bin/sh\nexec python3 ana.py\n")
    (tmp_path / "Makefile").write_text("all:\n\ttrue\n")
    (tmp_path / "t.jsonl").write_text("{}\n")
    (tmp_path / "maria").mkdir()
    skipped = dict(skipped_files(str(tmp_path)))
    assert set(skipped) == {"notes", "my_engine.py", "run.sh", "Makefile", "maria"}
    assert "chmod +x run.sh" in skipped["run.sh"] and "helper module" in skipped["my_engine.py"]
    assert "chmod" not in skipped["notes"] + skipped["Makefile"]
    assert "not a bot" in skipped["Makefile"] and "a folder" in skipped["maria"]


def test_a_class_tournament_of_bots_runs_whatever_they_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = tmp_path / "class"
    bots.mkdir()
    shutil.copy(EXAMPLES / "connect4.py", bots / "ana.py")
    (bots / "garbage.py").write_text(GARBAGE_BOT)
    (bots / "lib.py").write_text(LIBRARY_BOT)
    (bots / "once.py").write_text(ONCE_ILLEGAL_BOT)
    # A student's files named like our packages, where the tournament runs.
    for name in ("engine.py", "server.py", "clients.py", "protocol.py"):
        (tmp_path / name).write_text("raise SystemExit('a student file was imported')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_BOT_LOGS", raising=False)
    status = main(
        [
            "tournament",
            "--game",
            "connect4",
            "--bots",
            str(bots),
            "--reference",
            "1",
            "--movetime",
            "150",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--db",
            str(tmp_path / "class.db"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "20 of 20 games played" in out
    records = [json.loads(line) for line in (tmp_path / "class.jsonl").read_text().splitlines()]
    assert {name for record in records for name in record["players"]} == {
        "ana",
        "garbage",
        "lib",
        "once",
        "reference d1",
    }
    garbage_reasons = set()
    for record in records:
        for index, move in enumerate(record["moves"]):
            player = record["players"][index % 2]
            if player == "garbage" and not move.get("book"):
                garbage_reasons.add(move.get("reason"))
    # Each move answered engine_error; on a loaded machine the pool's guard
    # may answer one first (reason time), or the think may reach the bot's
    # process with no time left to ask it (overloaded): lost either way.
    assert "engine_error" in garbage_reasons
    assert garbage_reasons <= {"engine_error", "time", "overloaded"}
    # A bot that never plays never wins, and loses a game by fault at its
    # fifth move in a row played for it (it drew every game against another
    # such bot, and won some on its stand-ins: reviews of 2026-12-07); the
    # tournament goes on.
    forfeits = 0
    for record in records:
        if "garbage" in record["players"] and "once" not in record["players"]:
            assert record["players"][1 - record["winner"]] == "garbage", record["reason"]
            if record["kind"] == "engine_failure":  # else four in a row came first
                assert re.search(
                    r"failed: (it gave no move of its own|the move played for it would have won)",
                    record["reason"],
                ), record["reason"]
                forfeits += 1
        # One illegal answer loses no game: a loss by fault needs other
        # failures in that game (a loaded machine's silences).
        lost = record["winner"] is not None and record["players"][1 - record["winner"]]
        if lost == "once" and record["kind"] == "engine_failure":
            failed = [
                move
                for index, move in enumerate(record["moves"])
                if record["players"][index % 2] == "once"
                and move.get("reason") in ("engine_error", "time")
                and not move.get("depth")
            ]
            assert len(failed) >= 3, record["reason"]
    assert forfeits > 0
    once_moves = [
        move.get("reason")
        for record in records
        for index, move in enumerate(record["moves"])
        if record["players"][index % 2] == "once" and not move.get("book")
    ]
    assert "engine_error" in once_moves  # its one illegal answer was played for it
    # The summary after the tables points each student at their log.
    summary = out.split("Bots (moves a bot failed")[1]
    assert "garbage: " in summary and "bot-logs/garbage.log" in summary
    # Every move of garbage's turns was played for it, whatever the reason.
    played_for = sum(
        1
        for record in records
        for index, move in enumerate(record["moves"])
        if record["players"][index % 2] == "garbage" and not move.get("book")
    )
    assert f"garbage: {played_for} moves played for it" in summary
    # Its last reasons: a silent answer's, or, when a restart was still
    # under way at a think (a CPU-bound program beside the suite), that one.
    lines = summary.split("garbage: ")[1].split("\n")[1:]
    notes = "\n".join(takewhile(lambda line: line.startswith("    "), lines))
    assert any(
        reason in notes for reason in ("no answer within its budget", "not ready by the deadline")
    ), notes
    assert "ana: " in summary
    log = (tmp_path / "bot-logs" / "garbage.log").read_text()
    assert "no answer within its budget" in log
    assert re.search(r"\(it wrote (1 line that is|\d+ lines that are) no answer\)", log)
    assert sys.executable in (tmp_path / "bot-logs" / "lib.log").read_text()


def test_the_summary_counts_each_bots_own_turns_in_backgammon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ops review of 2026-11-29: the summary took every other move for one player,
    and in backgammon (a roll before each move, the opening roll choosing who starts)
    a bot that never failed had the reference engine's moves counted as its own
    failures ("39 moves played for it"). Whose turn each was comes from the game."""
    monkeypatch.chdir(tmp_path)
    game = create_game("backgammon")
    state = game.initial_state()
    players = ("reference d1", "randy")
    moves: list[MoveRecord] = []
    while len(moves) < 40 and game.outcome(state) is None:
        chances = game.chance_outcomes(state)
        if chances is not None:
            move = chances[0][0]
            moves.append(MoveRecord(move=game.format_move(state, move), roll=True))
        else:
            move = game.legal_moves(state)[0]
            # the reference engine's own reasons (depth), the bot's (engine)
            reason = "depth" if players[game.to_move(state)] == "reference d1" else "engine"
            moves.append(MoveRecord(move=game.format_move(state, move), reason=reason))
        state = game.play(state, move)
    record = GameRecord(1, 1, 1, "backgammon", {}, players, 0, None, None, RULES, "", tuple(moves))
    path = tmp_path / "t.jsonl"
    path.write_text(record.to_line() + "\n")
    summary = bot_summary([EngineSpec("randy", command="python3 randy.py")], path)
    assert "randy: 0 moves played for it" in summary, summary


def test_the_summary_quotes_only_this_runs_part_of_a_bots_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of 2026-12-07: a bot fixed after a run still had the earlier
    run's failures quoted under its name (a log keeps every run)."""
    monkeypatch.setenv("ARENA_BOT_LOGS", str(tmp_path))
    engines = [EngineSpec("fixed", command="python3 fixed.py")]
    log = tmp_path / "fixed.log"
    log.write_text("[arena 07:49:01] request 3: answer refused: the engine answered 8, illegal\n")
    sizes = log_sizes(engines)
    with log.open("a") as more:
        more.write("[arena 07:55:00] started python3 fixed.py (pid 7)\n")
    summary = bot_summary(engines, None, sizes)
    assert "fixed: 0 moves played for it" in summary and "illegal" not in summary
    assert "illegal" in bot_summary(engines, None)  # the whole log, as before
    # Failures counted from the games before this run (a resumed class) and
    # none in it: their reasons are quoted from before, said so (a second
    # review: "57 moves played for it" and no reason).
    record = GameRecord(
        1, 1, 1, "tictactoe", {}, ("fixed", "other"), 1, None, None, RULES, "",
        (MoveRecord(move="b2", reason="engine_error"), MoveRecord(move="a1", reason="depth")),
    )  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(record.to_line() + "\n")
    summary = bot_summary(engines, path, sizes)
    assert "fixed: 1 move played for it" in summary, summary
    assert "(from its games before this run)" in summary and "illegal" in summary, summary


def test_two_bots_of_one_name_are_refused_naming_both_files(tmp_path: Path) -> None:
    """A review of 2026-12-07: ana.py beside ana.js stopped --bots with "give
    each a name=", which --bots cannot do, and named neither file."""
    (tmp_path / "ana.py").write_text("def choose(decision):\n    return decision.legal[0]\n")
    (tmp_path / "ana.js").write_text("process.stdin.on('data', () => {});\n")
    with pytest.raises(ConfigError, match=r"ana\.js and ana\.py would both enter as 'ana'"):
        folder_engines(str(tmp_path))


def test_two_bots_whose_names_run_alike_are_refused_naming_both_files(tmp_path: Path) -> None:
    """A second review of 2026-12-07: "Ana Silva.py" beside "Ana_Silva.py"
    stopped --bots with "two cmd= engines would have the same name: give
    each a name=", naming neither file."""
    for name in ("Ana Silva.py", "Ana_Silva.py"):
        (tmp_path / name).write_text("def choose(decision):\n    return decision.legal[0]\n")
    with pytest.raises(ConfigError, match=r"Ana Silva\.py and Ana_Silva\.py would both run as"):
        folder_engines(str(tmp_path))


def test_a_resumed_tournament_names_a_bot_whose_file_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: a bot file replaced mid-tournament was played
    by --resume without a word."""
    monkeypatch.chdir(tmp_path)
    bots = tmp_path / "class"
    bots.mkdir()
    first = "def choose(decision):\n    return decision.legal[0]\n"
    (bots / "ana.py").write_text(first)
    (bots / "bia.py").write_text("def choose(decision):\n    return decision.legal[-1]\n")
    argv = ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "none"]
    argv += ["--movetime", "300", "--games", "2", "--db", str(tmp_path / "t.db"), "--quiet"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 0
    assert "changed" not in capsys.readouterr().err
    (bots / "ana.py").write_text(first.replace("[0]", "[1]"))
    assert main([*argv, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "ana: ana.py changed since its last games" in err and "bia" not in err
    assert main([*argv, "--resume"]) == 0  # said once
    assert "changed" not in capsys.readouterr().err


def test_a_bot_that_cannot_start_is_left_out_and_the_class_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen 2026-12-07: one student's syntax error stopped the class
    tournament before its first game ("engine broken cannot be used"); the
    teacher had to find the file and move it away. It is left out, named on
    stderr and in the summary with why, and the others play. The tournament's
    own bot-logs folder, run from inside --bots, is not called a skipped bot."""
    bots = tmp_path / "class"
    bots.mkdir()
    monkeypatch.chdir(bots)
    monkeypatch.delenv("ARENA_BOT_LOGS", raising=False)
    (bots / "ana.py").write_text("def choose(decision):\n    return decision.legal[0]\n")
    (bots / "bia.py").write_text("def choose(decision):\n    return decision.legal[-1]\n")
    (bots / "broken.py").write_text("def choose(decision:\n    return 0\n")
    (bots / "bot-logs").mkdir()
    argv = ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "none"]
    argv += ["--movetime", "300", "--games", "2", "--db", str(tmp_path / "t.db"), "--quiet"]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert "left out broken, which cannot start (the others play): ended as soon as" in err, err
    assert "SyntaxError" in err and "skipped" not in err, err
    assert "2 of 2 games played" in out, out
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert {name for record in records for name in record["players"]} == {"ana", "bia"}
    assert re.search(r"^broken: left out, it could not start: ended as soon", out, re.MULTILINE)
    # Resumed, the summary still names it (kept with the tournament).
    assert main([*argv, "--resume"]) == 0
    assert "broken: left out, it could not start" in capsys.readouterr().out
    # The live page names it too, with why (a teacher's review of 2026-12-07:
    # it said "2 engines" and nothing of the bot left out).
    from clients.tournament.live import LiveTournament
    from clients.tournament.store import Store

    store = Store.open(tmp_path / "t.db")
    try:
        (left,) = LiveTournament(store).snapshot()["tournament"]["left_out"]
    finally:
        store.close()
    assert left["name"] == "broken" and "SyntaxError" in left["why"], left


def test_a_class_of_one_working_bot_still_stops_naming_the_broken_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Left out, it would leave one entrant: the tournament stops with the
    # reason (exit status 3, no database), as before.
    bots = tmp_path / "class"
    bots.mkdir()
    monkeypatch.chdir(tmp_path)
    (bots / "ana.py").write_text("def choose(decision):\n    return decision.legal[0]\n")
    (bots / "broken.py").write_text("import no_such_module_here\n\ndef choose(d):\n    return 0\n")
    argv = ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "none"]
    argv += ["--movetime", "300", "--games", "2", "--db", str(tmp_path / "t.db"), "--quiet"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "engine broken cannot be used" in err and "no_such_module_here" in err, err
    # and why that stops it (a second review of 2026-12-07: it did not say)
    assert "without them 1 entrant would play, fewer than two: the tournament stops" in err
    assert not (tmp_path / "t.db").exists()


def test_the_summary_names_a_left_out_bot_even_with_no_bot_playing() -> None:
    summary = bot_summary([], None, None, {"broken": "broken ended as soon as it started"})
    assert summary == "broken: left out, it could not start: ended as soon as it started"


def _begun_class(tmp_path: Path, bots: dict[str, str], games: int = 2) -> list[str]:
    """A class tournament of ``bots`` (file name: code) created, none of its games
    played; the argv that resumes it."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name, code in bots.items():
        (folder / name).write_text(code)
        if not name.endswith((".py", ".js")):
            (folder / name).chmod(0o755)
    argv = ["tournament", "--game", "tictactoe", "--bots", str(folder), "--reference", "none"]
    argv += ["--movetime", "300", "--games", str(games), "--db", str(tmp_path / "t.db")]
    argv += ["--quiet"]
    config = config_from_args(build_parser().parse_args(argv))
    store = create_tournament(tmp_path / "t.db", config)
    store.set_bot_digests(bot_digests(list(store.config().engines)))
    store.close()
    return [*argv, "--resume"]


FIRST = "def choose(decision):\n    return decision.legal[0]\n"
LAST = FIRST.replace("[0]", "[-1]")
#: A bot that is a program of its own: it reads requests and answers each.
LOOP = (
    "#!" + sys.executable + "\n"
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    request = json.loads(line)\n"
    "    print(json.dumps({'move': request['legal'][0], 'request': request['request']}),"
    " flush=True)\n"
)


def test_a_resume_that_cannot_start_a_bot_names_its_file_and_keeps_the_old_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: with a bot's file deleted, --resume named the
    interpreter ("junky: python3 changed since its last games"), and once the
    file was back as it was, the next resume still called it changed: the
    resume that played nothing had kept the digest of what it found."""
    monkeypatch.chdir(tmp_path)
    # A tournament not yet played: its resume has games to play.
    resume = _begun_class(tmp_path, {"ana.py": FIRST, "junky.py": LAST}, games=4)
    junky = tmp_path / "class" / "junky.py"
    saved = junky.read_bytes()
    junky.unlink()
    assert main(resume) == 3  # it cannot start: nothing played
    err = capsys.readouterr().err
    assert "junky: junky.py is missing" in err and "python" not in err.split("\n")[0], err
    junky.write_bytes(saved)
    assert main(resume) == 0
    assert "changed" not in capsys.readouterr().err


def test_a_resumed_class_plays_on_when_a_bot_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: one student's file deleted or broken between
    two runs stopped the whole class's resumed tournament (exit 3, nothing
    played, no way to leave the bot out). Its games are now lost without
    being played, said on stderr, in the records and in the summary."""
    monkeypatch.chdir(tmp_path)
    junky = FIRST.replace("[0]", "[1]")
    resume = _begun_class(tmp_path, {"ana.py": FIRST, "bia.py": LAST, "junky.py": junky})
    (tmp_path / "class" / "junky.py").write_text("def choose(decision:\n    return 0\n")  # broken
    status = main(resume)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert "junky cannot start; its games from now on are lost without being played" in err
    assert "SyntaxError" in err, err
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(records) == 6
    for record in records:
        if "junky" in record["players"]:
            assert record["kind"] == "engine_failure", record
            assert all(move.get("book") for move in record["moves"])  # the opening only
            assert record["players"][record["winner"]] != "junky"
            assert "could not start when the tournament was resumed" in record["reason"]
        else:
            assert record["kind"] != "engine_failure", record
    assert re.search(r"^junky: could not start when the tournament was resumed", out, re.M), out


@pytest.mark.asyncio
async def test_an_interrupted_class_tournament_prints_the_bots_summary(tmp_path: Path) -> None:
    """A review of 2026-12-07: Ctrl-C printed the tables (exit 130) but not
    the bots' summary, the part a teacher reads for a failing bot."""
    bots = tmp_path / "class"
    bots.mkdir()
    code = "def choose(decision):\n    return decision.legal[0]\n"
    (bots / "ana.py").write_text(code)
    (bots / "bia.py").write_text(code.replace("[0]", "[-1]"))
    argv = ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "none"]
    argv += ["--movetime", "300", "--games", "40", "--db", str(tmp_path / "t.db")]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "clients",
        *argv,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    seen = b""
    try:
        while b"game 1:" not in seen:  # a game played: the tournament runs
            line = await asyncio.wait_for(process.stdout.readline(), 60 * UNIT)
            assert line, seen.decode(errors="replace")
            seen += line
        process.send_signal(signal.SIGINT)
        rest, _ = await asyncio.wait_for(process.communicate(), 60 * UNIT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = (seen + rest).decode(errors="replace")
    assert process.returncode == 130, text
    assert "interrupted: resume with" in text and "Bots (moves a bot failed" in text, text


@pytest.mark.parametrize("how", ["deleted", "not executable"])
def test_a_resume_plays_on_when_an_executable_bot_is_gone(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second review of 2026-12-07: an executable bot (``#!`` and ``chmod
    +x``) deleted or no longer executable stopped the resumed tournament with
    "the local server exited: ... cannot find the program"."""
    monkeypatch.chdir(tmp_path)
    argv = _begun_class(tmp_path, {"ana.py": FIRST, "bia.py": LAST, "eve": LOOP})
    eve = tmp_path / "class" / "eve"
    if how == "deleted":
        eve.unlink()
    else:
        eve.chmod(0o644)
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert "eve cannot start; its games from now on are lost without being played" in err, err
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    lost = [record for record in records if "eve" in record["players"]]
    assert len(lost) == 4 and all(record["kind"] == "engine_failure" for record in lost)
    assert "could not start when the tournament was resumed, its games from then on" in out


def test_a_resume_runs_a_bot_rewritten_as_a_function_with_the_right_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second review of 2026-12-07: a loop bot rewritten as a ``def choose``
    bot was run with its old command on --resume, ended at once, and lost
    every game left."""
    monkeypatch.chdir(tmp_path)
    argv = _begun_class(tmp_path, {"ana.py": FIRST, "carl.py": LOOP.partition("\n")[2]})
    (tmp_path / "class" / "carl.py").write_text(LAST)
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(record["kind"] != "engine_failure" for record in records)
    assert "carl.py changed since its last games" in err


def test_a_bot_back_after_a_failed_resume_is_neither_changed_nor_unable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second review of 2026-12-07: after a resume that could not start a
    bot, putting its file back as it was made the next resume call it
    changed, and the summary named it unable to start for good."""
    monkeypatch.chdir(tmp_path)
    argv = _begun_class(tmp_path, {"ana.py": FIRST, "bia.py": LAST, "carl.py": FIRST}, games=4)
    carl = tmp_path / "class" / "carl.py"
    carl.write_text("def choose(decision:\n")  # broken: its games are lost unplayed
    assert main(argv) == 0
    capsys.readouterr()
    carl.write_text(FIRST)  # back as it was
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "changed" not in err, err
    assert "carl: could not start" not in out and "carl: left out" not in out, out


def test_a_bot_named_like_a_reference_engine_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second review of 2026-12-07: "reference d2.py" entered as the
    reference engine's name, and the reference became "reference d2 #2"."""
    bots = tmp_path / "class"
    bots.mkdir()
    (bots / "ana.py").write_text(FIRST)
    (bots / "reference d2.py").write_text(LAST)
    argv = ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "2"]
    argv += ["--movetime", "300", "--games", "2", "--db", str(tmp_path / "t.db")]
    assert main(argv) == 2
    assert "would enter as 'reference d2', the name of another engine" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()


def test_a_classmates_random_py_does_not_replace_the_standard_module(tmp_path: Path) -> None:
    """A review of 2026-12-07: in a --bots folder holding a student's random.py,
    every other bot's ``import random`` ran that file (a bot played its
    neighbour's moves), and a json.py broke every bot. The folder is now
    searched after the standard library; helpers beside a bot still import."""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "random.py").write_text("import json, sys\nfor line in sys.stdin:\n    pass\n")
    (folder / "helper_moves.py").write_text("def first(legal):\n    return legal[0]\n")
    (folder / "json.py").write_text("VALUE = 1\n")  # a helper named like a standard module
    (folder / "uses.py").write_text(
        "import random, sys\nfrom helper_moves import first\n"
        "print(random.__file__, first(['a']), flush=True)\nsys.stdin.read()\n"
    )
    command = bot_command((folder / "uses.py").resolve())
    assert command is not None
    out = subprocess.run(
        [*shlex.split(command)], input="", capture_output=True, text=True, timeout=30 * UNIT
    )
    assert out.returncode == 0, out.stderr
    where, helped = out.stdout.split()
    assert Path(where).parent != folder and helped == "a"
    skipped = dict(skipped_files(str(folder)))
    assert "named like Python's standard module 'json'" in skipped["json.py"]


#: A tic-tac-toe bot that reports an error exactly when the first legal move
#: would win for it, so that the move played for it (the first legal) wins.
WIN_FAIL_BOT = """
import json, sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

def index(move):
    return (3 - int(move[1])) * 3 + "abc".index(move[0])

for line in sys.stdin:
    request = json.loads(line)
    board = list(request["position"])
    mark = "XO"[request["to_move"]]
    first = request["legal"][0]
    board[index(first)] = mark
    if any(all(board[i] == mark for i in cells) for cells in LINES):
        answer = {"error": "not today", "request": request["request"]}
    else:
        answer = {"move": request["legal"][-1], "request": request["request"]}
    print(json.dumps(answer), flush=True)
"""


def test_a_game_lost_for_a_winning_stand_in_records_that_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review of 2026-12-07: a bot whose failed move, played for it, would have
    won lost the game by fault, but the record ended a move early (the bot to
    move in its last position), its live count showed no failure and the
    summary said "0 moves played for it". The record now ends on that move,
    marked engine_error, and the summary counts it."""
    bots = tmp_path / "class"
    bots.mkdir()
    (bots / "winfail.py").write_text(WIN_FAIL_BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_BOT_LOGS", raising=False)
    status = main(
        ["tournament", "--game", "tictactoe", "--bots", str(bots), "--reference", "1",
         "--movetime", "200", "--games", "4", "--concurrency", "1",
         "--db", str(tmp_path / "class.db"), "--quiet"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    records = [json.loads(line) for line in (tmp_path / "class.jsonl").read_text().splitlines()]
    game = create_game("tictactoe")
    faults = [r for r in records if "of its own once in this game" in (r["reason"] or "")]
    for record in faults:
        assert record["moves"][-1]["reason"] == "engine_error", record
        state = game.initial_state()
        for move in record["moves"]:
            state = game.play(state, game.parse_move(state, move["move"]))
        ended = game.outcome(state)
        loser = record["players"].index("winfail")
        assert ended is not None and ended.winner == loser, record  # the win it was not given
    played_for = sum(
        1
        for record in records
        for index, move in enumerate(record["moves"])
        if record["players"][index % 2] == "winfail" and move.get("reason") == "engine_error"
    )
    assert re.search(rf"winfail: {played_for} moves? played for it", out), out
    assert not faults or played_for >= len(faults), out


def test_a_long_note_in_the_summary_is_cut_at_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-review of 2026-12-07: a note with its hint was cut at 200 characters,
    mid-word ("starting it aga")."""
    monkeypatch.setenv("ARENA_BOT_LOGS", str(tmp_path))
    engines = [EngineSpec("wordy", command="python3 wordy.py")]
    note = (
        "[arena 07:49:01] request 3 (pid 9): no answer within its budget of 186 ms "
        + (
            "(this copy has written nothing yet: is its output flushed? print(..., flush=True)) "
            * 6
        )
        + "answered engine_error; starting it again"
    )
    (tmp_path / "wordy.log").write_text(note + "\n")
    shown = bot_summary(engines, None).splitlines()[-1].strip()
    assert len(shown) <= SUMMARY_NOTE_CHARS and shown.endswith(" …")
    assert note.startswith(shown.removesuffix(" …"))


#: A bot that kills the local server it runs under (its nearest ancestor
#: running ``-m server``) at its second request, then answers.
SERVER_KILLER = """import json, os, signal, sys


def server_pid():
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().split(b"\\0")
        if b"-m" in words and b"server" in words:
            return pid
        with open(f"/proc/{pid}/stat") as file:
            pid = int(file.read().rsplit(")", 1)[1].split()[1])
    return None


for count, line in enumerate(sys.stdin, start=1):
    request = json.loads(line)
    if count == 2 and server_pid():
        os.kill(server_pid(), signal.SIGKILL)
    print(json.dumps({"move": request["legal"][0], "request": request["request"]}), flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_a_local_server_that_dies_stops_the_tournament_and_charges_no_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A teacher's review of 2026-12-07: when the local server died, the games
    in progress were lost by the students whose bots were on move ("pensador
    disconnected"), and the run ended "12 of 12 games played". It stops,
    resumable, the game in progress not recorded."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(FIRST)
    (folder / "killer.py").write_text(SERVER_KILLER)
    db = tmp_path / "t.db"
    status = main(
        ["tournament", "--game", "tictactoe", "--bots", str(folder), "--reference", "none",
         "--movetime", str(int(300 * UNIT)), "--games", "2", "--db", str(db), "--quiet"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert "aborted: the local server stopped (killed by SIGKILL) during game" in out, out
    assert "resume with --db" in out
    records = tmp_path / "t.jsonl"
    lines = records.read_text().splitlines() if records.exists() else []
    kinds = [json.loads(line)["kind"] for line in lines]
    assert not set(kinds) & {"disconnect", "connection_failed"}, lines


#: A function bot that never answers in time (it sleeps past any budget here).
NEVER_IN_TIME = (
    "import time\n\n\ndef choose(decision):\n    time.sleep(5)\n    return decision.legal[0]\n"
)


def test_a_bot_with_no_move_of_its_own_in_a_game_does_not_score_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A teacher's review of 2026-12-07: in tic-tac-toe a bot that never
    answered had at most three moves a game, below both limits of failures,
    and scored 2.5 points from the draws its stand-in moves made. A game in
    which a bot gave no move of its own is its loss by fault."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(FIRST)
    (folder / "diego.py").write_text(NEVER_IN_TIME)
    status = main(
        ["tournament", "--game", "tictactoe", "--bots", str(folder), "--reference", "none",
         "--movetime", str(int(200 * UNIT)), "--games", "2", "--db", str(tmp_path / "t.db"),
         "--quiet"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0, out + err
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        loser = record["players"][1 - record["winner"]] if record["winner"] is not None else None
        assert loser == "diego", record
        assert "diego" not in str(record["winner"])
    reasons_seen = " ".join(str(record["reason"]) for record in records)
    assert "gave no move of its own" in reasons_seen, reasons_seen

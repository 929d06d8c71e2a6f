"""``arena tournament --bots DIR``: every bot in a folder an entrant, run by the local server.

Each file in the folder (not hidden, not a text file) is one entrant named
after it (``ana.py`` plays as ``ana``), started as a ``cmd:`` bot
(docs/bots.md): a ``.py`` file with Python (``python -P -m clients.bot`` for
one written with :mod:`clients.bot`, which holds a function, not a loop),
a ``.js`` file with node, any other executable file as it is. Reference
engines (our own search at a few depths) join them so that a class has a
yardstick.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Final

from clients.tournament.config import ConfigError, EngineSpec, parse_engine, program_algorithm
from clients.tournament.records import GameRecord, replay
from engine.errors import GameError

#: Files in a bots folder that are not bots.
NOT_BOTS: Final = frozenset(
    {".md", ".txt", ".log", ".json", ".jsonl", ".csv", ".pyc", ".db", ".html", ".pgn", ".sgf"}
)
#: The depths of the reference engines a ``--bots`` tournament adds by default:
#: a shallow one any working bot should beat, and one that takes some beating.
DEFAULT_REFERENCE_DEPTHS: Final = (2, 4)
#: How much of why a bot could not start the summary quotes (a Python
#: traceback's last lines fit; a long one is in the bot's log).
SUMMARY_WHY_CHARS: Final = 300
#: What marks a Python file written with clients.bot (a function, no loop of its own).
_BOT_LIBRARY_MARKS: Final = ("from clients.bot import", "import clients.bot")
#: A function bot that does not import clients.bot (docs/bots.md's shortest form).
_FUNCTION_BOT = re.compile(r"^def choose\(", re.MULTILINE)
#: What a bot with a loop of its own does: read its requests.
_READS_REQUESTS: Final = ("sys.stdin", "input(", "fileinput")


def bot_command(path: Path) -> str | None:
    """The command line that runs the bot in ``path``; ``None`` if the file is no bot."""
    if path.name.startswith((".", "_")) or not path.is_file() or path.suffix in NOT_BOTS:
        return None
    if path.suffix == ".py":
        text = path.read_text(errors="replace")
        if any(mark in text for mark in _BOT_LIBRARY_MARKS) or _FUNCTION_BOT.search(text):
            return shlex.join([sys.executable, "-P", "-m", "clients.bot", str(path)])
        if any(mark in text for mark in _READS_REQUESTS):
            # Its folder searched last (clients/run_script.py): a classmate's
            # random.py beside it must not stand in for the standard module.
            return shlex.join([sys.executable, "-P", "-m", "clients.run_script", str(path)])
        # Neither a choose function nor a loop reading requests: a module
        # beside the bots (helpers a bot imports), not an entrant. Run as one
        # it ended at once and stopped the tournament (a review, 2026-12-07).
        return None
    if path.suffix == ".js":
        node = shutil.which("node")
        if node is None:
            raise ConfigError(f"{path.name} needs node, which is not installed")
        return shlex.join([node, str(path)])
    if os.access(path, os.X_OK):
        return shlex.join([str(path)])
    return None


def skipped_files(folder: str) -> list[tuple[str, str]]:
    """Files of ``folder`` that are not entrants, each with why: a Python module with no bot
    in it (a helper the bots import), a file neither ``.py`` nor ``.js`` that is not
    executable (a shell script without ``chmod +x`` left its author out of the tournament
    without a word, a review of 2026-12-07)."""
    root = Path(folder)
    if not root.is_dir():
        return []
    skipped: list[tuple[str, str]] = []
    for path in sorted(root.iterdir()):
        if path.name.startswith((".", "_")) or path.suffix in NOT_BOTS:
            continue
        if path.is_dir():
            if path.resolve() == bot_log_path("x").parent.resolve():
                continue  # the tournament's own logs, run from inside the folder
            # A student's bot in a folder of its own was left out without a word.
            skipped.append((path.name, "a folder: a bot is one file at the top of --bots"))
            continue
        if not path.is_file():
            continue
        if path.suffix == ".py" and bot_command(path.resolve()) is None:
            why = "no bot in it (no choose function, no loop reading requests): a helper module"
            if path.stem in sys.stdlib_module_names:
                # The bots' folder is searched after the standard library.
                why += (
                    f", which the bots cannot import: it is named like Python's standard"
                    f" module {path.stem!r} (rename it, for example my_{path.name})"
                )
            skipped.append((path.name, why))
        elif path.suffix not in (".py", ".js") and not os.access(path, os.X_OK):
            # Only a script is told to chmod +x: README, Makefile or a
            # weights file were too (a review, 2026-12-07).
            if _is_script(path):
                why = f"not executable (chmod +x {shlex.quote(path.name)} to enter it)"
            else:
                why = "not a bot (a bot is a .py or .js file, or an executable program)"
            skipped.append((path.name, why))
    return skipped


def _is_script(path: Path) -> bool:
    """Whether ``path`` starts with ``#!``: a program once it may be executed."""
    try:
        with path.open("rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return False


def folder_engines(folder: str) -> list[EngineSpec]:
    """One engine per bot in ``folder``, named after its file, in name order."""
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError(f"--bots {folder}: no such folder")
    engines = []
    files: dict[str, str] = {}
    programs: dict[str, str] = {}  # the names the local server offers them under
    for path in sorted(root.iterdir()):
        command = bot_command(path.resolve())
        if command is None:
            continue
        if "," in command:
            raise ConfigError(f"{path.name}: a bot's path may hold no comma")
        # Named after its file: ana.py and ana.js were refused with advice
        # (give each a name=) that --bots has no way to follow (a review);
        # so were "Ana Silva.py" and "Ana_Silva.py", whose names the server
        # offers alike (a second review of 2026-12-07).
        algorithm = program_algorithm(path.stem)
        for seen, key, what in ((files, path.stem, "enter as"), (programs, algorithm, "run as")):
            if key in seen:
                raise ConfigError(
                    f"--bots {folder}: {seen[key]} and {path.name} would both {what} "
                    f"{key!r}: rename one of them"
                )
        files[path.stem] = programs[algorithm] = path.name
        engines.append(parse_engine(f"name={path.stem},cmd={command}"))
    if not engines:
        raise ConfigError(f"--bots {folder}: no bot in it (.py, .js or an executable file)")
    return engines


def reference_engines(text: str) -> list[EngineSpec]:
    """The reference engines ``--reference 2,4`` asks for (``none``: none)."""
    if text.strip() == "none":
        return []
    engines = []
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        if not part.isdigit() or int(part) < 1:
            raise ConfigError(f"--reference: {part!r} is not a depth (1, 2, ...)")
        engines.append(parse_engine(f"name=reference d{part},url=local,depth={part}"))
    return engines


#: Lines of each bot's log quoted in the summary after a tournament.
SUMMARY_LOG_LINES: Final = 3
#: The most of one such line shown (its log has it whole): a request's
#: note with its hint ran past 200 and was cut mid-word ("starting it aga").
SUMMARY_NOTE_CHARS: Final = 400
#: The marks of the server's own notes in a bot's log (docs/bots.md, "The log").
_NOTE_MARK: Final = "[arena "
_FAILURE_WORDS: Final = ("refused", "no answer", "ended:", "cannot start", "answered engine_error")


def bot_log_path(name: str) -> Path:
    """Where the local server writes the log of the bot whose algorithm is ``name``.

    The server's rule (docs/bots.md, "The log"): ``$ARENA_BOT_LOGS/NAME.log``,
    else ``bot-logs/NAME.log`` in the directory it runs in, which is ours.
    """
    directory = os.environ.get("ARENA_BOT_LOGS") or "bot-logs"
    safe = "".join(char if char.isalnum() or char in "-_." else "_" for char in name)
    return Path(directory) / f"{safe or 'bot'}.log"


def bot_file(engine: EngineSpec) -> Path | None:
    """The program file of a bot's command (the last word of its command that
    is no option, after the program that runs it)."""
    if engine.command is None:
        return None
    try:
        words = shlex.split(engine.command)
    except ValueError:
        return None
    arguments = [word for word in words[1:] if not word.startswith("-")] or words[:1]
    return Path(arguments[-1]) if arguments else None


#: What a bot's digest says of a program file that is not there.
MISSING: Final = "missing"


def bot_digests(engines: list[EngineSpec]) -> dict[str, str]:
    """Each bot's program file, ``NAME: "FILE sha256"`` (``"FILE missing"``).

    The file is the last word of its command that is no option, after the
    program that runs it (``python3 -P ana.py``: ``ana.py``; a command of
    one word: that word). A missing file was passed over for the
    interpreter before it, which a resume then named as the bot's changed
    file (a review of 2026-12-07).
    """
    digests = {}
    for engine in engines:
        path = bot_file(engine) if engine.is_bot else None
        if path is None:
            continue
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            digest = MISSING
        digests[engine.name] = f"{path.name} {digest}"
    return digests


def commands_now(engines: list[EngineSpec]) -> tuple[list[EngineSpec], dict[str, str]]:
    """The bots of a resumed tournament as their files are now, and those that cannot run.

    A resumed tournament plays each bot's file as it is now (docs/bots.md),
    so the command that runs it is found again: a loop bot rewritten as a
    ``def choose`` bot was run with its old command and ended at once (a
    review of 2026-12-07). A bot whose file is gone, or is no bot any more
    (an executable script no longer executable), is returned by name with
    why; the tournament's own ``ConfigError`` (``node`` missing) likewise.
    """
    now: list[EngineSpec] = []
    gone: dict[str, str] = {}
    for engine in engines:
        path = bot_file(engine) if engine.is_bot else None
        if path is None:
            now.append(engine)
            continue
        command: str | None = None
        if not path.is_file():
            why = f"{path.name} is missing"
        else:
            why = f"{path.name} is no bot now (not a .py or .js bot, nor an executable file)"
            try:
                command = bot_command(path)
            except ConfigError as error:  # node missing
                why = str(error)
        if command is None:
            gone[engine.name] = why
            now.append(engine)
        else:
            now.append(replace(engine, command=command))
    return now, gone


def changed_bots(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """Lines naming each bot whose file changed since ``before``.

    A resumed tournament played a student's new file without a word (a
    review, 2026-12-07): its later games are another program's.
    """
    lines = []
    for name in sorted(now):
        if name not in before or before[name] == now[name]:
            continue
        file, _, digest = now[name].partition(" ")
        if digest == MISSING:
            lines.append(f"{name}: {file} is missing")
        else:
            lines.append(
                f"{name}: {file} changed since its last games; the games from now on play the"
                " new file"
            )
    return lines


def log_sizes(engines: list[EngineSpec]) -> dict[str, int]:
    """Each bot's log size now, by bot name: the summary quotes only what this run adds."""
    sizes = {}
    for engine in engines:
        if engine.is_bot:
            try:
                sizes[engine.name] = bot_log_path(engine.algorithm or engine.name).stat().st_size
            except OSError:
                sizes[engine.name] = 0
    return sizes


def _unnamed(why: str, name: str) -> str:
    """``why`` without the bot's name in front (the server's "ana ended as soon as ...")."""
    return why.removeprefix(f"{name} ")


def bot_summary(
    engines: list[EngineSpec],
    jsonl_path: Path | None,
    since: Mapping[str, int] | None = None,
    left_out: Mapping[str, str] | None = None,
) -> str:
    """For each ``cmd`` bot: moves answered ``engine_error`` and why, from its log.

    Then the bots left out because they could not start, with why. Empty
    when the tournament has no bots. Read after the games: a summary a
    teacher can show, pointing each student at their log.
    """
    bots = [engine for engine in engines if engine.is_bot]
    entrants = {engine.name for engine in engines}
    # A bot still in the tournament could not start at a resume (it had
    # played before): "left out" was wrong for it (a review of 2026-12-07).
    gone = [
        f"{name}: "
        + (
            "could not start when the tournament was resumed, its games from then on lost"
            " unplayed: "
            if name in entrants
            else "left out, it could not start: "
        )
        + _unnamed(why, name)[:SUMMARY_WHY_CHARS]
        for name, why in sorted((left_out or {}).items())
    ]
    if not bots:
        return "\n".join(gone)
    failed = dict.fromkeys((engine.name for engine in bots), 0)
    try:
        lines = [] if jsonl_path is None else jsonl_path.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            record = GameRecord.from_json(json.loads(line))
            # Whose move each was, from the game itself: not every other
            # move (backgammon's rolls and opening roll, a Black-to-move
            # opening: the ops review of 2026-11-29 found counts for the
            # wrong bot).
            for game, state, move in replay(record):
                if move.roll or move.book or move.reason in (None, "engine"):
                    continue
                # A bot's own answers have reason "engine"; any other move
                # of a bot's turn was played for it (engine_error, or the
                # server's own answer at the deadline: time, overloaded).
                player = record.players[game.to_move(state)]
                if player in failed:
                    failed[player] += 1
        except (ValueError, KeyError, TypeError, IndexError, GameError):
            continue
    out = [
        "Bots (moves a bot failed to answer were played for it: reason engine_error,"
        " or time when the server answered at the deadline)"
    ]
    for engine in bots:
        path = bot_log_path(engine.algorithm or engine.name)
        count = failed[engine.name]
        moves = "move" if count == 1 else "moves"
        out.append(f"{engine.name}: {count} {moves} played for it; log {path}")
        # This run's part of the log first: a log keeps every run, and a
        # fixed bot's summary quoted its earlier run's failures (a review,
        # 2026-12-07). The count covers every run of the tournament, so a
        # bot with failures and none of them in this run is quoted from the
        # runs before, said so (a resumed class showed "57 moves played for
        # it" and no reason: a second review).
        start = (since or {}).get(engine.name, 0)
        notes = _failure_notes(path, start)
        if not notes and count and start:
            notes = _failure_notes(path, 0)
            if notes:
                out.append("    (from its games before this run)")
        out += [f"    {_cut(note, SUMMARY_NOTE_CHARS)}" for note in notes[-SUMMARY_LOG_LINES:]]
    return "\n".join(out + gone)


def _cut(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters, cut at a space with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + " …"


def _failure_notes(path: Path, start: int) -> list[str]:
    """The driver's notes of failures in the log at ``path``, from byte ``start`` on."""
    try:
        with path.open("rb") as log:
            log.seek(start)
            text = log.read().decode(errors="replace")
    except OSError:
        return []
    return [
        line.strip()
        for line in text.splitlines()
        if line.startswith(_NOTE_MARK) and any(word in line for word in _FAILURE_WORDS)
    ]

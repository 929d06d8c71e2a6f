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

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Final

from clients.tournament.config import ConfigError, EngineSpec, parse_engine

#: Files in a bots folder that are not bots.
NOT_BOTS: Final = frozenset({".md", ".txt", ".log", ".json", ".csv", ".pyc", ".db", ".html"})
#: The depths of the reference engines a ``--bots`` tournament adds by default:
#: a shallow one any working bot should beat, and one that takes some beating.
DEFAULT_REFERENCE_DEPTHS: Final = (2, 4)
#: What marks a Python file written with clients.bot (a function, no loop of its own).
_BOT_LIBRARY_MARKS: Final = ("from clients.bot import", "import clients.bot")


def bot_command(path: Path) -> str | None:
    """The command line that runs the bot in ``path``; ``None`` if the file is no bot."""
    if path.name.startswith((".", "_")) or not path.is_file() or path.suffix in NOT_BOTS:
        return None
    if path.suffix == ".py":
        text = path.read_text(errors="replace")
        if any(mark in text for mark in _BOT_LIBRARY_MARKS):
            return shlex.join([sys.executable, "-P", "-m", "clients.bot", str(path)])
        return shlex.join([sys.executable, str(path)])
    if path.suffix == ".js":
        node = shutil.which("node")
        if node is None:
            raise ConfigError(f"{path.name} needs node, which is not installed")
        return shlex.join([node, str(path)])
    if os.access(path, os.X_OK):
        return shlex.join([str(path)])
    return None


def folder_engines(folder: str) -> list[EngineSpec]:
    """One engine per bot in ``folder``, named after its file, in name order."""
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError(f"--bots {folder}: no such folder")
    engines = []
    for path in sorted(root.iterdir()):
        command = bot_command(path.resolve())
        if command is None:
            continue
        if "," in command:
            raise ConfigError(f"{path.name}: a bot's path may hold no comma")
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

"""Finding the outside programs the benchmarks play against."""

from __future__ import annotations

import shutil

#: Where Debian installs game programs (gnugo, gnubg, stockfish), which root's PATH leaves out.
GAMES_DIR = "/usr/games"


def find_program(name: str) -> str | None:
    """The path of ``name`` on PATH or in /usr/games, or None when it is not installed."""
    return shutil.which(name) or shutil.which(name, path=GAMES_DIR)

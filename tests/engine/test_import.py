"""Importing the engine reads no file: data files are read where they are first used.

The guide's rule ("no I/O at import") matters to the server, whose processes
import the engine before they know which game a session wants: a chess
session must not read the backgammon network and bear-off tables.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_engine_module_reads_a_data_file_at_import() -> None:
    # A fresh interpreter (this one has imported everything already): every
    # data file under engine/ is refused while all engine modules are imported,
    # then a backgammon game is made, which must read its two files.
    script = textwrap.dedent(
        """
        import builtins, importlib, io, pkgutil, sys
        from pathlib import Path
        import numpy as np

        import engine
        package = Path(engine.__file__).resolve().parent
        data = {".json", ".npz"}
        read = []

        def guarded(original):
            def wrapper(file, *args, **kwargs):
                path = Path(str(file)).resolve() if isinstance(file, (str, Path)) else None
                if path is not None and path.suffix in data and package in path.parents:
                    read.append(path.name)
                return original(file, *args, **kwargs)
            return wrapper

        builtins.open = guarded(builtins.open)
        io.open = builtins.open
        np.load = guarded(np.load)
        for module in pkgutil.walk_packages(engine.__path__, "engine."):
            importlib.import_module(module.name)
        print("imports", sorted(set(read)))
        from engine.catalog import create_game
        create_game("backgammon")
        create_game("backgammon")
        print("game", sorted(set(read)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "imports []"
    assert lines[1] == "game ['backgammon_bearoff.npz', 'backgammon_td.json']"

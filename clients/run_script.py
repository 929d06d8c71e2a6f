"""Run a Python bot script as ``python FILE.py`` would, its folder searched last.

``python FILE.py`` puts the script's folder first on ``sys.path``, so in a
class's ``--bots`` folder a student's ``random.py`` was imported by every
other bot's ``import random`` (a review, 2026-12-07: a bot played its
neighbour's moves, and a ``json.py`` broke every bot of the folder). Run
as ``python -P -m clients.run_script FILE.py``, the standard library and
installed packages come first and the folder last: a bot still imports the
helper modules beside it, and no file there stands in for a standard module.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print("usage: python -P -m clients.run_script FILE.py [ARGS...]", file=sys.stderr)
        return 2
    path = Path(argv[0]).resolve()
    sys.argv = [str(path), *argv[1:]]
    sys.path.append(str(path.parent))
    runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

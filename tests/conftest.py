"""Settings for the whole suite.

The suite's time unit (``ARENA_TEST_UNIT``), which every timing bound scales
from, and the waits on conditions that replace sleeps are in tests/timing.py.
"""

from __future__ import annotations

import os

#: Where Debian installs game programs such as GNU Go (``gnugo``), which the
#: Go tests use as an oracle and an opponent. Root's PATH leaves it out, so
#: it is added here: ``shutil.which("gnugo")`` then finds it for every user.
DEBIAN_GAMES_DIR = "/usr/games"

if os.path.isdir(DEBIAN_GAMES_DIR) and DEBIAN_GAMES_DIR not in os.environ.get("PATH", "").split(
    os.pathsep
):
    os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + DEBIAN_GAMES_DIR


def pytest_report_header() -> str:
    """Which time unit this run's timing bounds scale from, and why."""
    from tests.timing import UNIT, UNIT_VARIABLE

    how = "set" if UNIT_VARIABLE in os.environ else "1 x the load per core, at least 1"
    return f"time unit: {UNIT:.2f} s ({UNIT_VARIABLE}: {how})"

"""Settings for the whole suite.

The suite's time unit (``ARENA_TEST_UNIT``), which every timing bound scales
from, and the waits on conditions that replace sleeps are in tests/timing.py.
"""

from __future__ import annotations

import os

import pytest

#: Where Debian installs game programs such as GNU Go (``gnugo``), which the
#: Go tests use as an oracle and an opponent. Root's PATH leaves it out, so
#: it is added here: ``shutil.which("gnugo")`` then finds it for every user.
DEBIAN_GAMES_DIR = "/usr/games"

if os.path.isdir(DEBIAN_GAMES_DIR) and DEBIAN_GAMES_DIR not in os.environ.get("PATH", "").split(
    os.pathsep
):
    os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + DEBIAN_GAMES_DIR


#: pytest's config attribute that says how the run's time unit was chosen.
_UNIT_HOW = "arena_unit_how"


def pytest_configure(config: pytest.Config) -> None:
    """Decide the run's time unit once, in the first process, for every test process.

    pytest-xdist's test processes start after this and inherit the
    environment, so all of them time with the same unit, and the header
    below names it.
    """
    from tests.timing import UNIT_VARIABLE, load_factor

    if "PYTEST_XDIST_WORKER" in os.environ:  # a test process: the first one decided
        return
    if UNIT_VARIABLE in os.environ:
        setattr(config, _UNIT_HOW, "set")
        return
    asked = config.getoption("numprocesses", default=None)
    processes = asked if isinstance(asked, int) and asked > 0 else 1
    os.environ[UNIT_VARIABLE] = repr(load_factor(processes))
    setattr(
        config,
        _UNIT_HOW,
        f"the load per core at the start with {processes} test process(es), at least 1",
    )


def pytest_report_header(config: pytest.Config) -> str:
    """Which time unit this run's timing bounds scale from, and why."""
    from tests.timing import UNIT_VARIABLE

    # Read from the environment: tests.timing.UNIT of this process was
    # fixed when pytest_configure imported the module, before the decision.
    unit = float(os.environ[UNIT_VARIABLE])
    how = getattr(config, _UNIT_HOW, "set")
    return f"time unit: {unit:.2f} s ({UNIT_VARIABLE}: {how})"

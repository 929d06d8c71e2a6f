"""Where the reference data lives: the facts kept in tests/, and the optional full sets.

Two places hold facts that nobody on this project produced:

* :data:`FACTS` (``tests/facts/``) keeps, inside the repository, the few
  hundred positions with their published values that the correctness tests
  need on a clean clone. Each file names its source in its header lines
  (``#`` comments).
* :data:`REFDATA` (``../shared/refdata`` beside the repository, or the
  directory ``$ARENA_REFDATA`` names) holds the full public sets. Tests over
  them are an optional, longer check: they skip with the reason when the
  directory is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The facts kept with the tests (a subset of the sets below, with sources named).
FACTS = Path(__file__).resolve().parent / "facts"
#: The full reference sets; ``ARENA_REFDATA`` points elsewhere (e.g. from a worktree).
REFDATA = Path(os.environ.get("ARENA_REFDATA") or REPO_ROOT.parent / "shared" / "refdata")


def fact_lines(name: str) -> list[str]:
    """The data lines of a file in ``tests/facts/``: no blank lines, no ``#`` comments."""
    lines = []
    for line in (FACTS / name).read_text().splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            lines.append(text)
    return lines


def refdata_path(*parts: str) -> Path:
    """Path of a reference-data file, whether or not it exists (for skipif marks)."""
    return REFDATA.joinpath(*parts)


def missing_reason(path: Path) -> str:
    """Why a test over a full reference set skips when ``path`` is absent."""
    return (
        f"optional full reference set {path} not found (it lives in ../shared/refdata "
        "beside the repo, or set ARENA_REFDATA); the subset in tests/facts still ran"
    )


def refdata_file(*parts: str) -> Path:
    """Path of a reference-data file, or skip the test with the reason it is missing."""
    path = refdata_path(*parts)
    if not path.exists():
        pytest.skip(missing_reason(path))
    return path

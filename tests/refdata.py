"""Where the reference data lives, for tests that check against it."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REFDATA = REPO_ROOT.parent / "shared" / "refdata"


def refdata_file(*parts: str) -> Path:
    """Path of a reference-data file, or skip the test with the reason it is missing."""
    path = REFDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"reference data {path} not found (it lives in ../shared/refdata beside the repo)"
        )
    return path

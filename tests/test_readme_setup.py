"""The README's set-up section: exactly two commands, and honest about what they do."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def setup_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Set-up", 1)[1].split("\n## ", 1)[0]


def test_set_up_is_exactly_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", setup_section(), re.S)
    assert len(blocks) == 2
    assert all(len(block.strip().splitlines()) == 1 for block in blocks)
    assert "pip install ." in blocks[0] and "pip install -e '.[test]'" in blocks[1]


def test_set_up_says_how_long_it_takes_and_that_pip_is_silent() -> None:
    section = " ".join(setup_section().split())
    assert "The second command alone is enough" in section
    assert "3-4 minutes on a loaded 2-core machine" in section
    assert "pip prints nothing while it compiles" in section
    assert "about a minute" not in section

"""The chess bench's time-to-depth measure: every position searched, the totals added up."""

from __future__ import annotations

import pytest

from bench.chess_bench import DEPTH_POSITIONS, main


def test_time_to_depth_searches_every_position(capsys: pytest.CaptureFixture[str]) -> None:
    main(["depth", "--search-depth", "2", "--rounds", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("time to depth 2 ")
    rows = lines[1:-1]
    assert len(rows) == len(DEPTH_POSITIONS)
    counted = sum(int(row.split()[1].replace(",", "")) for row in rows)
    assert counted > 0 and lines[-1].startswith(f"  total {counted:,d} nodes in ")

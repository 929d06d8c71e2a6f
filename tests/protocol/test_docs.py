"""protocol.md's tables and the records agree, field for field, both ways.

Every field of every record (:mod:`protocol.records`, :class:`ServerLimits`,
the trace's :class:`Trace` and :class:`TraceNode`, the think's engine
:class:`Limits`) is named in the first column of its table in protocol.md,
and each such table names no field its record lacks. ``id`` is documented
once, in section 3, for every message.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from engine.search.limits import Clock, Limits
from engine.search.trace import Trace, TraceNode
from protocol.limits import ServerLimits
from protocol.records import (
    BestMove,
    ErrorMessage,
    GameResult,
    GameState,
    Hello,
    Info,
    Move,
    NewGame,
    Roll,
    Stop,
    Think,
    TraceReply,
    TraceRequest,
    Welcome,
)

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "protocol.md"

#: Each record, the heading of its section and which of that section's tables is its own
#: (counting from 0).
TABLES: list[tuple[type, str, int]] = [
    (Hello, "### hello → welcome", 0),
    (Welcome, "### hello → welcome", 1),
    (NewGame, "### new_game → state", 0),
    (GameState, "### state (reply to new_game, move and roll)", 0),
    (Move, "### move → state", 0),
    (Think, "### think → info* → bestmove", 0),
    (Limits, "### think → info* → bestmove", 2),
    (Info, "### think → info* → bestmove", 3),
    (BestMove, "### think → info* → bestmove", 4),
    (TraceRequest, "### trace → trace", 0),
    (Trace, "### trace → trace", 1),
    (TraceNode, "### trace → trace", 2),
    (ErrorMessage, "### error", 0),
    (ServerLimits, "## 7. Limits", 0),
]
#: Records whose only field is ``id``: their sections have no table.
WITHOUT_FIELDS = (Roll, Stop)
#: Records that hold another record in place of their fields on the wire.
WRAPPERS = {TraceReply: Trace}


def _sections() -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in PROTOCOL_MD.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            current = sections.setdefault(line.strip(), [])
        else:
            current.append(line)
    return sections


def _tables(lines: list[str]) -> list[list[str]]:
    """Each table's rows below its header, as the text of their first cells."""
    tables: list[list[str]] = []
    rows: list[str] | None = None
    for line in lines:
        if not line.startswith("|"):
            rows = None
            continue
        if rows is None:
            rows = []
            tables.append(rows)
            continue  # the header
        first = line.split("|")[1].strip()
        if not set(first) <= {"-", ":"}:
            rows.append(first)
    return tables


def _names(rows: list[str]) -> set[str]:
    return {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}


def _fields(record: type) -> set[str]:
    names = {item.name for item in dataclasses.fields(record)}
    return names - {"id"} if record is not TraceNode else names


@pytest.mark.parametrize(("record", "heading", "index"), TABLES, ids=lambda value: str(value))
def test_the_table_names_exactly_the_fields(record: type, heading: str, index: int) -> None:
    sections = _sections()
    assert heading in sections, f"protocol.md has no section {heading!r}"
    tables = _tables(sections[heading])
    assert index < len(tables), f"{heading} has no table {index}"
    documented = _names(tables[index])
    fields = _fields(record)
    assert fields - documented == set(), f"{record.__name__}: fields missing from protocol.md"
    assert documented - fields == set(), f"{record.__name__}: protocol.md names unknown fields"


def test_every_record_is_checked() -> None:
    checked = {record for record, _, _ in TABLES} | set(WITHOUT_FIELDS) | set(WRAPPERS)
    replies_and_requests = {
        Hello,
        Welcome,
        NewGame,
        GameState,
        Move,
        Roll,
        Think,
        Info,
        BestMove,
        TraceRequest,
        TraceReply,
        Stop,
        ErrorMessage,
    }
    assert replies_and_requests <= checked
    for record in WITHOUT_FIELDS:
        assert _fields(record) == set()
    for wrapper, inner in WRAPPERS.items():
        assert _fields(wrapper) == {"trace"} and inner is Trace


def test_nested_records_are_described_in_their_rows() -> None:
    """A state's ``result`` and a think's ``clock`` spell out their own fields."""
    sections = _sections()
    state_rows = _tables(sections["### state (reply to new_game, move and roll)"])[0]
    result_row = next(
        line
        for line in sections["### state (reply to new_game, move and roll)"]
        if line.startswith("| `result`")
    )
    assert "`result`" in state_rows
    for name in _fields(GameResult):
        assert f'"{name}"' in result_row, name
    clock_row = next(
        line for line in sections["### think → info* → bestmove"] if line.startswith("| `clock`")
    )
    for name in _fields(Clock):
        assert f"`{name}`" in clock_row, name

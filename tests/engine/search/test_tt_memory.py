"""The transposition table stays within its memory bound however long a search runs.

A table is sized from a byte budget (``slots_for_bytes``, the server's
worker budget in ``server/runtime/memory.py``); a full table replaces
entries (always-replace) and never grows.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable

from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.search.tt import ENTRY_BYTES, EXACT, MISS, TranspositionTable, slots_for_bytes

#: The test's budget: 1,310 slots, far fewer than the search stores.
TABLE_BYTES = 256 * 1024
SEARCH_NODES = 12_000


def _deep_size(value: object, seen: set[int]) -> int:
    """Bytes of ``value`` and what it holds (tuples), each object counted once."""
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, tuple):
        size += sum(_deep_size(item, seen) for item in value)
    return size


def table_bytes(table: TranspositionTable) -> int:
    """What the table holds: its list and every entry with the objects in it."""
    seen: set[int] = {id(None), id(True), id(False)}
    return sys.getsizeof(table.slots) + sum(
        _deep_size(entry, seen) for entry in table.slots if entry is not None
    )


def test_slots_follow_the_budget() -> None:
    assert slots_for_bytes(TABLE_BYTES) == TABLE_BYTES // ENTRY_BYTES
    assert slots_for_bytes(1) == 1
    table = TranspositionTable(slots_for_bytes(TABLE_BYTES))
    assert table.max_bytes() <= TABLE_BYTES


def test_a_full_table_replaces_and_never_grows() -> None:
    table = TranspositionTable(16)
    for key in range(1000):
        table.store(key, key % 7, EXACT, key, None, False)
    assert len(table.slots) == 16 and all(entry is not None for entry in table.slots)
    # Always-replace: the last key stored in a slot is the one kept, whatever its depth.
    assert table.probe(999) != MISS and table.probe(999 - 16) == MISS
    deep: Hashable = "deep"
    table.store(5, 30, EXACT, 1, deep, False)
    table.store(5 + 16, 0, EXACT, 2, None, False)
    assert table.probe(5) == MISS and table.probe(21) != MISS


def test_a_long_search_keeps_its_table_within_the_bound() -> None:
    game = create_game("checkers")
    searcher = Searcher(game, slots_for_bytes(TABLE_BYTES))
    result = searcher.think(SearchRequest(game.initial_state(), Limits(nodes=SEARCH_NODES)))
    table = searcher.tt
    assert result.info.nodes >= SEARCH_NODES > 5 * table.size, "the search outgrew the table"
    assert table.fill_ratio(table.size) >= 0.8, "the table filled and replaced"
    assert len(table.slots) == table.size
    held = table_bytes(table)
    # Measured: about 165 bytes a slot here; the bound is ENTRY_BYTES a slot.
    assert held <= table.max_bytes() <= TABLE_BYTES, (held, table.max_bytes())

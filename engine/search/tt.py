"""The transposition table: a fixed-size array of always-replace slots.

A Python list indexed by ``key % size`` is the cheapest table CPython
offers: one modulo and one index, no hashing of the key and no resizing. It
never grows past ``size`` entries, so its memory is bounded however long a
search runs: at most ``size * ENTRY_BYTES`` (:meth:`TranspositionTable.max_bytes`).
A server sizes it from its workers' memory budget with
:func:`slots_for_bytes` (``server/runtime/memory.py``, docs/load.md).

Each slot holds a tuple ``(key, depth, flag, value, move, proven)``; the
full key is kept to reject collisions, so a collision only wastes a slot.

Replacement: always replace. When a slot is taken, the newest result wins
whatever its depth. A depth-preferred slot would keep a deep result longer,
but the table carries over from one think to the next, and without an age
in every entry (a larger tuple) the deep results of positions long gone
would hold their slots for good; with iterative deepening, the results
that matter are the ones of the current iteration, which always-replace
keeps. Searches read the table with :meth:`TranspositionTable.probe` and
write it with :meth:`TranspositionTable.store`.

:meth:`~TranspositionTable.probe` answers a miss with :data:`MISS`, an
entry that tells nothing, rather than ``None``: compiled by mypyc, a
six-tuple that cannot be ``None`` travels unboxed, its fields in place,
where an optional one was rebuilt as a new Python tuple at every hit
(docs/benchmarks.md). The slots stay tuples: the garbage collector stops
tracking a tuple of plain values, and a table of objects it keeps tracking
made its full collections cost more than the probes saved.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, final

from engine.search.score import WIN_THRESHOLD

#: Entry flags: what the stored value says about the true value.
EXACT: Final = 0
LOWER: Final = 1  # the true value is >= value (the search failed high)
UPPER: Final = 2  # the true value is <= value (the search failed low)

#: Bytes one filled slot costs at most: the list's pointer and the entry
#: (its tuple, its key and value, and a move only the table holds).
#: Measured with tracemalloc as the memory freed by clearing a table that a
#: 60,000-node search filled (pure-Python build, CPython 3.11, 8,192
#: slots): chess 154 bytes a slot, 9x9 Go 149, Connect Four 136, checkers
#: 179 (its moves are tuples of squares); rounded up. The compiled build
#: stores the same Python objects.
ENTRY_BYTES: Final = 200
#: Default number of slots: at most about 50 MiB when full (ENTRY_BYTES).
#: A server caps it by its workers' memory budget (:func:`slots_for_bytes`).
DEFAULT_TT_SLOTS: Final = 1 << 18

Entry = tuple[int, int, int, int, Hashable, bool]

#: What :meth:`TranspositionTable.probe` answers for a key the table does
#: not hold: searched to depth -1 (below every search's), with no move. A
#: hit has a depth of 0 or more.
MISS: Final[Entry] = (0, -1, EXACT, 0, None, False)


def slots_for_bytes(table_bytes: int) -> int:
    """The most slots a table may have to stay within ``table_bytes`` when full (at least 1)."""
    return max(1, table_bytes // ENTRY_BYTES)


@final  # direct calls from the searches once compiled (no vtable)
class TranspositionTable:
    """Fixed-size table of search results keyed by position key.

    Use :meth:`clear` between unrelated searches and :meth:`fill_ratio` for
    reporting.
    """

    __slots__ = ("size", "slots")

    def __init__(self, size: int = DEFAULT_TT_SLOTS) -> None:
        if size < 1:
            raise ValueError("a transposition table needs at least one slot")
        self.size = size
        self.slots: list[Entry | None] = [None] * size

    def max_bytes(self) -> int:
        """The most memory this table holds, every slot filled (:data:`ENTRY_BYTES` each)."""
        return self.size * ENTRY_BYTES

    def clear(self) -> None:
        # In place: the search holds a reference to this list.
        self.slots[:] = [None] * self.size

    def probe(self, key: int) -> Entry:
        """The entry stored for ``key``, or :data:`MISS` (never stored, or overwritten)."""
        entry = self.slots[key % self.size]
        if entry is not None and entry[0] == key:
            return entry
        return MISS

    def store(
        self,
        key: int,
        depth: int,
        flag: int,
        value: int,
        move: Hashable,
        proven: bool,
        ply: int = 0,
    ) -> None:
        """Keep a node's result, replacing whatever its slot held (always-replace).

        ``value`` is the node's own; a proven win or loss counted in plies
        from the root (:mod:`engine.search.score`) is stored relative to the
        node, ``ply`` plies below the root, so that a hit at another ply
        reads the right distance (the reader subtracts its own ply).
        """
        if value >= WIN_THRESHOLD:
            value += ply
        elif value <= -WIN_THRESHOLD:
            value -= ply
        self.slots[key % self.size] = (key, depth, flag, value, move, proven)

    def fill_ratio(self, sample: int = 1000) -> float:
        """Share of used slots, estimated from the first ``sample`` slots (like UCI hashfull)."""
        sample = min(sample, self.size)
        used = sum(1 for entry in self.slots[:sample] if entry is not None)
        return used / sample

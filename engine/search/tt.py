"""The transposition table: a fixed-size array of always-replace slots.

A Python list indexed by ``key % size`` is the cheapest table CPython
offers: one modulo and one index, no hashing of the key and no resizing. It
never grows past ``size`` entries, so a worker's memory stays bounded
however long it runs. Each slot holds a tuple
``(key, depth, flag, value, move, proven)``; the full key is kept to reject
collisions, so a collision only wastes a slot.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

#: Entry flags: what the stored value says about the true value.
EXACT: Final = 0
LOWER: Final = 1  # the true value is >= value (the search failed high)
UPPER: Final = 2  # the true value is <= value (the search failed low)

#: Default number of slots. About 120 bytes per filled slot in CPython, so
#: 2**18 slots cost about 30 MB per worker when full.
DEFAULT_TT_SLOTS: Final = 1 << 18

Entry = tuple[int, int, int, int, Hashable, bool]


class TranspositionTable:
    """Fixed-size table of search results keyed by position key.

    The search indexes :attr:`slots` directly for speed; use :meth:`clear`
    between unrelated searches and :meth:`fill_ratio` for reporting.
    """

    __slots__ = ("size", "slots")

    def __init__(self, size: int = DEFAULT_TT_SLOTS) -> None:
        if size < 1:
            raise ValueError("a transposition table needs at least one slot")
        self.size = size
        self.slots: list[Entry | None] = [None] * size

    def clear(self) -> None:
        # In place: the search holds a reference to this list.
        self.slots[:] = [None] * self.size

    def get(self, key: int) -> Entry | None:
        entry = self.slots[key % self.size]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def fill_ratio(self, sample: int = 1000) -> float:
        """Share of used slots, estimated from the first ``sample`` slots (like UCI hashfull)."""
        sample = min(sample, self.size)
        used = sum(1 for entry in self.slots[:sample] if entry is not None)
        return used / sample

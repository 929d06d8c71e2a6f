"""The transposition table: a fixed-size array of always-replace slots.

A Python list indexed by ``key % size`` is the cheapest table CPython
offers: one modulo and one index, no hashing of the key and no resizing. It
never grows past ``size`` entries, so a worker's memory stays bounded
however long it runs. Each slot holds an :class:`Entry`; the full key is
kept to reject collisions, so a collision only wastes a slot. Searches read
it with :meth:`TranspositionTable.probe` and write it with
:meth:`TranspositionTable.store`.

An entry is a small class rather than a tuple for the compiled build: mypyc
keeps a typed tuple unboxed, so every read of a tuple from the list checks
and converts its six items, and returning it from :meth:`~TranspositionTable.probe`
built a new tuple at every hit. A compiled class is read field by field
in place, after one type test, and a slot's entry is rewritten in place by
the next store there instead of replaced (docs/benchmarks.md has the
figures).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, final

from engine.search.score import WIN_THRESHOLD

#: Entry flags: what the stored value says about the true value.
EXACT: Final = 0
LOWER: Final = 1  # the true value is >= value (the search failed high)
UPPER: Final = 2  # the true value is <= value (the search failed low)

#: Default number of slots. About 120 bytes per filled slot in CPython, so
#: 2**18 slots cost about 30 MB per worker when full.
DEFAULT_TT_SLOTS: Final = 1 << 18


@final
class Entry:
    """What the table keeps of one searched node.

    ``key`` is the node's full key; ``depth`` the remaining depth it was
    searched to; ``flag`` what ``value`` says of the true value (EXACT,
    LOWER, UPPER); ``value`` the node's value, a proven win or loss counted
    from the node (:meth:`TranspositionTable.store`); ``move`` the best move
    found (``None`` where none was); ``proven`` whether no leaf below was
    scored heuristically.
    """

    __slots__ = ("depth", "flag", "key", "move", "proven", "value")

    def __init__(
        self, key: int, depth: int, flag: int, value: int, move: Hashable, proven: bool
    ) -> None:
        self.key = key
        self.depth = depth
        self.flag = flag
        self.value = value
        self.move = move
        self.proven = proven


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

    def clear(self) -> None:
        # In place: the search holds a reference to this list.
        self.slots[:] = [None] * self.size

    def probe(self, key: int) -> Entry | None:
        """The entry stored for ``key``, or ``None`` (never stored, or overwritten).

        The entry is the slot's own and :meth:`store` rewrites it: read what
        you need of it before the next store.
        """
        entry = self.slots[key % self.size]
        if entry is not None and entry.key == key:
            return entry
        return None

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
        """Keep a node's result, replacing whatever its slot held.

        ``value`` is the node's own; a proven win or loss counted in plies
        from the root (:mod:`engine.search.score`) is stored relative to the
        node, ``ply`` plies below the root, so that a hit at another ply
        reads the right distance (the reader subtracts its own ply).
        """
        if value >= WIN_THRESHOLD:
            value += ply
        elif value <= -WIN_THRESHOLD:
            value -= ply
        index = key % self.size
        entry = self.slots[index]
        if entry is None:
            self.slots[index] = Entry(key, depth, flag, value, move, proven)
            return
        # The slot's entry is rewritten in place: a full table allocates
        # nothing per store (see the module's note on probe).
        entry.key = key
        entry.depth = depth
        entry.flag = flag
        entry.value = value
        entry.move = move
        entry.proven = proven

    def fill_ratio(self, sample: int = 1000) -> float:
        """Share of used slots, estimated from the first ``sample`` slots (like UCI hashfull)."""
        sample = min(sample, self.size)
        used = sum(1 for entry in self.slots[:sample] if entry is not None)
        return used / sample

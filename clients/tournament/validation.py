"""Records are strict JSON, whatever reaches them (pure).

The client library validates every field an engine sends (a depth that is
not a whole number, ``NaN`` or ``Infinity`` in a score: the think fails
with a protocol violation, which the referee scores as a protocol-error
loss). :func:`strict_json` is the last line of defence for the records:
whatever comes in, what it returns can be written with ``allow_nan=False``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.codec import MAX_EXACT_INT


def strict_json(value: Any) -> Any:
    """``value`` made plain JSON: non-finite floats become ``None`` (null), recursively.

    Everything the referee records passed the client library's validation,
    so this changes nothing in a new record; it keeps an old record read back from
    a database (or any future mistake) from ever writing ``NaN`` or
    ``Infinity``, which are not JSON, or from failing to write at all
    (a value JSON has no type for is written as its ``repr``).
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str | int):
        return value
    if isinstance(value, Mapping):
        return {str(key): strict_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(item) for item in value]
    return repr(value)


def strict_loads_constant(name: str) -> Any:
    """A ``parse_constant`` for :func:`json.loads` that refuses ``NaN`` and ``Infinity``."""
    raise ValueError(f"{name} is not JSON")


def win_odds_scale(games: Sequence[Mapping[str, Any]], game: str) -> int | None:
    """The ``win_odds_scale`` a server's ``welcome.games`` gives ``game``, if a valid one.

    An engine's server need not send it (protocol.md section 11), and any
    server may send anything: only a whole number from 1 to 2^53 is kept
    (never a boolean, which Python counts as a number).
    """
    entry = next((entry for entry in games if entry.get("name") == game), None)
    return None if entry is None else checked_scale(entry.get("win_odds_scale"))


def checked_scale(scale: Any) -> int | None:
    """``scale`` if a valid ``win_odds_scale`` (a whole number from 1 to 2^53), else ``None``."""
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_EXACT_INT:
        return None
    return scale

"""What an engine sends is checked here before any of it reaches a record (pure).

The client library parses each ``bestmove`` into a :class:`~clients.client.BestMove`,
but a broken or hostile engine can still put anything in its fields: a
string or a float for a depth, ``NaN`` or ``Infinity`` (both encodings can
carry them), a boolean, a number too large for JSON readers to hold
exactly. :func:`bestmove_problem` says what is wrong, in words for the
game's ``reason``; the referee makes any problem a protocol-error loss.

:func:`strict_json` is the last line of defence for the records: whatever
comes in, what it returns can be written with ``allow_nan=False``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from engine.score import Score

#: Largest magnitude accepted for an engine's integers: JSON readers (and
#: JavaScript) hold integers exactly up to 2^53; the protocol's ids use the same bound.
MAX_INT = 2**53
#: The protocol's longest move string.
MAX_MOVE_CHARS = 128
#: The longest ``reason`` word kept from an engine.
MAX_REASON_CHARS = 64
#: Counters of a ``bestmove`` that must be whole numbers, not negative.
COUNTERS = ("depth", "seldepth", "nodes", "time_ms")


def show(value: object, limit: int = 40) -> str:
    """A short description of a bad value: its repr (cut) and its type."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} (a {type(value).__name__})"


def count_problem(value: object) -> str | None:
    """Why ``value`` is not a whole number in ``0..2^53``; ``None`` when it is."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"is {show(value)}, not a whole number"
    if value < 0:
        return f"is negative ({value})"
    if value > MAX_INT:
        return f"is too large ({value})"
    return None


def score_problem(score: object) -> str | None:
    """Why ``score`` is not a well-formed :class:`Score`; ``None`` when it is."""
    if not isinstance(score, Score):
        return f"score is {show(score)}, not a score"
    meanings = [name for name in ("value", "win_in", "loss_in")
                if getattr(score, name) is not None]
    if not isinstance(score.draw, bool):
        return f"score draw is {show(score.draw)}, not a boolean"
    if score.draw:
        meanings.append("draw")
    if len(meanings) != 1:
        return f"score has {len(meanings)} meanings ({', '.join(meanings) or 'none'}), not one"
    if score.value is not None:
        value = score.value
        if isinstance(value, bool) or not isinstance(value, int):
            return f"score value is {show(value)}, not a whole number"
        if abs(value) > MAX_INT:
            return f"score value is too large ({value})"
    for name in ("win_in", "loss_in"):
        plies = getattr(score, name)
        if plies is not None and (problem := count_problem(plies)) is not None:
            return f"score {name} {problem}"
    return None


def bestmove_problem(best: object) -> str | None:
    """What is malformed in a ``bestmove`` (after the move itself); ``None`` if nothing.

    The move's type and legality are the referee's own checks, so that
    their reasons stay precise; this covers every other field that can
    reach a record: the counters, ``queued_ms`` (when the client library
    reports it), the score, the principal variation and the reason.
    """
    for name in COUNTERS:
        problem = count_problem(getattr(best, name, None))
        if problem is not None:
            return f"{name} {problem}"
    queued = getattr(best, "queued_ms", None)
    if queued is not None and (problem := count_problem(queued)) is not None:
        return f"queued_ms {problem}"
    problem = score_problem(getattr(best, "score", None))
    if problem is not None:
        return problem
    pv = getattr(best, "pv", ())
    if not isinstance(pv, tuple | list) or not all(isinstance(move, str) for move in pv):
        return f"pv is {show(pv)}, not a list of moves"
    reason = getattr(best, "reason", "")
    if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS:
        return f"reason is {show(reason)}, not a short word"
    return None


def strict_json(value: Any) -> Any:
    """``value`` made plain JSON: non-finite floats become ``None`` (null), recursively.

    Everything the referee records passed :func:`bestmove_problem`, so this
    changes nothing in a new record; it keeps an old record read back from
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

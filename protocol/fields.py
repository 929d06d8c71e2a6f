"""Reading the fields of a message: the checks shared by the records.

Two families: the readers of requests raise the protocol error the server
answers with (``bad_message``, ``limit_exceeded``), naming the field; the
readers of what a server sends raise :class:`~protocol.errors.ProtocolViolation`,
naming the field, so that a client can say what was wrong.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypeGuard

from engine.search.score import Score
from protocol.codec import MAX_EXACT_INT, MAX_ID_CHARS, is_valid_id
from protocol.errors import BadMessage, LimitExceeded, ProtocolViolation, RequestId
from protocol.limits import MAX_SEED

# ----------------------------------------------------------------------
# Requests: errors the server answers with.


def read_request_id(message: Mapping[str, Any]) -> RequestId:
    """The request's ``id``; ``bad_message`` if present and not a valid one."""
    raw_id = message.get("id")
    if raw_id is not None and not is_valid_id(raw_id):
        raise BadMessage(
            f"'id' must be an integer within ±2**53 or a string of at most {MAX_ID_CHARS} "
            "characters"
        )
    request_id: RequestId = raw_id
    return request_id


def optional_int(raw: Mapping[str, Any], name: str, request_id: RequestId) -> int | None:
    value = raw.get(name)
    if value is None:
        return None
    # JSON clients may send 100.0 for 100; a fractional or infinite number is an error.
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadMessage(f"'{name}' must be an integer, got {value!r:.40}", request_id)
    return value


def optional_str(
    raw: Mapping[str, Any], name: str, max_chars: int, request_id: RequestId
) -> str | None:
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadMessage(f"'{name}' must be a string, got {value!r:.40}", request_id)
    if len(value) > max_chars:
        error = LimitExceeded if name == "position" else BadMessage
        raise error(f"'{name}' is at most {max_chars} characters", request_id)
    return value


def clamped(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer limit: below ``low`` is refused, above ``high`` is clamped."""
    value = optional_int(raw, name, request_id)
    if value is None:
        return None
    if value < low:
        raise LimitExceeded(f"'{name}' must be at least {low}, got {value}", request_id)
    return min(value, high)


def bounded(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer that must lie in ``low..high``: outside is ``limit_exceeded``, not clamped."""
    value = optional_int(raw, name, request_id)
    if value is not None and not low <= value <= high:
        raise LimitExceeded(f"'{name}' must be between {low} and {high}, got {value}", request_id)
    return value


def read_seed(raw: Mapping[str, Any], request_id: RequestId) -> int | None:
    seed = optional_int(raw, "seed", request_id)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise BadMessage("'seed' must be an integer from 0 to 2**53", request_id)
    return seed


# ----------------------------------------------------------------------
# What a server sends: violations a client reports.


def violation(text: str) -> NoReturn:
    raise ProtocolViolation(text)


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_str_list(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def whole(value: Any, name: str, minimum: int | None = 0) -> int:
    """``value`` if it is a whole number (not a bool) in range, else a protocol violation."""
    if not is_whole(value):
        violation(f"{name} is {show(value)} (a {type(value).__name__}), not a whole number")
    if minimum == 0 and value < 0:
        violation(f"{name} is negative ({value})")
    if minimum is not None and value < minimum:
        violation(f"{name} is {value}, below {minimum}")
    if abs(value) > MAX_EXACT_INT:
        violation(f"{name} is too large ({show(value)})")
    result: int = value
    return result


def optional_whole(value: Any, name: str) -> int | None:
    """``None`` for a field the server left out, else :func:`whole`."""
    return None if value is None else whole(value, name)


def text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        violation(f"{name} is {show(value)} (a {type(value).__name__}), not a string")
    return value


def strings(value: Any, name: str) -> tuple[str, ...]:
    if not is_str_list(value):
        violation(f"{name} is {show(value)}, not a list of strings")
    return tuple(value)


def number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        violation(f"{name} is {show(value)} (a {type(value).__name__}), not a number")
    if not math.isfinite(value) or not low <= value <= high:
        violation(f"{name} is {show(value)}, not within {low:g}..{high:g}")
    return float(value)


def flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        violation(f"{name} is {show(value)} (a {type(value).__name__}), not true or false")
    return value


def mapping(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        violation(f"{name} is {show(value)} (a {type(value).__name__}), not a map")
    return value


def required(message: Mapping[str, Any], key: str, kind: str) -> Any:
    if key not in message:
        violation(f"{kind} has no {key!r}")
    return message[key]


def reply_id(message: Mapping[str, Any]) -> RequestId:
    """The ``id`` a reply echoes (``None`` when it has none or an unusable one)."""
    value = message.get("id")
    return value if is_valid_id(value) else None


def score_from_wire(value: Any, name: str = "score") -> Score:
    """A protocol score (a map with exactly one of its four keys), checked."""
    if not isinstance(value, Mapping) or len(value) != 1:
        violation(f"{name} is {show(value)}, not a map with exactly one key")
    ((key, item),) = value.items()
    if key == "value":
        return Score(value=whole(item, f"{name} value", minimum=None))
    if key == "win_in":
        return Score(win_in=whole(item, f"{name} win_in"))
    if key == "loss_in":
        return Score(loss_in=whole(item, f"{name} loss_in"))
    if key == "draw":
        if item is not True:
            violation(f"{name} draw is {show(item)}, not true")
        return Score(draw=True)
    violation(f"{name} has the unknown key {show(key)}")

"""Frames to maps and back: msgpack binary frames, JSON text frames, and their checks.

Both ends use this module. The server reads requests with :func:`decode`,
which is safe on untrusted input (sizes, nesting, key types and text are
checked; nothing is evaluated) and raises :class:`~protocol.errors.BadMessage`;
a client reads the server's frames with :func:`decode_reply`, which only
insists on one map and leaves the checking of fields to the records
(:mod:`protocol.records`) so that a bad field is reported by name.
:func:`encode` writes a frame in either encoding. ``protocol.md`` section 1
is the contract.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final, Literal, NoReturn

import msgpack  # type: ignore[import-untyped]

from protocol.errors import BadMessage, ProtocolViolation, RequestId

#: Largest frame accepted; a bigger one closes the connection with 1009
#: (websockets enforces it). Every valid request is far smaller: the biggest
#: is a ``new_game`` with a long move list (MAX_MOVES moves of a few bytes).
MAX_MESSAGE_BYTES = 64 * 1024
#: Deepest nesting of maps and lists in a message. The deepest valid request
#: is a ``new_game`` with a list option (message > options > list: 3).
MAX_NESTING = 16
#: Longest string ``id`` echoed back to the client.
MAX_ID_CHARS = 64
#: Largest integer ``id`` (and seed): exact in a JSON reader's doubles.
MAX_EXACT_INT = 2**53


class Encoding(StrEnum):
    """How a frame was encoded; replies use the encoding of their request."""

    MSGPACK = "msgpack"
    JSON = "json"


#: An encoding as a client names it (``connect(encoding="json")``).
EncodingName = Literal["msgpack", "json"]


def _reject_extension(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack extension type {code} is not allowed")


def decode(frame: bytes | str) -> tuple[Encoding, dict[str, Any]]:
    """Decode one frame: ``bytes`` is msgpack, ``str`` is JSON.

    Safe on untrusted input: the frame size is already bounded by the
    transport; msgpack's declared lengths may not exceed the frame's size (a
    few bytes cannot claim a gigabyte string), its extension types are
    refused; nesting deeper than :data:`MAX_NESTING` is refused, and every map
    key at any depth must be a string. Nothing is ever evaluated or
    unpickled. Raises :class:`~protocol.errors.BadMessage`
    unless the frame holds exactly one map.
    """
    if isinstance(frame, bytes | bytearray | memoryview):
        encoding = Encoding.MSGPACK
        size = len(frame)
        try:
            value = msgpack.unpackb(
                frame,
                raw=False,
                strict_map_key=True,
                use_list=True,
                ext_hook=_reject_extension,
                max_ext_len=0,
                max_str_len=size,
                max_bin_len=size,
                max_array_len=size,
                max_map_len=size,
            )
        except Exception as error:  # msgpack raises many types on garbage
            detail = str(error) or type(error).__name__
            raise BadMessage(f"binary frame is not one msgpack value: {detail}") from None
    else:
        encoding = Encoding.JSON
        try:
            value = json.loads(frame, parse_constant=_reject_constant, parse_int=_parse_int)
        except (ValueError, RecursionError) as error:
            raise BadMessage(f"text frame is not one JSON value: {error}") from None
    if not isinstance(value, dict):
        raise BadMessage(f"a message is a map, got {type(value).__name__}")
    _check_structure(value, encoding)
    return encoding, value


#: Digits of the longest JSON integer read: far beyond any 64-bit number (no
#: field takes more than ±2^53), far below Python's own limit of 4300, whose
#: message named a Python setting (a review, 2026-12-07).
MAX_JSON_INT_DIGITS: Final = 100


def _parse_int(text: str) -> int:
    if len(text) > MAX_JSON_INT_DIGITS:
        raise ValueError(
            f"an integer of {len(text)} characters (at most {MAX_JSON_INT_DIGITS} are read)"
        )
    return int(text)


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


def _check_structure(value: Any, encoding: Encoding) -> None:
    """Every map key is a string, nesting is at most :data:`MAX_NESTING` deep,
    and (JSON) no string holds a lone surrogate.

    Iterative, so a hostile nesting depth cannot exhaust the Python stack.
    JSON may spell half a UTF-16 pair (``"\\ud83d"``); such a string cannot
    be written back in UTF-8, so echoing it (an ``id``, a move in an error
    message) would break the reply. msgpack strings are UTF-8 already.
    """
    check_text = encoding is Encoding.JSON
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
            for key in item:
                if not isinstance(key, str):
                    raise BadMessage(f"map key {key!r:.40} is not a string")
                if check_text and not _is_unicode(key):
                    raise BadMessage(
                        "a map key holds a lone surrogate (\\ud800-\\udfff)",
                        request_id_of(value),
                    )
        elif isinstance(item, list):
            children = item
        else:
            if check_text and isinstance(item, str) and not _is_unicode(item):
                raise BadMessage(
                    "a string holds a lone surrogate (\\ud800-\\udfff): not valid Unicode text",
                    request_id_of(value),
                )
            continue
        if depth > MAX_NESTING:
            raise BadMessage(f"message nested deeper than {MAX_NESTING} levels")
        pending.extend((child, depth + 1) for child in children)


def _is_unicode(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8 (it holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encode(message: Mapping[str, Any], encoding: Encoding | EncodingName) -> bytes | str:
    """One frame for ``message``: msgpack bytes or compact JSON text."""
    if encoding == Encoding.MSGPACK:
        frame: bytes = msgpack.packb(message, use_bin_type=True)
        return frame
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def request_id_of(message: Mapping[str, Any]) -> RequestId:
    """The message's ``id`` if it is a valid one, else ``None`` (for error replies)."""
    value: RequestId = message.get("id")
    if is_valid_id(value):
        return value
    return None


def is_valid_id(value: Any) -> bool:
    """Whether ``value`` may be a request's ``id`` (protocol.md section 3)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_EXACT_INT <= value <= MAX_EXACT_INT
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS and _is_unicode(value)


def decode_reply(frame: bytes | str) -> dict[str, Any]:
    """The map in a frame from the server; :class:`~protocol.errors.ProtocolViolation` if
    the frame is not one msgpack or JSON map.

    Lenient where :func:`decode` is strict: a JSON ``NaN`` reads as a float
    (the record that holds it refuses it, naming the field), and nesting and
    text are not checked (a trace reply is large; the server is trusted to
    write text). msgpack extension types are still refused.
    """
    try:
        if isinstance(frame, bytes | bytearray | memoryview):
            value = msgpack.unpackb(
                frame, raw=False, strict_map_key=True, ext_hook=_reject_extension
            )
        else:
            value = json.loads(frame)
    except Exception as error:  # msgpack and json raise many types on garbage
        raise ProtocolViolation(f"malformed frame from the server: {error!r}") from None
    if not isinstance(value, dict):
        raise ProtocolViolation(f"server sent a {type(value).__name__}, not a map")
    return value


def with_id(message: dict[str, Any], request_id: RequestId) -> dict[str, Any]:
    """``message`` with the request's ``id`` added (last) when the request had one."""
    if request_id is not None:
        message["id"] = request_id
    return message

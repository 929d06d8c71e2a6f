"""Frames to maps and back, for clients: msgpack binary frames or JSON text frames.

Kept apart from :mod:`server.protocol` so that a client needs nothing of the
server; the two follow the same contract, ``protocol.md``.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NoReturn

import msgpack  # type: ignore[import-untyped]

EncodingName = Literal["msgpack", "json"]


def encode(message: dict[str, Any], encoding: EncodingName) -> bytes | str:
    """One frame for ``message`` in the chosen encoding."""
    if encoding == "msgpack":
        frame: bytes = msgpack.packb(message, use_bin_type=True)
        return frame
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def _no_extensions(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"unexpected msgpack extension type {code}")


def decode(frame: bytes | str) -> dict[str, Any]:
    """The map a server frame holds; raises ``ValueError`` on anything else."""
    if isinstance(frame, bytes):
        value = msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_no_extensions)
    else:
        value = json.loads(frame)
    if not isinstance(value, dict):
        raise ValueError(f"server sent a {type(value).__name__}, not a map")
    return value

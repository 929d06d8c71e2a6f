"""The limits of the protocol: what a request may hold, and the caps a server announces.

The module constants are the protocol's defaults (``protocol.md`` section 7).
:class:`ServerLimits` is the record a server announces in ``welcome.limits``;
the same record is passed to the readers of requests
(:func:`protocol.records.parse_request`), so the numbers a server announces
are the numbers it enforces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from engine.search.limits import MAX_DEPTH
from engine.search.trace import MAX_TRACE_NODES
from protocol.codec import MAX_MESSAGE_BYTES
from protocol.errors import ProtocolViolation

#: Longest ``position`` string (a chess FEN is under 100 characters).
MAX_POSITION_CHARS: Final = 4096
#: Longest move string (the longest notation, a checkers multi-jump, is short).
MAX_MOVE_CHARS: Final = 128
#: Longest algorithm name accepted (the names are short words).
MAX_ALGORITHM_CHARS: Final = 32
#: Most root lines a ``think`` may ask for (``multipv``; larger is clamped).
#: Each line costs about one more root search per iteration; sixteen
#: covers every analysis GUI's choice (Stockfish's GUIs offer 1-5, chess
#: analysis boards up to 10) and keeps a think's cost bounded.
MAX_MULTIPV: Final = 16
#: Most moves a ``new_game`` may replay from its start position.
MAX_MOVES: Final = 2000
#: Longest free-text field (``client`` in ``hello``, a game name).
MAX_NAME_CHARS: Final = 200
#: Server caps on search limits: larger requests are clamped, not refused.
#: Ten minutes bounds what one request can hold a worker for; it is also the
#: budget of a think that has no time limit (analysis until ``stop``).
MAX_MOVETIME_MS: Final = 600_000
MAX_NODES: Final = 1_000_000_000
#: A day: the longest game clock accepted (larger values are clamped).
MAX_CLOCK_MS: Final = 24 * 3600 * 1000
#: The fields of a ``clock`` this package reads and writes (``welcome.clock_fields``).
CLOCK_NAMES: Final = ("time_ms", "inc_ms", "moves_to_go", "opponent_ms")
#: The fields every server reads: a ``welcome`` without ``clock_fields`` (a
#: server from before ``opponent_ms``, or another program, protocol.md
#: section 11) is sent no other.
BASIC_CLOCK_NAMES: Final = ("time_ms", "inc_ms", "moves_to_go")
#: Most moves to the next time control a clock may name (larger is clamped).
MAX_MOVES_TO_GO: Final = 10_000
#: Largest dice ``seed`` in ``new_game`` (exact in JSON numbers).
MAX_SEED: Final = 2**53
#: Longest ``token`` accepted in ``hello``.
MAX_TOKEN_CHARS: Final = 512
#: Longest a ``trace`` may hold a worker. A trace is bounded in nodes
#: (max_nodes recorded, then counted on to engine.search.trace.COUNT_LIMIT
#: to tell the full size); ten seconds covers chess in pure Python there.
MAX_TRACE_MS: Final = 10_000
#: A connection must make its first valid request (when a token is required
#: of it in ``hello``: that ``hello``) within this long, or it is closed with
#: 1008. Ten seconds is ample for any client, and stops a crowd of silent
#: sockets from holding connection slots.
DEFAULT_HELLO_TIMEOUT_MS: Final = 10_000
#: The server's delivery margin (its pool's ``DELIVERY_MARGIN_S``) as
#: announced when the server does not fill in its own.
DEFAULT_DELIVERY_MARGIN_MS: Final = 15


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The limits a server enforces and announces in ``welcome.limits``.

    The defaults are the protocol's (the module constants). A server started
    with other numbers (``arena serve --max-movetime`` ...) builds this
    record with them, and validation of requests uses it.
    """

    max_movetime_ms: int = MAX_MOVETIME_MS
    """Longest ``movetime_ms`` (larger is clamped); also the budget of a think
    without a time limit."""
    max_depth: int = MAX_DEPTH
    """Deepest ``depth`` limit (larger is clamped)."""
    max_nodes: int = MAX_NODES
    """Largest ``nodes`` limit (larger is clamped)."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    """Largest frame; a larger one closes the connection with 1009."""
    max_moves: int = MAX_MOVES
    """Most moves in ``new_game.moves`` (more is ``limit_exceeded``)."""
    max_position_chars: int = MAX_POSITION_CHARS
    """Longest ``new_game.position`` (longer is ``limit_exceeded``)."""
    delivery_margin_ms: int = DEFAULT_DELIVERY_MARGIN_MS
    """How long before a think's deadline the search is told to finish
    (informational; the server fills in its own)."""
    hello_timeout_ms: int = DEFAULT_HELLO_TIMEOUT_MS
    """Time a new connection has to make one valid request."""
    max_trace_nodes: int = MAX_TRACE_NODES
    """Largest ``trace.max_nodes`` (larger is ``limit_exceeded``)."""
    max_trace_ms: int = MAX_TRACE_MS
    """Longest a trace may run before it is ``limit_exceeded``."""
    max_queue: int | None = None
    """Thinks that may wait for a worker before new ones are refused
    (``overloaded``); ``None`` until the server derives it from its worker
    count (``welcome`` always shows a number: 0 for ``None``)."""

    def to_wire(self) -> dict[str, int]:
        """The map sent in ``welcome.limits``."""
        return {
            "max_movetime_ms": self.max_movetime_ms,
            "max_depth": self.max_depth,
            "max_nodes": self.max_nodes,
            "max_message_bytes": self.max_message_bytes,
            "max_moves": self.max_moves,
            "max_position_chars": self.max_position_chars,
            "delivery_margin_ms": self.delivery_margin_ms,
            "hello_timeout_ms": self.hello_timeout_ms,
            "max_queue": self.max_queue or 0,
            "max_trace_nodes": self.max_trace_nodes,
            "max_trace_ms": self.max_trace_ms,
        }

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> ServerLimits:
        """The limits in ``welcome.limits``; a limit left out keeps its default
        (an older server), one that is not a whole number is a
        :class:`~protocol.errors.ProtocolViolation`."""
        values: dict[str, int] = {}
        for item in fields(cls):
            value = message.get(item.name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ProtocolViolation(f"limits {item.name} is {value!r:.40}, not a whole number")
            values[item.name] = value
        return cls(**values)

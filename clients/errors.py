"""The client library's exceptions: the protocol's classes under the names it has always exported.

:mod:`protocol.errors` has one class per wire error code, shared with the
server; this module gives each its client name (:class:`EngineError` is
:class:`~protocol.errors.ProtocolError`, :class:`IllegalMoveError` is
:class:`~protocol.errors.IllegalMove`, ...) and adds the two failures only a
client sees: the connection closed (:class:`EngineTerminatedError`) and no
reply in time (:class:`EngineTimeoutError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.errors import (
    BadMessage,
    BadOptions,
    BadPosition,
    Busy,
    ChanceState,
    GameOver,
    IllegalMove,
    Internal,
    LimitExceeded,
    NoGame,
    Overloaded,
    ProtocolError,
    ProtocolViolation,
    UnknownAlgorithm,
    UnknownGame,
    UnknownType,
    UnsupportedProtocol,
)
from protocol.records import ErrorMessage

#: The server rejected a request; ``code`` is the protocol error code. The
#: session is unchanged (the server did nothing with the request) and the
#: connection stays open, unless a subclass says otherwise.
EngineError = ProtocolError
BadMessageError = BadMessage
UnknownTypeError = UnknownType
UnsupportedProtocolError = UnsupportedProtocol
UnknownGameError = UnknownGame
BadOptionsError = BadOptions
BadPositionError = BadPosition
IllegalMoveError = IllegalMove
GameOverError = GameOver
NoGameError = NoGame
ChanceStateError = ChanceState
UnknownAlgorithmError = UnknownAlgorithm
BusyError = Busy
LimitExceededError = LimitExceeded
OverloadedError = Overloaded
InternalError = Internal
#: The server sent something that breaks the protocol. The request it
#: answered fails with this error. A strict :class:`Engine`
#: (``connect(strict=True)``, what a referee wants) also closes the
#: connection, and every other pending request fails with it too; a lenient
#: one keeps the connection (the server considers the request answered).
#: Either way, do not trust this server's answer: report the message, and
#: use another server or connection.
ProtocolViolationError = ProtocolViolation


class EngineTerminatedError(ProtocolError):
    """The connection closed before the reply came.

    Every pending request fails with it at once, and so does every later
    one: open a new connection with :func:`connect` (the server forgets a
    closed connection's game, so start the game again).
    """

    code = "connection_closed"


class EngineTimeoutError(ProtocolError, TimeoutError):
    """No reply within the time allowed (``request_timeout``, or a think's budget and margin).

    It is also a :class:`TimeoutError`. The server may still act on the
    request, and its late reply is ignored, so this connection's game may
    now differ from what you believe (a ``move`` may have been played): send
    :meth:`Engine.new_game` to set the position again, or close the
    connection and open a new one. A think that timed out was sent a
    ``stop``; until its ``bestmove`` comes, the server may answer the next
    request with :class:`BusyError`. Repeated timeouts mean the server or
    the network is stuck: reconnect, or use another server.
    """

    code = "timeout"


def error_from_message(message: Mapping[str, Any]) -> EngineError:
    """The typed exception for an ``error`` message (unknown codes give :class:`EngineError`)."""
    return ErrorMessage.from_wire(message).exception()

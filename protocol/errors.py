"""Every error the protocol knows: the codes, and one exception class per code.

:class:`ErrorCode` lists the codes written in ``error`` messages
(``protocol.md`` section 5). Each code has one exception class, a subclass
of :class:`ProtocolError`: the server raises them for a request it rejects
(and answers with the ``error`` record :meth:`ProtocolError.to_record`
gives), and the client raises the same classes to its users when a server
answers with an ``error`` (:func:`error_from_wire`).

Besides the wire codes there is :class:`ProtocolViolation`: what a reader
raises for a message from the server that breaks the protocol (a client's
concern; the server answers a bad request with :class:`BadMessage`).
The engine's own errors (:mod:`engine.errors`) carry wire codes too, and
:func:`from_game_error` turns one into its protocol exception.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.errors import GameError

if TYPE_CHECKING:
    from protocol.records import ErrorMessage

#: A request's ``id``: an integer within ±2**53, a short string, or absent.
RequestId = int | str | None


class ErrorCode(StrEnum):
    """Every error code the server sends, as written on the wire."""

    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTIONS = "bad_options"
    BAD_POSITION = "bad_position"
    ILLEGAL_MOVE = "illegal_move"
    GAME_OVER = "game_over"
    NO_GAME = "no_game"
    BUSY = "busy"
    LIMIT_EXCEEDED = "limit_exceeded"
    CHANCE_STATE = "chance_state"
    UNKNOWN_ALGORITHM = "unknown_algorithm"
    OVERLOADED = "overloaded"
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A request was rejected; on the server it becomes an ``error`` message.

    ``code`` is the protocol error code (an :class:`ErrorCode` for the
    codes of version 1; a client keeps a newer server's unknown code as the
    string it got, on this base class). ``request_id`` is the offending
    request's ``id`` when it could be read; ``legal_moves`` the legal moves
    (``illegal_move``; empty for the other codes); ``retry_after_ms`` how long
    to wait before trying again (``overloaded``; else ``None``).
    """

    #: The code of this class; the base class stands for "an error" of unknown kind.
    code: str = "error"

    def __init__(
        self,
        message: str,
        request_id: RequestId = None,
        *,
        legal_moves: Sequence[str] | None = None,
        retry_after_ms: int | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.request_id = request_id
        self.legal_moves: list[str] = list(legal_moves or ())
        self.retry_after_ms = retry_after_ms
        if code is not None:
            self.code = code

    def to_record(self) -> ErrorMessage:
        """The ``error`` message that answers the rejected request."""
        from protocol.records import ErrorMessage  # records import this module

        return ErrorMessage(
            code=self.code,
            message=self.message,
            id=self.request_id,
            # protocol.md: legal_moves only (and always) for illegal_move
            legal_moves=tuple(self.legal_moves) if self.code == ErrorCode.ILLEGAL_MOVE else None,
            retry_after_ms=self.retry_after_ms,
        )


class BadMessage(ProtocolError):
    """The request could not be read: not one map, a field missing or of the wrong type."""

    code = ErrorCode.BAD_MESSAGE


class UnknownType(ProtocolError):
    """The request's ``type`` is not one the server knows (an older server?)."""

    code = ErrorCode.UNKNOWN_TYPE


class UnsupportedProtocol(ProtocolError):
    """``hello`` asked for a protocol version the server does not speak."""

    code = ErrorCode.UNSUPPORTED_PROTOCOL


class UnknownGame(ProtocolError):
    """No game of that name: ``welcome.games`` lists the ones offered."""

    code = ErrorCode.UNKNOWN_GAME


class BadOptions(ProtocolError):
    """An unknown game option, or a value of the wrong type or out of range."""

    code = ErrorCode.BAD_OPTIONS


class BadPosition(ProtocolError):
    """The position string cannot be parsed, or the position is impossible."""

    code = ErrorCode.BAD_POSITION


class IllegalMove(ProtocolError):
    """The move was not legal; ``legal_moves`` lists the ones that are."""

    code = ErrorCode.ILLEGAL_MOVE


class GameOver(ProtocolError):
    """The game has ended: start another with ``new_game``."""

    code = ErrorCode.GAME_OVER


class NoGame(ProtocolError):
    """No game yet on this connection: send ``new_game`` first."""

    code = ErrorCode.NO_GAME


class Busy(ProtocolError):
    """A think or trace is running on this connection: wait for its answer or stop it first."""

    code = ErrorCode.BUSY


class LimitExceeded(ProtocolError):
    """A limit below its minimum (zero budget, depth or nodes) or a list too long."""

    code = ErrorCode.LIMIT_EXCEEDED


class ChanceState(ProtocolError):
    """Dice are to be rolled: play a roll as a move, or send ``roll``, then think."""

    code = ErrorCode.CHANCE_STATE


class UnknownAlgorithm(ProtocolError):
    """The game does not offer that search: pick one of its ``algorithms`` in ``welcome``."""

    code = ErrorCode.UNKNOWN_ALGORITHM


class Overloaded(ProtocolError):
    """The server refused the think at once: its queue of thinks is full.

    Nothing was searched and the connection is free. Wait
    ``retry_after_ms`` (the server's estimate of when a search process may
    be free; ``None`` if it gave none) and send the think again, or send it
    to another server. Do not retry at once in a loop: that only adds load.
    """

    code = ErrorCode.OVERLOADED


class Internal(ProtocolError):
    """A bug in the server; the request had no effect. Retrying may work; report it."""

    code = ErrorCode.INTERNAL


class ProtocolViolation(ProtocolError):
    """The server sent something that breaks the protocol (not a wire code).

    Raised by the readers of server messages (``from_wire`` of the replies)
    for a malformed message: a ``depth`` that is not a whole number, a score
    that is not one of the four forms, a move that is not a string, ...
    """

    code = "protocol_violation"


#: The exception class of each wire code.
ERROR_CLASSES: Mapping[str, type[ProtocolError]] = {
    cls.code: cls
    for cls in (
        BadMessage,
        UnknownType,
        UnsupportedProtocol,
        UnknownGame,
        BadOptions,
        BadPosition,
        IllegalMove,
        GameOver,
        NoGame,
        Busy,
        LimitExceeded,
        ChanceState,
        UnknownAlgorithm,
        Overloaded,
        Internal,
    )
}


def error_for(
    code: str,
    message: str,
    request_id: RequestId = None,
    *,
    legal_moves: Sequence[str] | None = None,
    retry_after_ms: int | None = None,
) -> ProtocolError:
    """The exception of ``code``'s class (the base class, keeping ``code``, if unknown)."""
    cls = ERROR_CLASSES.get(code)
    if cls is None:
        return ProtocolError(
            message,
            request_id,
            legal_moves=legal_moves,
            retry_after_ms=retry_after_ms,
            code=code,
        )
    return cls(message, request_id, legal_moves=legal_moves, retry_after_ms=retry_after_ms)


def from_game_error(error: GameError, request_id: RequestId) -> ProtocolError:
    """The protocol exception for an engine :class:`GameError` (the codes are shared).

    An engine code that is not a wire code (none is, a test checks) would
    be sent as ``bad_message``.
    """
    code = error.code if error.code in ERROR_CLASSES else ErrorCode.BAD_MESSAGE
    legal: Any = getattr(error, "legal_moves", None)
    return error_for(code, str(error), request_id, legal_moves=legal)

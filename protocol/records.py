"""One record per protocol message, with its wire form: the index.

Each message of ``protocol.md`` section 4 is a frozen dataclass whose
fields are the fields of its table there (``tests/protocol/test_docs.py``
checks both ways). The requests are in :mod:`protocol.requests`
(:class:`Hello`, :class:`NewGame`, :class:`Move`, :class:`Roll`,
:class:`Think`, :class:`TraceRequest`, :class:`Stop`), what the server sends
in :mod:`protocol.replies` (:class:`Welcome`, :class:`GameState`,
:class:`Info`, :class:`BestMove`, :class:`TraceReply`,
:class:`ErrorMessage`); this module gathers them.

``to_wire()`` gives the map to encode (:mod:`protocol.codec`) and the
classmethod ``from_wire(map)`` reads and checks one:

* a request's ``from_wire(map, limits)`` raises the protocol error the
  server answers with (:mod:`protocol.errors`: ``bad_message``,
  ``limit_exceeded``, ...), and clamps or refuses against ``limits``, the
  :class:`~protocol.limits.ServerLimits` the server announces;
* a reply's ``from_wire(map)`` raises
  :class:`~protocol.errors.ProtocolViolation`, naming the field, for a
  message that breaks the protocol, and fills in the defaults of fields an
  older server leaves out.

Unknown fields are ignored both ways (room for later additions). ``id`` is
the request's ``id`` (``protocol.md`` section 3): written last (a think's
second), and only when set.
"""

from protocol.fields import score_from_wire
from protocol.limits import CLOCK_NAMES
from protocol.replies import (
    CHANCE,
    GNUBG_ID_GAMES,
    REPLIES,
    BestMove,
    ErrorMessage,
    GameResult,
    GameState,
    Info,
    Reply,
    TraceReply,
    Welcome,
)
from protocol.requests import (
    LIMIT_NAMES,
    PROTOCOL_VERSION,
    REQUESTS,
    Hello,
    Move,
    NewGame,
    Request,
    Roll,
    Stop,
    Think,
    TraceRequest,
    limits_from_wire,
    limits_to_wire,
    parse_request,
)

__all__ = [
    "CHANCE",
    "CLOCK_NAMES",
    "GNUBG_ID_GAMES",
    "LIMIT_NAMES",
    "PROTOCOL_VERSION",
    "REPLIES",
    "REQUESTS",
    "BestMove",
    "ErrorMessage",
    "GameResult",
    "GameState",
    "Hello",
    "Info",
    "Move",
    "NewGame",
    "Reply",
    "Request",
    "Roll",
    "Stop",
    "Think",
    "TraceReply",
    "TraceRequest",
    "Welcome",
    "limits_from_wire",
    "limits_to_wire",
    "parse_request",
    "score_from_wire",
]

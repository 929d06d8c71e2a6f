"""Why a game ended, in the referee's words: every template a record's ``reason`` is made from.

A record's reason is English text (the terminal, the PGN/SGF files and the
JSON store keep it as written). The live page shows it in the reader's
language by recognising these templates (``clients/web/js/tournament-reasons.js``
translates each one), so they live here, in one place, and a test formats
every one of them and checks that the page translates it
(``tests/clients/tournament/test_web_page.py``).

A fault's reason is the engine's name, a space and one of the ``FAULT_*``
details (:func:`fault_reason`); the parts in braces that quote the engine
(its error message, its move) are kept as the engine wrote them, cut to
:data:`MAX_QUOTED_CHARS`.
"""

from __future__ import annotations

from typing import Final

#: Adjudications (:mod:`clients.tournament.adjudication`).
ADJUDICATED_FIRST_WINS: Final = "adjudication: both engines agree the first player wins"
ADJUDICATED_SECOND_WINS: Final = "adjudication: both engines agree the second player wins"
ADJUDICATED_DRAW: Final = "adjudication: both engines see a draw"
ADJUDICATED_LENGTH: Final = "adjudication: maximum length of {limit} plies"

#: Added to the game's own reason when a Go game was counted after a clean-up phase.
AFTER_CLEANUP: Final = " (counted after a clean-up phase)"

#: Faults: what the engine at fault did (after its name).
FAULT_LATE: Final = (
    "lost on time: answered after {elapsed_ms:.0f} ms with {budget_ms} ms left "
    "(margin {margin_ms} ms)"
)
#: Added to :data:`FAULT_LATE`: what the late answer said, and the time the
#: engine itself counted, so that a reader can tell a slow search from a
#: delay on the way (the record has no move for the forfeited turn).
FAULT_LATE_ANSWER: Final = (
    "; it answered {move} ({reason}), the engine counting {engine_ms} ms "
    "of which {queued_ms} ms queued"
)
#: No answer before the watchdog: ``what`` is :data:`GAVE_NO_MOVE` or :data:`DID_NOT_ANSWER`,
#: ``detail`` empty or `` (the client's message)``.
FAULT_SILENT: Final = "{what} within {timeout_ms:.0f} ms (watchdog){detail}"
GAVE_NO_MOVE: Final = "gave no move"
DID_NOT_ANSWER: Final = "did not answer"
FAULT_DISCONNECTED: Final = "disconnected ({message})"
FAULT_PROTOCOL: Final = "broke the protocol: {message}"
FAULT_ERROR_REPLY: Final = "answered with error {code}: {message}"
FAULT_MALFORMED: Final = "sent a malformed reply ({error})"
FAULT_ILLEGAL: Final = "played an illegal move {move!r} (legal: {legal})"
FAULT_UNREACHABLE: Final = "could not be reached ({error})"
#: A ``--bots`` bot that could not start when the tournament was resumed:
#: its games from then on are lost without being played.
FAULT_CANNOT_START: Final = "could not start when the tournament was resumed: {why}"
#: Its server answered the think with reason ``engine_error``: the program
#: behind it crashed, hung, broke its protocol, answered an illegal move or
#: was not up (the server's
#: log says which); ``move`` is the server's fallback, not played.
FAULT_ENGINE_ERROR: Final = (
    "failed: its server answered engine_error (the program crashed, hung, broke its "
    "protocol, answered an illegal move or was not up) and offered {move} in its place"
)
#: A program engine gave no move by its deadline; its server answered in its place.
FAULT_STAND_IN: Final = (
    "lost on time: its program gave no move by its deadline{within}, and its server "
    "offered {move} in its place"
)
#: A class bot had too many of its moves in one game played for it
#: (:data:`~clients.tournament.referee.BOT_FAILURES_TO_LOSE`).
FAULT_BOT_FAILED: Final = (
    "failed: it gave no move of its own {times} in this game, the last ending the "
    "game (it crashed, answered an illegal move or garbage, or was silent at its deadline; "
    "its log says which)"
)


#: A bot's move played for it that would have won the game: the win must be
#: its own (a teacher's review of 2026-12-07: the failure count the reason
#: gave was no rule the docs state, and the cause was not said).
FAULT_BOT_STAND_IN_WIN: Final = (
    "failed: the move played for it would have won the game, and a win must be the bot's "
    "own move (it gave no move of its own {times} in this game; its log says why)"
)
#: A bot none of whose moves in the game was its own: in tic-tac-toe a
#: silent bot has three moves at most, below both limits of
#: FAULT_BOT_FAILED, and it drew games with its stand-ins (a teacher's
#: review of 2026-12-07: 2.5 points without one move of its own).
FAULT_BOT_NEVER_MOVED: Final = (
    "failed: it gave no move of its own in this game ({times} a move was played for it; "
    "its log says why)"
)


def times(count: int) -> str:
    """``count`` as :data:`FAULT_BOT_FAILED` says it: "once", "3 times"."""
    return "once" if count == 1 else f"{count} times"


#: Added to :data:`FAULT_ENGINE_ERROR` for a program of the tournament's own
#: local server: why, as that server logged it.
FAULT_ENGINE_WHY: Final = "; its server's log: {why}"

#: The longest piece of an engine's own text (an error message...) kept in a reason.
MAX_QUOTED_CHARS: Final = 200


def quoted(text: str) -> str:
    """An engine's own text as a reason quotes it: cut to :data:`MAX_QUOTED_CHARS`.

    Cut in the middle: its start says what happened and its end how (a
    traceback's last line, ``KeyError: 'legal_moves'``, was what the end cut
    off: a review, 2026-12-07).
    """
    if len(text) <= MAX_QUOTED_CHARS:
        return text
    head = (MAX_QUOTED_CHARS - 5) // 2
    tail = MAX_QUOTED_CHARS - 5 - head
    return f"{text[:head]} ... {text[-tail:]}"


def fault_reason(name: str, detail: str) -> str:
    """A fault's reason: the engine at fault, then what it did."""
    return f"{name} {detail}"

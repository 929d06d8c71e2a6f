"""What the Go Text Protocol says over a :class:`~server.programs.process.LineProcess`.

GTP 2 (Gunnar Farnebäck's draft, 2002): a command is one line; its answer
is ``=[id] text`` or ``?[id] error``, possibly on several lines, ended by an
empty line. :func:`command` sends one and waits for its answer by a
deadline (and a stop flag): GTP has no ``stop``, so a caller whose time has
run out must end the program.
"""

from __future__ import annotations

from typing import Any, Final

from engine.search.request import StopSignal
from server.programs.process import LineProcess, ProgramError

#: Lines that are not part of an answer an engine may write before it is
#: taken for broken (GNU Go writes none).
MAX_STRAY_LINES: Final = 1000
#: Lines one answer may have (``list_commands`` in GNU Go: about 200).
MAX_ANSWER_LINES: Final = 10_000


class GtpRefused(ProgramError):
    """The engine answered the command with an error (``?``)."""


def command(
    process: LineProcess, text: str, deadline: float, stop: StopSignal | None = None
) -> str | None:
    """Send ``text``; its answer's text (after ``=``), ``None`` at ``deadline`` or on ``stop``.

    An error answer raises :class:`GtpRefused`; lines that are not GTP, or
    the program's end, :class:`ProgramError`. After ``None`` the answer may
    still come: GTP has no ``stop``, so the program must be ended.
    """
    process.send(text)
    name = text.split(maxsplit=1)[0] if text.strip() else text
    stray = 0
    while True:
        line = process.read_line(deadline, stop)
        if line is None:
            return None
        if line.startswith(("=", "?")):
            break
        # Empty lines before an answer belong to no answer (GTP allows them).
        stray += bool(line)
        if stray > MAX_STRAY_LINES:
            raise ProgramError(f"{process.name} writes lines GTP does not know: {line[:60]!r}")
    status, first = line[0], line[1:].lstrip("0123456789").strip()
    answer = [first]
    while len(answer) <= MAX_ANSWER_LINES:
        more = process.read_line(deadline, stop)
        if more is None:
            return None
        if not more:
            break
        answer.append(more)
    else:
        raise ProgramError(f"{process.name} answered {name} with too many lines")
    body = "\n".join(answer).strip()
    if status == "?":
        raise GtpRefused(f"{process.name} refused {text!r}: {body}")
    return body


def required(process: LineProcess, text: str, deadline: float) -> str:
    """:func:`command` whose answer must come by ``deadline`` (ProgramError otherwise)."""
    answer = command(process, text, deadline)
    if answer is None:
        raise ProgramError(f"{process.name} did not answer {text.split()[0]} in time")
    return answer


def setup_commands(game: Any, state: Any) -> list[str]:
    """GTP commands that put ``state``'s Go position on a program's board.

    The stones are placed one by one (every subset of a legal position's
    stones is legal, so no placement captures), which tells the program
    nothing of the past. A simple ko is the one piece of the past that
    changes what is legal next: when the side to move may not retake at
    ``state.ko``, the stone just captured there is placed too and the
    capture (``state.last_move``) played last, so that the program knows
    the ko as if it had seen the game. Placed without it, GNU Go retook
    the ko, an illegal move, and lost the game by fault (a review,
    2026-12-07). Positional superko beyond a simple ko is not told (GNU Go
    3.8 does not apply it; docs/tournament.md).
    """
    commands = [f"boardsize {game.options['size']}", "clear_board", f"komi {game.options['komi']}"]
    ko, capture = state.ko, state.last_move
    replay_ko = bool(ko) and capture in game.points and state.board[capture] != 0
    mover_stone = state.player + 1  # board codes: 1 Black, 2 White; player 0 is Black
    for point in game.points:
        stone = state.board[point]
        if replay_ko and point == ko:
            stone = mover_stone
        elif replay_ko and point == capture:
            continue
        if stone:
            commands.append(f"play {_colour(stone)} {game.format_move(state, point)}")
    if replay_ko:
        commands.append(f"play {_colour(state.board[capture])} {game.format_move(state, capture)}")
    return commands


def _colour(stone: int) -> str:
    return "black" if stone == 1 else "white"

"""A referee for games between two GTP programs, judged by our rules.

:class:`GtpProgram` drives one program (GNU Go, or ``arena gtp`` itself)
through :class:`~server.programs.process.LineProcess`, one method call per
command, every command with a timeout. :func:`play_game` sets both engines
up (board size, komi, an empty board), asks the side to move for
``genmove``, checks the answer against :class:`engine.games.go.Go` (an
illegal move loses), passes it to the other engine with ``play`` and goes
on until a resignation, two passes in a row or the move cap. A finished
game is scored by area (Tromp-Taylor) as the game itself scores it; each
engine's own ``final_score`` is recorded beside it, since engines that
remove dead stones by judgement (GNU Go) may count differently.

The tests of ``arena gtp`` and ``bench/gnugo_bench.py`` use it. It lives
with the server because it drives outside programs with the server's one
driver; ``clients/`` keeps no process driver of its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final

from engine.errors import GameError
from engine.games.go import Go
from server.programs import gtp
from server.programs.process import LineProcess, ProgramError

#: Seconds a command may take when the caller gives no timeout; ``genmove``
#: callers pass their own.
DEFAULT_TIMEOUT_S: Final = 30.0
#: Seconds allowed for ``quit`` before the process is killed.
QUIT_TIMEOUT_S: Final = 3.0
COLOUR_NAMES: Final = ("black", "white")


class GtpCommandError(Exception):
    """A command failed: an error answer (``?``), a timeout or an exited program."""


class GtpProgram:
    """A running GTP program; :meth:`send` one command at a time. A context manager."""

    def __init__(self, command: Sequence[str], name: str | None = None) -> None:
        try:
            self._process = LineProcess(command, name)
        except ProgramError as error:
            raise GtpCommandError(str(error)) from None
        self.name = self._process.name

    def send(self, command: str, timeout: float = DEFAULT_TIMEOUT_S) -> str:
        """The answer to ``command`` (without the ``=``); raises :class:`GtpCommandError`."""
        try:
            answer = gtp.command(self._process, command, time.monotonic() + timeout)
        except (ProgramError, ValueError) as error:
            raise GtpCommandError(str(error)) from None
        if answer is None:
            raise GtpCommandError(f"{self.name} did not answer {command!r} within {timeout:g} s")
        return answer

    def close(self) -> None:
        """Send ``quit`` and end the program (killed if it does not exit in time)."""
        self._process.close("quit", QUIT_TIMEOUT_S)

    def __enter__(self) -> GtpProgram:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(slots=True)
class GameRecord:
    """One refereed game: the moves, who won and why, and each engine's own count."""

    size: int
    komi: float
    players: tuple[str, str]
    moves: list[str] = field(default_factory=list)
    #: 0 black, 1 white, ``None`` a draw or no result.
    winner: int | None = None
    reason: str = ""
    #: Each engine's ``final_score`` answer ("W+4.5"), or the error it gave.
    engine_scores: dict[str, str] = field(default_factory=dict)


def play_game(
    black: GtpProgram,
    white: GtpProgram,
    size: int = 9,
    komi: float = 7.5,
    max_moves: int | None = None,
    genmove_timeout_s: float = 60.0,
) -> GameRecord:
    """Play one game; ``black`` moves first. Never hangs: every command has a timeout."""
    game = Go(size=size, komi=komi)
    engines = (black, white)
    record = GameRecord(size, komi, (black.name, white.name))
    cap = max_moves if max_moves is not None else 3 * size * size
    for engine in engines:
        engine.send(f"boardsize {size}")
        engine.send(f"komi {komi:g}")
        engine.send("clear_board")
    state: Any = game.initial_state()
    while len(record.moves) < cap:
        outcome = game.outcome(state)
        if outcome is not None:
            record.winner, record.reason = outcome.winner, outcome.reason
            break
        mover = game.to_move(state)
        colour = COLOUR_NAMES[mover]
        try:
            answer = engines[mover].send(f"genmove {colour}", timeout=genmove_timeout_s)
        except GtpCommandError as error:
            record.winner, record.reason = 1 - mover, f"{colour} forfeits: {error}"
            break
        if answer.lower() == "resign":
            record.moves.append("resign")
            record.winner, record.reason = 1 - mover, f"{colour} resigns"
            break
        try:
            move = game.parse_move(state, answer)
        except GameError as error:
            record.winner, record.reason = 1 - mover, f"{colour} played {answer!r}: {error}"
            break
        text = game.format_move(state, move)
        record.moves.append(text)
        state = game.play(state, move)
        try:
            engines[1 - mover].send(f"play {colour} {text}")
        except GtpCommandError as error:
            # The other engine disagrees about the rules: no result.
            record.reason = f"{COLOUR_NAMES[1 - mover]} refused {colour}'s {text}: {error}"
            return record
    else:
        outcome = game.outcome(state)
        if outcome is not None:
            record.winner, record.reason = outcome.winner, outcome.reason
        else:  # unfinished at the cap: the area count decides
            count = game.result_text(state)
            record.winner = None if count == "0" else (0 if count.startswith("B") else 1)
            record.reason = f"move cap of {cap} reached; area count {count}"
    for engine in engines:
        try:
            record.engine_scores[engine.name] = engine.send("final_score")
        except GtpCommandError as error:
            record.engine_scores[engine.name] = f"error: {error}"
    return record

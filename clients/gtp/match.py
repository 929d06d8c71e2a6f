"""A referee for games between two GTP engines, judged by our rules.

:func:`play_game` sets both engines up (board size, komi, an empty board),
asks the side to move for ``genmove``, checks the answer against
:class:`engine.games.go.Go` (an illegal move loses), passes it to the other
engine with ``play`` and goes on until a resignation, two passes in a row
or the move cap. A finished game is scored by area (Tromp-Taylor) as the
game itself scores it; each engine's own ``final_score`` is recorded
beside it, since engines that remove dead stones by judgement (GNU Go)
may count differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.gtp.controller import GtpCommandError, GtpProcess
from engine.errors import GameError
from engine.games.go import Go

COLOUR_NAMES = ("black", "white")


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
    black: GtpProcess,
    white: GtpProcess,
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

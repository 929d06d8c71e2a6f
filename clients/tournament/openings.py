"""Openings: the start of each pair of games, from a file or generated.

A file has one opening per line: a position in the game's notation, a
sequence of moves from the initial position (separated by spaces), or
both as ``POSITION moves M1 M2 ...``; blank lines and lines starting
with ``#`` are skipped. Generated openings are a few random moves, kept
only when a shallow search finds the position roughly balanced.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import GameError
from engine.game import Game
from engine.limits import Limits
from engine.searchers import think

#: Transposition-table slots for the balance check: the searches are shallow.
BALANCE_TT_SLOTS = 1 << 14
#: Random tries per wanted opening before giving up on finding more.
TRIES_PER_OPENING = 50
#: The word that separates a position from the moves played from it.
MOVES_KEYWORD = "moves"


@dataclass(frozen=True, slots=True)
class Opening:
    """A start: ``position`` (``None`` = the initial one) and moves played from it."""

    position: str | None = None
    moves: tuple[str, ...] = ()

    def start(self, game: Game[Any, Any]) -> tuple[Any, list[str]]:
        """The state after the opening and its moves in canonical notation.

        Raises :class:`~engine.errors.GameError` when the opening does not fit the game.
        """
        state = game.initial_state() if self.position is None else game.parse_position(
            self.position
        )
        played = []
        for text in self.moves:
            move = game.parse_move(state, text)
            played.append(game.format_move(state, move))
            state = game.play(state, move)
        if game.outcome(state) is not None:
            raise GameError(f"the opening {self.describe()!r} ends the game")
        return state, played

    def describe(self) -> str:
        parts = [] if self.position is None else [self.position]
        if self.moves:
            parts.append(" ".join(self.moves))
        return " | ".join(parts) or "(initial position)"


def parse_opening_line(game: Game[Any, Any], line: str) -> Opening:
    """One line of an openings file (see the module docstring); raises ``GameError``."""
    text = line.strip()
    words = text.split()
    if MOVES_KEYWORD in words:
        cut = words.index(MOVES_KEYWORD)
        position = " ".join(words[:cut]) or None
        opening = Opening(position, tuple(words[cut + 1:]))
    else:
        try:
            game.parse_position(text)
            opening = Opening(text, ())
        except GameError:
            opening = Opening(None, tuple(words))
    opening.start(game)  # check it now, not in the middle of the tournament
    return opening


def load_openings(game: Game[Any, Any], path: str | Path) -> list[Opening]:
    """Every opening in the file, checked against the game's rules."""
    openings = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            openings.append(parse_opening_line(game, line))
        except GameError as error:
            raise GameError(f"{path}:{number}: {error}") from error
    if not openings:
        raise GameError(f"{path}: no openings in the file")
    return openings


def generate_openings(
    game: Game[Any, Any],
    count: int,
    plies: int,
    *,
    depth: int,
    max_score: int,
    seed: int,
) -> list[Opening]:
    """Up to ``count`` distinct openings of ``plies`` random moves, each roughly balanced.

    Balanced means a ``depth``-ply search scores the position within
    ``±max_score`` (a proven result is never balanced). With ``plies`` 0 the
    one opening is the initial position.
    """
    if plies <= 0:
        return [Opening()]
    rng = random.Random(seed)
    found: dict[tuple[str, ...], Opening] = {}
    for _ in range(count * TRIES_PER_OPENING):
        if len(found) >= count:
            break
        moves = _random_line(game, plies, rng)
        if moves is None or tuple(moves) in found:
            continue
        opening = Opening(None, tuple(moves))
        state, _ = opening.start(game)
        result = think(game, state, Limits(depth=depth), tt_slots=BALANCE_TT_SLOTS)
        if result.score.value is not None and abs(result.score.value) <= max_score:
            found[tuple(moves)] = opening
    return list(found.values())


def _random_line(game: Game[Any, Any], plies: int, rng: random.Random) -> list[str] | None:
    state = game.initial_state()
    moves = []
    for _ in range(plies):
        legal = game.legal_moves(state)
        if not legal:
            return None
        move = rng.choice(legal)
        moves.append(game.format_move(state, move))
        state = game.play(state, move)
    return None if game.outcome(state) is not None else moves

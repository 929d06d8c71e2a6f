"""Typed errors raised for bad input to a game.

Every error is a :class:`ValueError` so that callers who only care about
"the input was wrong" can catch that; each subclass carries the ``code`` the
server reports in its ``error`` message, so the mapping lives in one place.
``code`` is a class variable: compiled by mypyc, a plain class attribute
would become an instance field that a subclass's own ``__init__`` never sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar


class GameError(ValueError):
    """Base class: the input (a move, an option, a position) was rejected."""

    code: ClassVar[str] = "bad_message"


class UnknownGameError(GameError):
    """No game is registered under that name."""

    code: ClassVar[str] = "unknown_game"


class BadOptionsError(GameError):
    """An option was unknown, of the wrong type or out of range."""

    code: ClassVar[str] = "bad_options"


class BadPositionError(GameError):
    """A position string could not be parsed or describes an impossible position."""

    code: ClassVar[str] = "bad_position"


class IllegalMoveError(GameError):
    """A move was malformed or not legal in the position.

    ``legal_moves`` holds the legal moves in the game's notation so that the
    caller can show them to the user.
    """

    code: ClassVar[str] = "illegal_move"

    def __init__(self, message: str, legal_moves: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.legal_moves = list(legal_moves)


class GameOverError(GameError):
    """A move was given in a position where the game has already ended."""

    code: ClassVar[str] = "game_over"


class UnknownAlgorithmError(GameError):
    """A search was asked for by a name the game does not offer.

    The message names the algorithms the game offers
    (:func:`engine.searchers.algorithms`).
    """

    code: ClassVar[str] = "unknown_algorithm"

"""Where each game lives, by name: a game is imported when it is first asked for.

:mod:`engine.registry` imports every game (the server offers them all);
a program that plays one game, a student's bot above all
(:mod:`clients.bot`), asks here for that one and imports nothing else:
importing every game also imports numpy and reads the backgammon network,
about 0.2 s of a bot's start, which its first move paid for.

To add a game, write its module in :mod:`engine.games` and add a line to
:data:`GAME_PATHS`; the registry takes its list from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Final

from engine.errors import BadOptionsError, UnknownGameError
from engine.game import Game

#: Each game's module and class, in the order clients see them.
GAME_PATHS: Final[Mapping[str, tuple[str, str]]] = {
    "tictactoe": ("engine.games.tictactoe", "TicTacToe"),
    "nim": ("engine.games.nim", "Nim"),
    "connect4": ("engine.games.connect4", "ConnectFour"),
    "othello": ("engine.games.othello", "Othello"),
    "checkers": ("engine.games.checkers", "Checkers"),
    "chess": ("engine.games.chess", "Chess"),
    "backgammon": ("engine.games.backgammon", "Backgammon"),
    "go": ("engine.games.go", "Go"),
    "tree": ("engine.games.tree", "TreeGame"),
}


def game_class(name: str) -> type[Game[Any, Any]]:
    """The class of the game registered as ``name``, its module imported now if not yet.

    Raises :class:`UnknownGameError` with a message fit to show the user.
    """
    path = GAME_PATHS.get(name)
    if path is None:
        raise UnknownGameError(f"unknown game {name!r} (games: {', '.join(GAME_PATHS)})")
    module, attribute = path
    cls = getattr(importlib.import_module(module), attribute)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"{module}.{attribute} is not a game class")
    return cls


def create_game(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any]:
    """The game registered as ``name`` with ``options`` checked and defaults filled in.

    Raises :class:`UnknownGameError` or :class:`BadOptionsError` with a
    message fit to show the user.
    """
    cls = game_class(name)
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise BadOptionsError("options must be a map of option names to values")
    return cls(**cls.check_options(options))

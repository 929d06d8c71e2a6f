"""The games the engine knows, by name.

To add a game, write its module in :mod:`engine.games` and add its class to
:data:`GAME_CLASSES`; everything else (the server's ``welcome`` list, option
checking, the GUI's game menu) reads from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from engine.errors import BadOptionsError, UnknownGameError
from engine.game import Game
from engine.games.backgammon import Backgammon
from engine.games.checkers import Checkers
from engine.games.chess import Chess
from engine.games.connect4 import ConnectFour
from engine.games.go import Go
from engine.games.nim import Nim
from engine.games.othello import Othello
from engine.games.tictactoe import TicTacToe
from engine.games.tree import TreeGame
from engine.searchers import algorithms

#: Every registered game class, in the order clients see them.
GAME_CLASSES: tuple[type[Game[Any, Any]], ...] = (
    TicTacToe,
    Nim,
    ConnectFour,
    Othello,
    Checkers,
    Chess,
    Backgammon,
    Go,
    TreeGame,
)

#: Game classes by registry name (read-only).
GAMES: Mapping[str, type[Game[Any, Any]]] = MappingProxyType(
    {cls.name: cls for cls in GAME_CLASSES}
)


def create_game(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any]:
    """The game registered as ``name`` with ``options`` checked and defaults filled in.

    Raises :class:`UnknownGameError` or :class:`BadOptionsError` with a
    message fit to show the user.
    """
    cls = GAMES.get(name)
    if cls is None:
        raise UnknownGameError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise BadOptionsError("options must be a map of option names to values")
    return cls(**cls.check_options(options))


def describe_games() -> list[dict[str, Any]]:
    """Name, title, options, players, unit, win-odds scale and searches of every game
    (for ``welcome``)."""
    return [
        {
            "name": cls.name,
            "title": cls.title,
            "options": {option.name: option.default for option in cls.OPTIONS},
            "option_help": {option.name: option.description for option in cls.OPTIONS},
            "players": list(cls.players),
            "eval_unit": cls.eval_unit,
            "win_odds_scale": cls.win_odds_scale,
            "algorithms": list(algorithms(cls())),
        }
        for cls in GAME_CLASSES
    ]

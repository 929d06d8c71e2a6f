"""The games the engine knows, by name, every one of them imported.

The list is :data:`engine.catalog.GAME_PATHS` (to add a game, add it
there); this module imports them all, for the server, which offers every
game. A program that plays one game creates it with
:func:`engine.catalog.create_game` (the same function as here) and
imports only that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from engine.catalog import GAME_PATHS, create_game, game_class
from engine.game import Game
from engine.searchers import algorithms

__all__ = ["GAMES", "GAME_CLASSES", "create_game", "describe_games"]

#: Every registered game class, in the order clients see them.
GAME_CLASSES: tuple[type[Game[Any, Any]], ...] = tuple(game_class(name) for name in GAME_PATHS)

#: Game classes by registry name (read-only).
GAMES: Mapping[str, type[Game[Any, Any]]] = MappingProxyType(
    {cls.name: cls for cls in GAME_CLASSES}
)


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

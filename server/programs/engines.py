"""The ``--external`` engines a server offers: their specs, and which search a think gets.

The spec's grammar (:func:`parse_external`)::

    GAME[:NAME]=uci|gtp|cmd:COMMAND [ARGS...][?Option=Value[&Option=Value...]]

``uci`` engines play chess, ``gtp`` engines Go
(``go=gtp:/usr/games/gnugo --mode gtp``), ``cmd`` bots any game
(``connect4:ana=cmd:python3 ana.py``: the JSON-lines protocol of
docs/bots.md; the whole rest is the command, no options). Without ``NAME`` the engine
becomes the game's default search, offered under the program's file name
(``stockfish``); with it, it is offered as one more algorithm ``NAME``
that a client picks with ``think.algorithm``. Options are sent with
``setoption`` after the handshake (``uci:stockfish?Skill Level=5&Hash=16``),
once checked against the options the engine declares
(:func:`server.programs.uci.handshake`). A spec holding a control
character is refused: a newline in a value would be a second command.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from engine.registry import GAMES, create_game
from engine.searchers import algorithms
from server.programs import bots
from server.programs.process import has_control_characters

#: Protocols an external engine may speak, and the games each can play.
PROTOCOL_GAMES: Final = {
    "uci": frozenset({"chess"}),
    "gtp": frozenset({"go"}),
    "cmd": frozenset(GAMES),
}
#: The protocols whose programs are given the clock and keep their own time
#: (UCI's wtime/btime, GTP's time_left), as cutechess and GoGui give it; a
#: ``cmd:`` bot is given a budget planned by the server (docs/bots.md).
OWN_CLOCK: Final = frozenset({"uci", "gtp"})


@dataclass(frozen=True, slots=True)
class ExternalEngine:
    """An engine program offered for a game, and how to start it."""

    game: str
    name: str
    protocol: str
    argv: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    #: The game's default search (no name was given in the spec).
    default: bool = True
    #: A ``cmd:`` bot's log file (its stderr, and why answers were refused).
    log_path: str | None = None


def parse_external(spec: str) -> ExternalEngine:
    """An :class:`ExternalEngine` from ``--external``'s text; ``ValueError`` says what is wrong."""
    if has_control_characters(spec):
        # A newline in an option's value would be a second command to the engine.
        raise ValueError(f"an engine spec may hold no control character: {spec!r}")
    target, sep, program = spec.partition("=")
    if not sep or not program:
        raise ValueError(f"expected GAME[:NAME]=uci|gtp|cmd:COMMAND, got {spec!r}")
    game, _, name = target.partition(":")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: one of {', '.join(sorted(GAMES))}")
    protocol, sep, command = program.partition(":")
    if not sep or protocol not in PROTOCOL_GAMES:
        raise ValueError(f"the engine's protocol must be one of {', '.join(PROTOCOL_GAMES)}")
    if game not in PROTOCOL_GAMES[protocol]:
        raise ValueError(f"a {protocol} engine plays {', '.join(PROTOCOL_GAMES[protocol])}")
    query = ""
    if protocol != "cmd":
        command, _, query = command.partition("?")
    argv = tuple(shlex.split(command))
    if not argv:
        raise ValueError(f"no command to start in {spec!r}")
    options = []
    for pair in filter(None, query.split("&")):
        option, sep, value = pair.partition("=")
        if not sep or not option.strip():
            raise ValueError(f"an engine option is Option=Value, got {pair!r}")
        if " value " in f" {option.strip()} ":
            raise ValueError(f"an option's name may not hold the word 'value': {option!r}")
        options.append((option.strip(), value.strip()))
    if options and protocol == "gtp":
        raise ValueError("a gtp engine takes no options (GTP has none): give them as arguments")
    label = name or (bots.default_name(argv) if protocol == "cmd" else Path(argv[0]).name)
    if label in algorithms(create_game(game)):
        raise ValueError(f"{label!r} is already one of {game}'s own searches: name it otherwise")
    log = bots.log_path(label) if protocol == "cmd" else None
    return ExternalEngine(game, label, protocol, argv, tuple(options), not name, log)


def check_externals(engines: Iterable[ExternalEngine]) -> tuple[ExternalEngine, ...]:
    """The engines, refused when two share a name or a game has two defaults."""
    found: dict[tuple[str, str], ExternalEngine] = {}
    defaults: set[str] = set()
    for engine in engines:
        if (engine.game, engine.name) in found:
            raise ValueError(f"two engines are named {engine.name!r} for {engine.game}")
        if engine.default and engine.game in defaults:
            raise ValueError(f"{engine.game} has two default engines: name one (GAME:NAME=...)")
        found[engine.game, engine.name] = engine
        if engine.default:
            defaults.add(engine.game)
    return tuple(found.values())


def offered_algorithms(
    game: str, own: Sequence[str], engines: Iterable[ExternalEngine]
) -> list[str]:
    """The searches ``game`` offers on this server, its default first.

    ``own`` are the engine's (:func:`engine.searchers.algorithms`); an
    external default comes before them, other external engines after.
    """
    mine = [engine for engine in engines if engine.game == game]
    defaults = [engine.name for engine in mine if engine.default]
    others = [engine.name for engine in mine if not engine.default]
    return defaults + list(own) + others


def find_external(
    engines: Iterable[ExternalEngine], game: str, algorithm: str
) -> ExternalEngine | None:
    for engine in engines:
        if engine.game == game and engine.name == algorithm:
            return engine
    return None

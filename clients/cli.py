"""The ``arena`` command: one subcommand per function pair.

Each subcommand is a :class:`Command`: a function that adds its options to
an ``argparse`` parser and a function that runs it and returns the exit
status. Adding one (``tournament``, ``loadtest``) means writing those two
functions and one entry in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from clients.client import DEFAULT_URL, EngineError


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# ----------------------------------------------------------------------
# arena serve


def configure_serve(parser: argparse.ArgumentParser) -> None:
    from server.app import add_arguments

    add_arguments(parser)


def run_serve(args: argparse.Namespace) -> int:
    from server.app import run_from_args

    return run_from_args(args)


# ----------------------------------------------------------------------
# arena play


def configure_play(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    parser.add_argument("--game", default="connect4", help="game name (default connect4)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="game option, value in JSON (e.g. width=8, heaps=[1,2,3]); repeatable",
    )
    parser.add_argument("--position", help="start position in the game's notation")
    parser.add_argument(
        "--movetime", type=int, default=1000, metavar="MS",
        help="engine thinking time per move in milliseconds (default 1000)",
    )
    parser.add_argument(
        "--engine-first", action="store_true", help="let the engine make the first move"
    )
    parser.add_argument(
        "--watch", action="store_true", help="engine against itself; you only watch"
    )
    parser.add_argument("--json", action="store_true", help="speak JSON instead of msgpack")


def run_play(args: argparse.Namespace) -> int:
    from clients.play import play

    try:
        options = parse_options(args.option)
    except ValueError as error:
        print(f"arena play: {error}", file=sys.stderr)
        return 2
    human = 2 if args.watch else (1 if args.engine_first else 0)
    try:
        return asyncio.run(
            play(
                args.url, args.game, options=options, position=args.position,
                movetime_ms=args.movetime, human=human,
                encoding="json" if args.json else "msgpack",
            )
        )
    except EngineError as error:
        print(f"arena play: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"arena play: cannot reach {args.url}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["width=8", "misere=true"]`` -> ``{"width": 8, "misere": True}``; values are JSON."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"option {pair!r} is not NAME=VALUE")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text  # a bare word is a string
    return options


# ----------------------------------------------------------------------
# arena tournament


def configure_tournament(parser: argparse.ArgumentParser) -> None:
    from clients.tournament.command import configure

    configure(parser)


def run_tournament(args: argparse.Namespace) -> int:
    from clients.tournament.command import run

    return run(args)


# ----------------------------------------------------------------------
# arena loadtest


def configure_loadtest(parser: argparse.ArgumentParser) -> None:
    from clients.loadtest import configure

    configure(parser)


def run_loadtest(args: argparse.Namespace) -> int:
    from clients.loadtest import run

    return run(args)


# ----------------------------------------------------------------------
# The command table.

COMMANDS: tuple[Command, ...] = (
    Command("serve", "run the engine server", configure_serve, run_serve),
    Command("play", "play a game against the engine in the terminal", configure_play, run_play),
    Command("loadtest", "load-test a server on this machine with scripted clients",
            configure_loadtest, run_loadtest),
    Command("tournament", "run a tournament between engine servers", configure_tournament,
            run_tournament),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="alphabeta-arena: a game-engine server and its clients."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

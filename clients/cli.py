"""The ``arena`` command: one subcommand per function pair.

Each subcommand is a :class:`Command`: a function that adds its options to
an ``argparse`` parser and a function that runs it and returns the exit
status. Adding one (``tournament``, ``loadtest``) means writing those two
functions and one entry in :data:`COMMANDS`.

A user error ends a command with one line on stderr, ``arena <command>:
...``, and a non-zero status: 2 for bad options, 1 (or the command's own
status) for what happened while running. An exception a command did not
word itself is reported the same way; its traceback is shown only with
``--log-level debug`` (``arena serve``) or ``ARENA_DEBUG=1`` in the
environment. ``--token`` of ``play``, ``loadtest`` and ``tournament``
defaults to ``$ARENA_TOKEN``, as ``arena serve --token`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from clients.client import DEFAULT_URL, EngineError


class ArenaParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``arena play: error: ... (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def game_names() -> list[str]:
    """The games the engine knows, for help texts."""
    from engine.registry import describe_games

    return [game["name"] for game in describe_games()]


def token_default() -> str | None:
    """``$ARENA_TOKEN``, the default of every ``--token``; empty counts as unset."""
    return os.environ.get("ARENA_TOKEN") or None


TOKEN_HELP = "the server's shared secret (default: $ARENA_TOKEN; none: no token)"


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# ----------------------------------------------------------------------
# arena serve


def configure_serve(parser: argparse.ArgumentParser) -> None:
    from server.cli import add_arguments

    add_arguments(parser)


def run_serve(args: argparse.Namespace) -> int:
    from server.cli import run_from_args

    return run_from_args(args)


# ----------------------------------------------------------------------
# arena play


def configure_play(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url", default=DEFAULT_URL, metavar="URL", help=f"server URL (default {DEFAULT_URL})"
    )
    parser.add_argument(
        "--game",
        default="connect4",
        metavar="GAME",
        help=f"one of {', '.join(game_names())} (default connect4)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="game option, value in JSON (e.g. width=8, heaps=[1,2,3]); repeatable",
    )
    parser.add_argument(
        "--position", metavar="POSITION", help="start position in the game's notation"
    )
    parser.add_argument(
        "--movetime",
        type=positive_int,
        default=None,
        metavar="MS",
        help="engine thinking time per move in milliseconds (default 1000 unless --depth)",
    )
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=None,
        metavar="N",
        help="engine search depth per move (with --movetime: whichever comes first)",
    )
    parser.add_argument(
        "--algorithm",
        default=None,
        metavar="NAME",
        help="the engine's search: any the server's welcome lists for the game "
        "(alphabeta, expectiminimax, mcts, or an external program such as sf5; "
        "default: the game's own)",
    )
    parser.add_argument(
        "--pgn", metavar="FILE", help="append each chess game played to FILE as PGN"
    )
    parser.add_argument("--sgf", metavar="FILE", help="append each Go game played to FILE as SGF")
    parser.add_argument(
        "--engine-first",
        action="store_true",
        help="you play the second side, the engine the first (in backgammon the opening"
        " roll still decides who moves first)",
    )
    parser.add_argument(
        "--watch", action="store_true", help="engine against itself; you only watch"
    )
    parser.add_argument("--json", action="store_true", help="speak JSON instead of msgpack")
    parser.add_argument("--token", default=token_default(), metavar="TOKEN", help=TOKEN_HELP)


def run_play(args: argparse.Namespace) -> int:
    from clients.play import play

    try:
        options = parse_options(args.option)
    except ValueError as error:
        print(f"arena play: {error}", file=sys.stderr)
        return 2
    if args.pgn and args.game != "chess":
        # It was ignored without a word (a review of 2026-12-07); arena
        # tournament refuses it the same way.
        print(f"arena play: --pgn records chess games only, not {args.game}", file=sys.stderr)
        return 2
    if args.sgf and args.game != "go":
        print(f"arena play: --sgf records Go games only, not {args.game}", file=sys.stderr)
        return 2
    for flag, path in (("--pgn", args.pgn), ("--sgf", args.sgf)):
        # Checked now, not when the game is saved: a path in no folder was
        # found at the end, the game lost and the error said the server
        # could not be reached (a review in tmux, 2026-12-07).
        problem = pgn_path_problem(path) if path else None
        if problem is not None:
            print(f"arena play: {flag} {path}: {problem}", file=sys.stderr)
            return 2
    if sys.stdin.isatty():
        # Line editing and recall at the move prompt (the arrows wrote
        # escape codes into the move: a review in tmux, 2026-12-07).
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401
    human = 2 if args.watch else (1 if args.engine_first else 0)

    async def session() -> int:
        # SIGTERM and a closed terminal (SIGHUP) end the game as Ctrl-C does,
        # its --pgn saved: they left without it (a re-review, 2026-12-07).
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        ended: list[int] = []
        for number in (signal.SIGTERM, signal.SIGHUP):

            def end(number: int = number) -> None:
                ended.append(number)
                if task is not None:
                    task.cancel()

            loop.add_signal_handler(number, end)
        try:
            return await play(
                args.url,
                args.game,
                options=options,
                position=args.position,
                movetime_ms=args.movetime,
                depth=args.depth,
                algorithm=args.algorithm,
                pgn=args.pgn or args.sgf,
                human=human,
                encoding="json" if args.json else "msgpack",
                token=args.token,
            )
        except asyncio.CancelledError:
            if ended:
                return 128 + ended[0]
            raise

    # The terminal as it was: a server gone while a line was being edited
    # left readline's settings behind.
    saved = _terminal_settings()
    try:
        return asyncio.run(session())
    except EngineError as error:
        print(f"arena play: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"arena play: {describe_error(error, args.url, bool(args.token))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        _restore_terminal(saved)


def _terminal_settings() -> list[Any] | None:
    """The terminal's settings on stdin, to put back at the end; ``None`` off a terminal."""
    try:
        import termios

        return termios.tcgetattr(sys.stdin.fileno()) if sys.stdin.isatty() else None
    except (ImportError, OSError, ValueError):
        return None


def _restore_terminal(saved: list[Any] | None) -> None:
    if saved is None:
        return
    with contextlib.suppress(ImportError, OSError, ValueError):
        import termios

        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


def pgn_path_problem(path: str) -> str | None:
    """Why games cannot be appended to ``path`` (``None``: they can)."""
    target = os.path.abspath(path)
    if os.path.isdir(target):
        return "is a folder, not a file"
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        return f"no folder {folder}"
    if os.path.exists(target):
        return None if os.access(target, os.W_OK) else "the file cannot be written"
    return None if os.access(folder, os.W_OK) else f"cannot write in {folder}"


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
# arena bot


def configure_bot(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="FILE.py[:NAME]",
        help="the bot: a function (position in, move out; clients.bot), a Bot class, or the "
        "function marked @bot / named choose when NAME is left out",
    )
    parser.add_argument(
        "--game",
        default="connect4",
        metavar="GAME",
        help=f"one of {', '.join(game_names())} (default connect4)",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--port",
        type=int,
        metavar="PORT",
        help="serve the bot as an engine server on PORT (protocol.md): the game's default search",
    )
    where.add_argument(
        "--versus",
        metavar="ENGINE",
        help="play a match against ENGINE, a tournament engine spec (e.g. local:depth=4)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", metavar="HOST", help="with --port: address to bind"
    )
    parser.add_argument(
        "--games", type=positive_int, default=2, metavar="N", help="with --versus (default 2)"
    )
    parser.add_argument(
        "--movetime",
        type=positive_int,
        default=1000,
        metavar="MS",
        help="with --versus: time per move (default 1000)",
    )


def run_bot(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    path = Path(args.target.partition(":")[0])
    if not path.is_file():
        print(f"arena bot: no bot file {str(path)!r}", file=sys.stderr)
        return 2
    target = str(path.resolve()) + (
        ":" + args.target.partition(":")[2] if ":" in args.target else ""
    )
    command = shlex.join([sys.executable, "-P", "-m", "clients.bot", target])
    if ":" not in args.target:
        # Run as a --bots folder runs it: a bot with a loop of its own (the
        # README's examples/bots/connect4.py) is a program, not a function.
        # Run by clients.bot it played, then every copy's log said the file
        # had no choose function (a review, 2026-12-07).
        from clients.tournament.bots import bot_command
        from clients.tournament.config import ConfigError

        try:
            found = bot_command(path.resolve())
        except ConfigError as error:
            print(f"arena bot: {error}", file=sys.stderr)
            return 2
        if found is None:
            print(
                f"arena bot: {path} is no bot: it has no choose function (docs/bots.md)"
                " and reads no requests",
                file=sys.stderr,
            )
            return 2
        command = found
    if args.port is not None:
        from server.cli import add_arguments, run_from_args

        parser = ArenaParser(prog="arena bot")
        add_arguments(parser)
        spec = f"{args.game}=cmd:{command}"
        serve = ["--host", args.host, "--port", str(args.port), "--external", spec]
        return run_from_args(parser.parse_args(serve), prog="arena bot")
    import tempfile

    from clients.tournament.command import configure, run

    if "," in command:
        print("arena bot: the bot's path may hold no comma", file=sys.stderr)
        return 2
    parser = ArenaParser(prog="arena bot")
    configure(parser)
    parser.set_defaults(bot_match=True)  # one bot's match: no tournament words
    match = [
        "--game",
        args.game,
        "--engine",
        f"name={path.stem},cmd={command}",
        "--engine",
        args.versus,
        "--games",
        str(args.games),
        "--movetime",
        str(args.movetime),
    ]
    with tempfile.TemporaryDirectory(prefix="arena-bot-") as records:
        match += ["--db", str(Path(records) / "match.db")]
        namespace = parser.parse_args(match)
        namespace.prog_name = "arena bot"  # its messages are this command's
        return run(namespace)


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

# ----------------------------------------------------------------------
# arena gtp


def probability(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{value:g} is not between 0 and 1")
    return value


def configure_gtp(parser: argparse.ArgumentParser) -> None:
    from server.frontends.gtp import DEFAULT_MOVETIME_MS, DEFAULT_RESIGN_BELOW

    parser.description = (
        "Speak the Go Text Protocol (GTP 2) on stdin and stdout, for GoGui, Sabaki, "
        "GNU Go's twogtp and other controllers; the search runs in a worker process, "
        "as the server's do."
    )
    parser.add_argument(
        "--algorithm",
        choices=("mcts", "alphabeta"),
        default=None,
        help="the search (default mcts, Go's own)",
    )
    parser.add_argument(
        "--movetime",
        type=positive_int,
        default=DEFAULT_MOVETIME_MS,
        metavar="MS",
        help="search time per move when the controller sets no time "
        f"(default {DEFAULT_MOVETIME_MS})",
    )
    parser.add_argument(
        "--playouts",
        type=positive_int,
        default=None,
        metavar="N",
        help="search a fixed number of playouts (nodes for alphabeta) per move instead of a time",
    )
    parser.add_argument(
        "--resign-below",
        type=probability,
        default=DEFAULT_RESIGN_BELOW,
        metavar="P",
        help=f"resign when the chance of winning is below P (default {DEFAULT_RESIGN_BELOW}; "
        "0 never resigns)",
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=1,
        metavar="N",
        help="search each move in N processes at once, the Monte Carlo trees' root "
        "statistics pooled (root parallelism; default 1): at most the cores the "
        "engine may have to itself",
    )


def run_gtp(args: argparse.Namespace) -> int:
    from server.frontends.gtp import GtpEngine, serve

    engine = GtpEngine(
        algorithm=args.algorithm,
        movetime_ms=args.movetime,
        playouts=args.playouts,
        resign_below=args.resign_below,
        threads=args.threads,
    )
    return serve(engine)


def configure_uci(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Speak the Universal Chess Interface (UCI) on stdin and stdout, for chess GUIs, "
        "cutechess-cli, fastchess and python-chess; the search runs in a worker process, "
        "as the server's do, so isready and stop are answered while it thinks. Options "
        "(Hash, Move Overhead) are set with UCI's setoption."
    )


def run_uci(args: argparse.Namespace) -> int:
    from server.frontends.uci import serve

    return serve()


COMMANDS: tuple[Command, ...] = (
    Command("serve", "run the engine server", configure_serve, run_serve),
    Command("play", "play a game against the engine in the terminal", configure_play, run_play),
    Command(
        "loadtest",
        "load-test a server on this machine with scripted clients",
        configure_loadtest,
        run_loadtest,
    ),
    Command(
        "tournament",
        "run a tournament between engine servers",
        configure_tournament,
        run_tournament,
    ),
    Command(
        "bot",
        "serve a Python function as an engine, or play it against one (docs/bots.md)",
        configure_bot,
        run_bot,
    ),
    Command("gtp", "be a Go engine for GTP controllers (stdin/stdout)", configure_gtp, run_gtp),
    Command("uci", "be a chess engine for UCI GUIs (stdin/stdout)", configure_uci, run_uci),
)


def version() -> str:
    """The version of this source tree (``server.SERVER_VERSION``, the package's version).

    Not the installed metadata's: an editable install keeps the version it
    was installed with.
    """
    from server import SERVER_VERSION

    return SERVER_VERSION


def build_parser() -> argparse.ArgumentParser:
    parser = ArenaParser(
        prog="arena", description="alphabeta-arena: a game-engine server and its clients."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub)
        sub.set_defaults(run=command.run)
    return parser


#: What a handshake refused with HTTP 401 means, without and with a token sent.
NEEDS_TOKEN = "the server needs a token: use --token or ARENA_TOKEN"
WRONG_TOKEN = "the server refused the token: check --token or ARENA_TOKEN"


def describe_error(error: BaseException, url: str | None = None, token_sent: bool = False) -> str:
    """One line for an error a command could not handle itself."""
    from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

    if isinstance(error, InvalidStatus) and error.response.status_code == 401:
        return WRONG_TOKEN if token_sent else NEEDS_TOKEN
    if isinstance(error, InvalidStatus) and error.response.status_code == 403:
        return "the server refused the connection (403): wrong token or origin"
    if isinstance(error, InvalidStatus):
        return f"the server refused the connection: HTTP {error.response.status_code}"
    if isinstance(error, InvalidURI):
        return f"{error.uri!r} is not a WebSocket URL (ws://host:port/ws or wss://...)"
    if isinstance(error, InvalidHandshake):
        return f"the WebSocket handshake failed: {error}"
    if isinstance(error, EngineError):
        return f"{error.code}: {error.message}"
    from engine.errors import GameError

    if isinstance(error, GameError):
        # Read on this side (a chess position for the SAN notation): the same
        # words as the server's refusal, not the class's name.
        return f"{error.code}: {error}"
    where = f"cannot reach {url}: " if url else ""
    refused = getattr(error, "errno", None) == errno.ECONNREFUSED
    if isinstance(error, ConnectionRefusedError) or refused:
        return f"{where}nothing is listening there (is arena serve running?)"
    if isinstance(error, TimeoutError):
        return f"{where}timed out"
    if isinstance(error, OSError):
        return f"{where}{error.strerror or error}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        # An unknown flag is the command's to refuse: "arena play: error: ...
        # (see arena play --help)", where it said "arena: error" (the review
        # of 2026-12-06).
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(extras)}")
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a user error a command did not word itself
        if getattr(args, "log_level", None) == "debug" or os.environ.get("ARENA_DEBUG"):
            raise
        line = describe_error(error, getattr(args, "url", None), bool(getattr(args, "token", None)))
        print(f"arena {args.command}: {line}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())

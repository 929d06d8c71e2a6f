"""``arena tournament``: its options and how it runs.

A new tournament is defined by the options and written to ``--db`` before
the first game; ``--resume`` continues the database's tournament with the
settings stored in it (only the run options below ``Running`` apply).

Before anything is played (and, for a new tournament, before the database
is written) every engine must answer ``hello``; if one does not, the
command prints one line naming it and why, and exits with status 3. So
does a local server (for ``url=local`` engines) that does not start, and
a database this run created is then removed: nothing is left behind.

Why one module: one command's options: most of the length (over 600 lines)
is the help text of ``arena tournament``'s options, kept beside the code
that reads them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path

from clients.tournament.bots import (
    DEFAULT_REFERENCE_DEPTHS,
    bot_digests,
    bot_summary,
    changed_bots,
    commands_now,
    folder_engines,
    log_sizes,
    reference_engines,
    skipped_files,
)
from clients.tournament.config import (
    DEFAULT_GRACE_MS,
    DEFAULT_MARGIN_MS,
    DEFAULT_MOVE_TIMEOUT_MS,
    DEFAULT_REQUEST_TIMEOUT_MS,
    Adjudication,
    ConfigError,
    OpeningSource,
    TimeControl,
    Timing,
    TournamentConfig,
    parse_clock,
    parse_draw_rule,
    parse_engine,
    parse_pairs,
    parse_resign_rule,
    parse_sprt,
    program_game,
    unique_names,
)
from clients.tournament.connections import Backoff, PreflightError, preflight
from clients.tournament.knockout import TIEBREAK_PAIRS
from clients.tournament.live import LiveTournament
from clients.tournament.local import LocalServer, LocalServerError
from clients.tournament.openings import DEFAULT_RANDOM_PLIES, OPENING_FORMATS
from clients.tournament.records import EPD_GAMES, RECORD_SUFFIXES
from clients.tournament.runner import (
    RunSettings,
    TournamentAborted,
    TournamentRunner,
    create_tournament,
    warn_if_pure,
)
from clients.tournament.store import Store, StoreError
from clients.tournament.web import LivePage, parse_web_address
from engine.errors import GameError

DEFAULT_DB = "tournament.db"
#: Exit status when an engine does not answer ``hello`` before the first game.
EXIT_PREFLIGHT = 3


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "engines: --engine 'name=NAME,url=ws://HOST:PORT/ws,depth=D,nodes=N,movetime=MS,"
        "algorithm=A,token=T'\n"
        "         --engine local:depth=4   (a local server is started for url=local engines)\n"
        "         url=ws://A/ws|ws://B/ws  one engine on several servers (e.g. the instances of\n"
        "         a cluster): its games go to them in turn; quote the spec, | is a shell pipe\n"
        "         algorithm= alphabeta, expectiminimax or mcts (default: the game's own)\n"
        "         token= (no commas) is that server's secret; --token is every other remote\n"
        "         engine's; tokens are not stored: give --token again with --resume\n"
        "         --engine 'name=ana,cmd=python3 ana.py,game=connect4'  a program the local\n"
        "         server runs: a cmd bot (docs/bots.md), or proto=uci|gtp with option.X=V\n"
        "         --bots DIR  every bot in DIR (.py, .js, executables), named after its file,\n"
        "         plus reference engines (--reference DEPTHS, default 2,4; none for none)\n"
        "example: arena tournament --game connect4 --engine local:depth=3 "
        "--engine local:depth=6 --tc 5+0.05 --games 20 --concurrency 2\n"
        "         arena tournament --game connect4 --bots class/ --movetime 500\n"
        "         arena tournament --game chess --knockout --engine local:depth=4 "
        "--engine local:depth=3 --engine local:depth=2 --tc 10+0.1 -q --rating-interval 4"
    )
    what = parser.add_argument_group("Tournament (ignored with --resume)")
    from clients.cli import game_names

    what.add_argument(
        "--game",
        default="connect4",
        metavar="GAME",
        help=f"one of {', '.join(game_names())} (default connect4)",
    )
    what.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="game option, value in JSON; repeatable",
    )
    what.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="SPEC",
        help="an engine (at least two); see below",
    )
    what.add_argument(
        "--bots",
        metavar="DIR",
        help="every bot in DIR is an entrant (docs/bots.md), with reference engines",
    )
    what.add_argument(
        "--reference",
        default=",".join(str(depth) for depth in DEFAULT_REFERENCE_DEPTHS),
        metavar="DEPTHS",
        help="with --bots: our engine at these depths joins (default %(default)s; none: none)",
    )
    what.add_argument(
        "--games",
        type=int,
        default=2,
        metavar="N",
        help="games per pairing, or per match of a knockout (default 2: one opening, both colours)",
    )
    what.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first engine plays every other; others do not meet",
    )
    what.add_argument(
        "--knockout",
        action="store_true",
        help="a knockout: seeded in --engine order, byes for the top seeds, matches of "
        f"--games games; a tie plays up to {TIEBREAK_PAIRS} more pairs, then the higher "
        "seed goes through",
    )
    what.add_argument(
        "--name", default="arena tournament", metavar="NAME", help="event name (PGN, records)"
    )
    what.add_argument(
        "--seed", type=int, default=1, metavar="N", help="seed for generated openings (default 1)"
    )
    tc = parser.add_argument_group("Time control (any combination; at least one)")
    tc.add_argument(
        "--tc",
        metavar="[MOVES/]BASE[+INC]",
        help="clock in seconds, e.g. 10+0.1 or 40/60; kept by the referee",
    )
    tc.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move")
    tc.add_argument("--depth", type=int, metavar="PLIES", help="depth per move")
    tc.add_argument("--nodes", type=int, metavar="N", help="nodes per move")
    tc.add_argument(
        "--margin",
        type=int,
        default=DEFAULT_MARGIN_MS,
        metavar="MS",
        help=f"a move later than time left + MARGIN loses on time (default {DEFAULT_MARGIN_MS})",
    )
    tc.add_argument(
        "--grace",
        type=int,
        default=DEFAULT_GRACE_MS,
        metavar="MS",
        help="the watchdog waits time left + margin + GRACE for an answer "
        f"(default {DEFAULT_GRACE_MS})",
    )
    tc.add_argument(
        "--move-timeout",
        type=int,
        default=DEFAULT_MOVE_TIMEOUT_MS,
        metavar="MS",
        help=f"watchdog for moves without a time limit (default {DEFAULT_MOVE_TIMEOUT_MS})",
    )
    tc.add_argument(
        "--request-timeout",
        type=int,
        default=DEFAULT_REQUEST_TIMEOUT_MS,
        metavar="MS",
        help="wait at most MS for a connection and hello, new_game or move "
        f"(default {DEFAULT_REQUEST_TIMEOUT_MS})",
    )
    openings = parser.add_argument_group(
        "Openings (each is played twice, colours swapped, unless --repeat 1)"
    )
    openings.add_argument(
        "--openings",
        metavar="FILE",
        help="openings file: one position or move sequence per line "
        "('POSITION moves M..'), PGN (.pgn) or EPD (.epd); also "
        "cutechess-style 'file=FILE,format=pgn|epd|lines,plies=N,"
        "order=random|sequential'",
    )
    openings.add_argument(
        "--openings-format",
        choices=OPENING_FORMATS,
        default=None,
        help="the file's format (default auto: by its suffix)",
    )
    openings.add_argument(
        "--opening-plies",
        type=int,
        metavar="N",
        help="use at most N moves of each opening from the file",
    )
    openings.add_argument(
        "--repeat",
        type=int,
        choices=(1, 2),
        default=2,
        metavar="N",
        help="games from each opening: 2 (default) both colours, the second swapped, scored"
        " as pairs; 1 each opening once, colours alternating (cutechess-cli without -repeat)",
    )
    openings.add_argument(
        "--shuffle-openings",
        action="store_true",
        help="play the openings (the file's, or chess's built-in ones) in a seeded random order",
    )
    openings.add_argument(
        "--random-plies",
        type=int,
        default=None,
        metavar="N",
        help="without a file: N random plies, balance-checked (0 = initial position; "
        "default: chess plays its built-in named openings, go the empty board, "
        f"other games {DEFAULT_RANDOM_PLIES} random plies)",
    )
    openings.add_argument(
        "--balance-depth",
        type=int,
        default=4,
        metavar="PLIES",
        help="search depth of the balance check (default 4)",
    )
    openings.add_argument(
        "--balance-score",
        type=int,
        default=100,
        metavar="SCORE",
        help="keep random openings scored within ±SCORE (default 100)",
    )
    rules = parser.add_argument_group("Adjudication and SPRT (scores in the game's unit)")
    rules.add_argument(
        "--draw",
        metavar="after=PLY,count=N,score=S",
        help="draw when both engines' last N scores are within ±S after PLY",
    )
    rules.add_argument(
        "--resign",
        metavar="count=N,score=S",
        help="a win when both engines' last N scores agree beyond S",
    )
    rules.add_argument("--max-plies", type=int, metavar="N", help="draw at N plies")
    rules.add_argument(
        "--sprt",
        metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
        help="stop the match (two engines) when the SPRT decides",
    )
    run = parser.add_argument_group("Running")
    run.add_argument(
        "--db", default=DEFAULT_DB, metavar="FILE", help=f"results database (default {DEFAULT_DB})"
    )
    run.add_argument("--resume", action="store_true", help="continue the tournament in --db")
    run.add_argument(
        "--concurrency", type=int, default=1, metavar="K", help="games played at once (default 1)"
    )
    run.add_argument(
        "--local-workers",
        type=int,
        metavar="K",
        help="search processes of the local server (default: --concurrency + 1: one per "
        "game and a spare)",
    )
    run.add_argument(
        "--jsonl",
        metavar="FILE",
        help="JSON Lines game records (default: the database name + .jsonl)",
    )
    run.add_argument(
        "--pgn",
        metavar="FILE",
        help="PGN file for chess, SGF for Go (default: the database name + .pgn or .sgf)",
    )
    run.add_argument(
        "--epdout",
        metavar="FILE",
        help="chess: each game's final position as an EPD line in FILE",
    )
    run.add_argument(
        "--reconnect-attempts",
        type=int,
        default=6,
        metavar="N",
        help="connection attempts before an engine forfeits a game (default 6)",
    )
    run.add_argument(
        "--reconnect-delay",
        type=float,
        default=0.25,
        metavar="S",
        help="first pause between attempts, doubling up to 4 s (default 0.25)",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no line per game: only the tables")
    run.add_argument(
        "--rating-interval",
        type=int,
        default=0,
        metavar="N",
        help="print the standings every N games (as cutechess-cli's -ratinginterval; "
        "also with --quiet; default 0: only at the end)",
    )
    run.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        help="serve a live page (standings, crosstable, Elo, the games, bots' logs) on PORT "
        "for every machine (HOST:PORT: only there); it stays up after the last game "
        "until Ctrl-C",
    )
    run.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN") or None,
        metavar="TOKEN",
        help="shared secret of the remote engines' servers, for engines without "
        "token= (default: $ARENA_TOKEN)",
    )


def openings_from_args(args: argparse.Namespace) -> OpeningSource:
    """The openings options, ``--openings FILE`` or ``--openings file=FILE,format=...``."""
    path = args.openings
    format = args.openings_format or "auto"
    plies = args.opening_plies
    shuffle = args.shuffle_openings
    if path is not None and path.startswith("file="):
        values = parse_pairs(path, ("file", "format", "plies", "order"))
        path = values.get("file") or None
        if path is None:
            raise ConfigError("--openings: file= names no file")
        format = values.get("format", format)
        if "plies" in values:
            try:
                plies = int(values["plies"])
            except ValueError:
                raise ConfigError(
                    f"--openings: plies={values['plies']!r} is not a number"
                ) from None
        order = values.get("order", "random" if shuffle else "sequential")
        if order not in ("random", "sequential"):
            raise ConfigError(f"--openings: order must be random or sequential, not {order!r}")
        shuffle = order == "random"
    if format not in OPENING_FORMATS:
        raise ConfigError(f"--openings: format must be one of {', '.join(OPENING_FORMATS)}")
    if plies is not None and plies < 0:
        raise ConfigError("--opening-plies must be at least 0")
    return OpeningSource(
        path=None if path is None else str(Path(path).resolve()),
        random_plies=args.random_plies,
        balance_depth=args.balance_depth,
        balance_score=args.balance_score,
        shuffle=shuffle,
        format=format,
        plies=plies,
    )


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The tournament the options describe; raises :class:`ConfigError`."""
    from clients.cli import parse_options

    try:
        options = parse_options(args.option)
        json.dumps(options, allow_nan=False)
    except ValueError as error:
        raise ConfigError(f"--option: {error}") from None
    base_ms = inc_ms = 0
    moves = None
    if args.tc is not None:
        base_ms, inc_ms, moves = parse_clock(args.tc)
    for name in ("movetime", "depth", "nodes", "games", "concurrency", "request_timeout"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
    adjudication = Adjudication(max_plies=args.max_plies)
    if args.draw:
        adjudication = replace(adjudication, **parse_draw_rule(args.draw))
    if args.resign:
        adjudication = replace(adjudication, **parse_resign_rule(args.resign))
    engines = []
    for text in args.engine:
        named = program_game(text)
        if named is not None and named != args.game:
            raise ConfigError(f"engine {text!r} plays {named}, the tournament {args.game}")
        engines.append(parse_engine(text))
    if args.bots is not None:
        students, references = folder_engines(args.bots), reference_engines(args.reference)
        # A student's "reference d2.py" took the reference engine's name, and
        # ours became "reference d2 #2" (a review of 2026-12-07).
        taken = {engine.name for engine in references} | {engine.name for engine in engines}
        for student in students:
            if student.name in taken:
                raise ConfigError(
                    f"--bots {args.bots}: a bot file would enter as {student.name!r}, the name"
                    " of another engine of the tournament: rename the file"
                )
        engines += students + references
        for name, why in skipped_files(args.bots):
            print(f"{_prog(args)}: skipped {name}: {why}", file=sys.stderr)
    config = TournamentConfig(
        game=args.game,
        engines=tuple(unique_names(engines)),
        time_control=TimeControl(
            base_ms=base_ms if args.tc is not None else None,
            inc_ms=inc_ms,
            moves=moves,
            movetime_ms=args.movetime,
            depth=args.depth,
            nodes=args.nodes,
        ),
        options=options,
        games_per_pair=args.games,
        repeat=args.repeat,
        gauntlet=args.gauntlet,
        knockout=args.knockout,
        openings=openings_from_args(args),
        adjudication=adjudication,
        timing=Timing(
            margin_ms=args.margin,
            grace_ms=args.grace,
            move_timeout_ms=args.move_timeout,
            request_timeout_ms=args.request_timeout,
        ),
        sprt=None if args.sprt is None else parse_sprt(args.sprt),
        seed=args.seed,
        name=args.name,
    )
    config.validate()
    return config


def run(args: argparse.Namespace) -> int:
    """Create or resume the tournament, play it, print the tables; the exit status."""
    engine_tokens: dict[str, str] = {}
    created = False
    try:
        if args.local_workers is not None and args.local_workers < 1:
            raise ConfigError("--local-workers must be at least 1")
        web = None if args.web is None else parse_web_address(args.web)
        if args.rating_interval < 0:
            raise ConfigError("--rating-interval must be at least 0")
        _check_output_folders(args)
        if args.resume:
            store = Store.open(args.db)
            config = store.config()
            for line in changed_bots(store.bot_digests(), bot_digests(list(config.engines))):
                print(f"{_prog(args)}: {line}", file=sys.stderr)
            # The files are kept as played once the local server has started
            # them (_Session.run): a resume that could not start a bot kept
            # its broken file's digest, and the next resume, with the file
            # put back as it was, called it changed (a review, 2026-12-07).
            if args.epdout and config.game not in EPD_GAMES:
                store.close()
                _check_epdout(args, config.game)
            # The EPD file the tournament was given, rewritten as the JSON
            # Lines and PGN files are: it has no default name, and a resume
            # without --epdout left it stale (a review, 2026-12-07).
            if args.epdout:
                store.set_epd_path(str(Path(args.epdout).resolve()))
            else:
                args.epdout = store.epd_path()
        else:
            config = config_from_args(args)
            _check_epdout(args, config.game)
            engine_tokens = config.tokens()
            if not Path(args.db).exists():  # else create_tournament says what to do
                asyncio.run(_preflight_remote(config, args.token))
                created = True
            store = create_tournament(args.db, config)
            store.set_bot_digests(bot_digests(list(config.engines)))
            if args.epdout:
                store.set_epd_path(str(Path(args.epdout).resolve()))
    except (ConfigError, StoreError, GameError) as error:
        print(f"{_prog(args)}: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{_prog(args)}: {_os_error(error)}", file=sys.stderr)
        return 2
    except sqlite3.Error as error:
        print(f"{_prog(args)}: cannot use the database {args.db}: {error}", file=sys.stderr)
        return 2
    except PreflightError as error:
        print(f"{_prog(args)}: {error}", file=sys.stderr)
        return EXIT_PREFLIGHT
    except KeyboardInterrupt:
        return 130
    stem = Path(args.db).with_suffix("")
    game = config.game
    settings = RunSettings(
        concurrency=max(1, args.concurrency),
        local_workers=args.local_workers,
        backoff=Backoff(first_s=args.reconnect_delay, attempts=max(1, args.reconnect_attempts)),
        jsonl_path=Path(args.jsonl) if args.jsonl else stem.with_suffix(".jsonl"),
        pgn_path=(Path(args.pgn) if args.pgn else stem.with_suffix(RECORD_SUFFIXES[game]))
        if game in RECORD_SUFFIXES
        else None,
        epd_path=Path(args.epdout) if args.epdout else None,
        quiet=args.quiet,
        rating_interval=args.rating_interval,
        token=args.token,
        engine_tokens=engine_tokens,
        bot_log_sizes=log_sizes(list(config.engines)),
    )
    session = _Session(args, settings, store, created, web)
    try:
        text = asyncio.run(_run_until_signalled(session.run))
        assert session.store is not None  # discarded only when the start failed: raised
        text = _with_bot_summary(text, session.store, settings)
        status = 0
    except (KeyboardInterrupt, asyncio.CancelledError):
        if session.shown:  # the tables are printed: only the live page was stopped
            return 0
        if session.runner is None:
            if Path(args.db).exists():  # it was left without a word (the review of 2026-12-06)
                print(
                    f"{_prog(args)}: interrupted before the first game: "
                    f"resume with --db {args.db} --resume",
                    file=sys.stderr,
                )
            return 130
        # The bots' summary too: an interrupted class tournament printed the
        # tables without it (a review of 2026-12-07).
        text = _with_bot_summary(session.runner.report(), session.runner.store, settings)
        text += f"\ninterrupted: resume with --db {args.db} --resume"
        status = 130
    except TournamentAborted as error:
        assert session.runner is not None  # only a running tournament aborts
        text = _with_bot_summary(session.runner.report(), session.runner.store, settings)
        text += f"\naborted: {error}\nresume with --db {args.db} --resume"
        status = 1
    except (PreflightError, LocalServerError) as error:
        print(f"{_prog(args)}: {error}", file=sys.stderr)
        return EXIT_PREFLIGHT
    except ConfigError as error:  # the live page cannot listen
        print(f"{_prog(args)}: {error}", file=sys.stderr)
        return 2
    finally:
        if session.store is not None:
            session.store.close()
    print(text)
    return status


class _Session:
    """One run of the command: the local server, then the games.

    If the local server (for ``url=local`` engines) does not start, nothing
    is played and a database this run created is removed again: the exit
    status is 3 and nothing is left, as for a remote engine that does not
    answer ``hello`` (checked before the database is written).
    """

    def __init__(
        self,
        args: argparse.Namespace,
        settings: RunSettings,
        store: Store,
        created: bool,
        web: tuple[str | None, int] | None = None,
    ) -> None:
        self.args = args
        self.settings = settings
        self.store: Store | None = store
        self.created = created
        self.web = web
        self.runner: TournamentRunner | None = None
        #: The final tables are printed (the live page stays up after them).
        self.shown = False
        #: Bots of a resumed tournament that could not start (name: why): their
        #: games from now on are lost without being played.
        self.unavailable: dict[str, str] = {}

    @property
    def config(self) -> TournamentConfig | None:
        """The tournament as it is played (without the bots left out)."""
        return None if self.store is None else self.store.config()

    async def run(self) -> str:
        store = self.store
        assert store is not None  # set until a failed start discards it
        async with contextlib.AsyncExitStack() as stack:
            # The local server and its bots in a stack of their own: closed
            # when the games end, while the live page stays up (its bots ran
            # on until Ctrl-C: a review, 2026-12-07).
            servers = await stack.enter_async_context(contextlib.AsyncExitStack())
            local: LocalServer | None = None
            if any(engine.is_local for engine in store.config().engines) and _has_work(store):
                local = await self._local_server(servers)
                warn_if_pure(local)
                store = self.store
                assert store is not None  # a failed start raised
            self._keep_played(store)
            live = None if self.web is None else await self._live_page(stack, store)
            self.runner = TournamentRunner(
                store, self.settings, local_server=local, watcher=live, unavailable=self.unavailable
            )
            text = await self.runner.run()
            if live is None:
                return text
            live.finish()
            await servers.aclose()  # the games are over: the bots and their server end
            print(_with_bot_summary(text, store, self.settings), flush=True)
            self.shown = True
            print("arena tournament: the live page stays up; Ctrl-C stops it", file=sys.stderr)
            await asyncio.Event().wait()  # until Ctrl-C or SIGTERM
            return text

    def _keep_played(self, store: Store) -> None:
        """Note the bots' files the games from now on play.

        A bot that could not start keeps the digest of the file it last
        played (a resume kept the broken file's, and the next one, with the
        file put back, called it changed: a review of 2026-12-07); one that
        starts again is no longer named as unable to.
        """
        engines = list(store.config().engines)
        played = {
            name: digest
            for name, digest in bot_digests(engines).items()
            if name not in self.unavailable
        }
        if played:
            store.set_bot_digests(store.bot_digests() | played)
        names = {engine.name for engine in engines}
        left_out = store.left_out()
        back = {name for name in left_out if name in names and name not in self.unavailable}
        if back:
            store.set_left_out({k: v for k, v in left_out.items() if k not in back})

    async def _local_server(self, stack: contextlib.AsyncExitStack) -> LocalServer:
        """The local server, started with every program that can start.

        A new ``--bots`` tournament leaves out a bot that cannot start (a
        syntax error, a missing import: it ends as soon as it starts) and
        plays on with the others, naming it and why; the class tournament
        had stopped before its first game for one student's bot. Any other
        engine that cannot start stops the tournament, as in cutechess-cli.
        A bot of a tournament already begun (``--resume``: its schedule has
        its games) that cannot start loses its games from then on without
        playing them, and the others play on: one student's deleted or
        broken file stopped the whole class's resumed tournament (a review
        of 2026-12-07).
        """
        while True:
            assert self.store is not None
            config = self.store.config()
            engines = list(config.engines)
            if not self.created:
                # Each bot as its file is now (its command found again), and
                # the bots whose file is gone or runs no more: the local server
                # stopped on those before it could say which (a review).
                engines, gone = commands_now(engines)
                fresh = {name: why for name, why in gone.items() if name not in self.unavailable}
                if fresh and not self._forfeit_on_resume(config, fresh):
                    said = "; ".join(
                        f"engine {name} cannot be used: {why}" for name, why in fresh.items()
                    )
                    raise _why_stopped(
                        config,
                        LocalServerError(said, fresh),
                        self.unavailable,
                        getattr(self.args, "bot_match", False),
                    )
            specs = (
                engine.external_spec(config.game)
                for engine in engines
                if engine.name not in self.unavailable
            )
            externals = tuple(spec for spec in specs if spec is not None)
            try:
                server = LocalServer(self.settings.workers(), externals)
                return await stack.enter_async_context(server)
            except LocalServerError as error:
                if self._forfeit_on_resume(config, error.failed):
                    continue
                if not self._leave_out(config, error.failed):
                    self._discard()
                    bot_match = getattr(self.args, "bot_match", False)
                    raise _why_stopped(config, error, bot_match=bot_match) from None

    def _forfeit_on_resume(self, config: TournamentConfig, failed: dict[str, str]) -> bool:
        """Mark the bots in ``failed`` of a resumed tournament as unable to play; whether it did.

        Only bots (``--bots``, ``proto=cmd``), and only while two engines
        are left to play.
        """
        if self.created or not failed or self.store is None:
            return False
        bots = {engine.name for engine in config.engines if engine.is_bot}
        left = [engine for engine in config.engines if engine.name not in self.unavailable]
        if not set(failed) <= bots or len(left) - len(failed) < 2:
            return False
        self.unavailable |= failed
        self.store.set_left_out(self.store.left_out() | failed)
        self._say_unable(
            failed, "{name} cannot start; its games from now on are lost without being played"
        )
        return True

    def _leave_out(self, config: TournamentConfig, failed: dict[str, str]) -> bool:
        """Recreate the new tournament without the ``--bots`` bots in ``failed``; whether it did."""
        folder = self.args.bots
        if not self.created or not failed or folder is None or self.store is None:
            return False
        bots = {engine.name for engine in config.engines if engine.is_bot}
        from_folder = {engine.name for engine in folder_engines(folder)} & bots
        remaining = tuple(engine for engine in config.engines if engine.name not in failed)
        if not set(failed) <= from_folder or len(remaining) < 2:
            return False
        left_out = self.store.left_out() | failed
        self.store.close()
        self.store = None
        _remove_database(Path(self.args.db))
        smaller = replace(config, engines=remaining)
        self.store = create_tournament(self.args.db, smaller)
        self.store.set_bot_digests(bot_digests(list(smaller.engines)))
        self.store.set_left_out(left_out)
        self._say_unable(failed, "left out {name}, which cannot start")
        return True

    def _say_unable(self, failed: dict[str, str], what: str) -> None:
        """One line on stderr per bot in ``failed``: ``what`` (naming ``{name}``) and why."""
        for name, why in failed.items():
            print(
                f"{_prog(self.args)}: {what.format(name=name)} (the others play): "
                f"{why.removeprefix(f'{name} ')}",
                file=sys.stderr,
            )

    async def _live_page(self, stack: contextlib.AsyncExitStack, store: Store) -> LiveTournament:
        """Serve the live page (``--web``) for the rest of the run."""
        assert self.web is not None
        live = LiveTournament(store)
        try:
            page = await stack.enter_async_context(LivePage(live, *self.web))
        except ConfigError:
            self._discard()
            raise
        print(f"arena tournament: live page at {' and '.join(page.urls())}", file=sys.stderr)
        return live

    def _discard(self) -> None:
        """Remove the database this run created (nothing was played)."""
        if not self.created or self.store is None:
            return
        self.store.close()
        self.store = None
        _remove_database(Path(self.args.db))


def _why_stopped(
    config: TournamentConfig,
    error: LocalServerError,
    unavailable: Mapping[str, str] | None = None,
    bot_match: bool = False,
) -> LocalServerError:
    """The error, saying why bots that cannot start stop the tournament: with them
    left out fewer than two entrants would play (it said only which could not
    start: a review of 2026-12-07)."""
    bots = {engine.name for engine in config.engines if engine.is_bot}
    if not error.failed or not set(error.failed) <= bots or bot_match:
        # arena bot's match: its bot not starting says it all; "the
        # tournament stops" read oddly there (a review, 2026-12-07).
        return error
    out = set(error.failed) | set(unavailable or {})
    left = sum(1 for engine in config.engines if engine.name not in out)
    return LocalServerError(
        f"{error}; without them {left} {'entrant' if left == 1 else 'entrants'} would play,"
        " fewer than two: the tournament stops",
        error.failed,
    )


def _remove_database(database: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        database.with_name(database.name + suffix).unlink(missing_ok=True)


def _with_bot_summary(text: str, store: Store, settings: RunSettings) -> str:
    """The final tables, then what each bot of the tournament did (if it has bots)."""
    summary = bot_summary(
        list(store.config().engines), settings.jsonl_path, settings.bot_log_sizes, store.left_out()
    )
    return f"{text}\n\n{summary}" if summary else text


def _prog(args: argparse.Namespace) -> str:
    """Who speaks: ``arena tournament``, or a command that runs one (``arena bot``)."""
    return str(getattr(args, "prog_name", None) or "arena tournament")


def _check_output_folders(args: argparse.Namespace) -> None:
    """Each output file's folder exists, before anything is written.

    ``--jsonl nodir/games.jsonl`` created the database, then failed with "No
    such file or directory" naming no file; run again, it found the
    database and asked for --resume (a review, 2026-12-07).
    """
    for option, value in (
        ("--db", args.db),
        ("--jsonl", args.jsonl),
        ("--pgn", args.pgn),
        ("--epdout", args.epdout),
    ):
        if value and not Path(value).parent.is_dir():
            raise ConfigError(f"{option} {value}: no folder {Path(value).parent}")


def _check_epdout(args: argparse.Namespace, game: str) -> None:
    """``--epdout`` writes chess positions (EPD), ``--pgn`` chess or Go records; else refused."""
    if args.epdout and game not in EPD_GAMES:
        raise ConfigError(f"--epdout is for chess (EPD positions), not {game}")
    if args.pgn and game not in RECORD_SUFFIXES:
        # It was ignored without a word (the review of 2026-12-06); every
        # game's moves are in the .jsonl records.
        raise ConfigError(
            f"--pgn is for chess (PGN) and Go (SGF), not {game}: its games' moves are in "
            "the .jsonl records"
        )


def _has_work(store: Store) -> bool:
    """Whether games are to be played (a finished tournament needs no server)."""
    return store.status() is None and bool(store.pending())


def _os_error(error: OSError) -> str:
    """``cannot read book.pgn: no such file or directory``, not ``[Errno 2] ...``."""
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror.lower()}"
    return str(error)


async def _preflight_remote(config: TournamentConfig, token: str | None = None) -> None:
    """Say hello to the engines that are not local, before the database is written.

    (Local engines are checked when their server starts: the runner's own
    preflight covers every engine again before the first game.)
    """
    remote = [engine for engine in config.engines if not engine.is_local]
    await preflight(
        remote,
        [engine.url for engine in remote],
        config.timing.request_timeout_ms / 1000,
        [engine.token or token for engine in remote],
        config.game,
    )


async def _run_until_signalled(run: Callable[[], Awaitable[str]]) -> str:
    """Run; SIGTERM interrupts like Ctrl-C (finished games are kept either way)."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        if task is not None:
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await run()
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)

"""The ``arena serve`` command line: its options, the configuration they build, and the run.

:func:`add_arguments` declares the options (shared by ``arena serve`` and
``python -m server``), :func:`config_from_args` turns them into one
:class:`~server.config.ServerConfig`, and :func:`run_from_args` serves with it
until a signal (SIGTERM drains first when configured; a second signal, or
SIGINT, shuts down at once).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import shlex
import shutil
import signal
import socket
import sys

from protocol.limits import ServerLimits
from server.app import WS_PATH, ArenaServer
from server.config import DEFAULT_DRAIN_GRACE_S, ServerConfig
from server.external import ExternalEngine, check_externals, parse_external
from server.runtime.constants import QUEUE_PER_WORKER
from server.runtime.memory import TreeBudget, physical_memory_bytes, worker_bound_bytes

#: Bytes in a mebibyte (the unit of ``--worker-tree-mb``).
MIB = 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options, shared by ``arena serve`` and ``python -m server``.

    Their defaults are :class:`~server.config.ServerConfig`'s and its
    :class:`~protocol.limits.ServerLimits`' (one source for each value).
    """
    defaults = ServerConfig()
    limits = defaults.limits
    parser.add_argument(
        "--host", default=defaults.host, help=f"address to bind (default {defaults.host})"
    )
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="GAME[:NAME]=uci|gtp|cmd:COMMAND[?Option=Value&...]",
        help="offer an external engine program for a game (repeatable): a UCI engine for "
        "chess, a GTP engine for go, a cmd bot (docs/bots.md: one JSON line in, one out) for "
        "any game, e.g. 'connect4:ana=cmd:python3 ana.py' (its log: bot-logs/ana.log, or "
        "$ARENA_BOT_LOGS). Without NAME it becomes the game's default search under "
        "the program's name, with NAME one more algorithm a think can ask for; UCI options "
        "go to setoption, e.g. chess:sf5=uci:/usr/games/stockfish?Skill Level=5, "
        "'go=gtp:/usr/games/gnugo --mode gtp --chinese-rules --capture-all-dead --level 5'",
    )
    parser.add_argument(
        "--program-wait",
        type=seconds_argument,
        default=defaults.program_wait_s,
        metavar="SECONDS",
        help="how long a starting search process waits for its --external programs' "
        f"handshakes before it serves (default {defaults.program_wait_s:g}; the rest go on in "
        "the background; arena tournament waits for them all)",
    )
    parser.add_argument(
        "--port",
        type=port_argument,
        default=defaults.port,
        metavar="PORT",
        help=f"port to bind, 1-65535, or 0 for any free port (default {defaults.port})",
    )
    parser.add_argument(
        "--workers",
        type=positive_int_argument,
        default=defaults.workers,
        metavar="N",
        help="search worker processes (default: one per core)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="logging level (default info)",
    )
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=defaults.worker_nice,
        metavar="N",
        help=f"niceness added to search processes, and the --external programs they run, so "
        f"that the event loop comes first (default {defaults.worker_nice}; 0 for equal "
        f"priority, best on a host shared with other work: docs/load.md)",
    )
    parser.add_argument(
        "--worker-tree-mb",
        type=positive_int_argument,
        default=defaults.tree_budget.tree_bytes // MIB,
        metavar="MB",
        help=f"memory each search worker's Monte Carlo trees may hold, in MiB "
        f"(default {defaults.tree_budget.tree_bytes // MIB}; docs/load.md)",
    )
    parser.add_argument(
        "--worker-table-mb",
        type=positive_int_argument,
        default=defaults.tree_budget.table_bytes // MIB,
        metavar="MB",
        help=f"memory each search worker's transposition tables may hold, in MiB "
        f"(default {defaults.tree_budget.table_bytes // MIB}; docs/load.md)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN") or None,
        metavar="TOKEN",
        help="shared secret clients must present: 'Authorization: Bearer TOKEN' at the "
        "handshake, or 'token' in hello from a browser (default: $ARENA_TOKEN; none: open)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept browser connections from this origin, e.g. https://example.org "
        "(repeatable; '*' accepts any). Default: the server's own origin only",
    )
    parser.add_argument(
        "--max-connections",
        type=positive_int_argument,
        default=defaults.max_connections,
        metavar="N",
        help=f"open connections beyond which new ones are closed with 1013 "
        f"(default {defaults.max_connections})",
    )
    parser.add_argument(
        "--max-movetime-ms",
        type=positive_int_argument,
        default=limits.max_movetime_ms,
        metavar="MS",
        help=f"longest think; longer budgets are clamped (default {limits.max_movetime_ms})",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name browsers may use to reach this server, besides IP addresses, "
        "localhost and --host (repeatable; '*' accepts any, which allows DNS rebinding)",
    )
    parser.add_argument(
        "--max-queue",
        type=count_argument,
        default=None,
        metavar="N",
        help=f"thinks that may wait for a worker before new ones are refused with "
        f"'overloaded' (default {QUEUE_PER_WORKER} per worker)",
    )
    parser.add_argument(
        "--hello-timeout-ms",
        type=positive_int_argument,
        default=limits.hello_timeout_ms,
        metavar="MS",
        help=f"close a connection that made no valid request in this time "
        f"(default {limits.hello_timeout_ms})",
    )
    parser.add_argument(
        "--agent-port",
        type=port_argument,
        default=None,
        metavar="PORT",
        help="also listen on this TCP port (same --host) for HAProxy's agent-check: each "
        "connection reads one line, 'up ready N%%' (N: free workers and queue) or 'drain' "
        "while shutting down (see deploy/haproxy.cfg; default: no agent)",
    )
    parser.add_argument(
        "--drain-grace-s",
        type=seconds_argument,
        default=None,
        metavar="S",
        help=f"on SIGTERM, first report down (agent 'drain', /healthz 503) and close each "
        f"session with 1001 between two of its thinks, for at most S seconds; then shut down "
        f"(thinks still running are stopped and answered). A second signal, or SIGINT, "
        f"shuts down at once (default {DEFAULT_DRAIN_GRACE_S:g} with --agent-port, else 0)",
    )


def _int_argument(text: str, low: int, high: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"{value} is not {what}")
    return value


def port_argument(text: str) -> int:
    """An argparse type: a TCP port, 1-65535, or 0 for any free port."""
    return _int_argument(text, 0, 65535, "a port (1-65535, or 0 for any)")


def positive_int_argument(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _int_argument(text, 1, None, "at least 1")


def count_argument(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _int_argument(text, 0, None, "at least 0")


def seconds_argument(text: str) -> float:
    """An argparse type: a finite number of seconds, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number of seconds >= 0")
    return value


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """The server configuration the ``serve`` options describe; ``ValueError`` on bad values."""
    for name in ("workers", "max_connections", "max_movetime_ms", "hello_timeout_ms"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.max_queue is not None and args.max_queue < 0:
        raise ValueError("--max-queue must be at least 0")
    if not 0 <= args.port <= 65535:
        raise ValueError("--port must be 1-65535, or 0 for any free port")
    agent_port: int | None = args.agent_port
    drain_grace_s: float | None = args.drain_grace_s
    if drain_grace_s is None:
        drain_grace_s = DEFAULT_DRAIN_GRACE_S if agent_port is not None else 0.0
    limits = ServerLimits(
        max_movetime_ms=args.max_movetime_ms,
        hello_timeout_ms=args.hello_timeout_ms,
        max_queue=args.max_queue,
    )
    tree_budget = TreeBudget(
        tree_bytes=args.worker_tree_mb * MIB, table_bytes=args.worker_table_mb * MIB
    )
    _check_memory_for(args.workers, tree_budget)
    return ServerConfig(
        host=args.host,
        port=args.port,
        workers=args.workers,
        limits=limits,
        token=args.token,
        allowed_origins=tuple(args.allow_origin),
        allowed_hosts=tuple(args.allow_host),
        max_connections=args.max_connections,
        worker_nice=max(0, args.worker_nice),
        tree_budget=tree_budget,
        externals=_externals(args.external),
        program_wait_s=args.program_wait,
        agent_port=agent_port,
        drain_grace_s=drain_grace_s,
    )


def _check_memory_for(workers: int, budget: TreeBudget) -> None:
    """Refuse more workers than this machine's memory holds at their bound.

    ``--workers 1000`` on a machine of 24 GB started processes until the
    kernel killed programs beside the server, and no signal stopped it
    (a review, 2026-12-07).
    """
    total = physical_memory_bytes()
    each = worker_bound_bytes(budget)
    if total is not None and workers * each > total:
        most = max(1, total // each)
        raise ValueError(
            f"--workers {workers} may need up to {workers * each / 2**30:.1f} GiB "
            f"({each // MIB} MiB a worker: its trees, its tables and the engine), "
            f"and this machine has {total / 2**30:.1f} GiB: use at most {most}, or lower "
            "--worker-tree-mb and --worker-table-mb (the default is one worker per core)"
        )


def _externals(specs: list[str]) -> tuple[ExternalEngine, ...]:
    """``--external`` specs, each checked, and their program found on this machine."""
    engines = [parse_external(spec) for spec in specs]
    for engine in engines:
        program = engine.argv[0]
        if shutil.which(program) is None:
            if os.sep in program and os.path.isfile(program):
                # It is there, but may not be run: the usual slip with a
                # script of one's own (a review, 2026-12-07, read "cannot find").
                raise ValueError(
                    f"--external: {program!r} is not executable (chmod +x {shlex.quote(program)}, "
                    f"or name its interpreter: python3 {shlex.quote(program)})"
                )
            raise ValueError(f"--external: cannot find the program {program!r}")
    return check_externals(engines)


def run_from_args(args: argparse.Namespace, prog: str = "arena serve") -> int:
    """Serve as the options say; the exit status (0 after a signal, 1 when it cannot serve).

    A configuration the server cannot run with (a port in use, a host it
    cannot bind) is reported as one line on stderr, ``prog: ...``, with the
    traceback only under ``--log-level debug``.
    """
    try:
        config = config_from_args(args)
    except ValueError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.log_level != "debug":
        # websockets logs every connection itself; ours already has one line each.
        logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        run(config)
    except OSError as error:
        if args.log_level == "debug":
            raise
        print(f"{prog}: {_listen_error(config, error)}", file=sys.stderr)
        return 1
    return 0


def _listen_error(config: ServerConfig, error: OSError) -> str:
    where = f"{config.host}:{config.port}"
    if error.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the address is already in use"
    if error.errno == errno.EACCES:
        return f"cannot listen on {where}: permission denied (ports below 1024 need privileges)"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: {config.host} is not an address of this machine"
    if isinstance(error, socket.gaierror):
        return f"cannot listen on {where}: unknown host {config.host!r}"
    return f"cannot listen on {where}: {error.strerror or error}"


def server_urls(host: str, port: int) -> tuple[str, str]:
    """The WebSocket URL and the browser GUI's URL of a server bound to ``host:port``."""
    if host in ("", "0.0.0.0", "::"):
        shown = "127.0.0.1" if host != "::" else "[::1]"
    else:
        shown = f"[{host}]" if ":" in host else host
    return f"ws://{shown}:{port}{WS_PATH}", f"http://{shown}:{port}/"


def run(config: ServerConfig) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    asyncio.run(_serve_until_signalled(config))


async def _serve_until_signalled(config: ServerConfig) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    #: Set by SIGINT, or by a second signal: skip (or cut short) the drain.
    hurry = asyncio.Event()

    def on_signal(signum: signal.Signals) -> None:
        if stop.is_set() or signum == signal.SIGINT:
            hurry.set()
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    server = ArenaServer(config)
    starting = asyncio.create_task(server.start())
    signalled = asyncio.create_task(stop.wait())
    try:
        # A signal while the workers start ends the start: SIGTERM was
        # ignored until every worker was up (a review, 2026-12-07).
        await asyncio.wait({starting, signalled}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await starting
            await server.pool.close()
            print("stopped while starting", file=sys.stderr, flush=True)
            return
        starting.result()  # a failed start raises here
    except BaseException:
        await server.pool.close()  # the workers started before the bind failed
        raise
    finally:
        signalled.cancel()
    ws_url, gui_url = server_urls(config.host, server.port)
    print(f"serving on {ws_url}; GUI at {gui_url}", flush=True)
    try:
        await stop.wait()
        if config.drain_grace_s > 0 and not hurry.is_set():
            await _drain_unless_hurried(server, hurry)
    finally:
        await server.shutdown()


async def _drain_unless_hurried(server: ArenaServer, hurry: asyncio.Event) -> None:
    """Drain the server; a further signal (``hurry``) ends the drain at once."""
    drain = asyncio.create_task(server.drain())
    hurried = asyncio.create_task(hurry.wait())
    try:
        await asyncio.wait({drain, hurried}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (drain, hurried):
            task.cancel()
        await asyncio.gather(drain, hurried, return_exceptions=True)

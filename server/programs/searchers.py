"""External engines as searchers: UCI and GTP programs searching in the worker processes.

Each worker process that gets a think for an engine starts the program
once and keeps it (:class:`UciSearcher`, :class:`GtpSearcher`), so the
server holds as many engine processes as workers, and everything the pool
promises holds for them too: ``info`` is streamed (translated to our
fields and checked against protocol.md: :mod:`server.programs.reports`),
``stop`` and the deadline end the search with the engine's best move so
far, and an engine that crashes, hangs, floods, talks nonsense or answers
an illegal move is replaced while the think is answered with the best
legal move known (reason ``engine_error``).

A program starts in the background (:meth:`ProgramSearcher.start`): a
worker is ready at once, and a think waits for the handshake only until its
own deadline or ``stop``; a start still going on START_PATIENCE_S after it
began is taken for hung, and thinks no longer wait for it. A
program that fails again and again is not restarted at every think: it
restarts after RESTART_BACKOFF_S, and meanwhile each think is answered at
once with ``engine_error`` (the reason is logged).

Why one module: three searchers (UCI, GTP, line protocol) on one base class
that owns the program's life cycle; each is read against that base. Hence
the length (over 600 lines).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.errors import GameError
from engine.game import Game
from engine.search.limits import Limits
from engine.search.request import PlayedLine, SearchRequest, StopSignal
from engine.search.results import Info, SearchResult
from engine.search.score import Score
from server.programs import bots, gtp
from server.programs.engines import ExternalEngine
from server.programs.process import POLL_S, LineProcess, ProgramError, append_note
from server.programs.quiet import wait_until_quiet
from server.programs.reports import PvChecker
from server.programs.uci import (
    MULTIPV_OPTION,
    UciOption,
    cut_before_clock,
    go_command,
    handshake,
    multipv_value,
    parse_info,
)
from server.runtime.constants import DELIVERY_MARGIN_S, GUARD_LEAD_S

logger = logging.getLogger(__name__)

#: The handshake (``uci`` ... ``uciok``, ``isready`` ... ``readyok``) of a
#: starting engine: Stockfish takes milliseconds, a large network some
#: seconds. It runs in the background: no think waits for it past its own
#: deadline.
HANDSHAKE_TIMEOUT_S: Final = 10.0
#: How long a bot not found quiet at its start is given to be seen ended: the
#: kernel shows an exiting process as a zombie a moment before it may be
#: reaped. A busy bot, taken for started after this, loses no more.
ENDING_SEEN_WITHIN_S: Final = 0.2
#: How long thinks wait for a program that is still starting, counted from
#: its start; each waits until its own deadline or ``stop`` within it. A
#: healthy program is up well before (Stockfish in milliseconds, our own
#: ``arena uci`` in about 1 s, a large network in some seconds), so the
#: first moves of a fast game are not lost to its start (issue 29: a
#: tournament at 100 ms a move lost its first eight games to a 1 s start
#: when only the first think waited); a start past it is taken for hung,
#: and thinks are answered at once (``engine_error``) until the handshake
#: gives up (HANDSHAKE_TIMEOUT_S): a hung start holds its worker no longer.
START_PATIENCE_S: Final = 5.0
#: How long a starting worker waits for its engines' handshakes before it
#: reports ready: a healthy engine (Stockfish: some 50 ms) is up for the
#: first think, and a hung one delays the server's start by no more than this.
STARTUP_WAIT_S: Final = 1.0
#: After ``stop`` an engine answers within milliseconds; one that has not
#: after this long is taken for hung and killed (the think is answered
#: ``engine_error``). Well under the pool's WORKER_GRACE_S, so that the
#: worker answers before the pool gives up on it. protocol.md names it.
STOP_GRACE_S: Final = 0.5
#: The KGS command for a move of a clean-up phase: capture every dead
#: stone before passing (GNU Go has it).
CLEANUP_COMMAND: Final = "kgs-genmove_cleanup"
#: A GTP command other than ``genmove`` (the board, the time) answers at
#: once; one that has not after this long is taken for hung.
GTP_COMMAND_TIMEOUT_S: Final = 5.0
#: The longest a ``genmove`` without a deadline may take (the server gives
#: every think one; this bounds a direct caller's).
UNTIMED_GENMOVE_S: Final = 600.0
#: Lines an engine may write during one search that are not part of it
#: before it is taken for broken (a runaway engine must not keep a worker).
MAX_GARBAGE_LINES: Final = 10_000
#: A program's reports of the same depth and move on one line are passed on
#: to the client at most this often (20 a second: more than a person reads;
#: our own search reports an iteration or two a second past the first depths).
MIN_REPORT_INTERVAL_S: Final = 0.05
#: Seconds before a program that failed n times in a row may start again
#: (the last figure repeats): one failure in a search restarts it at once
#: (a crash is not yet a broken engine), one at its start (it would not
#: start, hung or refused its options: the same will happen again) waits
#: from the second figure on; an engine that keeps failing costs one
#: attempt a minute, and the thinks in between are answered at once.
RESTART_BACKOFF_S: Final = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0)
#: How long before a think's hard deadline a ``cmd:`` bot's time ends: the
#: searcher then has this long to answer engine_error for a silent bot (a
#: note in its log, the fallback move) before the pool's guard answers
#: from nothing (GUARD_LEAD_S after the worker's deadline, 8 ms).
BOT_ANSWER_LEAD_S: Final = 0.02
#: The least answer time a request is sent with: a bot ready later than this
#: before its lead (still starting after a restart) loses the move, and its
#: start goes on for the next request. A Python bot's read, decision and
#: write take about a millisecond; 10 ms leaves room for a slow one.
MIN_BOT_BUDGET_S: Final = 0.01
#: How long a program ended by us may take to exit after ``quit`` (or, a
#: bot, after the end of its input).
QUIT_GRACE_S: Final = 0.2
#: Why a program is ended after its start-up check (its log says so).
PROBE_DONE: Final = "its start-up check is done"
#: Why a program is ended when its search process closes or drops it.
NO_LONGER_NEEDED: Final = "no longer needed (its search process is closing or has made room)"
#: The reason of an answer the engine failed to give.
ENGINE_ERROR: Final = "engine_error"
#: The reason of an answer a program gave by itself before any limit: GTP
#: has no depth or node limit, and GNU Go plays within the time it is given.
ENGINE_DONE: Final = "engine"
#: The reason of a think that reached the program's process too late to ask
#: it (protocol.md's ``overloaded``: no search was made, the server's doing).
OVERLOADED: Final = "overloaded"
#: Lines starting with "{" that are no answer, noted in the bot's log per request.
NOTED_CHATTER_LINES: Final = 3


class ExternalEngineError(ProgramError):
    """The engine failed: it would not start, crashed, hung or broke the protocol."""


class AnswerFailedError(ExternalEngineError):
    """A bot's answer to one request failed (late, illegal, malformed): restart it, no backoff.

    The program itself still runs: one bad move is no crash loop. It is
    started again at once (a late answer must not be read as the next
    one's), and the next request finds it started and waiting rather than
    waiting out a backoff: before, two late moves in a row at 200 ms a move
    put a student's bot out for seconds of moves (the review of 2026-11-29).
    A program that ends, or will not start, still backs off. A bot that
    answered ``{"error": ...}`` is in step with its requests and is not
    restarted at all (``restart`` false).
    """

    def __init__(self, why: str, restart: bool = True) -> None:
        super().__init__(why)
        self.restart = restart


def start_program(engine: ExternalEngine) -> LineProcess:
    """Start ``engine``'s program: a ``cmd:`` bot under its resource limits, with its log file."""
    if engine.protocol != "cmd":
        return LineProcess(engine.argv, engine.name)
    return LineProcess(
        engine.argv,
        engine.name,
        setup=bots.limit_resources(),
        log_path=engine.log_path,
        log_max_bytes=bots.BOT_LOG_MAX_BYTES,
        env=bots.environment(engine.game),
    )


def bring_up(engine: ExternalEngine, deadline: float) -> LineProcess:
    """Start ``engine``'s program and take it through its handshake by ``deadline``."""
    process = start_program(engine)
    shake_hands(engine, process, deadline)
    return process


def shake_hands(
    engine: ExternalEngine, process: LineProcess, deadline: float
) -> dict[str, UciOption]:
    """Take the program through its protocol's handshake; it is ended if that fails.

    Returns the options a UCI engine declares (by lower-case name; none
    for the other protocols).
    """
    try:
        if engine.protocol == "gtp":
            gtp.required(process, "protocol_version", deadline)
        elif engine.protocol == "cmd":
            # A bot has no handshake: it is ready when it waits for its
            # first request (server.programs.quiet), not when it is started.
            if not wait_until_quiet(process.pid, deadline):
                # Not quiet: busy, or ending. Its last look may have seen it
                # a zombie that cannot be reaped yet (a thread still exiting):
                # taken for started, a bot with a syntax error passed its
                # check 2 times in 15 beside a CPU hog (a teacher's review
                # and a flaky test, 2026-12-07). An ending program gets a
                # moment to be seen ended.
                process.wait_for_end(ENDING_SEEN_WITHIN_S)
            if not process.running():
                # A bot that cannot run (no such file, a syntax error) is
                # quiet too, and ended: without this its every move was
                # played for it, and a tournament of it "succeeded".
                raise ProgramError(
                    f"{engine.name} ended as soon as it started: {process.ended_because()}"
                )
        else:
            return handshake(process, engine.options, deadline)
    except (ProgramError, ValueError):
        process.close(None, 0)
        raise
    return {}


def probe(engine: ExternalEngine, timeout_s: float = HANDSHAKE_TIMEOUT_S) -> str | None:
    """Why ``engine`` cannot be used (it will not start or take its options), ``None`` if it can."""
    try:
        process = bring_up(engine, time.monotonic() + timeout_s)
    except (ProgramError, ValueError) as error:
        return str(error)
    # A bot has no quit line: the end of its stdin ends it (LineProcess.close).
    process.close(None if engine.protocol == "cmd" else "quit", QUIT_GRACE_S, PROBE_DONE)
    return None


class _Launch:
    """One start of a program: the process starts now, its handshake runs in the background.

    The process is started by the calling thread (a worker's main thread):
    PR_SET_PDEATHSIG fires when the *thread* that started a child ends, so
    a short-lived thread must not start it.
    """

    def __init__(self, engine: ExternalEngine) -> None:
        self.engine = engine
        self.done = threading.Event()
        #: The program once through its handshake.
        self.process: LineProcess | None = None
        #: The program from its start (to end it while it is still starting).
        self.starting: LineProcess | None = None
        #: The options the program declared in its handshake (UCI).
        self.declared: dict[str, UciOption] = {}
        #: The ``MultiPV`` last set on the program by a think; ``None``: not yet.
        self.multipv: int | None = None
        #: The game (``PlayedLine.game``) of the program's last think; ``None``: none yet.
        self.game: str | None = None
        self.error: str | None = None
        #: Thinks wait for this start until then (START_PATIENCE_S), no later.
        self.patience_ends = time.monotonic() + START_PATIENCE_S
        try:
            process = start_program(engine)
        except ProgramError as error:
            self.error = str(error)
            self.done.set()
            return
        self.starting = process
        threading.Thread(
            target=self._run, args=(process,), daemon=True, name=f"handshake {engine.name}"
        ).start()

    def _run(self, process: LineProcess) -> None:
        try:
            declared = shake_hands(self.engine, process, time.monotonic() + HANDSHAKE_TIMEOUT_S)
            self.declared = declared
            self.process = process
        except (ProgramError, ValueError) as error:
            self.error = str(error)
        finally:
            self.done.set()


class ProgramSearcher:
    """An engine program as a searcher: what UCI and GTP engines share.

    The program starts in the background with :meth:`start` (or at the
    first think) and stays up; a failed one is killed and started again
    (at once, or after its backoff: RESTART_BACKOFF_S).
    """

    def __init__(self, engine: ExternalEngine, game: Game[Any, Any]) -> None:
        self.engine = engine
        self.game = game
        self._launch: _Launch | None = None
        self._failures = 0
        self._retry_at = 0.0
        #: Why the engine cannot be used now (it is waiting out its backoff).
        self.unavailable: str | None = None

    def start(self) -> None:
        """Start the program in the background, unless it runs, starts or waits out a backoff."""
        self._start_pending = False
        launch = self._launch
        if launch is not None:
            if not launch.done.is_set():
                return  # starting
            if launch.process is not None and launch.process.running():
                return  # up
            if launch.process is None:
                self._failed(launch.error, at_start=True)
            else:
                self._failed(f"the program ended: {launch.process.ended_because()}")
        if time.monotonic() < self._retry_at:
            return
        self._launch = _Launch(self.engine)

    def wait_started(self, deadline: float) -> bool:
        """Wait until the program is through its handshake (or failed), at most to ``deadline``."""
        launch = self._launch
        return launch is None or launch.done.wait(max(0.0, deadline - time.monotonic()))

    def think(self, request: SearchRequest) -> SearchResult:
        """Search ``request.state`` with the program; the contract of our own searchers.

        The session never asks for a think in a finished game: there is a
        legal move to fall back on. ``request.cleanup`` (Go) asks for a move
        of a clean-up phase (protocol.md, ``think.cleanup``).
        """
        started = time.monotonic()
        # Planned once: the protocol's part reads them from the request.
        request = dataclasses.replace(request, deadlines=request.planned())
        search = _Search(self.game, request.state, started)
        process = self._ready(request)
        if isinstance(process, _NotReady):
            if process.stopped:
                return search.unsearched("stopped")
            self._not_ready(process.why)
            return self._replaced(search, process.why, request)
        process.discard_unread()  # what it said while idle (its stray info strings)
        try:
            result = self._think(process, request, search)
        except _Stopped as stopped:
            # GTP has no stop: the program is cut off, killed at once (asked
            # to quit, a GNU Go busy in its genmove read nothing for the
            # 0.2 s of grace before the kill, and the stopped think waited
            # for that: a review, 2026-12-07), and started again once the
            # think is answered (after_answer), not before.
            self._kill()
            self._start_pending = True
            return search.unsearched(stopped.reason)
        except AnswerFailedError as error:
            if error.restart:
                # A bad move, not a broken program: ended now, started again
                # by after_answer once the think is answered (a process start
                # here could take the answer past the pool's guard), or at
                # the next think at the latest.
                self._end()
                self._start_pending = True
            return self._replaced(search, str(error), request)
        except (ProgramError, ValueError) as error:
            self._failed(str(error))
            return self._replaced(search, str(error), request)
        self._failures = 0
        self.unavailable = None
        return result

    def _replaced(self, search: _Search, why: str, request: SearchRequest) -> SearchResult:
        """The think answered ``engine_error``: one warning naming the engine and why.

        One line per such answer, at the default log level: an operator sees
        which engine failed and how, and ``arena tournament``, which
        forfeits the game, quotes the line from its local server's log (it
        looks for ``external engine NAME: think answered engine_error:``).
        A failure found after the pool had answered the think itself (its
        guard at the deadline, or a stop answered from the last report) is
        logged with the answer the client got instead: the log said
        ``engine_error`` where the client had ``time`` or ``stopped`` (a
        review, 2026-12-07).
        """
        answered = _answered_before(search, request)
        if answered is None:
            logger.warning(
                "external engine %s: think answered engine_error: %s", self.engine.name, why
            )
        else:
            logger.warning(
                "external engine %s: failed after the server had answered its think (%s): %s",
                self.engine.name,
                answered,
                why,
            )
        return search.failed(why)

    def _ready(self, request: SearchRequest) -> LineProcess | _NotReady:
        """The program through its handshake, by the think's deadline or stop; else why not."""
        stop, deadlines = request.stop, request.planned()
        self.start()
        launch = self._launch
        if launch is None:
            return _NotReady(f"{self.engine.name} is unavailable: {self.unavailable}")
        while not launch.done.wait(POLL_S if time.monotonic() < launch.patience_ends else 0):
            now = time.monotonic()
            if now >= launch.patience_ends:
                return _NotReady(
                    f"{self.engine.name} is still starting after {START_PATIENCE_S:g} s"
                )
            if stop is not None and stop.is_set():
                return _NotReady("stopped", stopped=True)
            if deadlines.hard is not None and now >= deadlines.hard - self._ready_lead_s:
                return _NotReady(f"{self.engine.name} was not ready by the deadline (starting)")
        if launch.process is None or not launch.process.running():
            self.start()  # records the failure, and restarts now if its backoff allows
            return _NotReady(f"{self.engine.name} failed to start: {self.unavailable}")
        return launch.process

    #: Set when the program was ended for a bad answer: start it again
    #: after the answer is sent (:meth:`after_answer`).
    _start_pending: bool = False

    def after_answer(self) -> None:
        """After a think was answered: start a program ended for a bad answer, for the next one."""
        if self._start_pending:
            self._start_pending = False
            self.start()

    #: How long before the think's hard deadline the program must be ready,
    #: else the think is answered without it (and a start goes on).
    _ready_lead_s: float = 0.0

    def _not_ready(self, why: str) -> None:
        """A think answered without the program (starting, or waiting out a backoff)."""

    def _failed(self, why: str | None, at_start: bool = False) -> None:
        """The program failed: end it, log why, and set when it may start again."""
        self._failures += 1
        step = self._failures - 1 + (1 if at_start else 0)
        backoff = RESTART_BACKOFF_S[min(step, len(RESTART_BACKOFF_S) - 1)]
        self._retry_at = time.monotonic() + backoff
        self.unavailable = why or "it failed"
        logger.warning(
            "external engine %s failed (%d in a row): %s; %s",
            self.engine.name,
            self._failures,
            self.unavailable,
            f"next start in {backoff:g} s" if backoff else "restarting it",
        )
        self._end()

    def _kill(self) -> None:
        """End the program at once (cut off by stop or time, not failed)."""
        launch, self._launch = self._launch, None
        if launch is not None:
            process = launch.process or launch.starting
            if process is not None:
                process.kill()

    def _end(self, why: str | None = None) -> None:
        """End the program: asked to quit (``why`` noted in its log), or killed while starting."""
        launch, self._launch = self._launch, None
        if launch is not None and launch.process is not None:
            launch.process.close("quit", QUIT_GRACE_S, why)
        elif launch is not None and launch.starting is not None:
            # Still in its handshake: killed now, its thread sees the end.
            launch.starting.kill()

    def _think(self, process: LineProcess, request: SearchRequest, search: _Search) -> SearchResult:
        """The protocol's part of :meth:`think`: raise ProgramError when the engine fails."""
        raise NotImplementedError

    def close(self) -> None:
        """End the program (a searcher evicted from a worker's cache, or the worker ending)."""
        self._end(NO_LONGER_NEEDED)

    def __del__(self) -> None:
        self.close()


class UciSearcher(ProgramSearcher):
    """A UCI engine as a searcher: :meth:`think` with the contract of our own searchers.

    A think's ``multipv`` sets the engine's ``MultiPV`` option before its
    ``go`` (when the value differs from the last one set; the first think
    of a program always sets it, over a ``MultiPV`` given in the spec), if
    the engine declared the option; each ``info multipv k`` it then writes
    is passed on as our line ``k``. Lines the think did not ask for (an
    engine without the option, or one that writes more) are dropped.
    """

    def _think(self, process: LineProcess, request: SearchRequest, search: _Search) -> SearchResult:
        state, limits, deadlines = request.state, request.limits, request.planned()
        search.lines = self._set_lines(process, request.multipv)
        self._tell_new_game(process, request.line)
        process.send(position_command(self.game, state, request.line))
        process.send(go_command(limits, deadlines, self.game.to_move(state), search.started))
        return self._follow(process, request, search)

    def _tell_new_game(self, process: LineProcess, line: PlayedLine | None) -> None:
        """``ucinewgame`` before the first think of a game, as cutechess sends it.

        The program is kept between games and sessions: told nothing, it took
        a new game for the old one (its hash, its history of moves). A think
        that names no game (no ``PlayedLine``, or one without a key) is told a
        new game only as the program's first. The engine reads its commands
        in order, so the ``position`` and ``go`` that follow wait for it: no
        ``isready`` round trip is spent.
        """
        launch = self._launch
        if launch is None or launch.process is not process:
            return
        game = line.game if line is not None else ""
        if launch.game is not None and (not game or launch.game == game):
            return
        process.send("ucinewgame")
        launch.game = game

    def _set_lines(self, process: LineProcess, wanted: int) -> int:
        """Set the engine's ``MultiPV`` for ``wanted`` lines if it has it; the lines to pass on."""
        launch = self._launch
        if launch is None or launch.process is not process:
            return 1
        value = multipv_value(launch.declared, max(1, wanted))
        if value is None:
            return 1
        if launch.multipv != value:
            option = launch.declared[MULTIPV_OPTION].name
            process.send(f"setoption name {option} value {value}")
            launch.multipv = value
        return min(max(1, wanted), value)

    def _follow(
        self, process: LineProcess, request: SearchRequest, search: _Search
    ) -> SearchResult:
        """Read the search's lines until ``bestmove``; stop it at the deadline or on request."""
        stop, on_info, deadlines = request.stop, request.on_info, request.planned()
        stopped_at: float | None = None
        reason = _limit_reason(request.limits)
        garbage = 0
        while True:
            now = time.monotonic()
            if stopped_at is None:
                asked = stop is not None and stop.is_set()
                overdue = deadlines.hard is not None and now >= deadlines.hard
                if asked or overdue:
                    process.send("stop")
                    stopped_at, reason = now, "stopped" if asked else "time"
            elif now - stopped_at > STOP_GRACE_S:
                raise ExternalEngineError(f"the engine did not answer stop in {STOP_GRACE_S:g} s")
            if stopped_at is not None:
                wait_until = stopped_at + STOP_GRACE_S
                line = process.read_line(wait_until)
            else:
                wait_until = now + POLL_S * 20
                if deadlines.hard is not None:
                    wait_until = min(wait_until, deadlines.hard)
                line = process.read_line(wait_until, stop)
            if not line:
                continue
            word = line.split(maxsplit=1)[0]
            if word == "info":
                info = search.on_info_line(line)
                if info is not None and on_info is not None and search.worth_passing_on(info):
                    on_info(info)
            elif word == "bestmove":
                return search.answer(line, reason)
            else:
                garbage += 1
                if garbage > MAX_GARBAGE_LINES:
                    raise ExternalEngineError("the engine writes lines UCI does not know")


class GtpSearcher(ProgramSearcher):
    """A GTP engine (GNU Go) as a searcher.

    GTP has no position command and no stop: each think sends the board
    (``boardsize``, ``komi``, ``clear_board``, then the stones as ``play``
    commands: placing the stones of a legal position captures nothing),
    the time to the deadline (``time_settings``/``time_left``, seconds),
    and ``genmove``. A ``stop`` or an overrun kills the program: there is no
    best move so far, so the think gets the first legal move (depth 0).
    Without the moves before the position the engine does not know the ko
    of the last capture; a move it answers that our rules refuse is an
    ``engine_error``. GTP reports no depth, score or nodes: a move the
    engine chose by itself is answered with depth 1 (a search stands behind
    it; how deep is unknown), score 0, nodes 0 and reason ``engine``.
    A think of a Go clean-up phase asks ``kgs-genmove_cleanup`` of an engine
    that lists it (``list_commands``, asked once per program), else
    ``genmove``.
    """

    #: The program whose ``list_commands`` was asked, and its answer.
    _listed: tuple[LineProcess, frozenset[str]] | None = None

    def _think(self, process: LineProcess, request: SearchRequest, search: _Search) -> SearchResult:
        state, stop, deadlines = request.state, request.stop, request.planned()
        colour = ("black", "white")[self.game.to_move(state)]
        generate = "genmove"
        if request.cleanup and CLEANUP_COMMAND in self._commands(process, stop):
            generate = CLEANUP_COMMAND
        setup = self._setup(state)
        if deadlines.hard is not None:
            # GTP counts whole seconds. A clock is given as it stands, the
            # program's own to keep (absolute time: no byo-yomi); a move time
            # as one byo-yomi period of one stone.
            seconds = max(1, int(deadlines.hard - time.monotonic()))
            clock = request.limits.clock
            # The clock itself, unless a move time or the server's cap ends
            # the think well before it: then that deadline, as a move time
            # (told as the clock, GNU Go took a 5 s cap for its 10 min).
            if clock is not None and not cut_before_clock(clock, deadlines):
                setup += [f"time_settings {seconds} 0 0", f"time_left {colour} {seconds} 0"]
                if clock.opponent_ms is not None:
                    # The opponent's clock as well, when the think gives it.
                    other = ("black", "white")[1 - self.game.to_move(state)]
                    setup.append(f"time_left {other} {max(1, clock.opponent_ms // 1000)} 0")
            else:
                setup += [f"time_settings 0 {seconds} 1", f"time_left {colour} {seconds} 1"]
        for command in setup:
            answered = gtp.command(process, command, time.monotonic() + GTP_COMMAND_TIMEOUT_S, stop)
            if answered is None:
                if stop is not None and stop.is_set():
                    raise _Stopped("stopped")
                raise ExternalEngineError(f"the engine did not answer {command.split()[0]}")
        # A program needs a moment to send the move it settled on at its
        # deadline: STOP_GRACE_S, as a UCI engine's answer to stop. An
        # untimed think still has a bound (the server caps every think).
        if deadlines.hard is not None:
            deadline = deadlines.hard + STOP_GRACE_S
        else:
            deadline = time.monotonic() + UNTIMED_GENMOVE_S
        move = gtp.command(process, f"{generate} {colour}", deadline, stop)
        if move is not None:
            return search.chosen(move)
        raise _Stopped("stopped" if stop is not None and stop.is_set() else "time")

    def _commands(self, process: LineProcess, stop: StopSignal | None) -> frozenset[str]:
        """The commands ``process`` lists (``list_commands``), asked once per program."""
        known = self._listed
        if known is not None and known[0] is process:
            return known[1]
        answer = gtp.command(
            process, "list_commands", time.monotonic() + GTP_COMMAND_TIMEOUT_S, stop
        )
        if answer is None:
            if stop is not None and stop.is_set():
                raise _Stopped("stopped")
            raise ExternalEngineError("the engine did not answer list_commands")
        listed = frozenset(line.strip() for line in answer.splitlines() if line.strip())
        self._listed = (process, listed)
        return listed

    def _setup(self, state: Any) -> list[str]:
        """GTP commands that put ``state``'s board on the engine's (:func:`gtp.setup_commands`)."""
        return gtp.setup_commands(self.game, state)


class CmdSearcher(ProgramSearcher):
    """A ``cmd:`` bot (docs/bots.md) as a searcher: one JSON request line, one JSON answer line.

    The bot has until the think's hard deadline to answer (its budget is
    the time to it); a bot that has not, or that is stopped, is ended and
    started again (a late answer must not be read as the next one's). Lines
    that are not JSON objects are the bot's chatter: kept in its log and
    skipped. An answer that is no JSON answer or holds an illegal move is
    refused (``engine_error``, the bot restarted). Its ``score``, ``depth``
    and ``pv`` become one ``info``; its ``comment`` goes to its log.
    """

    #: A bot still starting this close to the deadline is not sent the
    #: request: its answer time would be nothing, the late answer would end
    #: the copy that is starting, and the pool's guard would answer first
    #: (reason ``time``, not ``engine_error``: the review of 2026-11-29).
    _ready_lead_s = BOT_ANSWER_LEAD_S + MIN_BOT_BUDGET_S

    def __init__(self, engine: ExternalEngine, game: Game[Any, Any]) -> None:
        super().__init__(engine, game)
        self._line = bots.MoveLine(game)
        self._requests = 0
        #: Whether any copy of the bot has answered: one that flushes its
        #: output once does so always, and a silent copy is then slow.
        self._ever_answered = False
        #: A Python function run by clients.bot (docs/bots.md), which flushes
        #: every answer itself: a silence is its function's time.
        self._function = "clients.bot" in engine.argv

    def _think(self, process: LineProcess, request: SearchRequest, search: _Search) -> SearchResult:
        # A bot is asked for its move as always: the clean-up phase is the referee's.
        state, stop, deadlines = request.state, request.stop, request.planned()
        self._line.at(state)
        now = time.monotonic()
        if deadlines.hard is not None:
            # The budget is the whole time: answered at the hard deadline
            # (the worker's, a delivery margin before the think's), the
            # think gets this searcher's engine_error before the pool's
            # guard answers it from nothing.
            deadline = deadlines.hard - BOT_ANSWER_LEAD_S
            budget_ms: int | None = max(0, int((deadline - now) * 1000))
            if deadline - now < MIN_BOT_BUDGET_S <= deadline - search.started:
                # The think came with time enough, which the bot's own start
                # took (it was ready a moment before _ready would have given
                # up): the bot's failure, as when it is not ready at all, not
                # an overloaded server (a CI run, 2026-12-07).
                why = f"{self.engine.name} was not ready by the deadline (starting)"
                self._not_ready(why)
                return self._replaced(search, why, request)
            if deadline - now < MIN_BOT_BUDGET_S:
                # The think reached this process with no time left for the
                # bot (an overloaded machine): it is not asked, not ended,
                # not charged. It was sent requests with 0 ms, ended for
                # silence, and lost games by fault (a review, 2026-12-07).
                append_note(
                    self.engine.log_path,
                    f"not asked: the server had {budget_ms} ms of the think left"
                    " (an overloaded machine); a legal move played for it, reason overloaded",
                )
                return search.unsearched(OVERLOADED)
        else:
            budget_ms, deadline = None, now + UNTIMED_GENMOVE_S
        self._requests += 1
        # Each search process runs its own copy of the bot, numbering its
        # requests from 1: the copy's pid tells two "request 3" apart.
        request_name = f"request {self._requests} (pid {process.pid})"
        try:
            process.send(
                bots.request(
                    self.game, state, self._line, request.limits, budget_ms, self._requests
                )
            )
        except ProgramError as error:  # it ended before it was asked: the log says so too
            process.note(f"{request_name}: the bot ended: {error}")
            raise
        chatter = 0
        while True:
            try:
                line = process.read_line(deadline, stop)
            except ProgramError as error:
                process.note(f"{request_name}: the bot ended: {error}")
                raise
            if line is None:
                if stop is not None and stop.is_set() and time.monotonic() < deadline:
                    process.note(f"{request_name}: stopped by the client")
                    raise _Stopped("stopped")
                why = f"no answer within its budget of {budget_ms} ms"
                if chatter:
                    lines = "1 line that is" if chatter == 1 else f"{chatter} lines that are"
                    why += f" (it wrote {lines} no answer)"
                elif self._function:
                    # clients.bot flushes: the function took the time (a
                    # review, 2026-12-07: told to flush, every move).
                    why += " (choose did not return in time:"
                    why += " decision.time_left() says how long is left)"
                elif not self._ever_answered:
                    # Not one line from the bot yet: an answer held in its
                    # output buffer looks like silence (a review, 2026-12-07).
                    why += " (it has written nothing yet: is its output flushed?"
                    why += " print(..., flush=True))"
                process.note(f"{request_name}: {why}: answered engine_error; starting it again")
                raise AnswerFailedError(why)
            try:
                answer = bots.read_answer(line)
                if answer is not None:
                    if answer.request is not None and answer.request != self._requests:
                        # Written for an earlier request, after its answer (or
                        # past its deadline): not this request's answer.
                        process.note(
                            f"{request_name}: an answer to request {answer.request} came now:"
                            " dropped (one answer per request)"
                        )
                        chatter += 1
                        continue
                    result = self._result(search, answer, request.on_info)
            except bots.BotReportedError as error:
                process.note(f"{request_name}: {error}: answered engine_error")
                raise AnswerFailedError(str(error), restart=False) from error
            except bots.BotAnswerError as error:
                # A line cut may not be the whole answer: a fresh copy
                # answers next. A well-formed one with a bad field is in step.
                process.note(f"{request_name}: answer refused: {error}")
                raise AnswerFailedError(str(error), restart=not error.in_step) from error
            except ExternalEngineError as error:
                # A well-formed answer, in time, to this request, refused for
                # its move (illegal): the bot is in step, and is not
                # restarted. A restart cost the next moves too (the copy still
                # starting at their deadlines: three moves for one illegal
                # answer, a review of 2026-12-07).
                process.note(f"{request_name}: answer refused: {error}")
                raise AnswerFailedError(str(error), restart=False) from error
            if answer is None:  # the bot's chatter
                chatter += 1
                if chatter > MAX_GARBAGE_LINES:
                    # Said in its log too: a flooding bot's log had only
                    # "killed by SIGKILL" (a review of 2026-12-07).
                    why = f"more than {MAX_GARBAGE_LINES} lines that are no answer: ended"
                    process.note(f"{request_name}: {why}")
                    raise ExternalEngineError("the bot writes lines that are no answer")
                if chatter <= NOTED_CHATTER_LINES:
                    legal = [self.game.format_move(state, m) for m in self.game.legal_moves(state)]
                    hint = _answer_hint(line, legal)
                    if hint is not None:
                        process.note(f"{request_name}: skipped a line that is no answer: {hint}")
                continue
            if answer.comment:
                process.note(f"{request_name}: comment: {answer.comment}")
            self._line.answered(state, result.move or answer.move)
            self._ever_answered = True
            return result

    def _not_ready(self, why: str) -> None:
        # Every move played for the bot has its line in the bot's log, also
        # those answered while no copy of it runs (a backoff after crashes).
        self._requests += 1
        append_note(self.engine.log_path, f"request {self._requests}: {why}: answered engine_error")

    def _result(
        self,
        search: _Search,
        answer: bots.BotAnswer,
        on_info: Callable[[Info], None] | None,
    ) -> SearchResult:
        move = search._legal(answer.move)
        if answer.score is None and answer.depth is None and not answer.pv:
            return search.chosen(move)
        pv = search.pvs.legal_prefix(answer.pv)
        if not pv or pv[0] != move:
            pv = (move,)
        depth = answer.depth if answer.depth is not None else 1
        info = Info(
            depth=depth,
            seldepth=depth,
            score=answer.score or Score(value=0),
            pv=pv,
            nodes=0,
            time_ms=search.elapsed_ms(),
            nps=0,
            tt_hit_rate=0.0,
        )
        if on_info is not None:
            on_info(info)
        search.last = info
        return SearchResult.from_progress(info, depth, ENGINE_DONE, search.elapsed_ms())

    def _end(self, why: str | None = None) -> None:
        """End the bot: killed in the background after a failure, politely when no longer needed.

        A bot that failed (its log already says how) is killed, its whole
        process group, from a thread: the kill waits for the process to go,
        which must not delay the ``engine_error`` answer past the pool's
        guard. One the server is done with (``why``) gets the end of its
        input, as :func:`probe` gives it, and exits by itself.
        """
        launch, self._launch = self._launch, None
        if launch is None:
            return
        if why is not None and launch.process is not None:
            launch.process.close(None, QUIT_GRACE_S, why)
            return
        process = launch.process or launch.starting
        if process is not None:
            threading.Thread(target=process.kill, daemon=True, name="end bot").start()


def _limit_reason(limits: Limits) -> str:
    """Why a search that ended by itself ended: its depth, its nodes, else its time."""
    return "depth" if limits.depth else "nodes" if limits.nodes else "time"


def program_searcher(engine: ExternalEngine, game: Game[Any, Any]) -> ProgramSearcher:
    """The searcher that drives ``engine`` by its protocol."""
    if engine.protocol == "cmd":
        return CmdSearcher(engine, game)
    return GtpSearcher(engine, game) if engine.protocol == "gtp" else UciSearcher(engine, game)


@dataclass(frozen=True, slots=True)
class _NotReady:
    """Why a think has no program to search with: ``stopped``, or it failed (``why``)."""

    why: str
    stopped: bool = False


class _Stopped(Exception):
    """A GTP command was cut short: ``reason`` is ``stopped`` or ``time``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def position_command(game: Game[Any, Any], state: Any, line: PlayedLine | None) -> str:
    """UCI's ``position`` for ``state``: from the game's start with its moves, when known.

    Given the moves, as cutechess gives them, the engine knows the positions
    before this one: sent the position alone it drew a won game by a
    threefold repetition it could not see (a review, 2026-12-07). A move
    list that ends anywhere but at ``state`` is not sent.
    """
    here = game.format_position(state)
    if line is None or not line.moves:
        return f"position fen {here}"
    try:
        replayed = game.parse_position(line.start)
        for move in line.moves:
            replayed = game.play(replayed, game.parse_move(replayed, move))
    except GameError:
        return f"position fen {here}"
    if game.format_position(replayed) != here:
        return f"position fen {here}"
    return f"position fen {line.start} moves {' '.join(line.moves)}"


#: Legal moves an illegal answer's message lists (a Go board has 82).
ILLEGAL_LISTS_MOVES: Final = 12


def _illegal_why(answered: str, legal: list[str]) -> str:
    """Why an answered move is refused: quoted (a space in it shows), with the legal
    moves and, when it differs from one only in case or spaces, which (a review of
    2026-12-07: "the engine answered 1 , illegal" read as if the legal 1 were refused)."""
    shown = repr(answered[:20]) if answered else "nothing"
    why = f"the engine answered {shown}, illegal"
    near = [move for move in legal if move.lower() == answered.strip().lower()]
    if near:
        why += f" (the move is written {near[0]!r})"
    listed = ", ".join(legal[:ILLEGAL_LISTS_MOVES])
    more = f", ... ({len(legal)} in all)" if len(legal) > ILLEGAL_LISTS_MOVES else ""
    return f"{why}; legal: {listed}{more}" if legal else why


#: A line this short, one word, is quoted in the log as a possible answer.
MAX_BARE_ANSWER_CHARS: Final = 16


def _answer_hint(line: str, legal: list[str]) -> str | None:
    """What a bot's line that is no answer was probably meant as, said so; ``None`` for
    chatter.

    A line that starts with ``{`` was meant as an answer (the log shows it,
    so that a silent bot is understood); one in single quotes is a Python
    dict printed as it is; a bare legal move is an answer without its JSON
    (a review, 2026-12-07: both were logged as debug output, or not at all).
    """
    text = line.strip()
    if text in legal:
        return (
            f"{text!r} is a legal move written alone; an answer is a JSON object:"
            f' {{"move": "{text}"}} (print(json.dumps({{"move": move}})))'
        )
    if not text.startswith("{"):
        if text and len(text) <= MAX_BARE_ANSWER_CHARS and " " not in text:
            # A word alone, not a legal move ("99"): an answer, perhaps.
            return (
                f"{text!r} (an answer is a JSON object with one of the legal moves,"
                ' {"move": ...}; debug output belongs on stderr)'
            )
        return None
    if text.startswith("{'") or "': " in text:
        return (
            f"{text[:80]!r} is a Python dict, not JSON (JSON needs double quotes):"
            " print(json.dumps(answer))"
        )
    return f'{text[:80]!r} (an answer is a JSON object with "move"; debug output belongs on stderr)'


def _answered_before(search: _Search, request: SearchRequest) -> str | None:
    """How the pool answered this think already, if it did, judged from the worker's side.

    The worker's deadlines end :data:`~server.runtime.constants.DELIVERY_MARGIN_S`
    before the think's, and the pool's guard answers
    :data:`~server.runtime.constants.GUARD_LEAD_S` before it; a stop is
    answered at once from the last report once there is one.
    """
    now = time.monotonic()
    hard = request.deadlines.hard if request.deadlines is not None else None
    if hard is not None and now >= hard + DELIVERY_MARGIN_S - GUARD_LEAD_S:
        return "reason time, by its deadline"
    stop = request.stop
    if stop is not None and stop.is_set() and search.last is not None:
        return "reason stopped, with the engine's last reported move"
    return None


class _Search:
    """One search's progress as the engine reported it (checked), and its answer."""

    def __init__(self, game: Game[Any, Any], state: Any, started: float) -> None:
        self.game = game
        self.state = state
        self.started = started
        self.last: Info | None = None
        self.completed_depth = 0
        self.pvs = PvChecker(game, state)
        #: The lines the think asked for and the engine was set to give.
        self.lines = 1
        #: Per line (multipv rank): the depth and move last passed on, and when.
        self._passed: dict[int, tuple[tuple[int, tuple[str, ...]], float]] = {}

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)

    def worth_passing_on(self, info: Info) -> bool:
        """Whether a checked report goes on to the client: a new depth or move on its
        line, or :data:`MIN_REPORT_INTERVAL_S` since that line's last one.

        Every report is still read (the answer is the last one's); a program
        writing thousands of good ``info`` lines a second had each sent on as
        a frame to its client (a review, 2026-12-07: 2,700-3,600 a second).
        """
        now = time.monotonic()
        key = (info.depth, info.pv[:1])
        last = self._passed.get(info.multipv)
        if last is not None and last[0] == key and now - last[1] < MIN_REPORT_INTERVAL_S:
            return False
        self._passed[info.multipv] = (key, now)
        return True

    def on_info_line(self, line: str) -> Info | None:
        """Our :class:`Info` for an ``info`` line with a legal pv, else ``None``.

        A line's rank beyond the lines asked for drops it; only line 1
        (the engine's best) stands for the answer and its depth.
        """
        parsed = parse_info(line, self.elapsed_ms())
        if parsed is None or parsed.multipv > self.lines:
            return None
        info = self.pvs.checked(parsed)
        if info is None:
            return None
        if info.multipv == 1:
            self.last = info
            self.completed_depth = max(self.completed_depth, info.depth)
        return info

    def answer(self, line: str, reason: str) -> SearchResult:
        words = line.split()
        answered = words[1] if len(words) > 1 else ""
        move = self._legal(answered)
        if self.last is None:
            # Its own move, with no report behind it (an engine that sends
            # no info with a pv, for a book or forced move): a search of
            # unknown depth, depth 1, as a GTP engine's move (chosen). At
            # depth 0 the referee took it for the server's stand-in and
            # scored a loss on time (a review, 2026-12-07).
            answer = SearchResult.unsearched(move, reason, self.elapsed_ms())
            searched = dataclasses.replace(answer.info, depth=1, seldepth=1)
            return dataclasses.replace(answer, info=searched)
        result = SearchResult.from_progress(
            self.last, self.completed_depth, reason, self.elapsed_ms()
        )
        if move != self.last.pv[0]:
            # The engine played another move than its line (a weakened
            # Stockfish does): the search's depth and score, that move.
            info = dataclasses.replace(result.info, pv=(move,))
            result = dataclasses.replace(result, move=move, info=info)
        return result

    def chosen(self, answered: str) -> SearchResult:
        """A GTP engine's move: depth 1 (searched, depth unknown), reason ``engine``."""
        move = self._legal(answered)
        answer = SearchResult.unsearched(move, ENGINE_DONE, self.elapsed_ms())
        searched = dataclasses.replace(answer.info, depth=1, seldepth=1)
        return dataclasses.replace(answer, info=searched)

    def _legal(self, answered: str) -> str:
        """The engine's move in our notation; an illegal one is the engine's failure."""
        move = self.pvs.canonical(answered)
        if move is None:
            legal = [
                self.game.format_move(self.state, m) for m in self.game.legal_moves(self.state)
            ]
            raise ExternalEngineError(_illegal_why(answered, legal))
        return move

    def unsearched(self, reason: str) -> SearchResult:
        """The first legal move, depth 0: nothing the engine searched stands behind it.

        The first of ``legal_moves``, as the pool's guard answers for a
        program's think (:meth:`server.jobs.SearchJob.unsearched_move`) and
        as protocol.md says of depth 0 (it was the game's ordered first
        move, so one engine's failures answered 4 and 1 on consecutive
        thinks). Not our one-ply quick move: a failing program, a bot in a
        class tournament, must not play better through its stand-ins.
        """
        first = self.game.format_move(self.state, self.game.legal_moves(self.state)[0])
        return SearchResult.unsearched(first, reason, self.elapsed_ms())

    def failed(self, why: str) -> SearchResult:
        """The best legal move known when the engine failed: its last report's, else the first."""
        if self.last is not None:
            return SearchResult.from_progress(
                self.last, self.completed_depth, ENGINE_ERROR, self.elapsed_ms()
            )
        return self.unsearched(ENGINE_ERROR)

"""The code that runs inside a search worker process.

A worker is started once (``spawn`` context) and serves searches one after
another over a duplex pipe:

* parent -> worker: a :class:`WorkerJob`, or ``None`` to exit;
* worker -> parent: ``("ready",)`` once imports are done, then per job
  ``("info", seq, Info)`` as each report happens, and finally
  ``("done", seq, SearchResult)`` or ``("failed", seq, traceback_text)``.
  A trace job (:class:`TraceTask`) reports no progress and ends with
  ``("done", seq, TraceReply)``: its reply already encoded, so that the
  parent's event loop only forwards the bytes.

The stop signal is a :class:`StopFlag` in shared memory that the search
polls; the parent sets it and never has to wait for the worker to do so.
The worker keeps a small cache of searchers (:func:`engine.searchers.searcher_for`)
per (game, options, algorithm), so successive searches of a game reuse the
transposition table, and Monte Carlo searches reuse their tree when the
next position follows from the last one searched.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext
from typing import Any

from engine.errors import GameError
from engine.game import MCTS
from engine.games.go import (
    PASS,
    RESIGN,
    RESIGN_TEXT,
    Go,
    GoState,
    fills_own_eye,
    gaining_move,
    in_own_area,
    passing_wins,
    should_resign,
)
from engine.registry import GAMES, create_game
from engine.search.limits import Deadlines, Limits
from engine.search.request import PlayedLine, SearchRequest
from engine.search.results import Info, SearchResult
from engine.search.trace import TraceLimitError, trace
from engine.searchers import GameSearcher, searcher_for
from protocol.codec import Encoding, encode
from protocol.errors import RequestId, from_game_error
from protocol.records import TraceReply as TraceMessage
from server.external import (
    STARTUP_WAIT_S,
    ExternalEngine,
    ProgramSearcher,
    find_external,
    program_searcher,
)
from server.runtime.memory import (
    MAX_CACHED_SEARCHERS,
    Collector,
    TreeBudget,
    fit_trees,
    release_trees,
)

#: Engine programs kept running per worker, besides those searchers: a
#: program holds no table here, and one ended is started cold at its next
#: think (node takes some 200 ms: its move's budget), so a tournament's
#: bots are not evicted by one another. A class of 60 fits.
MAX_CACHED_PROGRAMS = 64
#: Copies of one engine program kept per worker, one per set of game
#: options (a board size, a komi): a client cycling the komi made one worker
#: start 45 GNU Go processes, 440 MB (a review, 2026-12-07). Two cover a
#: tournament that alternates two option sets; a third set ends the least
#: recently used copy, started again cold if it comes back.
MAX_COPIES_PER_PROGRAM = 2
#: The game with a clean-up phase, and its pass (protocol.md, ``think.cleanup``).
GO = "go"
PASS_TEXT = "pass"


class StopFlag:
    """A lock-free shared boolean with ``is_set()``, ``set()`` and ``clear()``.

    A ``multiprocessing.Event`` takes a lock inside ``is_set()``; a worker
    killed or frozen while holding it would block the parent's ``set()``
    forever. A raw shared byte cannot deadlock: one writer (the parent) and
    one reader (the worker) of a single byte need no lock.
    """

    def __init__(self, context: SpawnContext) -> None:
        self._value = context.RawValue(ctypes.c_bool, False)

    def is_set(self) -> bool:
        return bool(self._value.value)

    def set(self) -> None:
        self._value.value = True

    def clear(self) -> None:
        self._value.value = False


@dataclass(frozen=True, slots=True)
class TraceTask:
    """What makes a job a trace: its bounds, and how to write the reply."""

    depth: int
    max_nodes: int
    playouts: int
    seed: int
    request_id: RequestId
    encoding: Encoding


@dataclass(frozen=True, slots=True)
class TraceReply:
    """A trace's reply, encoded: the ``trace`` message, or the ``error`` that refused it.

    ``error_code`` is ``None`` for a trace (the parent counts messages by kind).
    ``playouts`` and ``seconds`` are what an ``mcts`` trace ran, finished or
    not (0 for the others): the pool's measure of its speed
    (:mod:`server.runtime.trace_cost`).
    """

    frame: bytes | str
    error_code: str | None
    playouts: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class WorkerJob:
    """One search as sent to a worker; ``seq`` tells its messages from stale ones.

    ``deadlines`` are the search's own: the think's, ended early by the
    pool's delivery margin. ``trace`` makes the job a trace instead of a
    think (``limits`` is then unused). ``cleanup`` (Go) asks for a move of
    a clean-up phase (:func:`_think`). ``multipv`` and ``searchmoves`` are
    the think's (:class:`~engine.search.request.SearchRequest`).
    """

    seq: int
    game: str
    options: dict[str, Any]
    state: Any
    limits: Limits
    deadlines: Deadlines
    algorithm: str
    trace: TraceTask | None = None
    cleanup: bool = False
    multipv: int = 1
    searchmoves: tuple[str, ...] = ()
    line: PlayedLine | None = None


def _read_game_data() -> None:
    """Make one game of each kind, so that the data files their games share
    (backgammon's network and bear-off tables) are read now, before the
    worker reports ready, and not inside its first think's time: the engine
    reads them at the first game a process makes, never at import (a suite
    run beside a CPU hog, 2026-12-08: a 300 ms backgammon think completed
    no iteration while the tables were read)."""
    for name in GAMES:
        create_game(name)


def worker_main(
    conn: Connection,
    stop: StopFlag,
    tt_slots: int,
    nice: int = 0,
    externals: tuple[ExternalEngine, ...] = (),
    budget: TreeBudget | None = None,
    program_wait_s: float = STARTUP_WAIT_S,
) -> None:
    """Serve jobs from ``conn`` until ``None`` arrives or the parent goes away.

    Before it reports ready the worker starts its ``externals`` and waits
    up to ``program_wait_s`` for their handshakes (:func:`_start_externals`).

    ``nice`` is added to the process's niceness first (the event loop in
    the parent should win the CPU over searches). ``budget`` bounds the
    memory of the Monte Carlo trees kept and of the transposition tables,
    which have ``tt_slots`` slots or fewer (:mod:`server.runtime.memory`).
    """
    budget = budget or TreeBudget()
    tt_slots = budget.table_slots(tt_slots)
    # Ctrl-C in a terminal reaches the whole process group; the parent
    # shuts down gracefully and tells the workers when to exit.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    searchers: OrderedDict[str, GameSearcher] = OrderedDict()
    try:
        _read_game_data()
        _start_externals(searchers, externals, program_wait_s)
        conn.send(("ready",))
        collector = Collector()
        collector.start()
        while True:
            if not conn.poll(collector.wait_s(budget.idle_release_s)):
                if collector.jobs_since:
                    collector.collect()  # between searches, not inside one
                else:
                    release_trees(searchers.values())  # idle: a closed session's tree goes too
                continue
            job = conn.recv()
            if job is None:
                return
            _run(conn, stop, job, searchers, tt_slots, externals, budget)
            if collector.after_job():
                collector.collect()
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent is gone: nothing left to serve
    finally:
        for searcher in searchers.values():
            _close(searcher)


def _run(
    conn: Connection,
    stop: StopFlag,
    job: WorkerJob,
    searchers: OrderedDict[str, GameSearcher],
    tt_slots: int,
    externals: tuple[ExternalEngine, ...] = (),
    budget: TreeBudget | None = None,
) -> None:
    seq = job.seq

    def report(info: Info) -> None:
        conn.send(("info", seq, info))

    try:
        if job.trace is not None:
            conn.send(("done", seq, _trace(job, job.trace, stop)))
            return
        searcher = _searcher(searchers, job, tt_slots, externals)
        fit_trees(searchers, searcher, budget or TreeBudget())
        result = _think(searcher, job, stop, report)
    except (BrokenPipeError, ConnectionResetError):
        raise
    except Exception:
        conn.send(("failed", seq, traceback.format_exc()))
        return
    conn.send(("done", seq, result))
    # A program ended for a bad answer starts again now, after the answer
    # went out: starting a process before it could make the think late.
    after_answer = getattr(searcher, "after_answer", None)
    if after_answer is not None:
        after_answer()


def _think(
    searcher: GameSearcher, job: WorkerJob, stop: StopFlag, report: Callable[[Info], None]
) -> SearchResult:
    """The searcher's answer to ``job``, with Go's end of game rules for our own search.

    An external GTP engine is asked its own clean-up command in a clean-up
    phase. Our search scores the board as it stands, so a side already
    winning may pass with points still to take (the opponent's dead
    stones, neutral points): it plays them instead
    (:func:`engine.games.go.gaining_move`); when the opponent has passed and
    the board as it stands is won, it passes back
    (:func:`engine.games.go.passing_wins`); and a side whose win rate has
    fallen below the threshold resigns (:func:`engine.games.go.should_resign`;
    the session passes the resignation on only when it is the side's third
    in a row, :meth:`server.session.Session.finish_think`).
    """
    request = SearchRequest(
        job.state,
        job.limits,
        job.deadlines,
        stop,
        report,
        job.multipv,
        job.searchmoves,
        job.cleanup,
        job.line,
    )
    result = searcher.think(request)
    if isinstance(searcher, ProgramSearcher):
        return result  # a program plays by its own rules
    if job.game == GO and job.algorithm == MCTS:
        game = create_game(job.game, job.options)
        if isinstance(game, Go):
            return go_answer(game, job.state, result)
    return result


def go_answer(game: Go, state: GoState, result: SearchResult) -> SearchResult:
    """Our Go search's answer after Go's end-of-game rules (:func:`_think`).

    A resignation keeps the search's principal variation: its first move
    is the best move found (protocol.md, ``bestmove``).
    """
    if result.move is None or result.reason in ("stopped", "only_move"):
        return result
    if result.move != PASS_TEXT and passing_wins(game, state) and gaining_move(game, state) is None:
        # The opponent passed and the board, as it stands, is ours: any
        # move now is one a search that wins every line chose at random
        # (and a resignation would throw the won game away).
        return _instead(game, state, result, PASS)
    # The root's win rate rests on the reused tree's playouts too: a short
    # think (100 ms, a few hundred playouts) on a kept tree may resign.
    win_chance = result.info.score.win_chance(game.win_odds_scale)
    if should_resign(game, state, win_chance, result.root_playouts):
        return dataclasses.replace(result, move=RESIGN_TEXT, move_value=RESIGN)
    chosen = game.point(result.move)
    # After the opponent's pass, a point of its own area changes no count: a
    # neutral point or a dead stone's capture gains one (a review,
    # 2026-12-07); with none, the search's move stands (a pass would end the
    # game on this count).
    wasted = chosen is not None and state.passes == 1 and in_own_area(game, state, chosen)
    if chosen is not None and fills_own_eye(game, state, chosen):
        # Filling an own eye never gains a point: as a pass, what a pass
        # would give away is played instead (below), else the pass itself.
        result = _instead(game, state, result, PASS)
    if result.move == PASS_TEXT or wasted:
        move = gaining_move(game, state)
        if move is not None:
            return _instead(game, state, result, move)
    return result


def _instead(game: Go, state: GoState, result: SearchResult, move: int) -> SearchResult:
    """The answer with ``move`` played instead of the search's, as its whole line."""
    text = game.format_move(state, move)
    info = dataclasses.replace(result.info, pv=(text,))
    return dataclasses.replace(result, move=text, move_value=move, info=info)


def _trace(job: WorkerJob, task: TraceTask, stop: StopFlag) -> TraceReply:
    """Run the trace and encode its reply, or the error a rejected trace gets."""
    game = create_game(job.game, job.options)
    started = time.monotonic()
    try:
        result = trace(
            game,
            job.state,
            job.algorithm,
            task.depth,
            task.max_nodes,
            job.deadlines.hard,
            stop,
            task.playouts,
            task.seed,
        )
    except GameError as error:
        refusal = from_game_error(error, task.request_id)
        frame = encode(refusal.to_record().to_wire(), task.encoding)
        if isinstance(error, TraceLimitError):
            return TraceReply(frame, str(refusal.code), error.playouts, error.seconds)
        return TraceReply(frame, str(refusal.code))
    seconds = time.monotonic() - started
    message = TraceMessage(result, task.request_id)
    frame = encode(message.to_wire(), task.encoding)
    return TraceReply(frame, None, result.playouts or 0, seconds)


def _start_externals(
    searchers: OrderedDict[str, GameSearcher],
    externals: tuple[ExternalEngine, ...],
    wait_s: float = STARTUP_WAIT_S,
) -> None:
    """Start the external engines in the background before reporting ready.

    Their handshakes get ``wait_s`` in all (STARTUP_WAIT_S; ``arena serve
    --program-wait``), so that a first think keeps its whole time; one that
    takes longer (or hangs) goes on in the background, and a think waits
    for it only until its own deadline.
    """
    started = []
    for external in externals[:MAX_CACHED_PROGRAMS]:
        game = create_game(external.game)
        searcher = program_searcher(external, game)
        # Keyed as a think for the game's default options will look for it.
        searchers[_searcher_key(external.game, dict(game.options), external.name)] = searcher
        searcher.start()
        started.append(searcher)
    deadline = time.monotonic() + wait_s
    for searcher in started:
        searcher.wait_started(deadline)


def _searcher_key(game: str, options: dict[str, Any], algorithm: str) -> str:
    return json.dumps([game, options, algorithm], sort_keys=True, default=list)


def _searcher(
    searchers: OrderedDict[str, GameSearcher],
    job: WorkerJob,
    tt_slots: int,
    externals: tuple[ExternalEngine, ...],
) -> GameSearcher:
    key = _searcher_key(job.game, job.options, job.algorithm)
    searcher = searchers.get(key)
    if searcher is None:
        game = create_game(job.game, job.options)
        external = find_external(externals, job.game, job.algorithm)
        if external is not None:
            searcher = program_searcher(external, game)
        else:
            searcher = searcher_for(game, job.algorithm, tt_slots)
        searchers[key] = searcher
        _evict(searchers)
    else:
        searchers.move_to_end(key)
    return searcher


def _evict(searchers: OrderedDict[str, GameSearcher]) -> None:
    """End the least recently used searchers beyond the caps (programs and others apart),
    and the copies of one program beyond :data:`MAX_COPIES_PER_PROGRAM`."""
    for is_program, cap in ((False, MAX_CACHED_SEARCHERS), (True, MAX_CACHED_PROGRAMS)):
        keys = [k for k, v in searchers.items() if isinstance(v, ProgramSearcher) == is_program]
        for key in keys[: max(0, len(keys) - cap)]:
            _close(searchers.pop(key))
    copies: dict[tuple[str, str], list[str]] = {}
    for key, searcher in searchers.items():
        if isinstance(searcher, ProgramSearcher):
            copies.setdefault((searcher.engine.game, searcher.engine.name), []).append(key)
    for keys in copies.values():
        for key in keys[: max(0, len(keys) - MAX_COPIES_PER_PROGRAM)]:
            _close(searchers.pop(key))


def _close(searcher: GameSearcher) -> None:
    """End what a searcher holds outside this process (an external engine's program)."""
    if isinstance(searcher, ProgramSearcher):
        searcher.close()

"""``arena uci``: the chess engine as a UCI engine on stdin and stdout.

A GUI or a tournament manager (cutechess-cli, fastchess, python-chess's
``chess.engine``, Arena, Banksia) starts ``arena uci`` and talks to it line
by line. UCI asks more of an engine than GTP: ``isready`` and ``stop`` must
be answered while a search runs. So the search runs in a worker process
(the server's own, :func:`server.runtime.worker.worker_main`) and this process
only reads and writes lines, on two threads that do no CPU work:

* the main thread reads commands and acts on them through
  :class:`~clients.uci.protocol.UciProtocol`;
* a reader thread forwards the worker's reports as ``info`` lines and its
  result as ``bestmove``.

Every ``go`` gets exactly one ``bestmove``: the search's, or, when the
worker fails, crashes or overruns its deadline (a watchdog stops it, then
replaces the process), the move of the last completed depth, else the
first legal move, with an ``info string`` saying so.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any, Final, TextIO

from clients.uci.protocol import Reaction, SearchOrder, UciProtocol, bestmove_line, info_line
from engine.search.limits import plan_deadlines
from engine.search.results import Info, SearchResult
from server.runtime.worker import StopFlag, WorkerJob, worker_main

#: The search's algorithm: chess's production alpha-beta.
ALGORITHM: Final = "alphabeta"
#: Longest wait for a new worker process to import the engine.
READY_TIMEOUT_S: Final = 60.0
#: Past its hard deadline a search is told to stop after this long, and
#: abandoned (answered without it, its process replaced) after KILL_GRACE_S.
#: A search polls its deadline every few thousand nodes (milliseconds), so
#: these fire only for a worker that hangs or is starved of the CPU.
STOP_GRACE_S: Final = 0.25
KILL_GRACE_S: Final = 1.5
#: Longest wait for a worker to exit on ``quit`` before it is killed.
EXIT_TIMEOUT_S: Final = 2.0


def _worker_entry(conn: Connection, stop: StopFlag, tt_slots: int) -> None:
    """The worker process: stdout belongs to UCI, so anything printed goes to stderr."""
    os.dup2(2, 1)
    worker_main(conn, stop, tt_slots)


@dataclass(slots=True)
class _Worker:
    """One search process, its pipe and stop flag, and whether it has said ``ready``."""

    process: SpawnProcess
    conn: Connection
    stop: StopFlag
    ready: threading.Event = field(default_factory=threading.Event)
    alive: bool = True


@dataclass(slots=True)
class _Search:
    """The running ``go``: what answers it when the worker cannot."""

    seq: int
    order: SearchOrder
    hard_deadline: float | None
    trusted_move: str | None = None
    timers: list[threading.Timer] = field(default_factory=list)


class UciEngine:
    """The UCI engine process: commands from ``read``, replies to ``write``."""

    def __init__(self, write: TextIO = sys.stdout) -> None:
        self.protocol = UciProtocol()
        self._out = write
        self._out_lock = threading.Lock()
        self._lock = threading.Lock()  # guards _search and _worker
        self._context: SpawnContext = multiprocessing.get_context("spawn")
        self._worker: _Worker | None = None
        self._search: _Search | None = None
        self._seq = 0
        self._resize_pending = False

    def run(self, read: TextIO = sys.stdin) -> int:
        """Answer commands until ``quit`` or the end of input; the exit status."""
        self._start_worker()
        try:
            for line in read:
                if not self._apply(self.protocol.execute(line)):
                    break
        finally:
            self._shut_down()
        return 0

    # ------------------------------------------------------------------
    # Commands.

    def _apply(self, reaction: Reaction) -> bool:
        """Carry out one command's reaction; False once it is time to quit."""
        for line in reaction.lines:
            self._write(line)
        if reaction.stop:
            self._stop_search()
        if reaction.quit:
            return False
        if reaction.resize:
            self._resize_pending = True
        if reaction.ready:
            self._when_idle_restart_if_resized()
            worker = self._live_worker()
            if not worker.ready.wait(READY_TIMEOUT_S):
                self._write("info string the search process did not start")
            self._write("readyok")
        if reaction.search is not None:
            self._go(reaction.search)
        return True

    def _go(self, order: SearchOrder) -> None:
        with self._lock:
            running = self._search is not None
        if running:
            self._write("info string a search is running: send stop first; this go is ignored")
            return
        self._when_idle_restart_if_resized()
        worker = self._live_worker()
        if not worker.ready.wait(READY_TIMEOUT_S):
            self._write("info string the search process did not start")
        deadlines = plan_deadlines(order.limits, time.monotonic())
        with self._lock:
            self._seq += 1
            search = _Search(self._seq, order, deadlines.hard)
            self._search = search
            worker.stop.clear()
        if deadlines.hard is not None:
            delay = deadlines.hard - time.monotonic()
            self._arm(search, delay + STOP_GRACE_S, self._stop_search)
            self._arm(search, delay + KILL_GRACE_S, lambda: self._abandon(search.seq))
        job = WorkerJob(search.seq, "chess", {}, order.state, order.limits, deadlines, ALGORITHM)
        try:
            worker.conn.send(job)
        except (BrokenPipeError, OSError):
            self._abandon(search.seq)

    def _stop_search(self) -> None:
        """Tell the running search to stop; abandon it if it does not answer soon."""
        with self._lock:
            search, worker = self._search, self._worker
        if search is None or worker is None:
            return
        worker.stop.set()
        self._arm(search, KILL_GRACE_S, lambda: self._abandon(search.seq))

    def _arm(self, search: _Search, delay: float, action: Any) -> None:
        timer = threading.Timer(max(0.0, delay), action)
        timer.daemon = True
        search.timers.append(timer)
        timer.start()

    # ------------------------------------------------------------------
    # Answers.

    def _answer(self, seq: int, line: str) -> bool:
        """Write the ``bestmove`` of search ``seq`` unless it has one already."""
        with self._lock:
            search = self._search
            if search is None or search.seq != seq:
                return False
            self._search = None
        for timer in search.timers:
            timer.cancel()
        self._write(line)
        return True

    def _abandon(self, seq: int, why: str = "did not answer in time") -> None:
        """Answer search ``seq`` without the worker, and replace the worker."""
        with self._lock:
            search = self._search
            if search is None or search.seq != seq:
                return
            worker = self._worker
            self._worker = None
        self._write(f"info string the search process {why}: answering with the best move so far")
        self._answer(seq, f"bestmove {self._fallback_move(search)}")
        if worker is not None:
            self._end_worker(worker)
        self._start_worker()

    def _fallback_move(self, search: _Search) -> str:
        """The last completed depth's move, else the first legal move, else ``(none)``."""
        if search.trusted_move is not None:
            return search.trusted_move
        game, state = self.protocol.game, search.order.state
        moves = game.ordered_moves(state)
        return game.format_move(state, moves[0]) if moves else "(none)"

    def _on_report(self, message: tuple[Any, ...]) -> None:
        """One message from the worker: progress, a result or a failure."""
        kind, seq = message[0], message[1]
        with self._lock:
            search = self._search if self._search is not None and self._search.seq == seq else None
        if search is None:
            return  # a search already answered (stopped, abandoned)
        if kind == "info":
            info: Info = message[2]
            if not info.partial and info.pv:
                search.trusted_move = info.pv[0]  # only a completed depth's move is trusted
            self._write(info_line(info))
        elif kind == "done":
            result: SearchResult = message[2]
            self._answer(seq, bestmove_line(result))
        elif kind == "failed":
            last = str(message[2]).strip().splitlines()[-1:] or ["unknown error"]
            self._write(f"info string search failed: {last[0]}")
            self._answer(seq, f"bestmove {self._fallback_move(search)}")

    # ------------------------------------------------------------------
    # The worker process.

    def _start_worker(self) -> _Worker:
        parent_end, child_end = self._context.Pipe()
        stop = StopFlag(self._context)
        process = self._context.Process(
            target=_worker_entry,
            args=(child_end, stop, self.protocol.options.tt_slots),
            name="arena-uci-search",
            daemon=True,
        )
        process.start()
        child_end.close()
        worker = _Worker(process, parent_end, stop)
        with self._lock:
            self._worker = worker
        reader = threading.Thread(target=self._read_worker, args=(worker,), daemon=True)
        reader.start()
        return worker

    def _live_worker(self) -> _Worker:
        with self._lock:
            worker = self._worker
        if worker is None or not worker.alive:
            worker = self._start_worker()
        return worker

    def _read_worker(self, worker: _Worker) -> None:
        """Forward one worker's messages until its pipe closes."""
        while True:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                break
            if message[0] == "ready":
                worker.ready.set()
            else:
                self._on_report(message)
        worker.alive = False
        with self._lock:
            current = self._worker is worker
            search = self._search
        if current and search is not None:
            self._abandon(search.seq, why="ended unexpectedly")

    def _when_idle_restart_if_resized(self) -> None:
        """Apply a new ``Hash``: the table is sized when the process starts."""
        with self._lock:
            idle = self._search is None
            worker = self._worker
        if not (self._resize_pending and idle):
            return
        self._resize_pending = False
        with self._lock:
            self._worker = None
        if worker is not None:
            self._end_worker(worker)
        self._start_worker()

    def _end_worker(self, worker: _Worker) -> None:
        worker.alive = False
        with contextlib.suppress(OSError):
            worker.conn.send(None)
        worker.process.join(0.05)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(EXIT_TIMEOUT_S)
        worker.conn.close()

    def _shut_down(self) -> None:
        self._stop_search()
        with self._lock:
            worker, self._worker = self._worker, None
            search, self._search = self._search, None
        if search is not None:
            for timer in search.timers:
                timer.cancel()
        if worker is not None:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
            worker.process.join(EXIT_TIMEOUT_S)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(EXIT_TIMEOUT_S)

    def _write(self, line: str) -> None:
        with self._out_lock, contextlib.suppress(BrokenPipeError, ValueError):
            self._out.write(line + "\n")
            self._out.flush()


def serve(read: TextIO = sys.stdin, write: TextIO = sys.stdout) -> int:
    """Be a UCI engine on ``read`` and ``write`` until ``quit``."""
    return UciEngine(write).run(read)

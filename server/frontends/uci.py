"""``arena uci``: the chess engine as a UCI engine on stdin and stdout.

A GUI or a tournament manager (cutechess-cli, fastchess, python-chess's
``chess.engine``, Arena, Banksia) starts ``arena uci`` and talks to it line
by line. UCI asks more of an engine than GTP: ``isready`` and ``stop`` must
be answered while a search runs. So the search runs on the server's
runtime, a one-worker :class:`~server.pool.WorkerPool`
(:mod:`server.frontends.runtime`), and this process only reads and writes
lines on its event loop: commands are acted on through
:class:`~server.frontends.uci_protocol.UciProtocol`, the worker's reports
are written as ``info`` lines, and its answer as ``bestmove``.

Every ``go`` gets exactly one ``bestmove``: the pool's guarantee. When the
worker crashes or overruns its deadline (the pool then stops it, and
replaces it if it does not come back), the answer is the best move
reported so far, else the first legal move, with an ``info string`` saying
so.

``uciok`` (else the first ``isready``) waits for the search process and
warms it: a tiny search (:data:`WARM_UP_LIMITS`) makes it import and build
everything a chess search needs, so that the first ``go`` is charged for
searching only (python-chess sends ``go`` without an ``isready``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Final, TextIO

from engine.search.limits import Limits
from engine.search.results import Info, SearchResult
from server.frontends.runtime import FrontendPool, protocol_stdout, read_lines, search_job
from server.frontends.uci_protocol import (
    STARTPOS,
    Reaction,
    SearchOrder,
    UciProtocol,
    bestmove_line,
    info_line,
)
from server.frontends.uci_strength import choose
from server.runtime.pool import Ticket

#: The search's algorithm: chess's production alpha-beta.
ALGORITHM: Final = "alphabeta"
#: The pool's reason when the worker died or failed during the search.
WORKER_LOST: Final = "worker_lost"
#: The warm-up search at the first ``isready``: one ply of the start
#: position (a few milliseconds once the engine is loaded; what it costs
#: first is the loading itself). Deliberately without a time limit: a cold
#: search process that overran one would be stopped, and replaced by
#: another cold one, by the pool's deadline guard.
WARM_UP_LIMITS: Final = Limits(depth=1)
#: The longest ``isready`` waits for the warm-up before answering
#: ``readyok`` anyway (GUIs wait for ``readyok`` about 10 s, python-chess's
#: default time-out): a process that takes longer is stopped and the first
#: ``go`` waits for it instead.
WARM_UP_TIMEOUT_S: Final = 5.0


@dataclass(slots=True)
class _Search:
    """The running ``go``: its order, its ticket, whether ``stop`` was sent, the task
    that answers it, and the latest complete report of each root line."""

    order: SearchOrder
    ticket: Ticket[SearchResult] | None = None
    stopped: bool = False
    task: asyncio.Task[None] | None = None
    lines: dict[int, Info] = field(default_factory=dict)
    #: Every report with a line, by iteration and line: ``{depth: {multipv: Info}}``;
    #: a partial one is the best so far of its line in an unfinished iteration.
    by_depth: dict[int, dict[int, Info]] = field(default_factory=dict)
    #: The last line written for each rank.
    written: dict[int, Info] = field(default_factory=dict)
    #: Set by ``stop`` or ``ponderhit``: a ``go infinite``/``go ponder``
    #: answer that came first waits for it (:attr:`SearchOrder.until_stop`).
    released: asyncio.Event = field(default_factory=asyncio.Event)
    #: The nodes of the last ``info`` line written (the final line tells the rest).
    nodes_shown: int = 0


class UciEngine:
    """The UCI engine process: commands from ``read``, replies to ``write``."""

    def __init__(self, write: TextIO = sys.stdout) -> None:
        self.protocol = UciProtocol()
        self._out = write
        self._runtime = FrontendPool(self.protocol.options.tt_slots)
        self._search: _Search | None = None
        self._seq = 0
        self._resize_pending = False
        self._warm = False
        #: The noise of UCI_LimitStrength (unseeded: a weak engine should vary).
        self._rng = random.Random()

    async def run(self, read: TextIO = sys.stdin) -> int:
        """Answer commands until ``quit`` or the end of input; the exit status."""
        self._runtime.start()
        try:
            async for line in read_lines(read):
                if not await self._apply(self.protocol.execute(line)):
                    break
        finally:
            await self._shut_down()
        return 0

    # ------------------------------------------------------------------
    # Commands.

    async def _apply(self, reaction: Reaction) -> bool:
        """Carry out one command's reaction; False once it is time to quit."""
        for line in reaction.lines:
            if line == "uciok" and not self._warm and self._search is None:
                # GUIs wait for uciok; python-chess then sends go without
                # an isready, and the first go paid the process's start
                # (686 ms for a movetime of 100: the ops review of 2026-11-29).
                if not await self._runtime.wait_ready():
                    self._write("info string the search process did not start")
                else:
                    await self._warm_up()
            self._write(line)
        if reaction.stop:
            self._stop_search()
        if reaction.ponderhit and self._search is not None:
            self._search.released.set()
        if reaction.quit:
            return False
        if reaction.resize:
            self._resize_pending = True
            if self._search is None:
                # Carried out now, as Stockfish sizes its table when it reads
                # the setoption: a go right after it (python-chess's
                # configure, then play) otherwise paid the new process's
                # start and got an unsearched move (the review of 2026-12-07).
                await self._ready_after_resize()
        if reaction.ready:
            if not await self._ready_after_resize():
                self._write("info string the search process did not start")
            self._write("readyok")
        if reaction.search is not None:
            await self._go(reaction.search)
        return True

    async def _go(self, order: SearchOrder) -> None:
        if self._search is not None:
            self._write("info string a search is running: send stop first; this go is ignored")
            return
        # The GUI's clock runs from the go: a wait for the process (a new
        # Hash's, one replaced after a crash) is the search's time too.
        received = time.monotonic()
        await self._when_idle_restart_if_resized()
        if not await self._runtime.wait_idle():
            self._write("info string the search process did not start")
        game, state = self.protocol.game, order.state
        if order.settled is not None or not game.legal_moves(state):
            # Mated or stalemated, or a dead position: nothing to search; the
            # score as Stockfish gives it (python-chess's analyse then has one).
            mated = order.settled is None and state.checkers()
            self._write("info depth 0 score " + ("mate 0" if mated else "cp 0"))
            search = _Search(order)
            self._search = search
            search.task = asyncio.create_task(self._answer_nothing(search, order.settled))
            return
        self._seq += 1
        job = search_job(
            self._seq,
            game,
            state,
            order.limits,
            ALGORITHM,
            received,
            order.multipv,
            order.searchmoves,
        )
        search = _Search(order)
        search.ticket = self._runtime.submit(job, lambda info: self._on_info(search, info))
        self._search = search
        self._warm = True
        search.task = asyncio.create_task(self._answer(search))

    async def _ready_after_resize(self) -> bool:
        """Apply a pending ``Hash``, then wait for the process and its warm-up (False: none)."""
        await self._when_idle_restart_if_resized()
        if not await self._runtime.wait_ready():
            return False
        if not self._warm and self._search is None:
            await self._warm_up()
        return True

    async def _warm_up(self) -> None:
        """Run the warm-up search (:data:`WARM_UP_LIMITS`) and wait for it."""
        game = self.protocol.game
        state = game.parse_position(STARTPOS)
        self._seq += 1
        job = search_job(self._seq, game, state, WARM_UP_LIMITS, ALGORITHM, time.monotonic())
        await self._runtime.warm_up([job], WARM_UP_TIMEOUT_S)
        self._warm = True

    def _stop_search(self) -> None:
        """Ask for the running search's answer now (the pool answers within its grace)."""
        search = self._search
        if search is None:
            return
        search.released.set()
        if search.ticket is not None:
            search.stopped = True
            search.ticket.stop()

    async def _when_idle_restart_if_resized(self) -> None:
        """Apply a new ``Hash``: the table is sized when the worker starts."""
        if self._resize_pending and self._search is None:
            self._resize_pending = False
            self._warm = False  # a new search process
            await self._runtime.resize(self.protocol.options.tt_slots)

    # ------------------------------------------------------------------
    # Answers.

    def _on_info(self, search: _Search, info: Info) -> None:
        if info.pv:
            if not info.partial:
                search.lines[info.multipv] = info
            # A partial line too: the best of its line so far at a deeper
            # iteration, fresher than the last iteration's (the review of
            # 2026-12-07: after stop, depth 10's line 2 replaced depth 11's).
            search.by_depth.setdefault(info.depth, {})[info.multipv] = info
        if info.multipv <= search.order.shown:
            search.nodes_shown = max(search.nodes_shown, info.nodes)
            search.written[info.multipv] = info
            self._write(info_line(info, self.protocol.options.show_wdl))

    async def _answer(self, search: _Search) -> None:
        """Write the search's one ``bestmove``, saying so when the worker did not give it."""
        assert search.ticket is not None, "a search is answered once submitted"
        result = await search.ticket.answer
        note = None
        if result.reason == WORKER_LOST:
            note = "ended unexpectedly"
            self._warm = False  # its replacement starts cold
        elif not search.stopped and self._runtime.still_searching():
            note = "did not answer in time"  # the pool answered; the worker is being stopped
        if note is not None:
            later = " at stop" if search.order.until_stop and not search.released.is_set() else ""
            self._write(
                f"info string the search process {note}: answering with the best move so far"
                + later
            )
        if note is None:
            self._last_lines(search, result.info)
        unsearched = result.info.depth == 0 and result.info.nodes == 0
        if note is None and unsearched and result.reason in ("time", "overloaded"):
            # No time was left for a search (the go's time less the Move
            # Overhead under what the pool needs to deliver on time): say so,
            # the move is one ply of the evaluation, not a search's.
            overhead = self.protocol.options.move_overhead_ms
            self._write(
                f"info string not searched ({result.reason}): too little time after the"
                f" Move Overhead of {overhead} ms; the move is one ply of the evaluation"
            )
        if search.order.until_stop:
            await search.released.wait()
        if self._search is search:
            self._search = None
        move = result.move
        strength = search.order.strength
        if strength is not None and note is None:
            move = self._weaker_move(search, strength.noise_cp) or move
        pv = result.info.pv
        # The reply the search expects, for a GUI that ponders (UCI's
        # "bestmove ... ponder"): the line's second move, when the move
        # played is the line's first.
        ponder = pv[1] if len(pv) >= 2 and pv[0] == move else None
        self._write(bestmove_line(move, ponder))

    def _last_lines(self, search: _Search, final: Info) -> None:
        """The answer's last ``info`` lines, where they add to the reports.

        Nodes searched after the last report (an unfinished iteration): line
        1 counts them, as Stockfish's last line does, so that a ``go nodes
        N`` shows the N it spent. With MultiPV, an iteration cut off after
        its first lines leaves the others as the last iteration that searched
        them left them, each root move once (b1c3 came as line 1 of depth 7
        and as line 2 of depth 6, the review of 2026-12-07).
        """
        for line in closing_lines(search, final):
            self._write(info_line(line, self.protocol.options.show_wdl))

    async def _answer_nothing(self, search: _Search, move: str | None = None) -> None:
        """``bestmove (none)`` for a position without a legal move, or ``move`` unsearched
        (after ``stop`` when told)."""
        if search.order.until_stop:
            await search.released.wait()
        if self._search is search:
            self._search = None
        self._write(bestmove_line(move))

    def _weaker_move(self, search: _Search, noise_cp: int) -> str | None:
        """UCI_LimitStrength's move: among the last completed depth's lines, with noise."""
        first = search.lines.get(1)
        if first is None:
            return None
        lines = [info for info in search.lines.values() if info.depth == first.depth]
        return choose(lines, noise_cp, self._rng)

    async def _shut_down(self) -> None:
        search, self._search = self._search, None
        if search is not None:
            if search.ticket is not None:
                search.ticket.cancel()
            if search.task is not None:
                search.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await search.task
        await self._runtime.close()

    def _write(self, line: str) -> None:
        with contextlib.suppress(BrokenPipeError, ValueError):
            self._out.write(line + "\n")
            self._out.flush()


def closing_lines(search: _Search, final: Info) -> list[Info]:
    """The lines :meth:`UciEngine._last_lines` writes: line 1 when the answer
    counted nodes after the last report, any other line that is not the last
    written of its rank. Each carries the answer's nodes and time: UCI's
    ``nodes`` and ``time`` count from the ``go``, and a line of an earlier
    iteration written with its own went back in both (the review of
    2026-12-07: nodes 665609 time 1488, then nodes 316948 time 692)."""
    lines = final_lines(search.by_depth, search.order.shown, final if final.pv else None)
    out = []
    for rank, line in enumerate(lines, start=1):
        if rank == 1:
            fresh = line.nodes > search.nodes_shown
        else:
            fresh = search.written.get(rank) is not line
        if not fresh:
            continue
        if final.nodes >= line.nodes:
            line = replace(
                line,
                nodes=final.nodes,
                time_ms=max(final.time_ms, line.time_ms),
                nps=final.nps or line.nps,
            )
        out.append(replace(line, multipv=rank))
    return out


def final_lines(
    by_depth: dict[int, dict[int, Info]], count: int, first: Info | None = None
) -> list[Info]:
    """The last word on ``count`` root lines: ``first`` (the answer's own line, which an
    unfinished iteration may have changed), then the deepest iteration's lines in order,
    then those of earlier iterations, each root move once (as Stockfish reports a stopped
    MultiPV search: the lines not searched again keep their previous word)."""
    lines: list[Info] = [first] if first is not None and first.pv else []
    seen = {info.pv[0] for info in lines}
    for depth in sorted(by_depth, reverse=True):
        for _, info in sorted(by_depth[depth].items()):
            if info.pv[0] not in seen and len(lines) < count:
                seen.add(info.pv[0])
                lines.append(info)
    return lines


def serve(read: TextIO | None = None, write: TextIO | None = None) -> int:
    """Be a UCI engine on ``read`` and ``write`` (default: stdin and stdout) until ``quit``."""
    if write is not None:
        return asyncio.run(UciEngine(write).run(read or sys.stdin))
    with protocol_stdout() as out:
        return asyncio.run(UciEngine(out).run(read or sys.stdin))

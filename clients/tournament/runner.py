"""Runs a stored tournament: local server, connections, concurrent games, SPRT, files.

:func:`create_tournament` writes a new database (settings, openings,
schedule); :class:`TournamentRunner` plays whatever is still pending in a
database, ``concurrency`` games at a time, stores each game as it ends and
appends it to the JSON Lines (and PGN) files. Interrupted, it leaves the
database ready for :meth:`TournamentRunner.run` again (``--resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from clients.client import Engine
from clients.tournament import knockout, reasons
from clients.tournament.config import LOCAL_URL, TournamentConfig
from clients.tournament.connections import Backoff, ConnectError, EnginePool, preflight
from clients.tournament.display import (
    Progress,
    game_points_table,
    interim_report,
    report,
    sprt_text,
)
from clients.tournament.local import LocalServer, local_workers
from clients.tournament.openings import (
    DEFAULT_RANDOM_PLIES,
    Opening,
    default_openings,
    generate_openings,
    load_openings,
)
from clients.tournament.records import (
    CONNECTION_FAILED,
    DISCONNECT,
    ENGINE_FAILURE,
    GameRecord,
    MoveRecord,
    epd,
    game_text,
    replay,
)
from clients.tournament.referee import OVERLOADED_REASON as OVERLOADED
from clients.tournament.referee import TIME_REASON as TIME
from clients.tournament.referee import GameSpec, Referee
from clients.tournament.scheduler import ScheduledGame, openings_needed, schedule
from clients.tournament.standings import GameResult, pairing_results
from clients.tournament.stats import SprtState, sprt_pentanomial, sprt_trinomial
from clients.tournament.store import Store
from engine.registry import create_game

#: Games in a row an engine may lose by failing (its server answering
#: ``engine_error``) before the tournament stops with the reason, games in
#: progress finishing, resumable. A broken program (or one its machine
#: cannot start in time) would otherwise lose every game in milliseconds
#: while its server waits out the restart backoff (up to 60 s), and an SPRT
#: would decide on those forfeits. Three: one failure can be bad luck, a
#: crash restarted at once; three in a row are a program that does not work.
MAX_FAILURES_IN_A_ROW = 3
#: Lines of the local server's log quoted when a program engine stops the tournament.
FAILURE_LOG_LINES = 3
#: How the server logs a think it answered ``engine_error`` for a program
#: (server/programs/searchers.py, ``ProgramSearcher._replaced``), then why.
REPLACED_LOG = "external engine {name}: think answered engine_error: "
#: Lines of it read for a lost game's cause, and the words of a failure that
#: only follows another (a program started again, not up yet).
CAUSE_LOG_LINES = 10
KNOCK_ON = "was not ready by the deadline"
#: How it logs a program's failure (``ProgramSearcher._failed``: restart, backoff).
FAILED_LOG = "external engine {name} failed "


def _unsearched(move: MoveRecord) -> bool:
    """A move its engine's server answered without a search behind it."""
    if move.book or move.roll:
        return False
    return move.reason == OVERLOADED or (move.reason == TIME and move.depth == 0)


class GameWatcher(Protocol):
    """Told of each game as it is played (the live page: :mod:`clients.tournament.web`)."""

    def started(self, spec: GameSpec) -> None: ...

    def moved(self, spec: GameSpec, moves: Sequence[MoveRecord]) -> None: ...

    def finished(self, record: GameRecord) -> None: ...

    def abandoned(self, game_id: int) -> None: ...


#: How long a connection fault of a local engine waits to see whether the
#: local server has ended (its exit follows its sockets' closing closely).
LOCAL_END_SEEN_WITHIN_S = 1.0
#: How often it looks meanwhile.
LOCAL_END_POLL_S = 0.05


class TournamentAborted(Exception):
    """The tournament cannot go on (no engine reachable); finished games are kept."""


def prepare_openings(config: TournamentConfig) -> list[Opening]:
    """The openings of a new tournament, from its file or generated (seeded)."""
    game = create_game(config.game, config.options)
    source = config.openings
    wanted = openings_needed(config.games_per_pair, config.repeat)
    if source.path is not None:
        openings = load_openings(game, source.path, source.format, source.plies)
        if source.shuffle:
            random.Random(config.seed).shuffle(openings)
        return openings
    plies = source.random_plies
    if plies is None:
        builtin = default_openings(config.game, game)
        if builtin is not None:
            if source.shuffle:
                random.Random(config.seed).shuffle(builtin)
            return builtin
        plies = DEFAULT_RANDOM_PLIES
    generated = generate_openings(
        game,
        wanted,
        plies,
        depth=source.balance_depth,
        max_score=source.balance_score,
        seed=config.seed,
    )
    return generated or [Opening()]


def create_tournament(path: str | Path, config: TournamentConfig) -> Store:
    """A new tournament database with its openings and its whole schedule."""
    config.validate()
    openings = prepare_openings(config)
    if config.knockout:
        first_round = knockout.build(len(config.engines), config.games_per_pair, [], [])
        games = knockout.next_games(first_round, config.games_per_pair, [], len(openings))
    else:
        games = schedule(
            len(config.engines),
            config.games_per_pair,
            len(openings),
            config.gauntlet,
            config.repeat,
        )
    return Store.create(path, config, openings, games)


#: An engine's share of moves answered without a search above which an
#: SPRT's verdict comes with a warning.
UNSEARCHED_WARNING_SHARE = 0.05


def failure_cause(whys: list[str]) -> str:
    """The last of a program's failures that is a cause, not its knock-on.

    After a crash or a silence the copy started again may not be up by the
    next moves: "not ready by the deadline" was quoted for a game lost to a
    crash (a review, 2026-12-07).
    """
    causes = [why for why in whys if KNOCK_ON not in why]
    return (causes or whys)[-1]


@dataclass(slots=True)
class RunSettings:
    """How to run (not part of the tournament: may change between resumes)."""

    concurrency: int = 1
    local_workers: int | None = None
    backoff: Backoff = field(default_factory=Backoff)
    jsonl_path: Path | None = None
    #: The text records: PGN for chess, SGF for Go (records.game_text picks).
    pgn_path: Path | None = None
    #: Chess: each game's final position as an EPD line (``--epdout``).
    epd_path: Path | None = None
    quiet: bool = False
    live: bool | None = None
    #: Print the standings every this many finished games (0: only at the end).
    rating_interval: int = 0
    #: The token of remote engines without one of their own (``--token``, ``$ARENA_TOKEN``).
    token: str | None = field(default=None, repr=False)
    #: Remote engines' own tokens by engine name (``token=`` in their specs; not stored).
    engine_tokens: dict[str, str] = field(default_factory=dict, repr=False)
    #: Each bot's log size when the run began (its summary quotes what follows).
    bot_log_sizes: dict[str, int] = field(default_factory=dict)

    def workers(self) -> int:
        """The local server's search processes: ``local_workers``, else one per game and one."""
        return self.local_workers or local_workers(self.concurrency)


def warn_if_pure(server: LocalServer) -> None:
    """One line on stderr when the local server runs the pure-Python engine, saying why."""
    if server.engine_note is not None:
        print(
            f"arena tournament: the local server runs the pure-Python engine "
            f"(several times slower): {server.engine_note}",
            file=sys.stderr,
        )


class TournamentRunner:
    """Plays the pending games of one database."""

    def __init__(
        self,
        store: Store,
        settings: RunSettings,
        progress: Progress | None = None,
        local_server: LocalServer | None = None,
        watcher: GameWatcher | None = None,
        unavailable: Mapping[str, str] | None = None,
    ) -> None:
        """``local_server``: one already running for ``url=local`` engines (else one is
        started); ``watcher``: told of every game's start, moves and end;
        ``unavailable``: engines that could not start (by name, why), whose
        games are lost without being played."""
        self.store = store
        self.unavailable = dict(unavailable or {})
        self.watcher = watcher
        self.local_server = local_server
        self.config = store.config()
        self.settings = settings
        self.openings = store.openings()
        self.names = [engine.name for engine in self.config.engines]
        self.progress = progress or Progress(
            self.names, self._total_games(), live=settings.live, quiet=settings.quiet
        )
        # A resumed tournament's status line counts the games played before
        # (it said 0/12 with 6 played, a teacher's review of 2026-12-07).
        self.progress.results = list(store.results())
        self.referee = Referee(self.config)
        self.request_timeout_s = self.config.timing.request_timeout_ms / 1000
        self.pools: dict[int, EnginePool] = {}
        self._stopping = False
        self._queue: deque[ScheduledGame] = deque()
        #: Games being played, and a signal when one ends (a knockout may then add games).
        self._playing = 0
        self._game_ended = asyncio.Event()
        #: Per engine index, the games it has lost in a row by failing (ENGINE_FAILURE).
        self._failures_in_a_row = [0] * len(self.names)
        #: Why the tournament stops before its end (an engine that keeps failing).
        self._abort: str | None = None

    # ------------------------------------------------------------------

    async def run(self) -> str:
        """Play until every game is done, SPRT decides, or an abort; the final report.

        Before the first game every engine must answer ``hello``
        (:func:`~clients.tournament.connections.preflight`): if one does
        not, :class:`~clients.tournament.connections.PreflightError` is
        raised and nothing is played or written.
        """
        if self.store.status() is None:
            self._check_sprt()
            self._extend_knockout()  # games a run interrupted before scheduling them
        pending = self.store.pending() if self.store.status() is None else []
        if not pending:
            self._rewrite_files()
            return self.report()
        tokens = self._tokens()
        async with self._servers() as urls:
            here = [
                index
                for index, engine in enumerate(self.config.engines)
                if engine.name not in self.unavailable
            ]
            await preflight(
                [self.config.engines[index] for index in here],
                [urls[index] for index in here],
                self.request_timeout_s,
                [tokens[index] for index in here],
                self.config.game,
            )
            self._rewrite_files()
            self.pools = {
                index: EnginePool(
                    urls[index], self.settings.backoff, self.request_timeout_s, tokens[index]
                )
                for index in range(len(self.config.engines))
            }
            try:
                with self._report_on_signal():
                    await self._play_all(pending)
            finally:
                await asyncio.gather(*(pool.close() for pool in self.pools.values()))
                self.progress.close()
        if self._abort is not None:
            raise TournamentAborted(self._abort)
        return self.report()

    def _tokens(self) -> list[str | None]:
        """Each engine's token: its own, else the run's; none for local engines."""
        return [
            None
            if engine.is_local
            else self.settings.engine_tokens.get(engine.name) or self.settings.token
            for engine in self.config.engines
        ]

    def report(self) -> str:
        results = self.store.results()
        status = self.store.status()
        text = report(self.names, results, self._sprt_line())
        points = game_points_table(self.names, self.store.records())
        if points:
            text += (
                "\n\nPoints as the games scored them (a gammon 2, a backgammon 3; the "
                "standings count each game 1)\n" + points
            )
        if self.config.knockout:
            text += "\n\n" + knockout.bracket_text(
                self.names, self._bracket(), self.config.games_per_pair
            )
        unsearched = self._unsearched_moves()
        if unsearched:
            text += (
                "\n\nMoves answered without a search (the engine's server was overloaded, "
                "or had no result from it by the deadline: reason time, depth 0): "
            ) + (", ".join(f"{name} {count}" for name, count in unsearched.items()))
            asked = self._asked_moves() if self.config.sprt is not None else {}
            heavy = {
                name: count / asked[name]
                for name, count in unsearched.items()
                if asked.get(name) and count / asked[name] > UNSEARCHED_WARNING_SHARE
            }
            if heavy:
                # An SPRT decided on such games measures the machine as much
                # as the engines (a review of 2026-12-07: H1 accepted while
                # one side made no search on 22% of its moves).
                shares = ", ".join(f"{name} {share:.0%}" for name, share in heavy.items())
                text += (
                    f"\nwarning: the SPRT's games had moves answered without a search ({shares}"
                    " of the engine's moves): its verdict measures an overloaded machine as "
                    "much as the engines; give more time a move, or less --concurrency"
                )
        done, total = len(results), self._total_games()
        footer = f"{done} of {total} games played"
        if status:
            footer += f"; stopped early: {status}"
        return text + "\n\n" + footer

    def _total_games(self) -> int:
        """The games of the tournament, as far as they are known now.

        A knockout's: those scheduled and those of matches to come (without
        tie-breaks not yet needed).
        """
        if self.config.knockout:
            return knockout.expected_games(self._bracket(), self.config.games_per_pair)
        return len(self.store.schedule())

    def _bracket(self) -> knockout.Bracket:
        return knockout.build(
            len(self.names), self.config.games_per_pair, self.store.schedule(), self.store.results()
        )

    def _extend_knockout(self) -> list[ScheduledGame]:
        """Schedule the knockout's matches (and tie-breaks) the results now call for."""
        if not self.config.knockout:
            return []
        games = knockout.next_games(
            self._bracket(), self.config.games_per_pair, self.store.schedule(), len(self.openings)
        )
        self.store.add_games(games)
        if games:
            self.progress.total = self._total_games()
        return games

    def _unsearched_moves(self) -> dict[str, int]:
        """Per engine, the moves its server answered for it without a search (if any).

        ``overloaded`` (no search process in time), or ``time`` at depth 0:
        the deadline came before any search result (a program silent at
        its deadline, GNU Go cut off at 60 ms a move on a loaded machine,
        gets the first legal move so).
        """
        counts: dict[str, int] = {}
        for record in self.store.records():
            if not any(_unsearched(move) for move in record.moves):
                continue
            for game, state, move in replay(record):
                if _unsearched(move):
                    name = record.players[game.to_move(state)]
                    counts[name] = counts.get(name, 0) + 1
        return counts

    def _asked_moves(self) -> dict[str, int]:
        """Per engine, the moves it was asked for (not book moves or rolls)."""
        asked: dict[str, int] = {}
        for record in self.store.records():
            for game, state, move in replay(record):
                if not (move.roll or move.book or move.reason is None):
                    name = record.players[game.to_move(state)]
                    asked[name] = asked.get(name, 0) + 1
        return asked

    # ------------------------------------------------------------------

    async def _play_all(self, pending: list[ScheduledGame]) -> None:
        queue = self._queue
        queue.extend(pending)

        async def worker() -> None:
            while not self._stopping:
                if queue:
                    self._playing += 1
                    try:
                        await self._play_one(queue.popleft())
                    finally:
                        self._playing -= 1
                        self._game_ended.set()
                elif self._playing and self.config.knockout:
                    # a game in progress may decide a match: the next one is queued then
                    self._game_ended.clear()
                    await self._game_ended.wait()
                else:
                    return

        # a knockout's later rounds may have more games than the first
        room = self.settings.concurrency if self.config.knockout else len(queue)
        workers = max(1, min(self.settings.concurrency, room))
        await asyncio.gather(*(worker() for _ in range(workers)))

    async def _play_one(self, scheduled: ScheduledGame) -> None:
        engines = self.config.engines
        spec = GameSpec(
            game_id=scheduled.game_id,
            round=scheduled.round,
            pair=scheduled.pair,
            opening_index=scheduled.opening_index,
            opening=self.openings[scheduled.opening_index],
            engines=(engines[scheduled.first], engines[scheduled.second]),
        )
        indices = (scheduled.first, scheduled.second)
        self.progress.started(spec.game_id, spec.engines[0].name, spec.engines[1].name)
        if self.watcher is not None:
            self.watcher.started(spec)
        gone = [player for player in (0, 1) if spec.engines[player].name in self.unavailable]
        if gone:
            why = "; ".join(self.unavailable[spec.engines[player].name] for player in gone)
            detail = reasons.FAULT_CANNOT_START.format(why=why)
            loser = gone[0] if len(gone) == 1 else None
            self._save(self.referee.forfeit(spec, loser, ENGINE_FAILURE, detail))
            return
        connections = await asyncio.gather(
            *(self.pools[index].acquire() for index in indices), return_exceptions=True
        )
        healthy = [False, False]
        try:
            failed = [i for i, c in enumerate(connections) if isinstance(c, BaseException)]
            if len(failed) == 2:
                raise TournamentAborted(
                    f"no engine of game {spec.game_id} is reachable: "
                    f"{connections[0]}; {connections[1]}"
                )
            if failed:
                loser = failed[0]
                error = connections[loser]
                if not isinstance(error, ConnectError):
                    raise error  # type: ignore[misc]
                record = self.referee.forfeit(
                    spec, loser, CONNECTION_FAILED, reasons.FAULT_UNREACHABLE.format(error=error)
                )
                healthy[1 - loser] = True
            else:
                pair = (connections[0], connections[1])
                assert isinstance(pair[0], Engine) and isinstance(pair[1], Engine)
                record, (ok0, ok1) = await self.referee.play(
                    spec,
                    (pair[0], pair[1]),
                    self._moved,
                )
                healthy = [ok0, ok1]
            await self._check_local_server(spec, record)
            self._save(self._with_failure_log(record))
        except BaseException:
            self.progress.abandoned(spec.game_id)
            if self.watcher is not None:
                self.watcher.abandoned(spec.game_id)
            raise
        finally:
            for index, connection, ok in zip(indices, connections, healthy, strict=True):
                if isinstance(connection, Engine):
                    await self.pools[index].release(connection, ok)

    async def _check_local_server(self, spec: GameSpec, record: GameRecord) -> None:
        """Stop, the game unrecorded, when a connection fault is the local server's end.

        Its engines were charged with the games in progress: "pensador
        disconnected", a lost game for a student whose bot had done nothing
        wrong, and the run went on as if nothing had happened (a review of
        2026-12-07). Resumed, the game is played again.
        """
        if record.kind not in (DISCONNECT, CONNECTION_FAILED) or self.local_server is None:
            return
        if not any(engine.is_local for engine in spec.engines):
            return
        # A killed server's connections close as it exits, a moment before its
        # end can be seen (a fresh-clone CI run recorded a disconnection so):
        # a connection fault of a local engine waits that moment.
        local = self.local_server
        why = local.ended()
        waited = 0.0
        while why is None and waited < LOCAL_END_SEEN_WITHIN_S:
            await asyncio.sleep(LOCAL_END_POLL_S)
            waited += LOCAL_END_POLL_S
            why = local.ended()
        if why is not None:
            raise TournamentAborted(
                f"the local server stopped ({why}) during game {spec.game_id}: its game is not "
                "recorded; --resume plays it again"
            )

    def _moved(self, spec: GameSpec, moves: Sequence[MoveRecord]) -> None:
        self.progress.moved(spec.game_id, len(moves))
        if self.watcher is not None:
            self.watcher.moved(spec, moves)

    def _save(self, record: GameRecord) -> None:
        if not self.store.finish(record):
            return  # stored already (cannot happen with one runner per database)
        self._append_files(record)
        if self.watcher is not None:
            self.watcher.finished(record)
        results = self.store.results()
        self._queue.extend(self._extend_knockout())
        self.progress.finished(record, results)
        self._count_failures(results[-1])
        interval = self.settings.rating_interval
        if interval > 0 and len(results) % interval == 0:
            self.progress.table(interim_report(self.names, results, self._total_games()))
        self._check_sprt()

    def _count_failures(self, result: GameResult) -> None:
        """Stop the tournament when an engine has lost MAX_FAILURES_IN_A_ROW games by failing."""
        loser = result.at_fault if result.kind == ENGINE_FAILURE else None
        if loser is not None and self.config.engines[loser].is_bot:
            # A class bot's lost games are its own results, the tournament
            # goes on (docs/bots.md): only a program's failures stop it.
            loser = None
        for index in (result.first, result.second):
            self._failures_in_a_row[index] = (
                self._failures_in_a_row[index] + 1 if index == loser else 0
            )
        if loser is None or self._failures_in_a_row[loser] < MAX_FAILURES_IN_A_ROW:
            return
        if self._abort is None:
            self._abort = (
                f"{self.names[loser]} lost {MAX_FAILURES_IN_A_ROW} games in a row by failing "
                f"(its server answered engine_error: the program crashed, hung, broke its "
                f"protocol, answered an illegal move or was not up){self._failure_log(loser)}"
            )
            self._stopping = True
            self.progress.print(f"stopping (games in progress finish): {self._abort}")

    def _with_failure_log(self, record: GameRecord) -> GameRecord:
        """A game a program lost by failing, its reason saying why (from the local server's log)."""
        if record.kind != ENGINE_FAILURE or record.winner is None:
            return record
        index = self.names.index(record.players[1 - record.winner])
        lines = self._program_log(index, REPLACED_LOG, CAUSE_LOG_LINES)
        if not lines:
            return record
        marker = REPLACED_LOG.format(name=self._program_name(index))
        why = failure_cause([line[line.index(marker) + len(marker) :] for line in lines])
        detail = reasons.FAULT_ENGINE_WHY.format(why=reasons.quoted(why))
        return dataclasses.replace(record, reason=record.reason + detail)

    def _failure_log(self, index: int) -> str:
        """The local server's last words on a failing program engine (``""`` for others)."""
        lines = self._program_log(index, FAILED_LOG, FAILURE_LOG_LINES)
        return "".join(f"\n    {line[:300]}" for line in lines)

    def _program_name(self, index: int) -> str:
        """The name the local server gives a program engine (its search's)."""
        engine = self.config.engines[index]
        return engine.algorithm or engine.name

    def _program_log(self, index: int, marker: str, count: int) -> list[str]:
        """The last lines of the local server's log on one of its programs holding ``marker``."""
        engine = self.config.engines[index]
        if self.local_server is None or not engine.is_local or engine.command is None:
            return []
        return self.local_server.log_lines(marker.format(name=self._program_name(index)), count)

    # ------------------------------------------------------------------
    # SPRT.

    def _sprt_state(self) -> SprtState | None:
        sprt = self.config.sprt
        if sprt is None:
            return None
        pairings = pairing_results(self.store.results())
        if not pairings:
            return sprt_trinomial(0, 0, 0, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
        pairing = pairings[0]
        if self.config.games_per_pair >= 2 and sum(pairing.pairs) > 0:
            return sprt_pentanomial(pairing.pairs, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
        tally = pairing.tally
        return sprt_trinomial(
            tally.wins, tally.draws, tally.losses, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        )

    def _sprt_line(self) -> str | None:
        state = self._sprt_state()
        sprt = self.config.sprt
        return None if state is None or sprt is None else sprt_text(state, sprt.elo0, sprt.elo1)

    def _check_sprt(self) -> None:
        state = self._sprt_state()
        if state is None or state.decision is None or self._stopping:
            return
        self._stopping = True
        line = self._sprt_line() or ""
        self.store.set_status(line)
        self.progress.print(line + " (games in progress finish; no new ones start)")

    # ------------------------------------------------------------------
    # Files.

    def _rewrite_files(self) -> None:
        """Make the JSON Lines and PGN (or SGF) files hold exactly the stored games."""
        records = self.store.records()
        if self.settings.jsonl_path is not None:
            _replace(self.settings.jsonl_path, "".join(r.to_line() + "\n" for r in records))
        if self.settings.pgn_path is not None:
            _replace(self.settings.pgn_path, "".join(game_text(r) for r in records))
        if self.settings.epd_path is not None:
            _replace(self.settings.epd_path, "".join(epd(r) for r in records))

    def _append_files(self, record: GameRecord) -> None:
        if self.settings.jsonl_path is not None:
            with open(self.settings.jsonl_path, "a", encoding="utf-8") as file:
                file.write(record.to_line() + "\n")
        if self.settings.pgn_path is not None:
            with open(self.settings.pgn_path, "a", encoding="utf-8") as file:
                file.write(game_text(record))
        if self.settings.epd_path is not None:
            with open(self.settings.epd_path, "a", encoding="utf-8") as file:
                file.write(epd(record))

    # ------------------------------------------------------------------
    # Context.

    @contextlib.asynccontextmanager
    async def _servers(self) -> AsyncIterator[list[str]]:
        """Each engine's URL, with a local server running for ``url=local`` engines."""
        engines = self.config.engines
        if not any(engine.url == LOCAL_URL for engine in engines):
            yield [engine.url for engine in engines]
            return
        if self.local_server is not None:
            url = self.local_server.url
            yield [url if engine.url == LOCAL_URL else engine.url for engine in engines]
            return
        async with LocalServer(self.settings.workers(), self.config.externals()) as server:
            warn_if_pure(server)
            self.local_server = server
            yield [server.url if engine.url == LOCAL_URL else engine.url for engine in engines]

    @contextlib.contextmanager
    def _report_on_signal(self) -> Iterator[None]:
        """SIGUSR1 prints the tables now (``kill -USR1 <pid>``), where signals exist."""
        loop = asyncio.get_running_loop()
        usr1 = getattr(signal, "SIGUSR1", None)
        if usr1 is None:
            yield
            return
        show: Callable[[], None] = lambda: self.progress.print(self.report())  # noqa: E731
        try:
            loop.add_signal_handler(usr1, show)
        except (NotImplementedError, RuntimeError):
            yield
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(usr1)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a reader sees the old file or the new one)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)

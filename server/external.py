"""External engines behind the server: UCI programs searching in the worker processes.

``arena serve --external chess=uci:/usr/games/stockfish`` offers Stockfish
for chess. Each worker process that gets a think for it starts the program
once and keeps it (:class:`UciSearcher`), so the server holds as many
engine processes as workers, and everything the pool promises holds for
them too: ``info`` is streamed (translated to our fields), ``stop`` and the
deadline end the search with the engine's best move so far, and an engine
that crashes, hangs, talks nonsense or answers an illegal move is replaced
while the think is answered with the best legal move known (reason
``engine_error``).

The spec's grammar (:func:`parse_external`)::

    GAME[:NAME]=uci|gtp:COMMAND [ARGS...][?Option=Value[&Option=Value...]]

``uci`` engines play chess, ``gtp`` engines Go
(``go=gtp:/usr/games/gnugo --mode gtp``: see :class:`GtpSearcher`).

Without ``NAME`` the engine becomes the game's default search, offered
under the program's file name (``stockfish``); with it, it is offered as
one more algorithm ``NAME`` that a client picks with ``think.algorithm``.
Options are sent with ``setoption`` after the handshake
(``uci:stockfish?Skill Level=5&Hash=16``).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from engine.errors import GameError
from engine.game import Game
from engine.registry import GAMES, create_game
from engine.search.limits import Deadlines, Limits
from engine.search.request import SearchRequest, StopSignal
from engine.search.results import Info, SearchResult
from engine.search.score import Score
from engine.searchers import algorithms

#: Protocols an external engine may speak, and the games each can play.
PROTOCOL_GAMES: Final = {"uci": frozenset({"chess"}), "gtp": frozenset({"go"})}
#: The handshake (``uci`` ... ``uciok``, ``isready`` ... ``readyok``) of a
#: starting engine: Stockfish takes milliseconds, a large network some seconds.
HANDSHAKE_TIMEOUT_S: Final = 10.0
#: After ``stop`` an engine answers within milliseconds; one that has not
#: after this long is taken for hung and killed. Well under the pool's
#: WORKER_GRACE_S, so that the worker answers before the pool gives up on it.
STOP_GRACE_S: Final = 0.5
#: How often the wait for the engine's lines looks at the stop flag.
POLL_S: Final = 0.005
#: Lines an engine may write between two useful ones before it is taken for
#: broken (a runaway engine must not keep a worker forever).
MAX_GARBAGE_LINES: Final = 10_000
#: Linux's prctl option that kills a child when its parent dies: an engine
#: must not outlive a worker the pool killed.
PR_SET_PDEATHSIG: Final = 1
#: The reason of an answer the engine failed to give.
ENGINE_ERROR: Final = "engine_error"


class ExternalEngineError(Exception):
    """The engine failed: it would not start, crashed, hung or broke the protocol."""


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


def parse_external(spec: str) -> ExternalEngine:
    """An :class:`ExternalEngine` from ``--external``'s text; ``ValueError`` says what is wrong."""
    target, sep, program = spec.partition("=")
    if not sep or not program:
        raise ValueError(f"expected GAME[:NAME]=uci|gtp:COMMAND, got {spec!r}")
    game, _, name = target.partition(":")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: one of {', '.join(sorted(GAMES))}")
    protocol, sep, command = program.partition(":")
    if not sep or protocol not in PROTOCOL_GAMES:
        raise ValueError(f"the engine's protocol must be one of {', '.join(PROTOCOL_GAMES)}")
    if game not in PROTOCOL_GAMES[protocol]:
        raise ValueError(f"a {protocol} engine plays {', '.join(PROTOCOL_GAMES[protocol])}")
    command, _, query = command.partition("?")
    argv = tuple(shlex.split(command))
    if not argv:
        raise ValueError(f"no command to start in {spec!r}")
    options = []
    for pair in filter(None, query.split("&")):
        option, sep, value = pair.partition("=")
        if not sep or not option.strip():
            raise ValueError(f"an engine option is Option=Value, got {pair!r}")
        options.append((option.strip(), value.strip()))
    label = name or Path(argv[0]).name
    if label in algorithms(create_game(game)):
        raise ValueError(f"{label!r} is already one of {game}'s own searches: name it otherwise")
    return ExternalEngine(game, label, protocol, argv, tuple(options), default=not name)


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


def _load_libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


#: Loaded here, not in the child: between fork and exec the child should
#: do as little as it can (the worker has reader threads).
_LIBC: Final = _load_libc()


def _die_with_parent() -> None:
    """In the engine's process before it runs: die when the worker dies (Linux)."""
    if _LIBC is not None:
        with contextlib.suppress(AttributeError):
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class _EngineProcess:
    """A running engine program: lines in, lines out through a reader thread."""

    def __init__(self, argv: tuple[str, ...]) -> None:
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            raise ExternalEngineError(f"cannot start {argv[0]}: {error}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.process.stdout:
                self.lines.put(line.strip())
        self.lines.put(None)  # end of output: the engine is gone

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            raise ExternalEngineError("the engine's input is closed: it has ended") from None

    def next_line(self, timeout: float) -> str:
        """The next line, ``""`` if none came within ``timeout``; raises at the end of output."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return ""
        if line is None:
            self.lines.put(None)  # keep saying so
            raise ExternalEngineError(f"the engine ended (exit status {self.process.poll()})")
        return line

    def wait_for(self, expected: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            line = self.next_line(left)
            if line == expected:
                return
        raise ExternalEngineError(f"the engine did not answer {expected} in {timeout:g} s")

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(1.0)
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()


class ProgramSearcher:
    """An engine program as a searcher: what UCI and GTP engines share.

    The program starts with :meth:`start` (or at the first think) and stays
    up; a failed one is killed and started again at the next think.
    """

    def __init__(self, engine: ExternalEngine, game: Game[Any, Any]) -> None:
        self.engine = engine
        self.game = game
        self._process: _EngineProcess | None = None

    def start(self) -> bool:
        """Start the program now rather than at the first think; whether it came up."""
        try:
            self._ready()
        except ExternalEngineError:
            self.close()
            return False
        return True

    def _ready(self) -> _EngineProcess:
        """The running program, started and through its handshake if need be."""
        if self._process is not None and self._process.process.poll() is None:
            return self._process
        self.close()
        process = _EngineProcess(self.engine.argv)
        self._process = process
        self._handshake(process)
        return process

    def think(self, request: SearchRequest) -> SearchResult:
        """Search ``request.state`` with the program; the contract of our own searchers.

        The session never asks for a think in a finished game: there is a
        legal move to fall back on.
        """
        state = request.state
        started = time.monotonic()
        deadlines = request.planned()
        search = _Search(self.game, state, started)
        try:
            return self._think(
                self._ready(), search, request.limits, request.stop, request.on_info, deadlines
            )
        except _Stopped as stopped:
            self.close()
            first = self.game.format_move(state, self.game.ordered_moves(state)[0])
            return SearchResult.unsearched(first, stopped.reason, search.elapsed_ms())
        except ExternalEngineError as error:
            self.close()
            return search.failed(str(error))

    def _think(
        self,
        process: _EngineProcess,
        search: _Search,
        limits: Limits,
        stop: StopSignal | None,
        on_info: Callable[[Info], None] | None,
        deadlines: Deadlines,
    ) -> SearchResult:
        """The protocol's part of :meth:`think`: raise ExternalEngineError when the engine fails."""
        raise NotImplementedError

    def _handshake(self, process: _EngineProcess) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """End the program (a searcher evicted from a worker's cache, or one that failed)."""
        if self._process is not None:
            with contextlib.suppress(ExternalEngineError):
                self._process.send("quit")
            self._process.kill()
            self._process = None

    def __del__(self) -> None:
        self.close()


class UciSearcher(ProgramSearcher):
    """A UCI engine as a searcher: :meth:`think` with the contract of our own searchers."""

    def _think(
        self,
        process: _EngineProcess,
        search: _Search,
        limits: Limits,
        stop: StopSignal | None,
        on_info: Callable[[Info], None] | None,
        deadlines: Deadlines,
    ) -> SearchResult:
        state = search.state
        process.send(f"position fen {self.game.format_position(state)}")
        process.send(go_command(limits, deadlines, self.game.to_move(state), search.started))
        return self._follow(process, search, limits, stop, on_info, deadlines)

    def _handshake(self, process: _EngineProcess) -> None:
        process.send("uci")
        process.wait_for("uciok", HANDSHAKE_TIMEOUT_S)
        for option, value in self.engine.options:
            process.send(f"setoption name {option} value {value}")
        process.send("isready")
        process.wait_for("readyok", HANDSHAKE_TIMEOUT_S)

    def _follow(
        self,
        process: _EngineProcess,
        search: _Search,
        limits: Limits,
        stop: StopSignal | None,
        on_info: Callable[[Info], None] | None,
        deadlines: Deadlines,
    ) -> SearchResult:
        """Read the search's lines until ``bestmove``; stop it at the deadline or on request."""
        stopped_at: float | None = None
        reason = _limit_reason(limits)
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
            line = process.next_line(POLL_S)
            if not line:
                continue
            word = line.split(maxsplit=1)[0]
            if word == "info":
                info = search.on_info_line(line)
                if info is not None and on_info is not None:
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
    ``engine_error``. GTP reports no depth or score (0 in the answer).
    """

    def _handshake(self, process: _EngineProcess) -> None:
        _gtp(process, "protocol_version", HANDSHAKE_TIMEOUT_S)

    def _think(
        self,
        process: _EngineProcess,
        search: _Search,
        limits: Limits,
        stop: StopSignal | None,
        on_info: Callable[[Info], None] | None,
        deadlines: Deadlines,
    ) -> SearchResult:
        state = search.state
        colour = ("black", "white")[self.game.to_move(state)]
        for command in self._setup(state):
            _gtp(process, command, HANDSHAKE_TIMEOUT_S)
        if deadlines.hard is not None:
            seconds = max(1, int(deadlines.hard - time.monotonic()))
            _gtp(process, f"time_settings 0 {seconds} 1", HANDSHAKE_TIMEOUT_S)
            _gtp(process, f"time_left {colour} {seconds} 1", HANDSHAKE_TIMEOUT_S)
        move = _gtp(process, f"genmove {colour}", None, stop, deadlines.hard)
        return search.answer(f"bestmove {move}", _limit_reason(limits))

    def _setup(self, state: Any) -> list[str]:
        """GTP commands that put ``state``'s board on the engine's."""
        game = self.game
        commands = [
            f"boardsize {game.options['size']}",
            "clear_board",
            f"komi {game.options['komi']}",
        ]
        for point in getattr(game, "points", ()):
            stone = state.board[point]
            if stone:
                colour = "black" if stone == 1 else "white"
                commands.append(f"play {colour} {game.format_move(state, point)}")
        return commands


def _limit_reason(limits: Limits) -> str:
    """Why a search that ended by itself ended: its depth, its nodes, else its time."""
    return "depth" if limits.depth else "nodes" if limits.nodes else "time"


def program_searcher(engine: ExternalEngine, game: Game[Any, Any]) -> ProgramSearcher:
    """The searcher that drives ``engine`` by its protocol."""
    return GtpSearcher(engine, game) if engine.protocol == "gtp" else UciSearcher(engine, game)


class _Stopped(Exception):
    """A GTP command was cut short: ``reason`` is ``stopped`` or ``time``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _gtp(
    process: _EngineProcess,
    command: str,
    timeout: float | None,
    stop: StopSignal | None = None,
    deadline: float | None = None,
) -> str:
    """Send one GTP command; its answer's text, after ``=``.

    ``? error`` raises :class:`ExternalEngineError`; with ``timeout`` the
    answer must come in that time; ``stop`` set or ``deadline`` passed (plus
    STOP_GRACE_S, the time a program needs to send its answer) raise
    :class:`_Stopped`.
    """
    process.send(command)
    started = time.monotonic()
    answer: list[str] = []
    while True:
        now = time.monotonic()
        if timeout is not None and now - started > timeout:
            raise ExternalEngineError(f"the engine did not answer {command.split()[0]}")
        if stop is not None and stop.is_set():
            raise _Stopped("stopped")
        if deadline is not None and now > deadline + STOP_GRACE_S:
            raise _Stopped("time")
        line = process.next_line(POLL_S)
        if line:
            answer.append(line)
        elif answer:  # the empty line that ends an answer
            break
        # next_line gives "" both for an empty line and for no line yet;
        # an answer is complete once its first line has come and then silence.
    first = answer[0]
    if first.startswith("?"):
        raise ExternalEngineError(f"the engine refused {command!r}: {first[1:].strip()}")
    if not first.startswith("="):
        raise ExternalEngineError(f"the engine's answer to {command!r} is not GTP: {first[:60]}")
    return first[1:].strip()


class _Search:
    """One search's progress as the engine reported it, and its answer."""

    def __init__(self, game: Game[Any, Any], state: Any, started: float) -> None:
        self.game = game
        self.state = state
        self.started = started
        self.last: Info | None = None
        self.completed_depth = 0

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)

    def on_info_line(self, line: str) -> Info | None:
        """Our :class:`Info` for an ``info`` line with a principal variation, else ``None``."""
        info = parse_info(line, self.elapsed_ms())
        if info is None or self._canonical(info.pv[0]) is None:
            return None
        self.last = info
        self.completed_depth = max(self.completed_depth, info.depth)
        return info

    def answer(self, line: str, reason: str) -> SearchResult:
        words = line.split()
        answered = words[1] if len(words) > 1 else ""
        move = self._canonical(answered)
        if move is None:
            return self.failed(f"the engine answered {answered or 'nothing'}, not a legal move")
        if self.last is None:
            return SearchResult.unsearched(move, reason, self.elapsed_ms())
        result = SearchResult.from_progress(
            self.last, self.completed_depth, reason, self.elapsed_ms()
        )
        if move != self.last.pv[0]:
            # The engine played another move than its line (a weakened
            # Stockfish does): the search's depth and score, that move.
            info = dataclasses.replace(result.info, pv=(move,))
            result = dataclasses.replace(result, move=move, info=info)
        return result

    def failed(self, why: str) -> SearchResult:
        """The best legal move known when the engine failed: its last report's, else the first."""
        if self.last is not None:
            return SearchResult.from_progress(
                self.last, self.completed_depth, ENGINE_ERROR, self.elapsed_ms()
            )
        first = self.game.format_move(self.state, self.game.ordered_moves(self.state)[0])
        return SearchResult.unsearched(first, ENGINE_ERROR, self.elapsed_ms())

    def _canonical(self, text: str) -> str | None:
        """The move in our notation (``D4``, not GTP's ``d4``), or ``None`` if it is not legal."""
        try:
            return self.game.format_move(self.state, self.game.parse_move(self.state, text))
        except (GameError, ValueError):
            return None


def go_command(limits: Limits, deadlines: Deadlines, mover: int, now: float) -> str:
    """``go`` for our limits: the time to the hard deadline as ``movetime``, depth, nodes.

    The deadline was planned once, by the session, from the think's clock
    or move time; the engine gets what is left of it rather than the clock,
    so that it cannot plan past the answer the pool owes the client.
    """
    words = ["go"]
    if deadlines.hard is not None:
        words += ["movetime", str(max(1, int((deadlines.hard - now) * 1000)))]
    if limits.depth is not None:
        words += ["depth", str(limits.depth)]
    if limits.nodes is not None:
        words += ["nodes", str(limits.nodes)]
    if len(words) == 1:
        words.append("infinite")
    return " ".join(words)


def parse_info(line: str, elapsed_ms: int) -> Info | None:
    """An ``info`` line with ``depth``, ``score`` and ``pv`` as our :class:`Info`, else ``None``."""
    words = line.split()
    fields: dict[str, int] = {}
    score: Score | None = None
    pv: tuple[str, ...] = ()
    index = 1
    try:
        while index < len(words):
            word = words[index]
            if word == "pv":
                pv = tuple(words[index + 1 :])
                break
            if word == "score":
                kind, amount = words[index + 1], int(words[index + 2])
                score = _score(kind, amount)
                index += 3
                # "lowerbound" / "upperbound" follow a bound, not a value.
                while index < len(words) and words[index] in ("lowerbound", "upperbound"):
                    index += 1
                continue
            if word in ("depth", "seldepth", "nodes", "nps", "time", "hashfull"):
                fields[word] = int(words[index + 1])
                index += 2
                continue
            if word == "string":
                return None
            index += 1
    except (IndexError, ValueError):
        return None
    if score is None or not pv or "depth" not in fields:
        return None
    return Info(
        depth=fields["depth"],
        seldepth=fields.get("seldepth", fields["depth"]),
        score=score,
        pv=pv,
        nodes=fields.get("nodes", 0),
        time_ms=fields.get("time", elapsed_ms),
        nps=fields.get("nps", 0),
        tt_hit_rate=0.0,
        hashfull=fields.get("hashfull", 0),
    )


def _score(kind: str, amount: int) -> Score:
    """UCI's ``cp`` or ``mate`` (moves, negative when mated) as our score (plies)."""
    if kind == "cp":
        return Score(value=amount)
    if kind == "mate":
        if amount > 0:
            return Score(win_in=2 * amount - 1)
        return Score(loss_in=-2 * amount)
    raise ValueError(f"unknown score kind {kind!r}")

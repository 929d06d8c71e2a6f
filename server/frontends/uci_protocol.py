"""UCI without input or output: commands in, lines and search orders out.

:class:`UciProtocol` keeps what a UCI engine must remember between
commands (the position, the options) and turns each command line into a
:class:`Reaction`: lines to write at once, and maybe a search to start
(:class:`SearchOrder`), a search to stop, or the end. :func:`info_line` and
:func:`bestmove_line` write the search's reports in UCI's words. The
process around it (:mod:`server.frontends.uci`) runs the searches.

The commands are those of the UCI specification (Stefan Meyer-Kahlen,
"Description of the universal chess interface", April 2006): ``uci``,
``debug``, ``isready``, ``setoption``, ``register``, ``ucinewgame``,
``position``, ``go``, ``stop``, ``ponderhit``, ``quit``. An engine never
answers a bad command with an error; it says why in an ``info string``
line and carries on, as Stockfish does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import GameError
from engine.games.chess.game import Chess
from engine.games.chess.notation import parse_move as parse_uci_move
from engine.search.limits import MAX_DEPTH, Clock, Limits
from engine.search.results import Info
from engine.search.score import Score
from engine.search.tt import DEFAULT_TT_SLOTS
from protocol.limits import MAX_MULTIPV
from server import SERVER_VERSION
from server.frontends.uci_strength import (
    DEFAULT_ELO,
    MAX_ELO,
    MIN_ELO,
    STRENGTH_LINES,
    Strength,
    strength_for,
)
from server.frontends.uci_wdl import wdl

ENGINE_NAME: Final = "alphabeta-arena"
ENGINE_AUTHOR: Final = "the alphabeta-arena authors"
STARTPOS: Final = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

#: Bytes one filled transposition-table slot costs in CPython (see
#: engine.search.tt.DEFAULT_TT_SLOTS: 2**18 slots, about 30 MB).
TT_SLOT_BYTES: Final = 120
#: ``Hash`` in MB: the default is the server's table (2**18 slots, 30 MB);
#: past 1 GB a Python list of slots is more than this engine can fill.
DEFAULT_HASH_MB: Final = DEFAULT_TT_SLOTS * TT_SLOT_BYTES // 2**20
MAX_HASH_MB: Final = 1024
#: ``Move Overhead`` in ms: time kept back from every move for the answer
#: to reach the GUI's clock (a pipe to a worker process and back, then
#: stdout: a few ms), with room for a loaded machine; Stockfish's own
#: default is 10. The clock tests pass with it beside a CPU hog.
DEFAULT_MOVE_OVERHEAD_MS: Final = 30
MAX_MOVE_OVERHEAD_MS: Final = 5000
#: The shortest search a ``go`` gets, however little time is left.
MIN_SEARCH_MS: Final = 1
#: ``Threads``: the search runs in one process on one thread; the option is
#: announced (GUIs and tournament managers set it) with 1 as its only value.
THREADS: Final = 1


@dataclass(frozen=True, slots=True)
class SearchOrder:
    """A search to start: the position and its limits.

    ``limits`` empty means "until stop" (``go infinite``, or a ``go`` with
    nothing in it). ``multipv``: root lines to search; ``shown``: how many of
    them to write (``MultiPV``; a limited strength searches more lines than
    it shows). ``searchmoves``: the root moves to search (none: all).
    ``strength``: the handicaps of ``UCI_LimitStrength``, if set.
    ``until_stop``: ``go infinite`` or ``go ponder``, whose ``bestmove``
    waits for ``stop`` (or ``ponderhit``) even when the search ends first,
    on a proven mate or a single legal move ("do not exit the search
    without being told so in this mode", the UCI specification).
    """

    state: Any
    limits: Limits
    multipv: int = 1
    shown: int = 1
    searchmoves: tuple[str, ...] = ()
    strength: Strength | None = None
    until_stop: bool = False
    #: A move to answer without a search (a dead position: every move draws).
    settled: str | None = None


@dataclass(slots=True)
class Reaction:
    """What a command asks of the process: lines to write, a search to start or stop, the end."""

    lines: list[str] = field(default_factory=list)
    search: SearchOrder | None = None
    stop: bool = False
    quit: bool = False
    #: ``isready``: answer ``readyok`` once the search process is ready.
    ready: bool = False
    #: ``setoption name Hash``: the search process needs a table of this size.
    resize: bool = False
    #: ``ponderhit``: a ``go ponder``'s answer may now be given.
    ponderhit: bool = False


@dataclass(slots=True)
class Options:
    """The options ``uci`` announces, with their current values."""

    hash_mb: int = DEFAULT_HASH_MB
    move_overhead_ms: int = DEFAULT_MOVE_OVERHEAD_MS
    multipv: int = 1
    show_wdl: bool = False
    limit_strength: bool = False
    elo: int = DEFAULT_ELO
    #: ``Ponder``: the GUI may send ``go ponder`` (nothing changes here).
    ponder: bool = False

    @property
    def tt_slots(self) -> int:
        """The transposition table's slots for ``hash_mb``: a power of two that fits."""
        slots = max(1, self.hash_mb * 2**20 // TT_SLOT_BYTES)
        return 1 << (slots.bit_length() - 1)


class UciProtocol:
    """One engine's UCI state: the position, the options, and the commands' meanings."""

    def __init__(self) -> None:
        self.game = Chess()
        self.state: Any = self.game.parse_position(STARTPOS)
        #: Why the last ``position`` was refused (``go`` then searches nothing:
        #: answering for the position before it would answer the wrong game).
        self.refused: str | None = None
        self.options = Options()
        self.debug = False
        self._handlers = self._command_table()

    def execute(self, line: str) -> Reaction:
        """The reaction to one command line (unknown commands get an ``info string``)."""
        tokens = line.split()
        if not tokens:
            return Reaction()
        command, arguments = tokens[0], tokens[1:]
        handler = self._handlers.get(command)
        if handler is None:
            return _says(f"unknown command: {line.strip()[:80]}")
        return handler(arguments)

    def _command_table(self) -> dict[str, Callable[[list[str]], Reaction]]:
        return {
            "uci": self._uci,
            "debug": self._debug,
            "isready": lambda _: Reaction(ready=True),
            "setoption": self._setoption,
            "register": lambda _: Reaction(),
            "ucinewgame": self._ucinewgame,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: Reaction(stop=True),
            # A go ponder is a search with its limits, which ponderhit
            # leaves running (its bestmove, held until then, may now be
            # written); the Ponder option only tells a GUI it may ask.
            "ponderhit": lambda _: Reaction(ponderhit=True),
            "quit": lambda _: Reaction(stop=True, quit=True),
        }

    def _uci(self, _: list[str]) -> Reaction:
        return Reaction(
            [
                f"id name {ENGINE_NAME} {SERVER_VERSION}",
                f"id author {ENGINE_AUTHOR}",
                f"option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}",
                f"option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} "
                f"min 0 max {MAX_MOVE_OVERHEAD_MS}",
                f"option name Threads type spin default {THREADS} min {THREADS} max {THREADS}",
                f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}",
                "option name Ponder type check default false",
                "option name UCI_ShowWDL type check default false",
                "option name UCI_LimitStrength type check default false",
                f"option name UCI_Elo type spin default {DEFAULT_ELO} min {MIN_ELO} max {MAX_ELO}",
                "uciok",
            ]
        )

    def _debug(self, arguments: list[str]) -> Reaction:
        self.debug = arguments[:1] == ["on"]
        return Reaction()

    def _setoption(self, arguments: list[str]) -> Reaction:
        # setoption name <id, may have spaces> [value <x, may have spaces>]
        if not arguments or arguments[0] != "name":
            return _says("setoption needs: setoption name <id> [value <x>]")
        rest = arguments[1:]
        if "value" in rest:
            cut = rest.index("value")
            name, value = " ".join(rest[:cut]), " ".join(rest[cut + 1 :])
        else:
            name, value = " ".join(rest), ""
        key = name.lower()
        if key == "hash":
            number = _spin(value, 1, MAX_HASH_MB)
            if number is None:
                return _says(f"Hash is a number of MB from 1 to {MAX_HASH_MB}, not {value!r}")
            changed = number != self.options.hash_mb
            self.options.hash_mb = number
            return Reaction(resize=changed)
        if key == "move overhead":
            number = _spin(value, 0, MAX_MOVE_OVERHEAD_MS)
            if number is None:
                return _says(
                    f"Move Overhead is a number of ms from 0 to {MAX_MOVE_OVERHEAD_MS}, "
                    f"not {value!r}"
                )
            self.options.move_overhead_ms = number
            return Reaction()
        if key == "threads":
            if _spin(value, 1, 1 << 16) is None:
                return _says(f"Threads is a number of threads, not {value!r}")
            if value.strip() != str(THREADS):
                return _says(f"this engine searches in {THREADS} thread: Threads stays {THREADS}")
            return Reaction()
        if key == "multipv":
            number = _spin(value, 1, MAX_MULTIPV)
            if number is None:
                return _says(f"MultiPV is a number of lines from 1 to {MAX_MULTIPV}, not {value!r}")
            self.options.multipv = number
            return Reaction()
        if key in _CHECKS:
            checked = _check(value)
            if checked is None:
                return _says(f"{name} is true or false, not {value!r}")
            setattr(self.options, _CHECKS[key], checked)
            return Reaction()
        if key == "uci_elo":
            number = _spin(value, MIN_ELO, MAX_ELO)
            if number is None:
                return _says(f"UCI_Elo is a number from {MIN_ELO} to {MAX_ELO}, not {value!r}")
            self.options.elo = number
            return Reaction()
        return _says(f"no such option: {name}")

    def _ucinewgame(self, _: list[str]) -> Reaction:
        # The transposition table is kept: its entries are keyed by the
        # whole position, so they stay right in the next game.
        self.state = self.game.parse_position(STARTPOS)
        self.refused = None
        return Reaction()

    def _position(self, arguments: list[str]) -> Reaction:
        """``position startpos|fen <6 fields> [moves m1 m2 ...]``.

        Moves past a draw the players could claim (threefold repetition, the
        fifty-move rule) are played: the GUI is the arbiter (FIDE Laws 9.2,
        9.3). A position refused is no position: until the next good one,
        ``go`` answers ``bestmove (none)`` with the reason, never a move of
        the position before it.
        """
        if "moves" in arguments:
            cut = arguments.index("moves")
            setup, moves = arguments[:cut], arguments[cut + 1 :]
        else:
            setup, moves = arguments, []
        try:
            if setup == ["startpos"]:
                state = self.game.parse_position(STARTPOS)
            elif setup[:1] == ["fen"] and len(setup) > 1:
                state = self.game.parse_position(" ".join(setup[1:]))
            else:
                return self._refuse("position needs: position startpos|fen <fen> [moves ...]")
            for number, text in enumerate(moves, 1):
                try:
                    state = self.game.play(state, parse_uci_move(state, text))
                except GameError as error:
                    return self._refuse(f"move {number} ({text[:16]}): {error}")
        except GameError as error:
            return self._refuse(str(error))
        self.state = state
        self.refused = None
        return Reaction()

    def _refuse(self, why: str) -> Reaction:
        self.refused = why
        return _says(f"position refused: {why}; go answers no move until a position is given")

    def _go(self, arguments: list[str]) -> Reaction:
        if self.refused is not None:
            return Reaction([f"info string no position: {self.refused}", "bestmove (none)"])
        try:
            limits, searchmoves, notes = self._go_limits(arguments)
        except ValueError as error:
            return _says(f"go not understood: {error}")
        state = self.state
        ended = self.game.outcome(state)
        moves = state.legal_moves()
        until_stop = "infinite" in arguments or "ponder" in arguments
        if ended is not None and moves:
            if ended.reason == "insufficient material":
                # A dead position: no move changes the draw, and none is
                # searched; its score is a draw's, and go infinite still
                # waits for stop (the review of 2026-12-07 found no score
                # and an answer at once).
                move = self.game.format_move(state, moves[0])
                order = SearchOrder(state, limits, until_stop=until_stop, settled=move)
                return Reaction([f"info string {ended.reason}: a draw whatever is played"], order)
            # A draw the GUI has not claimed: play on as if it could still be.
            notes.append(f"{ended.reason}: a draw the GUI may claim; searching on")
            state = self.game.unclaimed(state)
        options = self.options
        multipv = shown = options.multipv
        strength = strength_for(options.elo) if options.limit_strength else None
        if strength is not None:
            # The caps on top of the go's own limits; lines to choose among.
            depth = strength.depth if limits.depth is None else min(limits.depth, strength.depth)
            nodes = strength.nodes if limits.nodes is None else min(limits.nodes, strength.nodes)
            limits = Limits(limits.movetime_ms, depth, nodes, limits.clock)
            if strength.noise_cp > 0:
                multipv = max(multipv, STRENGTH_LINES)
        order = SearchOrder(state, limits, multipv, shown, searchmoves, strength, until_stop)
        return Reaction([f"info string {note}" for note in notes], order)

    def _go_limits(self, arguments: list[str]) -> tuple[Limits, tuple[str, ...], list[str]]:
        """The limits of ``go`` (the side to move's clock, or a fixed time, depth or node
        count, or a mate's depth) and its ``searchmoves``."""
        numbers: dict[str, int] = {}
        notes: list[str] = []
        searchmoves: list[str] = []
        index = 0
        while index < len(arguments):
            word = arguments[index]
            if word in ("infinite", "ponder"):
                index += 1
            elif word == "searchmoves":
                # The moves run to the next word of go (UCI puts them last).
                index += 1
                while index < len(arguments) and arguments[index] not in _GO_WORDS:
                    searchmoves.append(arguments[index])
                    index += 1
            elif word in _GO_NUMBERS:
                # A go that cannot be read whole is still answered: UCI asks
                # an engine to skip what it does not know and read the rest,
                # and a GUI waits for its bestmove (a review, 2026-12-07:
                # "go wtime 1000.5 ..." and "go movetime abc" got none).
                text = arguments[index + 1] if index + 1 < len(arguments) else None
                number = _go_number(text)
                if number is None:
                    shown = "nothing" if text is None else repr(text[:16])
                    notes.append(f"go: {word} needs a whole number, not {shown}: ignored")
                    index += 1 if text is None or text in _GO_WORDS else 2
                    continue
                numbers[word] = number
                index += 2
            else:
                # An unknown word, and its value if one follows: skipped.
                index += 1
                skipped = word[:16]
                if index < len(arguments) and _go_number(arguments[index]) is not None:
                    skipped += f" {arguments[index][:16]}"
                    index += 1
                notes.append(f"go: unknown word {skipped!r} ignored")
        overhead = self.options.move_overhead_ms
        clock = None
        white = self.game.to_move(self.state) == 0
        own, other = ("w", "b") if white else ("b", "w")
        time_left = numbers.get(f"{own}time")
        increment = numbers.get(f"{own}inc", 0)
        opponent = numbers.get(f"{other}time")
        if time_left is None and f"{other}time" in numbers:
            # Only the other side's clock: a clock game all the same, which
            # without a clock of its own would search until a stop that never
            # comes. Its clock is the best guess of ours.
            time_left = numbers[f"{other}time"]
            increment = numbers.get(f"{other}inc", 0)
            notes.append(
                f"go gives {other}time but no {own}time for the side to move: timed by {other}time"
            )
            opponent = None
        if time_left is not None:
            clock = Clock(
                max(MIN_SEARCH_MS, time_left - overhead),
                max(0, increment),
                numbers.get("movestogo"),
                None if opponent is None else max(0, opponent),
            )
        movetime = numbers.get("movetime")
        if movetime is not None:
            movetime = max(MIN_SEARCH_MS, movetime - overhead)
        depth = numbers.get("depth")
        if "mate" in numbers:
            # A mate in N moves lies within 2N - 1 plies: the search goes no
            # deeper, and ends as soon as it has proven a mate within its
            # depth (a mate in N moves or fewer).
            depth = 2 * max(1, numbers["mate"]) - 1
            if "depth" in numbers:
                depth = min(depth, max(1, numbers["depth"]))
        if depth is not None:
            depth = min(max(1, depth), MAX_DEPTH)
        nodes = numbers.get("nodes")
        if nodes is not None:
            nodes = max(1, nodes)
        return Limits(movetime, depth, nodes, clock), self._legal(searchmoves, notes), notes

    def _legal(self, moves: list[str], notes: list[str]) -> tuple[str, ...]:
        """The legal ones of ``searchmoves``, each once; a note for the others."""
        kept: list[str] = []
        for text in moves:
            try:
                parse_uci_move(self.state, text)
            except GameError:
                notes.append(f"searchmoves: {text[:16]} is not a legal move here: left out")
                continue
            if text not in kept:
                kept.append(text)
        if moves and not kept:
            notes.append("searchmoves names no legal move: every move is searched")
        return tuple(kept)


#: ``go`` words followed by a number.
_GO_NUMBERS: Final = frozenset(
    {"wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"}
)
#: Every word of ``go`` (where a ``searchmoves`` list ends).
_GO_WORDS: Final = _GO_NUMBERS | {"infinite", "ponder", "searchmoves"}
#: The options of type check, by their lower-case name: the attribute of :class:`Options`.
_CHECKS: Final = {
    "uci_showwdl": "show_wdl",
    "uci_limitstrength": "limit_strength",
    "ponder": "ponder",
}


def _says(message: str) -> Reaction:
    return Reaction([f"info string {message}"])


def _check(text: str) -> bool | None:
    """A check option's value: ``true`` or ``false`` (any case); ``None`` for anything else."""
    word = text.strip().lower()
    return True if word == "true" else False if word == "false" else None


def _spin(text: str, low: int, high: int) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if low <= value <= high else None


def score_words(score: Score) -> str:
    """``cp <centipawns>`` or ``mate <moves>`` (negative when the engine is mated)."""
    if score.win_in is not None:
        return f"mate {math.ceil(score.win_in / 2)}"
    if score.loss_in is not None:
        return f"mate -{math.ceil(score.loss_in / 2)}"
    return f"cp {score.value or 0}"


def info_line(info: Info, show_wdl: bool = False) -> str:
    """A search report as UCI's ``info`` line (with ``wdl`` for ``UCI_ShowWDL``).

    A report from inside an unfinished iteration (``partial``: a new best
    move, the others not all searched yet) is a lower bound on the root's
    value at that depth, said so as Stockfish says it (``lowerbound``); it
    was shown as exact (the last note's known gap).
    """
    bound = " lowerbound" if info.partial else ""
    words = [
        f"info depth {info.depth} seldepth {max(info.seldepth, info.depth)}",
        f"multipv {info.multipv} score {score_words(info.score)}{bound}",
    ]
    if show_wdl:
        words.append("wdl {} {} {}".format(*wdl(info.score)))
    words.append(f"nodes {info.nodes} nps {info.nps} time {info.time_ms} hashfull {info.hashfull}")
    if info.pv:
        words.append("pv " + " ".join(info.pv))
    return " ".join(words)


def bestmove_line(move: str | None, ponder: str | None = None) -> str:
    """``bestmove <move> [ponder <reply>]``, or ``bestmove (none)`` with no legal move
    (as Stockfish). ``ponder`` is the reply the search expects: a GUI that ponders
    sends the position after it with ``go ponder``."""
    if move is None:
        return "bestmove (none)"
    return f"bestmove {move} ponder {ponder}" if ponder else f"bestmove {move}"


def _go_number(text: str | None) -> int | None:
    """A ``go`` figure: a whole number, or a decimal one's whole part (some GUIs
    send ``wtime 1000.5``); ``None`` for anything else."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) else None

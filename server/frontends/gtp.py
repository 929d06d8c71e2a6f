"""``arena gtp``: the engine as a GTP 2 engine on stdin and stdout.

A controller (GoGui, Sabaki, GNU Go's ``twogtp``, a tournament manager)
starts ``arena gtp`` as a program and talks to it line by line, one command
at a time, as GTP expects: ``genmove`` answers when the search has finished.
The search runs on the server's runtime, a one-worker
:class:`~server.pool.WorkerPool` (:mod:`server.frontends.runtime`), with
the server's guarantees: an answer by the deadline whatever happens to the
worker process.

:class:`GtpEngine` is the protocol without input or output: feed it a line
with :meth:`GtpEngine.execute` and write what it returns; a ``genmove``
returns a :class:`Genmove` to search, whose result
:meth:`GtpEngine.genmove_answer` turns into the answer. :func:`serve` is the
loop around it.

Time: without ``time_settings`` every ``genmove`` searches ``movetime_ms``
(default 1 s). With ``time_settings`` the engine plans each move from the
clock of the colour to move, as ``time_left`` last reported it (main time,
or byo-yomi time for ``stones`` moves), through the engine's own clock
planner (:func:`engine.search.limits.plan_deadlines`).

Handicap: GTP 2's ``fixed_handicap`` (its placement table, section 4.1.1),
``place_free_handicap`` (ours) and ``set_free_handicap`` (the controller's)
put Black's stones on an empty board with White to move; they are not moves
(``undo`` stops at them). Moves played out of turn (``play b ...`` twice, as
controllers that send handicap stones as moves do) are accepted too: the
position is rebuilt with the other side to move, which keeps the board but
forgets the superko history before it.

Why one module: one protocol: GTP 2's command set (some forty commands, each
a few lines) beside its sans-I/O engine and the loop that serves it; hence
the length (over 600 lines).
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TextIO

from engine.errors import GameError
from engine.game import MCTS
from engine.games.go import (
    COLUMNS,
    EMPTY,
    MAX_KOMI,
    RESIGN_BELOW,
    RESIGN_TEXT,
    Go,
    GoState,
    ResignStreak,
    dead_stones,
    ownership,
    sgf_main_line,
    should_resign,
)
from engine.search.limits import Clock, Limits
from engine.search.mcts import pooled_choice
from engine.search.results import SearchResult
from engine.searchers import resolve_algorithm
from server import SERVER_VERSION
from server.frontends.runtime import FrontendPool, protocol_stdout, read_lines, search_job
from server.jobs import SearchJob

#: GTP 2 (the draft every current controller speaks).
PROTOCOL_VERSION: Final = 2
#: The engine's name in ``name``.
ENGINE_NAME: Final = "alphabeta-arena"
#: Board sizes the game accepts (its ``size`` option).
MIN_SIZE: Final = 5
MAX_SIZE: Final = 19
#: Search time per move when the controller sets no time (milliseconds).
DEFAULT_MOVETIME_MS: Final = 1000
#: Resign when the search gives the side to move less than this chance of
#: winning (the server's threshold); 0 never resigns. GoGui and twogtp both
#: accept resignation.
DEFAULT_RESIGN_BELOW: Final = RESIGN_BELOW

#: A search's resignation (protocol.md, bestmove), and GTP's.
RESIGN_MOVE: Final = RESIGN_TEXT
#: GoGui's analyze commands (``gogui-analyze_commands``): a text view of the
#: win rate and an ownership map (GoGui's ``gfx`` INFLUENCE, -1 to 1).
WINRATE_COMMAND: Final = "arena-winrate"
OWNERSHIP_COMMAND: Final = "arena-ownership"
ANALYZE_COMMANDS: Final = f"string/Win rate/{WINRATE_COMMAND}\ngfx/Ownership/{OWNERSHIP_COMMAND}"
#: The longest an ownership map plays out (its playouts stop there).
OWNERSHIP_TIME_S: Final = 1.0
#: The longest SGF file ``loadsgf`` reads (a 19x19 game is some 10 KB).
MAX_SGF_CHARS: Final = 1_000_000
#: An SGF file's board size.
SGF_SIZE: Final = re.compile(r"SZ\s*\[\s*(\d{1,2})\s*\]")
#: A record's komi (``KM[6.5]``), which ``loadsgf`` sets as GTP 2 says.
SGF_KOMI: Final = re.compile(r"(?<![A-Z])KM\s*\[\s*([-+]?\d{1,4}(?:\.\d{1,4})?)\s*\]")
#: The properties ``loadsgf`` keeps: setup, side to move and moves.
SGF_KEPT: Final = frozenset({"SZ", "AB", "AW", "AE", "PL", "B", "W"})
COLOUR_NAMES: Final = ("black", "white")
COLOURS: Final = {"b": 0, "black": 0, "w": 1, "white": 1}
COLOUR_LETTERS: Final = ("X", "O")
#: Commands a controller sends before a game (identity, the command list):
#: answered at once, while the worker starts. Any other command waits for
#: the worker and its warm-up first, so that no genmove's clock pays them.
IDENTITY_COMMANDS: Final = frozenset(
    {"", "protocol_version", "name", "version", "known_command", "list_commands", "quit"}
)
#: The warm-up search: a few playouts of the empty board, without a time
#: limit (a cold process that overran one would be replaced by another
#: cold one), and the longest it is waited for (as ``arena uci``'s).
WARM_UP_LIMITS: Final = Limits(nodes=16)
WARM_UP_TIMEOUT_S: Final = 5.0


class GtpError(Exception):
    """A command failed; the message is GTP's error text (``? message``)."""


@dataclass(frozen=True, slots=True)
class Genmove:
    """A ``genmove`` to search: ``state`` (``colour`` to move) within ``limits``.

    ``command_id`` is the command's id, echoed in the answer.
    """

    command_id: str
    colour: int
    state: GoState
    limits: Limits
    algorithm: str
    #: ``kgs-genmove_cleanup``: a move of a clean-up phase (protocol.md, think.cleanup).
    cleanup: bool = False
    #: ``reg_genmove``: the move is answered, not played.
    register: bool = True


@dataclass(slots=True)
class TimeSettings:
    """``time_settings`` and the latest ``time_left`` per colour, in milliseconds."""

    main_ms: int
    byo_yomi_ms: int
    byo_yomi_stones: int
    left_ms: list[int | None] = field(default_factory=lambda: [None, None])
    stones_left: list[int] = field(default_factory=lambda: [0, 0])

    def spend(self, colour: int, elapsed_ms: int) -> None:
        """Count ``elapsed_ms`` of our own move on ``colour``'s clock.

        A controller that sends no ``time_left`` (GoGui's twogtp without
        it, some servers) still sees its clock kept: the time is taken off
        the main time, then byo-yomi periods of ``byo_yomi_stones`` moves
        start, each with its whole time again. A ``time_left`` overrides
        this count.
        """
        if self.unlimited:
            return
        left = self.left_ms[colour]
        stones = self.stones_left[colour]
        if left is None:
            left, stones = self.main_ms, 0
            if self.main_ms == 0:
                left, stones = self.byo_yomi_ms, max(1, self.byo_yomi_stones)
        left -= elapsed_ms
        if stones > 0:
            stones -= 1
            if stones == 0 and left >= 0:  # the period's moves made: a new period
                left, stones = self.byo_yomi_ms, max(1, self.byo_yomi_stones)
        elif left <= 0 and self.byo_yomi_ms > 0:  # main time spent: byo-yomi starts
            left, stones = self.byo_yomi_ms + left, max(1, self.byo_yomi_stones)
        self.left_ms[colour] = max(0, left)
        self.stones_left[colour] = stones

    def restarted(self) -> TimeSettings:
        """The same settings with both clocks full again (a new game)."""
        return TimeSettings(self.main_ms, self.byo_yomi_ms, self.byo_yomi_stones)

    @property
    def unlimited(self) -> bool:
        # GTP 2: byo-yomi time with zero stones means no time limit.
        return self.byo_yomi_ms > 0 and self.byo_yomi_stones == 0

    def clock(self, colour: int) -> Clock:
        left = self.left_ms[colour]
        stones = self.stones_left[colour]
        if left is None:  # no time_left yet: the main time, or the first byo-yomi period
            if self.main_ms > 0:
                return Clock(self.main_ms + self.byo_yomi_ms)
            return Clock(self.byo_yomi_ms, moves_to_go=max(1, self.byo_yomi_stones))
        if stones > 0:
            return Clock(left, moves_to_go=stones)
        if left == 0 and self.byo_yomi_ms > 0:
            # Main time spent and byo-yomi not yet begun (``time_left c 0 0``):
            # the next move opens a period; planning the period as the rest
            # of a game's time played it in 0.09 s of 5 (a review, 2026-12-07).
            return Clock(self.byo_yomi_ms, moves_to_go=max(1, self.byo_yomi_stones))
        # In main time the byo-yomi period still follows: count part of it.
        return Clock(left + self.byo_yomi_ms // max(1, self.byo_yomi_stones))


class GtpEngine:
    """The GTP protocol over one game of Go; no input or output of its own.

    Call :meth:`execute` with each line the controller sends and write the
    returned text (``None``: the line was empty or a comment; send nothing).
    After ``quit``, :attr:`finished` is true: stop reading.
    """

    def __init__(
        self,
        algorithm: str | None = None,
        movetime_ms: int = DEFAULT_MOVETIME_MS,
        playouts: int | None = None,
        resign_below: float = DEFAULT_RESIGN_BELOW,
        size: int = 9,
        komi: float = 7.5,
        threads: int = 1,
    ) -> None:
        self.algorithm = algorithm
        #: Search processes per genmove of our Monte Carlo search, pooled at the
        #: root (:func:`engine.search.mcts.pooled_choice`); ``arena gtp --threads``.
        self.threads = max(1, threads)
        self.movetime_ms = movetime_ms
        self.playouts = playouts
        self.resign_below = resign_below
        self.finished = False
        self.time: TimeSettings | None = None
        self._size = size
        self._komi = komi
        self.game = _go(size, komi)
        #: Positions from the start; ``moves[i]`` (colour, vertex) led to ``states[i + 1]``.
        self.states: list[GoState] = [self.game.initial_state()]
        self.moves: list[tuple[int, str]] = []
        self._commands: dict[str, Callable[[list[str]], str | Genmove]] = {
            "protocol_version": lambda args: str(PROTOCOL_VERSION),
            "name": lambda args: ENGINE_NAME,
            "version": lambda args: SERVER_VERSION,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self._commands),
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi_command,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "final_score": self._final_score,
            "showboard": self._showboard,
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "kgs-time_settings": self._kgs_time_settings,
            "final_status_list": self._final_status_list,
            "kgs-genmove_cleanup": self._genmove_cleanup,
            "reg_genmove": self._reg_genmove,
            "loadsgf": self._loadsgf,
            "fixed_handicap": self._fixed_handicap,
            "place_free_handicap": self._place_free_handicap,
            "set_free_handicap": self._set_free_handicap,
            "gogui-analyze_commands": lambda args: ANALYZE_COMMANDS,
            WINRATE_COMMAND: self._winrate,
            OWNERSHIP_COMMAND: self._ownership,
            "quit": self._quit,
        }
        #: The last search's answer and the colour it was for (the win-rate view).
        #: The last genmove's colour, its search and the move it played.
        self.last_search: tuple[int, SearchResult, str] | None = None
        #: Per colour, how many of its ``genmove`` searches in a row would
        #: have resigned: it resigns at RESIGN_CONSECUTIVE.
        self.low_searches = ResignStreak()

    @property
    def state(self) -> GoState:
        return self.states[-1]

    # ------------------------------------------------------------------
    # The protocol.

    def execute(self, line: str) -> str | Genmove | None:
        """The full answer (ending with an empty line) to one command line.

        A ``genmove`` that needs a search returns the :class:`Genmove`
        instead: search it, then answer with :meth:`genmove_answer`.
        """
        words = _clean(line).split()
        if not words:
            return None
        command_id = ""
        if words[0].isdigit():
            command_id = words.pop(0)
            if not words:
                return f"?{command_id} missing command\n\n"
        name, args = words[0].lower(), words[1:]
        handler = self._commands.get(name)
        if handler is None:
            return f"?{command_id} unknown command\n\n"
        try:
            result = handler(args)
        except GtpError as error:
            return f"?{command_id} {error}\n\n"
        if isinstance(result, Genmove):
            return dataclasses.replace(result, command_id=command_id)
        return _success(command_id, result)

    def genmove_answer(self, order: Genmove, result: SearchResult) -> str:
        """Play the search's move for ``order`` (or resign) and answer the ``genmove``.

        A search that would resign (ours below the threshold, or the
        server's ``bestmove`` ``resign``) resigns only as the
        RESIGN_CONSECUTIVE-th such search in a row for its colour; before
        that, and always with resigning off, the best move it found is
        played: the first of its line.
        """
        if result.move is None:
            return _success(order.command_id, RESIGN_MOVE)
        low = self._should_resign(order.state, result)
        # A reg_genmove only tells what the genmove would do: not counted.
        if self.low_searches.confirms(order.colour, low, record=order.register):
            return _success(order.command_id, RESIGN_MOVE)
        played = result.move
        if played == RESIGN_MOVE:
            pv = result.info.pv
            played = pv[0] if pv and pv[0] != RESIGN_MOVE else "pass"
        self.last_search = (order.colour, result, played)
        if order.register:
            state = order.state
            move = self.game.parse_move(state, played)
            self._push(order.colour, played, self.game.play(state, move))
        return _success(order.command_id, played)

    def _known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")  # GTP 2: it takes one command name
        return "true" if args[0].lower() in self._commands else "false"

    def _boardsize(self, args: list[str]) -> str:
        size = _int_arg(args, "boardsize")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self._size = size
        self._new_game()
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._new_game()
        return ""

    def _komi_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpError("syntax error") from None
        if not math.isfinite(komi):
            raise GtpError("syntax error")
        # GTP: "The engine must accept the komi even if it should be
        # ridiculous." The game takes half points within ±MAX_KOMI (more
        # than any 19x19 count but the most lopsided); controllers send 6.5 or 7.
        komi = max(-MAX_KOMI, min(MAX_KOMI, round(komi * 2) / 2))
        # Komi is a rule, not part of the board: the positions (a loaded
        # SGF's too) stand as they are under the new game's rules.
        self.game = _go(self._size, komi)
        self._komi = komi
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        self._play_colour(colour, args[1])
        return ""

    def _genmove(
        self, args: list[str], cleanup: bool = False, register: bool = True
    ) -> str | Genmove:
        if len(args) != 1:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        state = self._with_side_to_move(colour)
        if self.game.outcome(state) is not None:
            return "pass"  # the game is over by our rules: nothing to play
        algorithm = resolve_algorithm(self.game, self.algorithm)
        return Genmove("", colour, state, self._limits(colour), algorithm, cleanup, register)

    def _genmove_cleanup(self, args: list[str]) -> str | Genmove:
        """KGS's ``kgs-genmove_cleanup``: a move that captures dead stones before any pass."""
        return self._genmove(args, cleanup=True)

    def _reg_genmove(self, args: list[str]) -> str | Genmove:
        """``reg_genmove``: the move the engine would play, not played (GTP 2, 6.3.4)."""
        return self._genmove(args, register=False)

    def _final_status_list(self, args: list[str]) -> str:
        """The stones that are ``alive``, ``dead`` or in ``seki`` (never any: no seki reader).

        Dead stones are those :func:`engine.games.go.dead_stones` takes off;
        one vertex per string line, as GNU Go answers.
        """
        if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        status = args[0].lower()
        state = self.state
        if status == "seki":
            return ""
        dead = set(dead_stones(self.game, state))
        stones = [p for p in self.game.points if state.board[p] != EMPTY]
        chosen = {p for p in stones if (p in dead) == (status == "dead")}
        # GTP's vertex*&: one string per line (its stones on the line).
        lines = []
        for string in _strings(self.game, state, chosen):
            lines.append(" ".join(self.game.format_move(state, p) for p in string))
        return "\n".join(lines)

    def _loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [MOVE]``: the position of an SGF file, before move number ``MOVE``.

        The board takes the file's size (``SZ``, 19 without it) and komi
        (``KM``, the controller's without it), as GTP 2 says ("Board size and
        komi are set to the values given in the sgf file") and GNU Go does;
        the komi used to stay the controller's (a review, 2026-12-07).
        Nothing to undo before the loaded position.
        """
        if len(args) not in (1, 2):
            raise GtpError("syntax error")
        limit = _int_arg(args[1:], "loadsgf") if len(args) == 2 else None
        try:
            with open(args[0], encoding="utf-8", errors="replace") as sgf:
                text = sgf.read(MAX_SGF_CHARS + 1)
        except OSError:
            raise GtpError("cannot load file") from None  # GTP 2's words
        if len(text) > MAX_SGF_CHARS:
            raise GtpError("file too large")
        size = 19
        found = SGF_SIZE.search(text)
        if found is not None:
            size = int(found.group(1))
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        try:
            nodes = sgf_main_line(text)
        except GameError as error:
            raise GtpError(f"cannot load file: {error}") from None
        if limit is not None:
            nodes = _first_moves(nodes, max(0, limit - 1))
        komi = self._komi
        found = SGF_KOMI.search(text)
        if found is not None:
            komi = max(-MAX_KOMI, min(MAX_KOMI, round(float(found.group(1)) * 2) / 2))
        # Read in full before anything changes: a failed loadsgf leaves the
        # board as it was (it used to clear it, so that the controller and
        # the engine no longer agreed on the position).
        game = _go(size, komi)
        try:
            loaded = game.parse_position(_sgf_text(nodes))
        except GameError as error:
            raise GtpError(f"cannot load file: {error}") from None
        self._size = size
        self._komi = komi
        self._new_game()
        self.game = game
        self.states = [loaded]
        return COLOUR_NAMES[self.game.to_move(loaded)]

    def _fixed_handicap(self, args: list[str]) -> str:
        """``fixed_handicap N``: GTP 2's placement (section 4.1.1), the vertices placed."""
        count = _int_arg(args, "fixed_handicap")
        points = fixed_handicap_points(self._size, count)
        if points is None:
            raise GtpError("invalid number of stones")
        return self._place_handicap(points)

    def _place_free_handicap(self, args: list[str]) -> str:
        """``place_free_handicap N``: the engine's own placement (:func:`free_handicap_points`)."""
        count = _int_arg(args, "place_free_handicap")
        if not 2 <= count < self._size * self._size:
            raise GtpError("invalid number of stones")
        return self._place_handicap(free_handicap_points(self._size, count))

    def _set_free_handicap(self, args: list[str]) -> str:
        """``set_free_handicap V1 V2 ...``: the controller's placement, at least two stones."""
        if not 2 <= len(args) < self._size * self._size:
            raise GtpError("bad vertex list")
        points: list[tuple[int, int]] = []
        for text in args:
            if self.game.point(text) is None:  # a pass, or no vertex of this board
                raise GtpError("bad vertex list")
            word = text.strip().upper()
            place = (COLUMNS.index(word[0]), int(word[1:]) - 1)
            if place in points:
                raise GtpError("bad vertex list")
            points.append(place)
        return self._place_handicap(points)

    def _place_handicap(self, points: list[tuple[int, int]]) -> str:
        """Black's stones on ``points`` (column, row from the bottom), White to move.

        Only on an empty board with nothing played (GTP 2: "board not
        empty" otherwise); the stones are not moves, so ``undo`` cannot
        take them back.
        """
        if self.moves or any(self.state.board[p] != EMPTY for p in self.game.points):
            raise GtpError("board not empty")
        size = self._size
        rows = [["."] * size for _ in range(size)]
        for column, row in points:
            rows[size - 1 - row][column] = COLOUR_LETTERS[0]
        text = "/".join("".join(row) for row in rows) + " " + COLOUR_LETTERS[1]
        state = self.game.parse_position(text)
        self.states = [state]
        return " ".join(COLUMNS[column] + str(row + 1) for column, row in sorted(points))

    def _winrate(self, args: list[str]) -> str:
        """The last search's chance of winning for the side it searched (a GoGui text view)."""
        if self.last_search is None:
            return "no search yet"
        colour, result, played = self.last_search
        chance = result.info.score.win_chance(self.game.win_odds_scale)
        playouts = result.info.playouts
        # "black wins 43.5%" read as a result (a review, 2026-12-07): a chance.
        who = COLOUR_NAMES[colour]
        return f"{who}'s chance of winning {chance:.1%} ({playouts} playouts, {played})"

    def _ownership(self, args: list[str]) -> str:
        """Who owns each point after playouts, -1 (White) to 1 (Black): GoGui's INFLUENCE."""
        state = self.state
        shares = ownership(self.game, state, deadline=time.monotonic() + OWNERSHIP_TIME_S)
        return "INFLUENCE " + " ".join(
            f"{self.game.format_move(state, p)} {share:.2f}"
            for p, share in zip(self.game.points, shares, strict=True)
        )

    def _undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo")
        self.states.pop()
        self.moves.pop()
        return ""

    def _final_score(self, args: list[str]) -> str:
        return self.game.result_text(self.state)

    def _showboard(self, args: list[str]) -> str:
        return "\n" + board_diagram(self.game, self.state)

    def _time_settings(self, args: list[str]) -> str:
        main, byo, stones = (_int_arg([arg], "time_settings") for arg in _exactly(args, 3))
        if main < 0 or byo < 0 or stones < 0:
            raise GtpError("syntax error")
        self.time = TimeSettings(main * 1000, byo * 1000, stones)
        return ""

    def _kgs_time_settings(self, args: list[str]) -> str:
        """KGS's ``kgs-time_settings none | absolute M | byoyomi M T P | canadian M T S``.

        As ``time_settings`` (GTP 2's Canadian byo-yomi), with Japanese
        byo-yomi (P periods of T seconds) kept as periods of one move in T
        seconds: no move uses up a period, and the other periods stay a margin.
        """
        if not args:
            raise GtpError("syntax error")
        kind, rest = args[0].lower(), args[1:]
        if kind == "none":
            _exactly(rest, 0)
            return self._time_settings(["0", "1", "0"])  # GTP 2's "no time limit"
        if kind == "absolute":
            return self._time_settings([*_exactly(rest, 1), "0", "0"])
        if kind == "byoyomi":
            main, period, periods = _exactly(rest, 3)
            count = _int_arg([periods], "kgs-time_settings")
            if count < 0:
                raise GtpError("syntax error")
            return self._time_settings([main, period, "1"] if count else [main, "0", "0"])
        if kind == "canadian":
            return self._time_settings(rest)
        raise GtpError("syntax error")

    def _time_left(self, args: list[str]) -> str:
        colour_text, seconds, stones = _exactly(args, 3)
        colour = _colour(colour_text)
        if self.time is None:
            return ""  # no time settings: nothing to keep
        try:
            left_ms = round(float(seconds) * 1000)
            stones_left = int(stones)
        except ValueError:
            raise GtpError("syntax error") from None
        self.time.left_ms[colour] = max(0, left_ms)
        self.time.stones_left[colour] = max(0, stones_left)
        return ""

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""

    # ------------------------------------------------------------------
    # The game.

    def _new_game(self) -> None:
        self.game = _go(self._size, self._komi)
        self.states = [self.game.initial_state()]
        self.moves = []
        self.low_searches = ResignStreak()
        if self.time is not None:
            # A new game's clocks start full, as GNU Go's clear_board resets
            # its timers: a controller sends time_settings once and then
            # clear_board before each game (a review, 2026-12-07: the clock
            # counted in the first game left every move of the next unsearched).
            self.time = self.time.restarted()

    def _push(self, colour: int, text: str, state: GoState) -> None:
        self.states.append(state)
        self.moves.append((colour, text))

    def _play_colour(self, colour: int, text: str) -> None:
        if text.strip().lower() == "resign":  # GTP's play takes a vertex or pass
            raise GtpError("illegal move")
        state = self._with_side_to_move(colour)
        try:
            move = self.game.parse_move(state, text)
        except GameError:
            raise GtpError("illegal move") from None
        self._push(colour, self.game.format_move(state, move), self.game.play(state, move))

    def _with_side_to_move(self, colour: int) -> GoState:
        """The current position with ``colour`` to move (rebuilt if it is the other's turn).

        Two passes (or the length bound) do not end a GTP game: the
        controller does (KGS's clean-up phase, GoGui playing on), so the
        game is resumed where it stands.
        """
        state = self.game.resumed(self.state)
        if self.game.to_move(state) == colour or self.game.outcome(state) is not None:
            return state
        board, _ = self.game.format_position(state).rsplit(" ", 1)
        return self.game.parse_position(f"{board} {COLOUR_LETTERS[colour]}")

    def _limits(self, colour: int) -> Limits:
        if self.playouts is not None:
            return Limits(nodes=self.playouts)
        if self.time is None or self.time.unlimited:
            return Limits(movetime_ms=self.movetime_ms)
        return Limits(clock=self.time.clock(colour))

    def _should_resign(self, state: GoState, result: SearchResult) -> bool:
        """Whether the search of ``state`` would resign at this engine's threshold.

        The server's search says ``resign`` at its own threshold
        (:data:`RESIGN_BELOW`); the rule is applied again here with
        :attr:`resign_below`, which may be lower or higher.
        """
        if self.resign_below <= 0 or result.move == "pass":
            return False
        info = result.info
        chance = info.score.win_chance(self.game.win_odds_scale)
        return should_resign(self.game, state, chance, result.root_playouts, self.resign_below)


def _strings(game: Go, state: GoState, stones: set[int]) -> list[list[int]]:
    """``stones`` grouped by string (same colour, joined along the lines), board order."""
    board, stride = state.board, game.stride
    left = set(stones)
    groups: list[list[int]] = []
    for start in sorted(stones):
        if start not in left:
            continue
        left.discard(start)
        group, frontier = [start], [start]
        while frontier:
            p = frontier.pop()
            for q in (p - 1, p + 1, p - stride, p + stride):
                if q in left and board[q] == board[start]:
                    left.discard(q)
                    group.append(q)
                    frontier.append(q)
        groups.append(sorted(group))
    return groups


def _handicap_layout(size: int, count: int, line: int) -> list[tuple[int, int]]:
    """The star points of GTP 2's handicap table for ``count`` stones (2-9), on ``line``.

    (column, row) from the lower left, 0-based; ``line`` is the corner
    points' distance from the edge. In GTP 2's order (section 4.1.1): two
    opposite corners (upper right, lower left), the third and fourth
    corners, the centre for an odd count, then the middles of the left and
    right sides, then of the top and bottom.
    """
    low, high, middle = line, size - 1 - line, (size - 1) // 2
    corners = [(high, high), (low, low), (low, high), (high, low)]
    sides = [(low, middle), (high, middle)]
    ends = [(middle, high), (middle, low)]
    centre = [(middle, middle)] if count % 2 and count >= 5 else []
    if count <= 4:
        return corners[:count]
    if count <= 5:
        return corners + centre
    if count <= 7:
        return corners + sides + centre
    return corners + sides + ends + centre


def fixed_handicap_points(size: int, count: int) -> list[tuple[int, int]] | None:
    """GTP 2's fixed handicap (section 4.1.1), ``None`` where the table has none.

    Boards of 7x7 and more; up to 4 stones on 7x7 and on even sizes, up to 9
    on odd sizes from 9x9; the corner points on the third line up to 11x11,
    on the fourth from 12x12. GNU Go 3.8 places the same points
    (tests/server/test_gtp.py holds its answers).
    """
    if size < 7:
        return None
    most = 9 if size % 2 and size >= 9 else 4
    if not 2 <= count <= most:
        return None
    return _handicap_layout(size, count, 2 if size <= 11 else 3)


#: Stones beyond which ``place_free_handicap`` adds points by distance alone.
FREE_HANDICAP_LAYOUT_MAX: Final = 9


def free_handicap_points(size: int, count: int) -> list[tuple[int, int]]:
    """``count`` points for Black's free handicap, our choice.

    The fixed layout's points (on the second line for boards under 7x7,
    where the table has none; the middles of an even board one line below
    and left of its centre), up to nine stones; beyond, each further stone
    on the point farthest from the stones placed (Manhattan distance to the
    nearest), inside the corner points' line while there is room, then off
    the first line, then anywhere: handicap stones spread out. A 2-stone
    request on 5x5 gets the second line's corners, say. A request for every
    point but one is met: GTP 2 allows fewer stones only where more could
    not matter, and this never needs to.
    """
    line = 1 if size < 7 else 2 if size <= 11 else 3
    first = _handicap_layout(size, min(count, FREE_HANDICAP_LAYOUT_MAX), line)
    points = list(dict.fromkeys(first))
    # The points at least ``line`` from the edge first, then off the first
    # line, then any: a large handicap spreads inwards before it crawls.
    tiers = [
        [(c, r) for r in range(edge, size - edge) for c in range(edge, size - edge)]
        for edge in (line, 1, 0)
    ]
    while len(points) < count:
        free = next(t for t in ([p for p in tier if p not in points] for tier in tiers) if t)
        points.append(
            max(free, key=lambda p: min(abs(p[0] - q[0]) + abs(p[1] - q[1]) for q in points))
        )
    return points


def _go(size: int, komi: float) -> Go:
    try:
        return Go(size=size, komi=komi)
    except GameError as error:
        raise GtpError(str(error)) from None


def board_diagram(game: Go, state: GoState) -> str:
    """The board as text, coordinates round it (``showboard``)."""
    rows, side = game.format_position(state).split(" ")
    size = game.options["size"]
    letters = "   " + " ".join(COLUMNS[:size])
    lines = [letters]
    for index, row in enumerate(rows.split("/")):
        number = size - index
        lines.append(f"{number:2d} {' '.join(row)} {number:2d}")
    lines.append(letters)
    lines.append(f"{'black' if side == 'X' else 'white'} to play")
    return "\n".join(lines)


def _first_moves(
    nodes: list[list[tuple[str, list[str]]]], moves: int
) -> list[list[tuple[str, list[str]]]]:
    """The nodes of an SGF main line up to its ``moves``-th move."""
    kept: list[list[tuple[str, list[str]]]] = []
    played = 0
    for node in nodes:
        is_move = any(name in ("B", "W") for name, _ in node)
        if is_move:
            if played == moves:
                break
            played += 1
        kept.append(node)
    return kept


def _sgf_text(nodes: list[list[tuple[str, list[str]]]]) -> str:
    """An SGF game of ``nodes``, with only the properties a position needs."""
    parts = []
    for node in nodes:
        props = "".join(
            name + "".join(f"[{value}]" for value in values)
            for name, values in node
            if name in SGF_KEPT
        )
        parts.append(";" + props)
    return "(" + "".join(parts or [";"]) + ")"


def _clean(line: str) -> str:
    # GTP 2, 3.1: control characters other than HT and LF go, HT becomes a
    # space, and everything after # is a comment.
    line = line.split("#", 1)[0].replace("\t", " ")
    return "".join(ch for ch in line if ch >= " " or ch == "\n")


def _colour(text: str) -> int:
    colour = COLOURS.get(text.lower())
    if colour is None:
        raise GtpError("syntax error")
    return colour


def _int_arg(args: list[str], command: str) -> int:
    if len(args) != 1:
        raise GtpError("syntax error")
    try:
        return int(args[0])
    except ValueError:
        raise GtpError("syntax error") from None


def _exactly(args: list[str], count: int) -> list[str]:
    if len(args) != count:
        raise GtpError("syntax error")
    return args


def _success(command_id: str, result: str) -> str:
    return f"={command_id} {result}\n\n" if result else f"={command_id}\n\n"


def serve(engine: GtpEngine, read: TextIO | None = None, write: TextIO | None = None) -> int:
    """Answer commands from ``read`` (default stdin) until ``quit`` or the end of input."""
    if write is not None:
        return asyncio.run(_serve(engine, read or sys.stdin, write))
    with protocol_stdout() as out:
        return asyncio.run(_serve(engine, read or sys.stdin, out))


async def _serve(engine: GtpEngine, read: TextIO, write: TextIO) -> int:
    runtime = FrontendPool(workers=engine.threads)
    runtime.start()
    searches = 0
    warm = False
    try:
        async for line in read_lines(read):
            if not warm and _command_word(line) not in IDENTITY_COMMANDS:
                # Before the game's first command, not on the first genmove's
                # clock (the first genmove took 1.1-2.6 s of a 1 s byo-yomi:
                # the Go review of 2026-11-29).
                warm = True
                jobs = []
                for _ in range(engine.threads):  # each process loads what a search needs
                    searches += 1
                    jobs.append(_warm_up_job(engine, searches))
                await runtime.warm_up(jobs, WARM_UP_TIMEOUT_S)
            received = time.monotonic()
            answer = engine.execute(line)
            if isinstance(answer, Genmove):
                order = answer
                searches += engine.threads
                answer = engine.genmove_answer(
                    order, await _search(runtime, engine, order, searches, received)
                )
                if engine.time is not None and order.register:
                    # Our own count of the clock, for controllers without time_left.
                    elapsed_ms = math.ceil((time.monotonic() - received) * 1000)
                    engine.time.spend(order.colour, elapsed_ms)
            if answer is None:
                continue
            write.write(answer)
            write.flush()
            if engine.finished:
                break
    finally:
        await runtime.close()
    return 0


def _command_word(line: str) -> str:
    """A GTP command's name, after its id if it has one (``""`` for a blank line)."""
    words = _clean(line).split()
    if words and words[0].isdigit():
        words = words[1:]
    return words[0].lower() if words else ""


def _warm_up_job(engine: GtpEngine, number: int) -> SearchJob:
    """A tiny search of the empty board: the worker loads what a Go search needs."""
    game = engine.game
    algorithm = resolve_algorithm(game, engine.algorithm)
    return search_job(
        number, game, game.initial_state(), WARM_UP_LIMITS, algorithm, time.monotonic()
    )


async def _search(
    runtime: FrontendPool, engine: GtpEngine, order: Genmove, number: int, received: float
) -> SearchResult:
    """The result of ``order``'s search on the worker (or the pool's answer without it).

    Planned from when the ``genmove`` was read: a wait for the worker (one
    replaced after a crash) is on the controller's clock too.
    """
    job = search_job(number, engine.game, order.state, order.limits, order.algorithm, received)
    if order.cleanup:
        job = dataclasses.replace(job, cleanup=True)
    copies = engine.threads if order.algorithm == MCTS else 1
    await runtime.wait_idle(copies)
    if copies == 1:
        return await runtime.submit(job).answer
    # Root parallelism: the same search in each process (each its own random
    # playouts and its own tree), the move with the most visits over all.
    tickets = [
        runtime.submit(dataclasses.replace(job, think_id=number - copy)) for copy in range(copies)
    ]
    results = await asyncio.gather(*(ticket.answer for ticket in tickets))
    chosen = results[pooled_choice(results)]
    pooled = dataclasses.replace(
        chosen.info,
        playouts=sum(result.info.playouts for result in results),
        nodes=sum(result.info.nodes for result in results),
    )
    return dataclasses.replace(chosen, info=pooled)

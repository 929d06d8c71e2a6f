"""The terminal client: play a game against the engine, watching it think.

Used by ``arena play``; the board is drawn by :mod:`clients.render` (in
colour on a terminal unless ``NO_COLOR`` is set), moves are typed in the
game's notation (chess also in SAN, and chess moves are shown in SAN), and
while the engine thinks one status line shows its depth, score and
principal variation as they arrive. Besides moves the prompt takes the
commands in :data:`COMMANDS_HELP`: ``help``, ``undo``, ``new``, ``hint``,
``flip`` and ``quit``.

The protocol has no undo: ``undo`` starts the game again from its start
position, replaying the moves up to the person's previous decision (with
the same dice seed and the rolls in the history, so backgammon comes back
to the same roll).

Why one module: one interactive program: the game loop, the prompt's
commands and the live status line share the session's state; the board
drawing is in :mod:`clients.render`. Hence the length (over 600 lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import re
import shutil
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TextIO

from clients.client import (
    BestMove,
    Engine,
    EngineError,
    EngineTerminatedError,
    GameState,
    Info,
    UnknownAlgorithmError,
    connect,
)
from clients.render import BG_NAMES, C4_NAMES, View, go_captures, render
from clients.tournament.records import RULES, UNFINISHED, GameRecord, MoveRecord, sgf
from engine.errors import GameError
from engine.registry import create_game
from engine.search.score import Score
from protocol.codec import EncodingName
from protocol.limits import MAX_MOVE_CHARS

InputFunction = Callable[[str], Awaitable[str | None]]

QUIT_WORDS = {"quit", "q", "exit"}
#: How many legal moves the prompt lists before abbreviating.
PROMPT_MOVES = 16
#: The move of a player who cannot move, in the games that have one.
PASS = "pass"
#: Pause before asking again when a busy server refused a think without a hint.
OVERLOADED_RETRY_MS = 1000
#: The engine's thinking time when neither a time nor a depth is given.
DEFAULT_MOVETIME_MS = 1000
#: How many plies of the move list are shown above the board.
SHOWN_PLIES = 16
#: Games whose board turns round to put the person's side at the bottom when
#: they play second, as the web GUI does (clients/web/js/main.js, boardView).
TURNED_FOR_SECOND_PLAYER = ("chess", "checkers", "backgammon")
#: Games whose board ``flip`` turns round (clients/render.py); the others
#: have one way up (Connect Four's gravity, Go's coordinates, ...).
FLIPPABLE = ("chess", "checkers", "othello", "backgammon")

COMMANDS_HELP = """\
commands:
  <move>  play a move in the game's notation (chess: e2e4 or SAN like Nf3, O-O;
          Go: D4 or pass)
  resign  give up the game (Go: a move the server plays; other games end here)
  help    this list
  undo    take back your last move and the engine's reply
  new     start a new game
  hint    ask the engine for a move without playing it
  flip    turn the board round (chess, checkers, Othello, backgammon)
  quit    leave (also q, exit, or end of input)
  Enter while the engine thinks: it moves now, with its best move so far"""


async def read_line(prompt: str) -> str | None:
    """Read a line without blocking the event loop; ``None`` at end of input.

    ``input`` runs in a daemon thread of its own, not in the loop's default
    executor: ``asyncio.run`` waits for that executor's threads as it shuts
    down, so Ctrl-C at the prompt did nothing until Enter was pressed (a
    review in tmux, 2026-12-07). A daemon thread still reading is left
    behind at exit.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def settle(line: str | None, error: BaseException | None) -> None:
        if answer.done():
            return
        if error is None:
            answer.set_result(line)
        else:
            answer.set_exception(error)

    def read() -> None:
        line: str | None = None
        error: BaseException | None = None
        try:
            line = input(prompt) if sys.stdin.isatty() else _PIPE.line(prompt)
            # A byte that is no UTF-8 (a Latin-1 terminal, an 8-bit Alt key)
            # comes as a lone surrogate, which no message can carry: it
            # ended the program and lost the game (a review in tmux,
            # 2026-12-07). Shown as U+FFFD, it is an illegal move like any.
            line = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except EOFError:
            line = None
        except Exception as failure:  # a closed or unreadable stdin: said by the caller
            error = failure
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            loop.call_soon_threadsafe(settle, line, error)

    threading.Thread(target=read, name="arena play input", daemon=True).start()
    return await answer


class _PipeLines:
    """Lines from stdin read with ``os.read``, for stdin that is no terminal.

    ``input()`` on a pipe holds the lock of Python's stdin buffer while it
    waits; a program that ended then (SIGTERM, the server gone) died at its
    exit with "could not acquire lock for <stdin>" (SIGABRT), after saving
    the game but with a crash (a re-review, 2026-12-07). ``os.read`` takes
    no lock. Bytes that are no UTF-8 read as U+FFFD.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._lock = threading.Lock()

    def line(self, prompt: str) -> str:
        """The next line without its end; EOFError at the end of input."""
        sys.stdout.write(prompt)
        sys.stdout.flush()
        with self._lock:
            while b"\n" not in self._pending:
                chunk = os.read(sys.stdin.fileno(), 4096)
                if not chunk:
                    if not self._pending:
                        raise EOFError
                    break
                self._pending += chunk
            text, _, self._pending = self._pending.partition(b"\n")
        return text.decode("utf-8", "replace").removesuffix("\r")


def _unentered_text() -> str:
    """What the line editor holds typed but not yet entered (empty without readline,
    which ``arena play`` loads on a terminal)."""
    editor = sys.modules.get("readline")
    if editor is None:
        return ""
    with contextlib.suppress(Exception):  # an editor without a buffer to read
        return str(editor.get_line_buffer())
    return ""


async def _quietly(stop: Awaitable[None]) -> None:
    """``stop`` with its failure left unsaid: the think may have ended meanwhile."""
    with contextlib.suppress(EngineError, RuntimeError):
        await stop


#: The one reader of a piped stdin (its bytes read ahead are kept for the next line).
_PIPE = _PipeLines()


def is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def use_color(out: TextIO) -> bool:
    """Colours when ``out`` is a terminal and ``NO_COLOR`` is not set."""
    return is_terminal(out) and not os.environ.get("NO_COLOR")


class Notation:
    """Moves as a person reads them: SAN for chess (tracked client-side), else as sent."""

    def __init__(self, game: str, options: Mapping[str, Any] | None, position: str | None) -> None:
        self.chess: Any = None
        if game == "chess":
            self.chess = create_game("chess", options)
            self.start: Any = (
                self.chess.parse_position(position) if position else self.chess.initial_state()
            )

    def state_after(self, history: tuple[str, ...] | list[str]) -> Any:
        state = self.start
        for move in history:
            state = self.chess.play(state, self.chess.parse_move(state, move))
        return state

    def line(
        self, history: tuple[str, ...] | list[str], moves: tuple[str, ...] | list[str]
    ) -> list[str]:
        """``moves`` (played after ``history``) in SAN for chess; unchanged otherwise."""
        if self.chess is None:
            return list(moves)
        try:
            state = self.state_after(history)
            shown = []
            for move in moves:
                parsed = self.chess.parse_move(state, move)
                shown.append(self.chess.format_san(state, parsed))
                state = self.chess.play(state, parsed)
            return shown
        except ValueError:  # engine.errors.GameError: an odd PV must not stop the game
            return list(moves)

    def choices(self, history: tuple[str, ...], legal: tuple[str, ...]) -> list[str]:
        """The legal moves as the prompt lists them (SAN for chess)."""
        if self.chess is None:
            return list(legal)
        state = self.state_after(history)
        try:
            return [self.chess.format_san(state, self.chess.parse_move(state, m)) for m in legal]
        except ValueError:
            return list(legal)

    def move_list(self, history: tuple[str, ...]) -> str:
        """The moves so far, numbered for chess (``1. e4 e5 2. Nf3``), the last few only."""
        if not history:
            return ""
        if self.chess is None:
            shown = list(history[-SHOWN_PLIES:])
            return ("... " if len(history) > SHOWN_PLIES else "") + " ".join(shown)
        tokens = self.move_list_full(history)
        cut = 0
        while len(" ".join(tokens[cut:])) > 96:
            cut += 1
            while cut < len(tokens) and not tokens[cut][0].isdigit():  # start at a number
                cut += 1
        return ("... " if cut else "") + " ".join(tokens[cut:])

    def pgn(
        self,
        history: tuple[str, ...],
        players: list[str],
        result: str,
        position: str | None,
        ending: str | None = None,
    ) -> str:
        """The game in PGN (chess only); ``ending`` says how it ended, as a comment
        before the result (``White resigns.``, ``checkmate``), with PGN's
        ``Termination`` tag: ``normal`` for an ended game, ``unterminated`` else."""
        today = datetime.date.today().strftime("%Y.%m.%d")
        tags = [
            ("Event", "arena play"),
            ("Site", "alphabeta-arena"),
            ("Date", today),
            ("Round", "-"),
            ("White", players[0]),
            ("Black", players[1]),
            ("Result", result),
            ("Termination", "unterminated" if result == "*" else "normal"),
        ]
        if position:
            tags += [("SetUp", "1"), ("FEN", position)]
        header = "".join(f'[{name} "{value}"]\n' for name, value in tags)
        said = [] if ending is None else [f"{{{ending}}}"]
        words = [*self.move_list_full(history), *said, result]
        lines: list[str] = []
        line = ""
        for word in words:
            if line and len(line) + 1 + len(word) > 79:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
        return header + "\n" + "\n".join(lines) + "\n\n"

    def move_list_full(self, history: tuple[str, ...]) -> list[str]:
        san = self.line((), history)
        number = int(self.chess.format_position(self.start).split()[-1])
        white = self.chess.to_move(self.start) == 0
        tokens: list[str] = []
        for move in san:
            if white:
                tokens.append(f"{number}.")
            elif not tokens:
                tokens.append(f"{number}...")
            tokens.append(move)
            number += 0 if white else 1
            white = not white
        return tokens


@dataclass
class Session:
    """One ``arena play`` session: the connection, the game and the person's settings."""

    engine: Engine
    game: str
    options: Mapping[str, Any] | None
    position: str | None
    human: int
    movetime_ms: int | None
    depth: int | None
    read: InputFunction
    out: TextIO
    #: The file each game is appended to: PGN for chess (``--pgn``), SGF for Go (``--sgf``).
    pgn: str | None = None
    view: View = field(default_factory=View)
    players: list[str] = field(default_factory=list)
    #: The winner of the person's resignation in this game (not Go), until a new game or undo.
    resigned_to: int | None = None
    seed: int | None = None
    #: History lengths at which the person was asked for a move.
    decisions: list[int] = field(default_factory=list)
    notation: Notation | None = None
    #: The search to ask for (``None``: the game's default).
    algorithm: str | None = None
    #: The game's ``welcome.games[].win_odds_scale`` (``None``: a server
    #: before 0.6 sent none), to show a Monte Carlo score as its win rate.
    win_odds_scale: int | None = None
    #: The game's ``eval_unit`` (welcome): backgammon's thousandths are shown as points.
    eval_unit: str | None = None
    #: Games started in this session, and the one last saved to ``--pgn`` or ``--sgf``
    #: (a game is saved once: a Ctrl-C after ``quit`` saved it must not again).
    games_started: int = 0
    saved_game: int = 0
    #: The game's start as the server wrote it (its ``new_game`` reply's position).
    start_board: str | None = None
    #: The read of the person's next line started while the engine thought and
    #: not yet answered: stdin has one reader at a time, so the next prompt
    #: waits for this read instead of starting another.
    waiting_line: asyncio.Future[str | None] | None = None
    #: Lines typed while the engine thought (moves typed ahead; ``None``: the
    #: end of input), for the next prompts, oldest first.
    typed_ahead: list[str | None] = field(default_factory=list)
    #: Read a line while the engine thinks (Enter: move now): see :func:`play`'s ``move_now``.
    move_now: bool = False
    #: How to stop the think under way (``None``: the engine is not thinking).
    stop_think: Callable[[], Awaitable[None]] | None = None
    #: The ``stop`` that Enter sent (kept so that the task is not collected early).
    stopping: asyncio.Future[None] | None = None

    def say(self, text: str) -> None:
        print(text, file=self.out)

    async def next_line(self, prompt: str) -> str | None:
        """The person's next line after ``prompt``: a line typed while the engine
        thought if there is one (shown after the prompt, where it is used), else
        the read still waiting from a think, else a new read."""
        if self.typed_ahead:
            typed = self.typed_ahead.pop(0)
            self.out.write(prompt + ("" if typed is None else typed) + "\n")
            self.out.flush()
            return typed
        ahead, self.waiting_line = self.waiting_line, None
        if ahead is None:
            return await self.read(prompt)
        # Text typed during the think but not yet entered is in the line
        # editor's buffer: shown after the prompt, or the prompt looked empty
        # and "Nc6" typed there read as "NcNc6" (a review of 2026-12-08).
        self.out.write(prompt + _unentered_text())
        self.out.flush()
        return await ahead

    def move_now_hint(self) -> str:
        """What the thinking line adds where Enter makes the engine move now."""
        return "; Enter: move now" if self.move_now else ""

    def listen_while_thinking(self, stop: Callable[[], Awaitable[None]]) -> None:
        """Read the person's lines while the engine thinks: an empty one (Enter)
        calls ``stop`` (move now, as a GUI's Stop button); any other is kept for
        the next prompt (typed ahead) and the reading goes on, so that a later
        Enter in the same think still stops it. :meth:`think` clears
        :attr:`stop_think` when the think ends: an Enter read after it is
        dropped, never taken for the next think's (a review of 2026-12-08)."""
        self.stop_think = stop
        if self.waiting_line is None:
            self._read_ahead()

    def _read_ahead(self) -> None:
        line = asyncio.ensure_future(self.read(""))
        self.waiting_line = line
        line.add_done_callback(self._heard)

    def _heard(self, line: asyncio.Future[str | None]) -> None:
        if line.cancelled() or line.exception() is not None or self.waiting_line is not line:
            return  # cancelled, failed (said at the prompt that awaits it), or taken there
        self.waiting_line = None
        text = line.result()
        stop = self.stop_think
        if text == "":
            if stop is not None:
                self.stop_think = None  # once per think
                self.stopping = asyncio.ensure_future(_quietly(stop()))
            return  # an Enter between thinks: nothing to stop, no move
        self.typed_ahead.append(text)
        if stop is not None and (text is None or text.strip().lower() in QUIT_WORDS):
            # Leaving: the think is stopped rather than waited out (a review of
            # 2026-12-08 waited 20 s after "quit"); the prompt then takes the word.
            self.stop_think = None
            self.stopping = asyncio.ensure_future(_quietly(stop()))
        elif text is not None and stop is not None:
            self._read_ahead()  # the think goes on: so does the listening

    async def read_or_gone(self, prompt: str) -> str | None:
        """The person's line, or :class:`EngineTerminatedError` as soon as the server
        goes: at the prompt, a server gone was noticed only at the next line typed
        (a re-review, 2026-12-07: it sat there for more than 10 s)."""
        reading = asyncio.ensure_future(self.next_line(prompt))
        gone = asyncio.ensure_future(self.engine.wait_closed())
        try:
            await asyncio.wait({reading, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not reading.done():
                reading.cancel()
        if reading.done() and not reading.cancelled():
            return reading.result()
        self.out.write("\n")  # off the prompt's line
        why = gone.result() if gone.done() and not gone.cancelled() else None
        raise why or EngineTerminatedError("connection closed")

    def title(self) -> str:
        """The game's title as the server's ``welcome`` gives it ("Connect Four"), else its name."""
        description = self.engine.server.game(self.game) if self.engine.server else None
        return str(description.get("title") or self.game) if description else self.game

    async def start(self) -> GameState:
        state = await self.engine.new_game(self.game, self.options, self.position)
        self.games_started += 1
        self.start_board = state.position if not state.history else None
        self.seed = state.seed
        self.decisions = []
        return state

    def limits(self) -> tuple[int | None, int | None]:
        """(movetime_ms, depth) of a think: neither given means the default time."""
        if self.movetime_ms is None and self.depth is None:
            return DEFAULT_MOVETIME_MS, None
        return self.movetime_ms, self.depth

    def name(self, player: int | str) -> str:
        name = _player_name(self.players, player)
        if self.human == 2 or not isinstance(player, int):
            return name
        return f"{name} (you)" if player == self.human else f"{name} (engine)"

    def show(self, state: GameState) -> None:
        notation = self.notation or Notation(self.game, None, None)
        played = [move for move in state.history if not _is_roll(self.game, move)]
        last = played[-1] if played else None
        if self.game == "chess" or self.game == "backgammon":
            moves = notation.move_list(state.history)
            if moves:
                self.say(f"moves: {moves}")
        targets = frozenset(state.legal_moves) if self.game == "othello" else frozenset()
        view = View(last_move=last, flip=self.view.flip, color=self.view.color, targets=targets)
        if self.game == "othello":
            view = replace(view, final=state.is_over)
        if self.game == "go":
            # The start as the server wrote it: an SGF --position is no board
            # the count of captures can read (it was never shown: a review
            # in tmux, 2026-12-07).
            view = _go_view(view, state, self.start_board or self.position)
        if self.game == "backgammon":
            # Numbered for the person, whichever way up; watching, for the mover.
            mover = state.to_move if isinstance(state.to_move, int) else None
            view = replace(view, numbering=self.human if self.human in (0, 1) else mover)
        board = render(state.game, state.position, state.options, view)
        self.say(board)
        if state.gnubg_id is not None:
            self.say(f"gnubg ID: {state.gnubg_id}")
        if last is not None:
            shown = notation.line(state.history[:-1], [last])[0] if self.game == "chess" else last
            self.say(f"last move: {shown}")
        said = any(word in board.rpartition("\n")[2] for word in (" to move", " to play"))
        if state.is_over or state.is_chance:
            return
        if not said:
            self.say(f"{self.name(state.to_move)} to move")
        elif self.human != 2:
            self.say("your turn" if state.to_move == self.human else "the engine's turn")

    async def think(self, state: GameState) -> BestMove:
        notation = self.notation or Notation(self.game, None, None)
        while True:
            try:
                movetime_ms, depth = self.limits()
                async with self.engine.analysis(
                    movetime_ms=movetime_ms, depth=depth, algorithm=self.algorithm
                ) as analysis:
                    if self.move_now:
                        self.listen_while_thinking(analysis.stop)
                    shown: str | None = None
                    async for info in analysis:
                        if info.partial and not is_terminal(self.out):
                            # A log (a file, a pipe) keeps the completed
                            # iterations: a new best move inside one is
                            # written again when it completes, and was shown
                            # twice (a review of 2026-12-07). The status line
                            # of a terminal shows it at once.
                            continue
                        pv = notation.line(state.history, info.pv[:12])
                        _show_progress(
                            info, pv, self.out, self.win_odds_scale, self.eval_unit, self.game
                        )
                        shown = info.pv[0] if info.pv else None
                    best = await analysis.wait()
                    if best.pv and shown is not None and best.pv[0] != shown:
                        # The answer is not the line last shown (Go's pass
                        # back on a won board, a move for a pass that gave
                        # points away): its own line last, so that the
                        # screen does not show "pv A9 B9" above "engine plays
                        # pass" (a review of 2026-12-07).
                        pv = notation.line(state.history, list(best.pv[:12]))
                        _show_progress(
                            best, pv, self.out, self.win_odds_scale, self.eval_unit, self.game
                        )
            except EngineError as error:
                if error.code != "overloaded":
                    raise
                # A busy server refused the think: wait as it suggests, then ask again.
                wait_ms = getattr(error, "retry_after_ms", None) or OVERLOADED_RETRY_MS
                self.say(f"the server is busy; asking again in {wait_ms} ms")
                await asyncio.sleep(wait_ms / 1000)
                continue
            finally:
                self.stop_think = None  # an Enter from now on stops nothing
            if is_terminal(self.out):
                self.out.write("\n")
            return best

    def describe(self, state: GameState, best: BestMove) -> str:
        notation = self.notation or Notation(self.game, None, None)
        shown = notation.line(state.history, [best.move])[0]
        both = shown if shown == best.move else f"{shown} ({best.move})"
        searched = (
            f"{best.playouts} playouts" if best.playouts is not None else f"depth {best.depth}"
        )
        score = score_text(
            best.score, best.playouts, self.win_odds_scale, self.eval_unit, self.game
        )
        # Whose score: the side that moved (a hint's and the engine's move
        # are both the mover's, which read as one scale flipping sign, a
        # review of 2026-12-07).
        mover = _player_name(self.players, state.to_move) if isinstance(state.to_move, int) else ""
        whose = f" for {mover}" if mover else ""
        said = f"{both}  (score {score}{whose}, {searched}, {best.time_ms} ms, {best.reason})"
        if best.reason == "overloaded":
            # Only a word at the end of the line before (a review in tmux,
            # 2026-12-07): the server had no search process free.
            said += "\n  the server was busy: this move was not searched (its first legal move)"
        return said

    async def undo(self, state: GameState) -> GameState | None:
        """Back to the person's previous decision; ``None`` when there is none."""
        earlier = [point for point in self.decisions if point < len(state.history)]
        if not earlier:
            return None
        target = earlier[-1]
        self.decisions = earlier[:-1]
        return await self.engine.new_game(
            self.game, self.options, self.position, list(state.history[:target]), self.seed
        )

    def example(self, state: GameState) -> str:
        if not state.legal_moves:
            return "a move"
        move = state.legal_moves[len(state.legal_moves) // 2]
        if self.notation is not None and self.notation.chess is not None:
            san = self.notation.choices(state.history, (move,))[0]
            return f"{move} or {san}" if san != move else move
        return move

    async def command(self, text: str, state: GameState) -> GameState | str | None:
        """A command's new state, ``"again"`` to ask again, ``None`` to quit."""
        word = text.strip().lower()
        if word in QUIT_WORDS:
            return None
        if word in ("help", "?", "h"):
            self.say(COMMANDS_HELP)
            return "again"
        if word == "flip":
            if self.game not in FLIPPABLE:
                self.say(f"flip: a {self.title()} board is drawn one way up only")
                return "again"
            self.view = View(flip=not self.view.flip, color=self.view.color)
            self.show(state)
            return "again"
        if word == "new":
            if state.history:
                self.save_game(state)  # the game left, finished or not ("*")
            self.say("new game")
            return await self.start()
        if word == "undo":
            earlier = await self.undo(state)
            if earlier is None:
                self.say("nothing to undo")
                return "again"
            self.say("undone")
            return earlier
        if word == "hint":
            if state.is_over:
                self.say("the game is over: no hint")
                return "again"
            self.say(
                f"thinking about a hint... (scores for {self.name(state.to_move)})"
                + self.move_now_hint()
            )
            best = await self.think(state)
            self.say(f"hint: {self.describe(state, best)}")
            return "again"
        if not word:
            self.say(f"type a move like {self.example(state)}, or help")
            return "again"
        if word == "resign" and self.game != "go" and not state.is_over:
            # Go's resignation is a move the server plays (protocol.md section
            # 9); other games end here, the game left as a loss (in chess it
            # was refused as an illegal move, a review of 2026-12-07).
            return "resign"
        return "move"

    async def human_turn(self, state: GameState) -> GameState | None:
        if tuple(state.legal_moves) == (PASS,):  # nothing to choose (backgammon, Othello)
            self.say("no legal move: you pass")
            return await self.engine.move(PASS)
        self.decisions.append(len(state.history))
        notation = self.notation or Notation(self.game, None, None)
        while True:
            legal = notation.choices(state.history, state.legal_moves)
            shown = _abbreviate(legal)
            text = await self.read_or_gone(f"your move [{shown}] (help for commands): ")
            if text is None:
                return None
            outcome = await self.command(text, state)
            if outcome is None or isinstance(outcome, GameState):
                return outcome
            if outcome == "again":
                continue
            if outcome == "resign":
                return await self.resigned(state)
            if len(text.strip()) > MAX_MOVE_CHARS:
                # The server's words named its field ("'move' is at most 128
                # characters"): a paste, not a move (a review, 2026-12-07).
                self.say(f"that is no move ({len(text.strip())} characters); type help")
                continue
            try:
                return await self.engine.move(_typed_move(self.game, text.strip()))
            except EngineTerminatedError:
                raise  # the server is gone: play() saves the game and says so
            except EngineError as error:
                if error.code != "illegal_move":
                    self.say(error.message)
                    continue
                why = ""
                if self.game == "go":
                    reason = explain_go_move(self.options, self.position, state.history, text)
                    why = f": {reason}" if reason else ""
                elif self.game == "chess":
                    reason = explain_chess_move(state.position, state.legal_moves, text)
                    why = f": {reason}" if reason else ""
                elif self.game == "backgammon":
                    reason = explain_backgammon_move(state.position, state.legal_moves, text)
                    why = f": {reason}" if reason else ""
                elif self.game == "connect4":
                    reason = explain_connect4_move(self.options, text)
                    why = f": {reason}" if reason else ""
                elif self.game == "checkers":
                    reason = explain_checkers_move(state.legal_moves, text)
                    why = f": {reason}" if reason else ""
                elif self.game == "othello":
                    reason = explain_othello_move(state.position, state.legal_moves, text)
                    why = f": {reason}" if reason else ""
                self.say(
                    f"{text.strip()!r} is not a legal move{why}; "
                    f"type a move like {self.example(state)}, or help"
                )

    async def resigned(self, state: GameState) -> GameState | None:
        """The person resigned (a game other than Go): ``new``, ``undo`` or leave.

        The game is saved as lost when it is left (quit or ``new``), as a
        finished one is."""
        mover = state.to_move
        winner = 1 - mover if isinstance(mover, int) else 1 - self.human
        self.resigned_to = winner
        self.say(f"you resign: {self.name(winner)} wins")
        while True:
            text = await self.next_line("game over: new, undo or quit: ")
            if text is not None and text.strip().lower() == "undo":
                # The resignation is what is taken back: the same position,
                # the person to move again (undo went back a whole move
                # before it, or found nothing to undo at the first one: a
                # review, 2026-12-07). Its decision point is counted again
                # when the turn starts again.
                self.resigned_to = None
                if self.decisions and self.decisions[-1] == len(state.history):
                    self.decisions.pop()
                self.say("resignation taken back")
                return state
            outcome = None if text is None else await self.command(text, state)
            if outcome is None:
                return None  # the caller saves the game, as lost
            if isinstance(outcome, GameState):
                self.resigned_to = None  # a new game, or the resignation taken back
                return outcome
            if outcome in ("move", "resign"):
                self.say("the game is over; type new, undo or quit")

    async def game_over(self, state: GameState) -> GameState | None:
        """After the end: ``new`` or ``undo``, or ``None`` to leave.

        The game goes to ``--pgn`` (``--sgf``) when it is left (quit, or ``new``, which
        saves it itself), not when it ends: an ``undo`` after a mate used to
        leave the mate in the file as a finished game, besides the game
        played on from there.
        """
        if self.human == 2:
            self.save_game(state)
            return None
        while True:
            text = await self.next_line("game over: new, undo or quit: ")
            if text is None:
                self.save_game(state)
                return None
            outcome = await self.command(text, state)
            if outcome is None:
                self.save_game(state)
                return None
            if isinstance(outcome, GameState):
                return outcome
            if outcome == "move":
                self.say("the game is over; type new, undo or quit")

    def save_game(self, state: GameState) -> None:
        """Append the game to ``--pgn`` (a resigned one as lost) or ``--sgf``, once."""
        if not self.pgn or self.saved_game == self.games_started:
            return
        if self.game == "go":
            # The start as the server wrote it (a --position may be an SGF):
            # its stones become the record's setup.
            start = self.start_board if self.position else None
            self._save_text(sgf_record(state, self._names(), start, self.games_started))
            return
        if self.notation is None or self.notation.chess is None:
            return
        result, ending = "*", None
        if self.resigned_to is not None:
            result = "1-0" if self.resigned_to == 0 else "0-1"
            # Said in the game, as lichess and other servers write it: a bare
            # 0-1 read as an unexplained loss (a review, 2026-12-07).
            ending = f"{('Black', 'White')[self.resigned_to]} resigns."
        elif state.result is not None:
            result = {None: "1/2-1/2", 0: "1-0", 1: "0-1"}.get(state.result.winner, "*")
            ending = state.result.reason
        names = self._names()
        self._save_text(self.notation.pgn(state.history, names, result, self.position, ending))

    def _names(self) -> list[str]:
        """The players as records name them: ``you`` and ``engine``."""
        names = ["engine", "engine"]
        if self.human in (0, 1):
            names[self.human] = "you"
        return names

    def _save_text(self, text: str) -> None:
        assert self.pgn is not None
        try:
            with open(self.pgn, "a", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:  # said, and play goes on: the game is still on the screen
            self.say(f"could not save the game to {self.pgn}: {error.strerror or error}")
            return
        self.saved_game = self.games_started
        self.say(f"saved the game to {self.pgn}")


def sgf_record(state: GameState, names: list[str], start: str | None, number: int) -> str:
    """A Go game of ``arena play`` as SGF (a game tree; the file collects them).

    The tournament's writer (:func:`clients.tournament.records.sgf`): setup
    stones of a start position, passes as empty moves, a resignation in the
    result (``W+R``), no result for a game left unfinished. A review of
    2026-12-07: the terminal had no way to save a Go game.
    """
    result = state.result
    moves = tuple(MoveRecord(move) for move in state.history)
    record = GameRecord(
        game_id=number,
        round=0,
        pair=0,
        game="go",
        options=dict(state.options),
        players=(names[0], names[1]),
        opening_index=0,
        opening_position=start,
        winner=None if result is None else result.winner,
        kind=UNFINISHED if result is None else RULES,
        reason="" if result is None else result.reason,
        moves=moves,
        started=datetime.datetime.now(datetime.UTC).isoformat(),
        tournament="arena play",
    )
    return sgf(record)


async def play(
    url: str,
    game: str,
    *,
    options: Mapping[str, Any] | None = None,
    position: str | None = None,
    movetime_ms: int | None = DEFAULT_MOVETIME_MS,
    depth: int | None = None,
    algorithm: str | None = None,
    human: int = 0,
    encoding: EncodingName = "msgpack",
    token: str | None = None,
    pgn: str | None = None,
    color: bool | None = None,
    read: InputFunction = read_line,
    out: TextIO = sys.stdout,
    move_now: bool | None = None,
) -> int:
    """Play games until the person leaves; ``human``: 0 they move first, 1 the engine, 2 watch.

    "First" is the side to move in the start position: from the usual start
    ``human`` is the person's player index; from a position with the second
    player to move, the other one.

    The engine thinks ``movetime_ms`` per move, or to ``depth`` (both: whichever
    comes first; neither: :data:`DEFAULT_MOVETIME_MS`), with the search
    ``algorithm`` (``None``: the game's default). ``pgn`` names a file
    each finished (or left) chess game is appended to, as PGN, or each Go
    game, as SGF.

    ``move_now``: read the person's line while the engine thinks, Enter
    making it move at once (``None``: when ``read`` is the terminal's and
    both stdin and ``out`` are terminals).
    """
    async with connect(url, encoding=encoding, client_name="arena play", token=token) as engine:
        if algorithm is not None:
            check_algorithm(engine, game, algorithm)
        session = Session(
            engine,
            game,
            options,
            position,
            human,
            movetime_ms,
            depth,
            read,
            out,
            pgn,
            View(
                flip=game in TURNED_FOR_SECOND_PLAYER and human == 1,
                color=use_color(out) if color is None else color,
            ),
            _player_names(engine, game),
        )
        session.notation = Notation(game, options, position)
        session.algorithm = algorithm
        if move_now is None:
            move_now = read is read_line and sys.stdin.isatty() and is_terminal(out)
        session.move_now = move_now
        description = engine.server.game(game) if engine.server else None
        session.win_odds_scale = description.get("win_odds_scale") if description else None
        unit = description.get("eval_unit") if description else None
        session.eval_unit = unit if isinstance(unit, str) else None
        state = await session.start()
        if human in (0, 1) and state.to_move == 1:
            # A start position with the second player to move: "you first"
            # (human 0) means playing that side, "engine first" the other.
            human = 1 - human
            session.human = human
            flip = game in TURNED_FOR_SECOND_PLAYER and human == 1
            session.view = View(flip=flip, color=session.view.color)
        try:
            while True:
                if state.is_over:
                    session.show(state)
                    session.say(_result_text(state, session.players, human, session.game))
                    next_state = await session.game_over(state)
                    if next_state is None:
                        if human != 2:
                            session.say("bye")
                        return 0
                    state = next_state
                    continue
                if state.is_chance:  # dice: the server rolls them with the game's seed
                    # The opening roll by the position (a game set up waiting for
                    # a player's dice has no history either: its roll was called
                    # the opening roll, a review of 2026-12-07).
                    opening = state.position.endswith(" opening")
                    state = await engine.roll()
                    dice = state.history[-1]
                    if opening and game == "backgammon":
                        first, _, second = dice.partition("-")
                        white, black = session.players[:2]
                        session.say(
                            f"opening roll: {white} throws {first}, {black} throws {second}"
                        )
                    else:
                        session.say(f"dice: {dice}")
                    continue
                session.show(state)
                if state.to_move == human:
                    next_state = await session.human_turn(state)
                    if next_state is None:
                        if state.history:
                            session.save_game(state)
                        session.say("bye")
                        return 0
                    state = next_state
                else:
                    mover = session.name(state.to_move)
                    session.say(
                        f"{mover} is thinking... (scores for {mover.split(' (')[0]})"
                        + session.move_now_hint()
                    )
                    best = await session.think(state)
                    session.say(f"engine plays {session.describe(state, best)}")
                    state = await engine.move(best.move)
        except (asyncio.CancelledError, EngineTerminatedError):
            # Ctrl-C (asyncio.run cancels this task) or the server gone: the
            # game so far is saved all the same (a review in tmux, 2026-12-07:
            # Ctrl-C during the engine's search left without it).
            if is_terminal(session.out):
                session.out.write("\n")  # off the status line (a re-review, 2026-12-07)
            if state.history:
                session.save_game(state)
            raise


#: The unit of a value in thousandths of a point (backgammon's eval_unit).
THOUSANDTHS_OF_A_POINT = re.compile(r"x 1000")


def score_text(
    score: Score,
    playouts: int | None,
    win_odds_scale: int | None,
    unit: str | None = None,
    game: str | None = None,
) -> str:
    """A score as the terminal shows it: a Monte Carlo search's (one that
    counts ``playouts``) with the win rate it was mapped from, ``+68 (62%)``,
    the side to move's; a value in thousandths of a point (backgammon) as
    points, ``+1.539 points`` (a bare +1539 read as nothing, a review of
    2026-12-07); a proven result in plies, in chess in moves as the web page
    says it (``win in 7`` read as mate in 7 where it was mate in 4, a review
    in tmux, 2026-12-07); other scores as they are."""
    proven = score.win_in if score.win_in is not None else score.loss_in
    if proven is not None:
        won = score.win_in is not None
        if game == "chess":
            moves = (proven + 1) // 2
            return f"{'mate' if won else 'mated'} in {moves} move{'s' if moves != 1 else ''}"
        return f"{'win' if won else 'loss'} in {proven} pl{'ies' if proven != 1 else 'y'}"
    if playouts is None or score.value is None or not isinstance(win_odds_scale, int):
        if score.value is not None and unit and THOUSANDTHS_OF_A_POINT.search(unit):
            return f"{score.value / 1000:+.3f} points"
        return str(score)
    return f"{score} ({score.win_chance(max(win_odds_scale, 1)):.0%})"


def _show_progress(
    info: Info | BestMove,
    pv: list[str],
    out: TextIO,
    win_odds_scale: int | None,
    unit: str | None = None,
    game: str | None = None,
) -> None:
    searched = (
        f"playouts {info.playouts:>7}" if info.playouts is not None else f"depth {info.depth:2d}"
    )
    score = score_text(info.score, info.playouts, win_odds_scale, unit, game)
    line = (
        f"  {searched}  score {score:>10}  nodes {info.nodes:>9}  "
        f"{info.time_ms:>6} ms  pv {' '.join(pv)}"
    )
    if is_terminal(out):
        # One status line rewritten in place, cut to the terminal's width: a
        # longer one wrapped, and each rewrite left a line behind (118 lines
        # for one move in a review in tmux, 2026-12-07).
        width = shutil.get_terminal_size().columns - 1
        out.write("\r\x1b[K" + line[: max(20, width)])
        out.flush()
    else:
        print(line, file=out)


def _player_names(engine: Engine, game: str) -> list[str]:
    """The players as the web GUI names them, with the board's mark where it draws X and O."""
    if game == "backgammon":
        return [f"X {BG_NAMES[0]}", f"O {BG_NAMES[1]}"]
    if game == "connect4":
        return [f"X {C4_NAMES[0]}", f"O {C4_NAMES[1]}"]
    description = engine.server.game(game) if engine.server else None
    return list(description["players"]) if description else ["player 0", "player 1"]


def check_algorithm(engine: Engine, game: str, algorithm: str) -> None:
    """Refuse, before the game starts, a search the server does not offer for ``game``.

    Any name the server's ``welcome`` lists is accepted (an external
    program such as ``sf5`` too); ``UnknownAlgorithmError`` names the others.
    """
    description = engine.server.game(game) if engine.server else None
    offered = list(description.get("algorithms") or ()) if description else []
    if offered and algorithm not in offered:
        raise UnknownAlgorithmError(
            f"the server offers {game} with {', '.join(offered)}, not {algorithm!r}"
        )


#: Chess pieces by their FEN letter (White's upper case), for explain_chess_move.
CHESS_PIECES: Final = {
    "p": "pawn",
    "n": "knight",
    "b": "bishop",
    "r": "rook",
    "q": "queen",
    "k": "king",
}
#: Castling by SAN and by the king's UCI move: (side, which), FEN's rights letter for White.
CASTLINGS: Final = {
    "O-O": "K",
    "0-0": "K",
    "O-O-O": "Q",
    "0-0-0": "Q",
    "e1g1": "K",
    "e1c1": "Q",
    "e8g8": "K",
    "e8c8": "Q",
}


def explain_chess_move(fen: str, legal: Sequence[str], text: str) -> str | None:
    """Why a chess move the server refused is illegal, in words; ``None`` if it cannot say.

    From the position's FEN and the legal moves (UCI) the server sent: an
    empty square, a piece of the side not to move, castling that is not
    possible (and why: the right is gone, a piece stands between, the king
    is in check), or where the named piece may go instead.
    """
    fields = fen.split()
    if len(fields) < 4:
        return None
    board: dict[str, str] = {}
    for rank_index, row in enumerate(fields[0].split("/")):
        file_index = 0
        for char in row:
            if char.isdigit():
                file_index += int(char)
                continue
            board[f"{'abcdefgh'[file_index]}{8 - rank_index}"] = char
            file_index += 1
    white = fields[1] == "w"
    side, other = ("White", "Black") if white else ("Black", "White")
    word = text.strip()
    castle = CASTLINGS.get(word)
    if castle is not None and (word[0] in "O0" or board.get(word[:2], "").lower() == "k"):
        right = castle if white else castle.lower()
        home = "1" if white else "8"
        between = ("f", "g") if castle == "K" else ("b", "c", "d")
        wing = "kingside" if castle == "K" else "queenside"
        if right not in fields[2]:
            return f"{side} may no longer castle {wing} (the king or that rook has moved)"
        blocked = [f + home for f in between if f + home in board]
        if blocked:
            return f"castling {wing} needs {', '.join(blocked)} empty"
        return (
            f"castling {wing} is not allowed now: "
            "the king is in check or would cross an attacked square"
        )
    for square in re.findall(r"[a-z]\d+", word):
        if square[0] not in "abcdefgh" or square[1:] not in tuple("12345678"):
            return f"{square} is not a square: files run a-h and ranks 1-8"
    pawn = re.fullmatch(r"([a-h])(?:x([a-h]))?([1-8])(?:=?[QRBNqrbn])?[+#]?", word)
    if pawn is not None:
        file, capture, rank = pawn.groups()
        target = f"{capture or file}{rank}"
        own = "P" if white else "p"
        squares = [
            square
            for square, char in board.items()
            if char == own and (not capture or square[0] == file)
        ]
        where = f" on the {file}-file" if capture else ""
        if not squares:
            return f"{side} has no pawn{where}"
        promotions = [move for move in legal if move[:2] in squares and move[2:4] == target]
        if promotions and all(len(move) == 5 for move in promotions) and "=" not in word:
            # "no pawn can go to a8" said of a pawn that can (the review of 2026-12-06).
            return f"a pawn reaching {target} must promote: {word.rstrip('+#')}=Q (or =R, =B, =N)"
        reach = sorted({move[2:4] for move in legal if move[:2] in squares})
        refusal = f"no pawn of {side}'s{where} can go to {target}"
        if capture and reach:
            return f"{refusal} (they can go to {', '.join(reach)})"
        return refusal
    san = re.fullmatch(r"([NBRQK])[a-h]?[1-8]?x?([a-h][1-8])[+#]?", word)
    if san is not None:
        letter, target = san.group(1), san.group(2)
        own = letter if white else letter.lower()
        squares = sorted(square for square, char in board.items() if char == own)
        name = CHESS_PIECES[letter.lower()]
        if not squares:
            return f"{side} has no {name}"
        reach = sorted({move[2:4] for move in legal if move[:2] in squares})
        if not reach:
            return f"no {name} of {side}'s has a legal move here"
        movers = sorted({move[:2] for move in legal if move[:2] in squares and move[2:4] == target})
        if len(movers) > 1:
            # Two can: "no knight can go to d2 (they can go to ... d2)" said
            # the opposite (the review of 2026-12-06). SAN names the one meant.
            named = [letter + _disambiguation(start, movers) + target for start in movers]
            return f"ambiguous: {len(movers)} {name}s can go to {target}: {' or '.join(named)}"
        return f"no {name} of {side}'s can go to {target} (they can go to {', '.join(reach)})"
    match = re.fullmatch(r"([a-h][1-8])([a-h][1-8])[qrbn]?", word)
    if match is None:
        return None  # the prompt's example says how a move is written
    start, target = match.groups()
    piece = board.get(start)
    if piece is None:
        return f"there is no piece on {start}"
    if piece.isupper() != white:
        return f"the {CHESS_PIECES[piece.lower()]} on {start} is {other}'s: {side} is to move"
    name = CHESS_PIECES[piece.lower()]
    targets = sorted({move[2:4] for move in legal if move[:2] == start})
    if not targets:
        return f"the {name} on {start} has no legal move here"
    return f"the {name} on {start} can go to {', '.join(targets)}, not {target}"


#: One step of a backgammon play: from, to, and how many checkers (``13/8(2)``).
_BACKGAMMON_STEP: Final = re.compile(r"(bar|\d+)/(off|\d+)\*?(?:\((\d)\))?")


def _step_pips(start: str, end: str) -> int:
    """The pips of one step (the bar is point 25, off is point 0)."""
    return (25 if start == "bar" else int(start)) - (0 if end == "off" else int(end))


def _play_pips(steps: list[tuple[str, str, str]]) -> int:
    """The pips a play's steps use in all."""
    return sum(max(_step_pips(a, b), 0) * (int(n) if n else 1) for a, b, n in steps)


def explain_checkers_move(legal: Sequence[str], text: str) -> str | None:
    """Why a checkers move is refused: a capture was due, or a jump stopped
    short (a review of 2026-12-07 got only "not a legal move" for both)."""
    typed = text.strip().lower().replace(" ", "")
    if not legal or not re.fullmatch(r"\d+([-x]\d+)+", typed):
        return None
    if all("x" in move for move in legal) and "x" not in typed:
        return f"a capture must be taken when there is one, e.g. {legal[0]}"
    going_on = [move for move in legal if move.startswith(typed + "x")]
    if going_on:
        return f"the jump is not over: a piece that can jump on must, e.g. {going_on[0]}"
    return None


def explain_othello_move(position: str, legal: Sequence[str], text: str) -> str | None:
    """Why an Othello move is refused: the square is taken, or it outflanks
    no disc (a review of 2026-12-07 got only "not a legal move"); a pass while
    a move is left is not allowed."""
    if text.strip().lower() == "pass" and legal:
        return f"a player passes only without a move, and you have {len(legal)}"
    square = re.fullmatch(r"([a-h])([1-8])", text.strip().lower())
    board = position.split()[0] if position.split() else ""
    if square is None or len(board) != 64:
        return None
    index = (int(square.group(2)) - 1) * 8 + "abcdefgh".index(square.group(1))
    if board[index] != "-":
        return f"{square.group(0)} is taken"
    example = f", e.g. {legal[0]}" if legal else ""
    return (
        f"{square.group(0)} outflanks no disc: a move must close a line of the "
        f"opponent's discs between it and one of yours{example}"
    )


def explain_connect4_move(options: Mapping[str, Any] | None, text: str) -> str | None:
    """Why a Connect Four column is refused: full, or not on the board (a review of
    2026-12-07 saw only "'4' is not a legal move")."""
    width = int((options or {}).get("width", 7))
    word = text.strip()
    if not word.isdigit():
        return f"a move is a column number, 1 to {width}"
    column = int(word)
    if not 1 <= column <= width:
        return f"the columns are 1 to {width}"
    return f"column {column} is full"


def explain_backgammon_move(position: str, legal: Sequence[str], text: str) -> str | None:
    """Why ``text`` is not one of the legal plays of the roll in ``position``, or ``None``.

    The usual reasons (the review of 2026-12-06 got only "not a legal move"
    for them): a step that no die (or sum of dice) makes, a step from a
    point without the mover's checker or onto one the opponent holds, a die
    used twice, and a play that leaves a die unplayed when the rules require
    both (all four of a double) to be used wherever they can be.
    """
    roll = re.fullmatch(r"(\d)-(\d)", position.split()[-1]) if position.split() else None
    if roll is None or not legal:
        return None
    first, second = int(roll.group(1)), int(roll.group(2))
    dice = [first] * 4 if first == second else [first, second]
    steps = _BACKGAMMON_STEP.findall(text.strip().lower())
    if not steps:
        return None
    if all(play.startswith("bar/") for play in legal) and steps[0][0] != "bar":
        # A review of 2026-12-07 got "both dice must be played" for 13/9
        # with a checker on the bar.
        return f"a checker on the bar must enter first, e.g. {legal[0]}"
    sums = {sum(dice[:count]) for count in range(1, len(dice) + 1)} | set(dice)
    for begin, finish, _ in steps:
        distance = _step_pips(begin, finish)
        if finish != "off" and distance not in sums:
            return f"{begin}/{finish} moves {distance} pips: the dice are {first} and {second}"
    blocked = _backgammon_board_problem(position, steps)
    if blocked is not None:
        return blocked
    if any(finish == "off" for _, finish, _ in steps):
        # Bearing off, a die may be worth fewer pips than it shows, so the
        # pips below say nothing: "4/off 1/off" with 6-5 was told to play
        # both dice, which it did (the same review).
        return None
    # Each die moves once: "8/3(2)" with 6-5 needs two 5s (the same review
    # was told to play both dice).
    wanted = [0] * 7
    for begin, finish, repeat in steps:
        distance = _step_pips(begin, finish)
        count = int(repeat) if repeat else 1
        if first != second and distance == first + second:
            wanted[first] += count
            wanted[second] += count
        elif first != second and distance in (first, second):
            wanted[distance] += count
    available = [0] * 7
    for die in dice:
        available[die] += 1
    for die in (first, second):
        if first != second and wanted[die] > available[die]:
            return f"the dice are {first} and {second}: there is one {die} to play"
    if (
        first == second
        and sum(
            (int(repeat) if repeat else 1) * (_step_pips(begin, finish) // first)
            for begin, finish, repeat in steps
        )
        > 4
    ):
        return f"a double moves four times: {first} pips each"
    used = _play_pips(steps)
    if all(_play_pips(_BACKGAMMON_STEP.findall(play)) > used for play in legal):
        every = "all four dice" if first == second else f"both dice ({first} and {second})"
        return f"{every} must be played when they can be, e.g. {legal[0]}"
    return None


def _backgammon_board_problem(position: str, steps: list[tuple[str, str, str]]) -> str | None:
    """A typed step from a point without a checker of the mover's, or onto one
    the opponent holds, or ``None``.

    A review of 2026-12-07: ``6/1`` and ``24/19*`` with 6-5 at the start (the
    1 and 19 points held by the opponent) were told that both dice must be
    played, which would not have made them legal.
    """
    try:
        state = create_game("backgammon").parse_position(position)
    except GameError:
        return None
    mine = list(state.me)
    theirs = state.opp
    for begin, finish, repeat in steps:
        for _ in range(int(repeat) if repeat else 1):
            source = 24 if begin == "bar" else int(begin) - 1
            if not 0 <= source <= 24 or mine[source] == 0:
                return f"you have no checker on {begin}"
            mine[source] -= 1
            if finish == "off":
                continue
            target = int(finish) - 1
            if not 0 <= target < 24:
                return None
            if theirs[23 - target] >= 2:
                held = theirs[23 - target]
                return f"{finish} is blocked: the opponent has {held} checkers there"
            mine[target] += 1
    return None


def _disambiguation(start: str, movers: list[str]) -> str:
    """SAN's from-square part for the piece on ``start`` among ``movers``: file, rank or both."""
    if sum(1 for square in movers if square[0] == start[0]) == 1:
        return start[0]
    if sum(1 for square in movers if square[1] == start[1]) == 1:
        return start[1]
    return start


def explain_go_move(
    options: Mapping[str, Any] | None, start: str | None, history: tuple[str, ...], text: str
) -> str | None:
    """Why a Go move the server refused is illegal, in words; ``None`` if it cannot say.

    The engine's own reason (``Go.why_illegal``, the one the server's error
    carries), on the position replayed from ``start`` and the moves.
    """
    try:
        game: Any = create_game("go", options)
        state = game.parse_position(start) if start else game.initial_state()
        for move in history:
            state = game.play(state, game.parse_move(state, move))
        reason: str = game.why_illegal(state, text)
    except (GameError, ValueError):
        return None
    return reason


def _go_view(view: View, state: GameState, start: str | None) -> View:
    """Go's extras: the captures (from the moves) and, at the end, the area."""
    try:
        captures = go_captures(state.position, state.history, start)
    except ValueError:  # a position the renderer cannot read is shown raw anyway
        captures = None
    resigned = bool(state.history) and state.history[-1] == "resign"  # no area to count then
    final = state.is_over and not resigned
    return replace(view, captures=captures, final=final, ended=state.is_over and resigned)


#: How chess players mark an en passant capture after its move (``exd6 e.p.``).
EN_PASSANT_MARK = re.compile(r"\s*e\.?\s?p\.?$", re.IGNORECASE)


def _typed_move(game: str, text: str) -> str:
    """Go vertices as GTP spells them (``d4`` is ``D4``, ``PASS`` is ``pass``); a
    chess move with its en passant mark (``exd6 e.p.``, ``exd6ep``) without it:
    refused before (a review in tmux, 2026-12-07)."""
    if game == "go":
        return text.lower() if text.lower() in ("pass", "resign") else text.upper()
    if game == "chess" and re.fullmatch(r"[a-h]x[a-h][36]\s*e\.?\s?p\.?", text, re.IGNORECASE):
        return EN_PASSANT_MARK.sub("", text)
    return text


def _is_roll(game: str, move: str) -> bool:
    return game == "backgammon" and len(move) == 3 and move[1] == "-" and move[::2].isdigit()


def _abbreviate(moves: list[str], width: int = 72) -> str:
    """The legal moves for the prompt, cut to about ``width`` characters."""
    shown: list[str] = []
    length = 0
    separator = ", " if any(" " in move for move in moves) else " "
    for move in moves[:PROMPT_MOVES]:
        if shown and length + len(move) + 1 > width:
            break
        shown.append(move)
        length += len(move) + len(separator)
    return separator.join(shown) + (" ..." if len(shown) < len(moves) else "")


def _player_name(players: list[str], player: int | str) -> str:
    if isinstance(player, int) and 0 <= player < len(players):
        return players[player]
    return str(player)


#: Games whose wins are worth more than one point (``result.points``).
GAMES_WITH_POINTS: Final = frozenset({"backgammon"})


def _result_text(state: GameState, players: list[str], human: int, game: str = "") -> str:
    result = state.result
    if result is None:
        return ""
    if result.winner is None:
        return f"draw ({result.reason})"
    said = f"{_player_name(players, result.winner)} wins ({result.reason})"
    if result.reason.lower().startswith(f"{_player_name(players, result.winner)} wins".lower()):
        said = result.reason  # Go's "white wins by 4.5" says it all
    if game in GAMES_WITH_POINTS:
        # Backgammon's points, as the GUI gives them (a review of 2026-12-07).
        said = f"{said}, {result.points} point{'s' if result.points != 1 else ''}"
    if human == 2:
        return said
    who = "you win" if result.winner == human else "the engine wins"
    return f"{said}: {who}"

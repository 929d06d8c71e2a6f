"""A Python function as a bot: position in, move out; the game's rules come from :mod:`engine`.

A student writes::

    from clients.bot import Answer, Decision

    def choose(decision: Decision) -> str:
        # decision.game and decision.state are the engine's own: use its
        # rules (legal_moves, play, outcome) for a search of your own.
        return decision.legal[0]

and runs it with ``arena bot mybot.py:choose --game connect4 --port 9000``
(an engine server others can play against) or ``arena bot mybot.py:choose
--game connect4 --versus local:depth=4`` (a match against our engine).
Underneath, the function is a ``cmd:`` bot (docs/bots.md):
``python -P -m clients.bot mybot.py:choose`` reads the JSON requests,
calls the function, and writes its answers. :class:`Bot` is the same for a
class with state (a ``choose`` method); :func:`bot` marks the function to
use when the file is named without one (``arena bot mybot.py``).

The file is imported by its path under a name of its own, and its
directory comes *after* the installed packages on ``sys.path``: its other
modules beside it import, and a student's ``engine.py`` or ``clients.py``
cannot replace this project's packages of those names (nor be imported
under them: a bot that tries is told to rename its file).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Final

# The catalog, not the registry: a bot imports its own game only
# (engine.catalog), and its first move does not wait for the others.
from engine.catalog import create_game, game_class
from engine.game import Game

#: The attribute :func:`bot` sets on the function it marks.
MARK: Final = "__arena_bot__"
#: The characters of a comment or an error the server keeps (docs/bots.md):
#: more is cut here, so that an answer line stays far below the 16 KiB a
#: line may hold (a 100 KB exception message was refused whole).
MAX_TEXT_CHARS: Final = 500


@dataclass(frozen=True)
class Decision:
    """One decision to make: the request of docs/bots.md, with the engine's game and state."""

    #: The game's rules (engine.game.Game): legal_moves, play, outcome, format_move ...
    game: Game[Any, Any]
    #: The position in the engine's form (``game.play(state, move)`` ...).
    state: Any
    #: The position in the game's notation.
    position: str
    #: Every legal move, in the game's notation: answer one of them.
    legal: list[str]
    #: 0 or 1: the player to move.
    to_move: int
    #: The moves played from ``start`` to ``position`` (may be empty).
    moves: list[str] = field(default_factory=list)
    start: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    #: The time for this move (milliseconds), ``None`` without a limit.
    budget_ms: int | None = None
    #: The time on this player's clock, or ``budget_ms``.
    time_left_ms: int | None = None
    #: When the request arrived (``time.monotonic()``): see :meth:`time_left`.
    received: float = 0.0

    def time_left(self) -> float | None:
        """Seconds left for this move, counting from when the request arrived."""
        if self.budget_ms is None:
            return None
        return self.budget_ms / 1000 - (time.monotonic() - self.received)

    def parse(self, move: str) -> Any:
        """A legal move in the game's notation as the engine's move."""
        return self.game.parse_move(self.state, move)


@dataclass(frozen=True)
class Answer:
    """A move and what the bot wants to say about it (docs/bots.md, "The answer")."""

    move: str
    #: A number in the game's unit, or a score object: ``{"win_in": 3}``,
    #: ``{"loss_in": 2}``, ``{"draw": True}`` (docs/bots.md, "The answer").
    score: int | float | dict[str, int | bool] | None = None
    depth: int | None = None
    pv: list[str] | None = None
    comment: str | None = None

    def to_line(self, request: int | None = None) -> str:
        """The answer line; with the request's number, which the server checks (docs/bots.md)."""
        body: dict[str, Any] = {"move": self.move}
        for key in ("score", "depth", "pv", "comment"):
            value = getattr(self, key)
            if value is not None:
                body[key] = value[:MAX_TEXT_CHARS] if key == "comment" else value
        if request is not None:
            body["request"] = request
        return json.dumps(body)


Choose = Callable[[Decision], "str | Answer"]


class Bot:
    """A bot with state: subclass it and write :meth:`choose`; one instance plays every move."""

    def choose(self, decision: Decision) -> str | Answer:
        raise NotImplementedError("write choose(self, decision) in your Bot")

    def __call__(self, decision: Decision) -> str | Answer:
        return self.choose(decision)


def bot(function: Choose) -> Choose:
    """Mark ``function`` as the file's bot (``arena bot mybot.py`` finds it)."""
    setattr(function, MARK, True)
    return function


#: The packages of this project, which a module beside a bot cannot stand in for.
OUR_PACKAGES: Final = frozenset({"engine", "protocol", "server", "clients"})


class BotLoadError(Exception):
    """The bot file or its function cannot be loaded; the message says which."""


def load(target: str) -> Choose:
    """The bot named by ``FILE.py[:NAME]``: a function, a :class:`Bot` subclass or instance.

    Without ``NAME``: the function marked with :func:`bot`, else the one
    named ``choose``, else the one :class:`Bot` subclass.
    """
    path_text, _, name = target.partition(":")
    path = Path(path_text).resolve()
    if not path.is_file():
        raise BotLoadError(f"no bot file {path_text!r}")
    # Its own directory last: its helpers import, our packages stay ours.
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"arena_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"{path_text!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        # `from engine import helper` with an engine.py beside the bot found
        # this project's engine package (a review, 2026-12-07): say what to do.
        name = (error.name or "").partition(".")[0]
        if name in OUR_PACKAGES and (path.parent / f"{name}.py").exists():
            raise BotLoadError(
                f"{path.name} imports {name!r}, which is this project's own package:"
                f" rename {name}.py beside it (for example my_{name}.py) and import that"
            ) from error
        raise
    found = getattr(module, name, None) if name else _default(module)
    if found is None:
        raise BotLoadError(f"{path.name} has no {name or 'choose function or Bot class'}")
    if isinstance(found, type) and issubclass(found, Bot):
        found = found()
    if not callable(found):
        raise BotLoadError(f"{path.name}:{name} is not a function")
    chosen: Choose = found
    return chosen


def _default(module: Any) -> Any:
    values = list(vars(module).values())
    marked = [value for value in values if callable(value) and getattr(value, MARK, False)]
    if marked:
        return marked[0]
    if callable(getattr(module, "choose", None)):
        return module.choose
    classes = [
        value
        for value in values
        if isinstance(value, type) and issubclass(value, Bot) and value is not Bot
    ]
    return classes[0] if len(classes) == 1 else None


def decision(request: dict[str, Any], games: dict[str, Game[Any, Any]]) -> Decision:
    """The :class:`Decision` for a request line (its game built once per name and options)."""
    options = request.get("options") or {}
    key = json.dumps([request["game"], options], sort_keys=True)
    game = games.get(key)
    if game is None:
        game = games[key] = create_game(request["game"], options)
    return Decision(
        game=game,
        state=game.parse_position(request["position"]),
        position=request["position"],
        legal=list(request["legal"]),
        to_move=request["to_move"],
        moves=list(request.get("moves") or []),
        start=request.get("start"),
        options=dict(options),
        budget_ms=request.get("budget_ms"),
        time_left_ms=request.get("time_left_ms"),
        received=time.monotonic(),
    )


#: The longest ``win_in`` or ``loss_in`` the server takes from a bot
#: (docs/bots.md, "The answer"): beyond it the answer was refused, move and
#: all (a review of 2026-12-07: {"win_in": 10**30}).
MAX_MATE_PLIES: Final = 1000


def _sendable_score(score: object) -> bool:
    """Whether ``score`` may go to the server: none, a finite number (not a
    bool), or a score object of docs/bots.md (one key: ``draw`` with true,
    or ``win_in``, ``loss_in`` with a positive integer, ``value`` with an
    integer). Score objects were left out as "not a number" until a review
    of 2026-12-07, although the docs list them."""
    if score is None:
        return True
    if isinstance(score, dict):
        if len(score) != 1:
            return False
        ((kind, amount),) = score.items()
        if kind == "draw":
            return amount is True
        if not isinstance(amount, int) or isinstance(amount, bool):
            return False
        return kind == "value" or (kind in ("win_in", "loss_in") and 0 < amount <= MAX_MATE_PLIES)
    return isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score)


def _not_a_string(move: object, made: Decision) -> str:
    """Why a move that is no string is refused, and how to write it (``game.format_move``)."""
    why = (
        f"choose returned the move {move!r} (of type {type(move).__name__}), not a string:"
        " return it as the game writes it (decision.legal lists them)"
    )
    with contextlib.suppress(Exception):  # the hint is a courtesy: no hint, no harm
        if move in made.game.legal_moves(made.state):
            written = made.game.format_move(made.state, move)
            why += f"; this engine move is written game.format_move(state, move) = {written!r}"
    return why[:MAX_TEXT_CHARS]


def _fit_extras(answer: Answer) -> Answer:
    """``answer`` with a ``depth`` or ``pv`` the server would refuse left out (said in the
    log), as a bad ``score`` is: they cost the move before (a review, 2026-12-07)."""
    depth, pv = answer.depth, answer.pv
    if isinstance(depth, float) and depth.is_integer():
        depth = int(depth)
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool)):
        print(f"clients.bot: depth {depth!r} is not a whole number: left out", file=sys.stderr)
        depth = None
    written = isinstance(pv, list | tuple) and all(isinstance(m, str) for m in pv)
    if pv is not None and not written:
        print(
            "clients.bot: pv is not a list of moves written as strings"
            " (game.format_move writes an engine move): left out",
            file=sys.stderr,
        )
        pv = None
    sys.stderr.flush()
    return replace(answer, depth=depth, pv=None if pv is None else list(pv))


def serve_lines(choose: Choose, lines: IO[str], out: IO[str]) -> None:
    """Answer each request line of ``lines`` with ``choose``'s move on ``out``.

    When ``choose`` raises, its traceback goes to stderr (the bot's log)
    and the answer is ``{"error": ...}`` (docs/bots.md): that move is
    played for the bot, and the next request is served as usual.
    """
    games: dict[str, Game[Any, Any]] = {}
    for line in lines:
        if not line.strip():
            continue
        number: int | None = None
        try:
            request = json.loads(line)
            number = request.get("request") if isinstance(request, dict) else None
            # The student's print() goes to the log, not into the answers:
            # print(request) made every move of a bot refused (a review,
            # 2026-12-07).
            made = decision(request, games)
            with contextlib.redirect_stdout(sys.stderr):
                chosen = choose(made)
        except Exception as error:  # the student's bug: reported, the bot goes on
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            why = f"{type(error).__name__}: {error}"[:MAX_TEXT_CHARS]
            reply = json.dumps({"error": why, "request": number})
        else:
            if chosen is None or (isinstance(chosen, Answer) and chosen.move is None):
                # A function that fell off its end: said as such, where the
                # log read "the engine answered None, illegal" (a review of
                # 2026-12-07).
                why = "choose returned None (no move): a return statement is missing?"
                print(f"clients.bot: {why}", file=sys.stderr)
                sys.stderr.flush()
                out.write(json.dumps({"error": why, "request": number}) + "\n")
                out.flush()
                continue
            answer = chosen if isinstance(chosen, Answer) else Answer(chosen)
            if not isinstance(answer.move, str):
                # Written out with str(), the engine's own move object was
                # another move: Connect Four's engine move 3 is column "4",
                # and "3" was played for it, legal and wrong, without a word
                # (a review, 2026-12-07). Refused, saying how to write it.
                why = _not_a_string(answer.move, made)
                print(f"clients.bot: {why}", file=sys.stderr)
                sys.stderr.flush()
                out.write(json.dumps({"error": why, "request": number}) + "\n")
                out.flush()
                continue
            answer = _fit_extras(answer)
            if not _sendable_score(answer.score):
                # The server refuses a score that is no score, and with it
                # the move (a review, 2026-12-07): the move stands alone.
                print(
                    f"clients.bot: score {answer.score!r} is not a number or a score object:"
                    " left out",
                    file=sys.stderr,
                )
                sys.stderr.flush()
                answer = replace(answer, score=None)
            reply = answer.to_line(number)
        out.write(reply + "\n")
        out.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -P -m clients.bot FILE.py[:NAME]``: the bot as a ``cmd:`` program."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -P -m clients.bot FILE.py[:NAME]", file=sys.stderr)
        return 2
    try:
        choose = load(args[0])
    except BotLoadError as error:
        print(f"clients.bot: {error}", file=sys.stderr)
        return 2
    # The server names the bot's game (docs/bots.md, ARENA_GAME): its
    # module is imported now, before the first request's clock runs.
    game = os.environ.get("ARENA_GAME")
    if game:
        with contextlib.suppress(Exception):  # the first request says what is wrong
            game_class(game)
    serve_lines(choose, sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    # Run as ``-m clients.bot`` this module is ``__main__``; the student's
    # file imports ``clients.bot``, a second copy whose Answer is another
    # class. Serve from that one, so that both sides share one Answer.
    from clients.bot import main as serve

    raise SystemExit(serve())

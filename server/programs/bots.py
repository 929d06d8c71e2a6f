"""What the ``cmd:`` bot protocol says: one JSON line in per decision, one JSON line out.

A ``cmd:`` bot (``--external connect4:ana=cmd:python3 ana.py``) is any
program that reads a request line on stdin and answers a line on stdout
(docs/bots.md is the specification). This module holds the protocol's
parts that do not drive a process: the request (:func:`request`), the
answer (:func:`read_answer`), the moves of the game so far as far as the
bot's searcher saw them (:class:`MoveLine`), and the resource limits every
bot runs under (:func:`limit_resources`, set in the bot's process before
it starts). :class:`server.programs.searchers.CmdSearcher` drives it over
the one :class:`~server.programs.process.LineProcess` driver.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.game import EVAL_LIMIT, Game
from engine.search.limits import Limits
from engine.search.score import Score
from server.programs.process import MAX_LINE_BYTES
from server.programs.reports import MAX_PV_MOVES, MAX_REPORTED_PLIES, clamp

#: CPU seconds a bot's process may use from its start (RLIMIT_CPU; the
#: kernel ends it with SIGXCPU, and it is started again). A bot runs as
#: long as its server, and the deadline of every move already ends a bot
#: that computes past its time: this only bounds a bot that spins between
#: requests. Ten minutes of CPU is hundreds of moves at a second each.
BOT_CPU_SECONDS: Final = 600
#: Bytes of data memory a bot may hold (RLIMIT_DATA: heap and private
#: writable mappings). Not RLIMIT_AS: node reserves gigabytes of address
#: space it never uses, and would not start. 1 GiB is ample for a student's
#: search and small beside the machine's memory.
BOT_MEMORY_BYTES: Final = 1024**3
#: Files a bot may hold open (RLIMIT_NOFILE): its three pipes, the files it
#: reads at its start (an opening book, a table), a runtime's own.
BOT_OPEN_FILES: Final = 64
#: Tasks (processes and threads) a bot may start beyond those its user
#: already runs (RLIMIT_NPROC counts a user's tasks, threads included):
#: node runs about a dozen threads, the JVM some twenty. The kernel does
#: not apply this limit to root: a bot started by root may fork freely,
#: and only the end of its process group (on every restart) reaps its children.
BOT_EXTRA_TASKS: Final = 32
#: Bytes of a bot's stderr kept in its log file per start of the program;
#: a bot that writes more is cut there (it must not fill the disk).
BOT_LOG_MAX_BYTES: Final = 1024 * 1024
#: Where bot logs are written when ARENA_BOT_LOGS does not say.
DEFAULT_BOT_LOG_DIR: Final = "bot-logs"
#: The longest comment a bot's answer may carry into its log.
MAX_COMMENT_CHARS: Final = 500


class BotAnswerError(ValueError):
    """The bot's answer line breaks the protocol (no move, wrong types).

    ``in_step`` is false when the line may not be the whole answer (cut at
    the longest line, or not JSON): what follows may belong to it, so the
    program is started again; a well-formed JSON answer with a bad field
    leaves the bot in step with its requests.
    """

    def __init__(self, message: str, in_step: bool = True) -> None:
        super().__init__(message)
        self.in_step = in_step


class BotReportedError(BotAnswerError):
    """The bot answered that it failed (``{"error": "..."}``, docs/bots.md): no move, still in step.

    :mod:`clients.bot` answers so when the student's function raises, and
    goes on to the next request: one bad position costs one move, not a
    restart of the program.
    """


def log_path(name: str) -> str:
    """The log file of the bot named ``name``: ``$ARENA_BOT_LOGS/NAME.log``, else ``bot-logs/``."""
    directory = os.environ.get("ARENA_BOT_LOGS") or DEFAULT_BOT_LOG_DIR
    safe = "".join(char if char.isalnum() or char in "-_." else "_" for char in name)
    return os.path.abspath(os.path.join(directory, f"{safe or 'bot'}.log"))


def environment(game: str) -> dict[str, str]:
    """A bot's environment: the server's, without PYTHONSAFEPATH, with ARENA_GAME.

    A server started by ``arena tournament`` sets PYTHONSAFEPATH (its own
    imports must not find a student's ``engine.py``); a student's Python
    bot must still import the modules beside it. ``ARENA_GAME`` names the
    game the bot plays (docs/bots.md), so that it can get ready for it
    before its first request: :mod:`clients.bot` imports the game then.
    """
    env = dict(os.environ)
    env.pop("PYTHONSAFEPATH", None)
    env["ARENA_GAME"] = game
    return env


def default_name(argv: tuple[str, ...]) -> str:
    """The name of a bot given without one: its file's stem (``python3 ana.py``: ``ana``).

    The last argument naming an existing file (before a ``:``, as in
    ``mybot.py:choose``), else the program's own name.
    """
    for argument in reversed(argv[1:]):
        path = argument.partition(":")[0]
        if path and os.path.isfile(path):
            return os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(argv[0])


def user_tasks(uid: int) -> int:
    """How many tasks (threads) ``uid`` runs now, as RLIMIT_NPROC counts them."""
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue  # it ended meanwhile
    return count


def limit_resources() -> Callable[[], None]:
    """A function that sets the bot's resource limits, to run in its process before it starts.

    The count of the user's tasks is taken here, in the parent: between
    fork and exec the child should do as little as it can.
    """
    uid = os.getuid()
    tasks = 0 if uid == 0 else user_tasks(uid) + BOT_EXTRA_TASKS

    def apply() -> None:
        limits = [
            (resource.RLIMIT_CPU, BOT_CPU_SECONDS),
            (resource.RLIMIT_DATA, BOT_MEMORY_BYTES),
            (resource.RLIMIT_NOFILE, BOT_OPEN_FILES),
            (resource.RLIMIT_CORE, 0),
        ]
        if tasks:
            limits.append((resource.RLIMIT_NPROC, tasks))
        for which, value in limits:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            # A limit we may not lower further is already lower.
            with contextlib.suppress(OSError, ValueError):
                resource.setrlimit(which, (value, value))

    return apply


def request(
    game: Game[Any, Any],
    state: Any,
    line: MoveLine,
    limits: Limits,
    budget_ms: int | None,
    number: int,
) -> str:
    """The request line for a decision at ``state`` (docs/bots.md, "The request")."""
    to_move = game.to_move(state)
    legal = [game.format_move(state, move) for move in game.legal_moves(state)]
    clock = limits.clock
    time_left_ms = clock.time_ms if clock is not None else budget_ms
    body = {
        "request": number,
        "game": game.name,
        "options": dict(game.options),
        "position": game.format_position(state),
        "start": line.start,
        "moves": list(line.moves),
        "legal": legal,
        "to_move": to_move,
        "player": game.players[to_move],
        "time_left_ms": time_left_ms,
        "budget_ms": budget_ms,
    }
    return json.dumps(body, separators=(",", ":"), default=str)


@dataclass(frozen=True, slots=True)
class BotAnswer:
    """What a bot answered: its move as it wrote it, and what it said besides."""

    move: str
    score: Score | None = None
    depth: int | None = None
    pv: tuple[str, ...] = ()
    comment: str | None = None
    #: The request it answers, when the bot says (``"request": N``): an
    #: answer written late, for an earlier request, is then told apart.
    request: int | None = None


#: The keys that make a JSON object an answer (a debug line has none of them).
ANSWER_KEYS: Final = frozenset({"move", "error", "request"})


def read_answer(line: str) -> BotAnswer | None:
    """The answer in ``line``, or ``None`` when the line is the bot's chatter.

    An answer is a JSON object with ``move``, ``error`` or ``request``. Any
    other line is skipped, also one that starts with ``{``: a student's
    ``print(request)``, node's ``console.log`` of an object (its first line
    is ``{``) or a JSON debug line were refused as answers, and cost the bot
    every move (a review, 2026-12-07). A line cut at the longest a line may
    be is refused; so is an answer with a field that is wrong
    (:class:`BotAnswerError` says what).
    """
    if not line.startswith("{"):
        return None
    if len(line.encode()) >= MAX_LINE_BYTES - 1:  # cut where a line must end
        raise BotAnswerError(
            f"the answer line is cut at {MAX_LINE_BYTES // 1024} KiB, the longest a line may be"
            " (a long comment or error: shorten it)",
            in_step=False,
        )
    try:
        body = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(body, dict) or body.keys().isdisjoint(ANSWER_KEYS):
        return None
    move = body.get("move")
    error = body.get("error")
    if move is None and isinstance(error, str):
        raise BotReportedError(f"the bot reported an error: {error[:MAX_COMMENT_CHARS]}")
    if not isinstance(move, str) or not move:
        raise BotAnswerError(f'the answer has no "move" string: {line[:60]!r}')
    number = body.get("request")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        raise BotAnswerError('"request" must be the request\'s number, an integer')
    score = _score(body.get("score"))
    depth = body.get("depth")
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool)):
        raise BotAnswerError('"depth" must be an integer')
    pv = body.get("pv")
    if pv is not None and (
        not isinstance(pv, list) or not all(isinstance(item, str) for item in pv)
    ):
        raise BotAnswerError('"pv" must be a list of move strings')
    comment = body.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise BotAnswerError('"comment" must be a string')
    return BotAnswer(
        move,
        score,
        None if depth is None else clamp(depth, 0, MAX_REPORTED_PLIES),
        tuple(pv[:MAX_PV_MOVES]) if pv else (),
        None if comment is None else comment[:MAX_COMMENT_CHARS],
        number,
    )


def _score(value: Any) -> Score | None:
    """A bot's ``score``: an integer in the game's unit, or protocol.md's score map."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise BotAnswerError('"score" must be an integer or a score map')
    if isinstance(value, float) and not math.isfinite(value):
        # Python's json writes float("inf") as Infinity, and reads it back: a
        # student's "best = float('inf')" sent as its score (the review of
        # 2026-11-29 saw it end the search process).
        raise BotAnswerError(f'"score" must be a finite number, not {value}')
    if isinstance(value, int | float):
        return Score(value=clamp(int(value), -EVAL_LIMIT, EVAL_LIMIT))
    if isinstance(value, dict) and len(value) == 1:
        ((kind, amount),) = value.items()
        if kind == "draw" and amount is True:
            return Score(draw=True)
        if isinstance(amount, int) and not isinstance(amount, bool):
            if kind == "value":
                return Score(value=clamp(amount, -EVAL_LIMIT, EVAL_LIMIT))
            if kind == "win_in" and 0 < amount <= MAX_REPORTED_PLIES:
                return Score(win_in=amount)
            if kind == "loss_in" and 0 < amount <= MAX_REPORTED_PLIES:
                return Score(loss_in=amount)
    raise BotAnswerError(f'"score" is no score: {str(value)[:40]!r}')


class MoveLine:
    """The moves of the game so far, as one bot's searcher saw them.

    A think carries a position, not its history: the searcher follows its
    own answers. When the next position is the one its last answer and one
    reply lead to (or its answer alone, if the same side moves again), the
    moves grow; otherwise (another game on this worker, an opening, a game
    of chance) the line starts again at the position asked about
    (``start``). ``start`` and ``moves`` always lead to ``position``.
    """

    #: Replies looked at to follow a game: more than any game's branching
    #: here (Go 19x19 has 362 moves); beyond it the line starts again.
    MAX_REPLIES: Final = 400

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.start: str | None = None
        self.moves: tuple[str, ...] = ()
        self._next: dict[int, tuple[str, ...]] = {}

    def at(self, state: Any) -> None:
        """Make the line lead to ``state``, following on from the last answer if it can."""
        moves = self._next.get(self.game.key(state))
        if moves is None or self.start is None:
            self.start = self.game.format_position(state)
            self.moves = ()
        else:
            self.moves = moves
        self._next = {}

    def answered(self, state: Any, move_text: str) -> None:
        """The bot played ``move_text`` at ``state``: note the positions that may come next."""
        game = self.game
        try:
            move = game.parse_move(state, move_text)
            after = game.play(state, move)
        except (ValueError, KeyError, IndexError, TypeError):
            return
        line = (*self.moves, move_text)
        self._next = {game.key(after): line}
        if game.outcome(after) is not None or game.chance_outcomes(after) is not None:
            return
        replies = game.legal_moves(after)
        if len(replies) > self.MAX_REPLIES:
            return
        for reply in replies:
            text = game.format_move(after, reply)
            self._next.setdefault(game.key(game.play(after, reply)), (*line, text))

"""What is kept of each game: a :class:`GameRecord`, as JSON Lines, PGN (chess) and SGF (Go).

One JSON object per line holds everything: the engines, the opening, each
move with the time it took on the referee's clock and the depth and score
the engine reported, the result and why. :func:`pgn` writes a chess game
in PGN with cutechess-style move comments (``{+0.31/12 0.52s}``), readable
by python-chess and every chess GUI; :func:`sgf` writes a Go game in SGF
(FF[4]) with the same figures as move comments, readable by Go programs
and editors. :func:`game_text` picks the one that fits the game, and
:data:`RECORD_SUFFIXES` names its file suffix.

Records are strict JSON: written with ``allow_nan=False`` after
:func:`~clients.tournament.validation.strict_json`, so no ``NaN`` or
``Infinity`` (which JSON does not have) can reach a file or the database.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from clients.tournament.chess_book import opening_name
from clients.tournament.validation import strict_json
from engine.game import Game
from engine.registry import create_game

#: Why games end, by kind: how the result came about (for PGN's Termination tag).
RULES = "rules"
#: A game left before its end (``arena play``'s records; never a tournament's).
UNFINISHED = "unfinished"
ADJUDICATION = "adjudication"
TIME_FORFEIT = "time_forfeit"
TIMEOUT = "timeout"
ILLEGAL_MOVE = "illegal_move"
DISCONNECT = "disconnect"
PROTOCOL_ERROR = "protocol_error"
CONNECTION_FAILED = "connection_failed"
#: The engine's server answered its think ``engine_error``: the program
#: behind it failed, and the move it sent was the server's, not the engine's.
ENGINE_FAILURE = "engine_failure"
#: Faults: the game is lost by the engine at fault.
FAULT_KINDS = (
    TIME_FORFEIT,
    TIMEOUT,
    ILLEGAL_MOVE,
    DISCONNECT,
    PROTOCOL_ERROR,
    CONNECTION_FAILED,
    ENGINE_FAILURE,
)

_PGN_TERMINATION = {
    RULES: "normal",
    ADJUDICATION: "adjudication",
    TIME_FORFEIT: "time forfeit",
    TIMEOUT: "time forfeit",
    ILLEGAL_MOVE: "rules infraction",
    DISCONNECT: "abandoned",
    PROTOCOL_ERROR: "rules infraction",
    CONNECTION_FAILED: "abandoned",
    ENGINE_FAILURE: "abandoned",
}


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One move: the referee's measured time and what the engine said about it.

    ``score`` is the protocol's score map from the mover's point of view;
    ``reason`` is why the engine's search ended (``overloaded``: its server
    had no search process free, and the move was not searched) and
    ``queued_ms`` how long the think waited for one, when the engine says.
    Opening moves have ``book`` set and no engine figures. In a game of
    chance the referee's rolls of the dice are moves too, with ``roll`` set
    and no engine figures (a roll in an opening has ``book`` as well).
    """

    move: str
    time_ms: int | None = None
    clock_ms: int | None = None
    depth: int | None = None
    seldepth: int | None = None
    score: dict[str, Any] | None = None
    nodes: int | None = None
    engine_time_ms: int | None = None
    book: bool = False
    reason: str | None = None
    queued_ms: int | None = None
    #: Monte Carlo searches: the playouts the engine made (its depth says less).
    playouts: int | None = None
    #: Monte Carlo searches: the scale the engine's server maps a win rate into
    #: the score with (its ``welcome.games[].win_odds_scale``), so that the
    #: live page shows the score as that win rate; none if the server does not say.
    win_odds_scale: int | None = None
    #: A roll of the dice (games of chance): the referee's, or the opening's.
    roll: bool = False


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game; ``players`` are engine names, first mover first.

    ``winner`` is a player index (0 moved first) or ``None`` for a draw;
    ``kind`` is how it ended (``rules``, ``adjudication`` or a fault) and
    ``reason`` says it in words, naming the engine at fault. ``extra``
    holds ``dice_seed`` (games of chance: the seed of the referee's dice)
    and ``cleanup_ply`` (Go: the number of moves before a clean-up phase,
    whose moves are played from the board after the two passes with the
    passes forgotten; see :func:`replay`).
    """

    game_id: int
    round: int
    pair: int
    game: str
    options: dict[str, Any]
    players: tuple[str, str]
    opening_index: int
    opening_position: str | None
    winner: int | None
    kind: str
    reason: str
    moves: tuple[MoveRecord, ...] = ()
    final_position: str = ""
    time_control: str = ""
    started: str = ""
    finished: str = ""
    tournament: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def points(self, player: int) -> float:
        """What ``player`` scored: 1, 0.5 or 0."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == player else 0.0

    @property
    def result_text(self) -> str:
        """The result as players of the game write it: ``1-0`` (PGN), Go's ``B+4.5``, ``W+R``."""
        if self.game == "go":
            return _sgf_result(self)
        return {None: "1/2-1/2", 0: "1-0", 1: "0-1"}[self.winner]

    def to_json(self) -> dict[str, Any]:
        """The record as plain, strict JSON data (no ``NaN``, no ``Infinity``)."""
        data: dict[str, Any] = strict_json(asdict(self))
        data["result"] = self.result_text
        data["moves"] = [
            {key: value for key, value in move.items() if value is not None and value is not False}
            for move in data["moves"]
        ]
        return data

    def to_line(self) -> str:
        """One line of strict JSON, for a ``.jsonl`` file and the database."""
        return json.dumps(
            self.to_json(), separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        fields = {key: value for key, value in data.items() if key in cls.__dataclass_fields__}
        fields["players"] = tuple(data["players"])
        known = MoveRecord.__dataclass_fields__
        fields["moves"] = tuple(
            MoveRecord(**{key: value for key, value in move.items() if key in known})
            for move in data.get("moves", ())
        )
        return cls(**fields)


# ----------------------------------------------------------------------
# PGN.


def replay(record: GameRecord) -> Iterator[tuple[Game[Any, Any], Any, MoveRecord]]:
    """Each move of a record with the game and the position it was played in.

    A Go clean-up phase (``extra["cleanup_ply"]``) resumes from the board
    after the two passes, read back as a position (no passes, a fresh
    superko history), as the referee and the engines played it.
    """
    game = create_game(record.game, record.options)
    state = (
        game.initial_state()
        if record.opening_position is None
        else game.parse_position(record.opening_position)
    )
    cleanup = record.extra.get("cleanup_ply")
    for index, move in enumerate(record.moves):
        if index == cleanup:
            state = game.parse_position(game.format_position(state))
        yield game, state, move
        state = game.play_text(state, move.move)


def pgn(record: GameRecord) -> str:
    """The game in PGN (chess only): SAN moves, engine comments, Termination and reason."""
    game = create_game(record.game, record.options)
    format_san = getattr(game, "format_san", None)
    if format_san is None:
        raise ValueError(f"PGN is for chess, not {record.game}")
    tags = [
        ("Event", record.tournament or "arena tournament"),
        ("Site", "alphabeta-arena"),
        ("Date", (record.started or "????.??.??")[:10].replace("-", ".")),
        ("Round", f"{record.round + 1}.{record.game_id}"),
        ("White", record.players[0]),
        ("Black", record.players[1]),
        ("Result", record.result_text),
    ]
    state = game.initial_state()
    if record.opening_position is not None:
        state = game.parse_position(record.opening_position)
        tags += [("SetUp", "1"), ("FEN", record.opening_position)]
    else:
        book = [move.move for move in record.moves if move.book]
        name = opening_name(book) if book else None
        if name is not None:
            tags.append(("Opening", name))
    tags += [
        ("TimeControl", record.time_control or "-"),
        ("Termination", _PGN_TERMINATION.get(record.kind, "unterminated")),
        ("PlyCount", str(len(record.moves))),
    ]
    tokens = []
    fullmove = _first_move_number(record.opening_position)
    for index, move in enumerate(record.moves):
        white_to_move = game.to_move(state) == 0
        if white_to_move:
            tokens.append(f"{fullmove}.")
        elif index == 0:
            tokens.append(f"{fullmove}...")
        parsed = game.parse_move(state, move.move)
        tokens.append(format_san(state, parsed))
        tokens.append("{" + _comment(move) + "}")
        state = game.play(state, parsed)
        if not white_to_move:
            fullmove += 1
    tokens.append("{" + _escape(record.reason) + "}")
    tokens.append(record.result_text)
    header = "".join(f'[{name} "{_escape(value)}"]\n' for name, value in tags)
    return header + "\n" + _wrap(tokens) + "\n\n"


def _first_move_number(fen: str | None) -> int:
    fields = (fen or "").split()
    return int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1


def _comment(move: MoveRecord) -> str:
    if move.book:
        return "book"
    score = _pgn_score(move.score)
    seconds = f"{(move.time_ms if isinstance(move.time_ms, int) else 0) / 1000:.3f}s"
    depth = move.depth if isinstance(move.depth, int) else 0
    return f"{score}/{depth} {seconds}"


def _pgn_score(score: dict[str, Any] | None) -> str:
    """Pawns from the mover's side, or ``+M3`` for a mate in 3 moves (cutechess' style)."""
    if not score:
        return "0.00"
    if isinstance(score.get("win_in"), int):
        return f"+M{(score['win_in'] + 1) // 2}"
    if isinstance(score.get("loss_in"), int):
        return f"-M{(score['loss_in'] + 1) // 2}"
    value = score.get("value")
    if score.get("draw") or not isinstance(value, int):
        return "0.00"
    return f"{value / 100:+.2f}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'").replace("{", "(").replace("}", ")")


def _wrap(tokens: list[str], width: int = 79) -> str:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return "\n".join(lines)


# ----------------------------------------------------------------------
# SGF (Go).

#: The file suffix of each game's text records (chess: PGN, Go: SGF).
RECORD_SUFFIXES = {"chess": ".pgn", "go": ".sgf"}
#: The games whose final positions ``--epdout`` writes (EPD is a chess format).
EPD_GAMES = ("chess",)


def epd(record: GameRecord) -> str:
    """The game's final position as one EPD line (``--epdout``, as cutechess-cli's).

    The FEN's four position fields, then operations: ``hmvc`` and ``fmvn``
    (the FEN's two counters), ``id`` (the game's number) and ``c0`` (who
    played whom, the result and why), so that a line says which game it
    ends: ``7k/6Q1/6K1/8/8/8/8/8 b - - hmvc 1; fmvn 60; id "game 7";
    c0 "a - b 1-0 (checkmate)";`` (on one line).
    """
    fields = record.final_position.split()
    counters = fields[4:6] if len(fields) >= 6 else ["0", "1"]
    about = f"{record.players[0]} - {record.players[1]} {record.result_text} ({record.reason})"
    operations = [
        f"hmvc {counters[0]}",
        f"fmvn {counters[1]}",
        f'id "game {record.game_id}"',
        f'c0 "{_epd_escape(about)}"',
    ]
    return " ".join(fields[:4]) + " " + " ".join(f"{operation};" for operation in operations) + "\n"


def _epd_escape(text: str) -> str:
    """An EPD string operand has no quotes or semicolons of its own (nor line breaks)."""
    return re.sub(r'["\\;\r\n]+', " ", text).strip()


#: GTP's column letters (no I); SGF's coordinates are plain letters from a.
_GTP_COLUMNS = "ABCDEFGHJKLMNOPQRST"
_SGF_LETTERS = "abcdefghijklmnopqrs"


def game_text(record: GameRecord) -> str:
    """The record as its game's text format: PGN for chess, SGF for Go."""
    if record.game == "go":
        return sgf(record)
    return pgn(record)


def sgf(record: GameRecord) -> str:
    """The game in SGF (FF[4], GM[1]): one game tree, a node per move.

    Setup stones come from the opening position (AB, AW and PL), passes are
    empty moves (``B[]``), a resignation is no move but the result (``B+R``).
    Each engine move carries a comment like the PGN one (``+35/12 0.520s``;
    for Monte Carlo searches the mover's win rate and the playouts, ``win
    rate 62.3% 1234 playouts 0.520s``, or the raw score when the record has
    no ``win_odds_scale``); the root's comment says how the game ended.
    """
    size = int(record.options.get("size", 9))
    rows: list[str] = []
    mover = "B"
    if record.opening_position:
        board, _, side = record.opening_position.strip().partition(" ")
        rows = board.split("/")
        size = len(rows)
        mover = "W" if side == "O" else "B"
    komi = record.options.get("komi", 7.5)
    properties = [
        ("FF", "4"),
        ("GM", "1"),
        ("CA", "UTF-8"),
        ("AP", "alphabeta-arena"),
        ("SZ", str(size)),
        ("KM", f"{float(komi):g}"),
        ("RU", "Tromp-Taylor"),
        ("PB", record.players[0]),
        ("PW", record.players[1]),
        ("DT", (record.started or "")[:10]),
        ("EV", record.tournament or "arena tournament"),
        ("RO", f"{record.round + 1}.{record.game_id}"),
        ("RE", _sgf_result(record)),
        ("GC", record.reason),
    ]
    properties += _sgf_time_control(record.time_control)
    root = "".join(f"{name}[{_sgf_escape(value)}]" for name, value in properties if value)
    for colour, letter in (("X", "AB"), ("O", "AW")):
        points = [
            _sgf_point(row, column, size)
            for row, line in enumerate(rows)
            for column, cell in enumerate(line)
            if cell == colour
        ]
        if points:
            root += letter + "".join(f"[{point}]" for point in points)
    if rows:
        root += f"PL[{mover}]"
    nodes = [";" + root]
    for move in record.moves:
        if move.move.lower() == "resign":
            break  # SGF has no resignation move: RE says it
        point = _sgf_move(move.move, size)
        comment = _sgf_comment(move)
        nodes.append(f";{mover}[{point}]" + (f"C[{_sgf_escape(comment)}]" if comment else ""))
        mover = "W" if mover == "B" else "B"
    return "(" + _wrap(nodes) + ")\n"


#: A clock in the tournament's notation (``TimeControl.describe``):
#: ``[moves/]base+inc`` in seconds, then any other limits.
_CLOCK = re.compile(r"^(?:(\d+)/)?(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)(?:\s+(.*))?$")


def _sgf_time_control(control: str) -> list[tuple[str, str]]:
    """The game's time control as SGF FF[4] writes it: ``TM`` the main time
    in seconds, ``OT`` the rest in words (the increment, the moves of a
    period, a move time or a depth). Until 2026-12-07 a private ``TC``
    property held it, which SGF readers do not know (a review)."""
    if not control:
        return []
    clock = _CLOCK.match(control)
    if clock is None:
        return [("OT", control)]
    moves, base, increment, rest = clock.groups()
    words = []
    if float(increment) > 0:
        words.append(f"{increment} s added a move")
    if moves:
        words.append(f"{base} s again every {moves} moves")
    if rest:
        words.append(rest)
    return [("TM", base)] + ([("OT", ", ".join(words))] if words else [])


def _sgf_result(record: GameRecord) -> str:
    """RE: ``W+4.5``, ``B+R`` (resignation), ``W+T`` (time), ``B+F`` (forfeit),
    ``0`` (a draw), or ``B+`` when the margin is not known (adjudication)."""
    if record.kind == UNFINISHED:
        return ""  # no RE: the game has no result
    if record.winner is None:
        return "0"
    colour = "B" if record.winner == 0 else "W"
    if record.kind in (TIME_FORFEIT, TIMEOUT):
        return f"{colour}+T"
    if record.kind in FAULT_KINDS:
        return f"{colour}+F"
    last = record.moves[-1].move.lower() if record.moves else ""
    if last == "resign" or "resign" in record.reason.lower():
        return f"{colour}+R"
    margin = re.search(r"by (\d+(?:\.\d+)?)", record.reason)
    return f"{colour}+{margin.group(1)}" if margin else f"{colour}+"


def _sgf_point(row: int, column: int, size: int) -> str:
    """Row from the top and column as SGF letters (column first)."""
    if not (0 <= row < size and 0 <= column < size):
        raise ValueError(f"({row}, {column}) is off a {size}x{size} board")
    return _SGF_LETTERS[column] + _SGF_LETTERS[row]


def _sgf_move(move: str, size: int) -> str:
    """A GTP vertex (``D4``) as SGF (``dp`` on 19x19); a pass is empty."""
    if move.lower() == "pass":
        return ""
    column = _GTP_COLUMNS.find(move[:1].upper())
    if column < 0 or not move[1:].isdigit():
        raise ValueError(f"{move!r} is not a Go move")
    return _sgf_point(size - int(move[1:]), column, size)


def _sgf_comment(move: MoveRecord) -> str:
    if move.book:
        return "book"
    if move.time_ms is None and move.score is None and move.depth is None:
        return ""  # nothing known of the move (arena play's records): no comment
    seconds = f"{(move.time_ms if isinstance(move.time_ms, int) else 0) / 1000:.3f}s"
    if move.reason == "engine" and move.depth in (None, 1) and move.score in (None, {"value": 0}):
        # A program that reports no search (a GTP engine, a bot giving only
        # its move): the protocol's depth 1 and score 0 are no evaluation,
        # and "+0/1" read as one (a review of 2026-12-07).
        return seconds
    score = _plain_score(move.score)
    if isinstance(move.playouts, int):
        value = move.score.get("value") if move.score else None
        if isinstance(move.win_odds_scale, int) and isinstance(value, int):
            # A Monte Carlo score is a win rate mapped by the server's scale
            # (protocol.md, welcome): the rate it came from says more.
            chance = 1 / (1 + math.exp(-value / move.win_odds_scale))
            score = f"win rate {100 * chance:.1f}%"
        return f"{score} {move.playouts} playouts {seconds}"
    depth = move.depth if isinstance(move.depth, int) else 0
    return f"{score}/{depth} {seconds}"


def _plain_score(score: dict[str, Any] | None) -> str:
    """The score in the game's own unit from the mover's side; proven results as words."""
    if not score:
        return "0"
    for key, word in (("win_in", "win in"), ("loss_in", "loss in")):
        if isinstance(score.get(key), int):
            return f"{word} {score[key]}"
    value = score.get("value")
    if score.get("draw") or not isinstance(value, int):
        return "0"
    return f"{value:+d}"


def _sgf_escape(text: str) -> str:
    """SGF text: ``]`` and ``\\`` are escaped with a backslash."""
    return text.replace("\\", "\\\\").replace("]", "\\]")

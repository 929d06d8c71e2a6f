"""Openings: the start of each pair of games, from a file or generated.

A file is in one of three formats (``format``, as cutechess-cli's
``-openings file=... format=...``; by default chosen by the file's suffix,
``.pgn``, ``.epd``, anything else ``lines``):

* ``lines``, for every game: one opening per line, a position in the
  game's notation, a sequence of moves from the initial position
  (separated by spaces), or both as ``POSITION moves M1 M2 ...``; blank
  lines and lines starting with ``#`` are skipped.
* ``pgn`` (PGN, or PDN for checkers): one opening per game, its moves in
  the game's notation (SAN for chess), from the ``[FEN "..."]`` tag's
  position if there is one. Move numbers, comments (``{...}``, ``;`` to
  the end of the line), variations (``(...)``, nested), NAGs (``$1``),
  ``!``/``?`` suffixes, ``%`` escape lines and the result are skipped.
* ``epd`` (chess): one position per line, EPD (four FEN fields and
  operations such as ``bm Nf3; id "x";``, of which ``hmvc`` and ``fmvn``
  are read) or a full FEN; ``#`` comments and blank lines are skipped.

``plies`` (cutechess-cli's ``plies=``) keeps at most that many moves of
each opening. Without a file, chess plays its built-in named openings and
Go the empty board (:func:`default_openings`); other games, or any game
given a number of random plies, get generated openings: a few random
moves, kept only when a shallow search finds the position roughly balanced.

In a game of chance (backgammon) the random plies include the rolls of
the dice, each drawn with its probability (4 plies: the opening roll, a
move, a roll, a move), and the balance check is the game's own evaluation
of the position (:func:`balance_score`): a search of a few plies through
chance nodes costs tens of seconds a position, and the evaluation of a
game of chance already estimates the expected result over the dice.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.tournament.chess_book import book_lines
from engine.errors import GameError
from engine.game import EXPECTIMINIMAX, Game, sample_outcome
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.searchers import think

#: Random plies of a generated opening in games without a default of their own.
DEFAULT_RANDOM_PLIES = 4
#: Transposition-table slots for the balance check: the searches are shallow.
BALANCE_TT_SLOTS = 1 << 14
#: Random tries per wanted opening before giving up on finding more.
TRIES_PER_OPENING = 50
#: The word that separates a position from the moves played from it.
MOVES_KEYWORD = "moves"
#: The formats of an openings file; ``auto`` picks one by the file's suffix.
OPENING_FORMATS = ("auto", "lines", "pgn", "epd")
#: PGN game results (and PDN's), which end a game's movetext.
_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"})
_TAG = re.compile(r'\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_MOVE_NUMBER = re.compile(r"^\d+\.+")


@dataclass(frozen=True, slots=True)
class Opening:
    """A start: ``position`` (``None`` = the initial one) and moves played from it."""

    position: str | None = None
    moves: tuple[str, ...] = ()

    def start(self, game: Game[Any, Any]) -> tuple[Any, list[str]]:
        """The state after the opening and its moves in canonical notation.

        Raises :class:`~engine.errors.GameError` when the opening does not fit the game.
        """
        state = (
            game.initial_state() if self.position is None else game.parse_position(self.position)
        )
        played = []
        for text in self.moves:
            move = game.parse_move(state, text)
            played.append(game.format_move(state, move))
            state = game.play(state, move)
        if game.outcome(state) is not None:
            raise GameError(f"the opening {self.describe()!r} ends the game")
        return state, played

    def describe(self) -> str:
        parts = [] if self.position is None else [self.position]
        if self.moves:
            parts.append(" ".join(self.moves))
        return " | ".join(parts) or "(initial position)"


def parse_opening_line(game: Game[Any, Any], line: str) -> Opening:
    """One line of an openings file (see the module docstring); raises ``GameError``."""
    text = line.strip()
    words = text.split()
    if MOVES_KEYWORD in words:
        cut = words.index(MOVES_KEYWORD)
        position = " ".join(words[:cut]) or None
        opening = Opening(position, tuple(words[cut + 1 :]))
    else:
        try:
            game.parse_position(text)
            opening = Opening(text, ())
        except GameError:
            opening = Opening(None, tuple(words))
    opening.start(game)  # check it now, not in the middle of the tournament
    return opening


def opening_format(path: str | Path, format: str = "auto") -> str:
    """The format of an openings file: ``format``, or by the suffix when ``auto``."""
    if format not in OPENING_FORMATS:
        raise GameError(f"unknown openings format {format!r} (one of {', '.join(OPENING_FORMATS)})")
    if format != "auto":
        return format
    suffix = Path(path).suffix.lower()
    return {".pgn": "pgn", ".pdn": "pgn", ".epd": "epd"}.get(suffix, "lines")


def load_openings(
    game: Game[Any, Any], path: str | Path, format: str = "auto", plies: int | None = None
) -> list[Opening]:
    """Every opening in the file, checked against the game's rules.

    ``format`` is one of :data:`OPENING_FORMATS` (see the module docstring);
    ``plies`` keeps at most that many moves of each opening. Raises
    :class:`GameError` naming the file and line of the first bad opening.
    """
    kind = opening_format(path, format)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        text = Path(path).read_text(encoding="latin-1")
    if kind == "pgn":
        entries = list(_pgn_openings(text))
    elif kind == "epd":
        entries = list(_epd_openings(text))
    else:
        entries = [
            (number, line)
            for number, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
    openings = []
    for number, entry in entries:
        try:
            opening = parse_opening_line(game, entry) if isinstance(entry, str) else entry
            if plies is not None:
                opening = Opening(opening.position, opening.moves[: max(0, plies)])
            # Checked now, not in the middle of the tournament; kept in canonical notation.
            _, played = opening.start(game)
        except GameError as error:
            where = _line_of_move(text, number, str(error)) if kind == "pgn" else None
            if where is not None and where != number:
                # The bad move's own line: a game's first line sent the
                # reader to its tags (a review, 2026-12-07).
                raise GameError(f"{path}:{where}: {error} (the game from line {number})") from error
            raise GameError(f"{path}:{number}: {error}") from error
        openings.append(Opening(opening.position, tuple(played)))
    if not openings:
        raise GameError(f"{path}: no openings in the file")
    return openings


def _line_of_move(text: str, first: int, why: str) -> int | None:
    """The line, from ``first`` on, where the move an error quotes (``'Ke3'``) is written."""
    quoted = re.search(r"'([^'\s]+)'", why)
    if quoted is None:
        return None
    move = re.compile(rf"(?<![\w.]){re.escape(quoted[1])}(?![\w])")
    for number, line in enumerate(text.splitlines()[first - 1 :], first):
        if not line.lstrip().startswith("[") and move.search(line):
            return number
    return None


def _pgn_openings(text: str) -> list[tuple[int, Opening | str]]:
    """``(line number, opening)`` for each game of a PGN text."""
    games: list[tuple[int, Opening | str]] = []
    tags: dict[str, str] = {}
    movetext: list[str] = []
    start = 0
    in_movetext = False

    def flush() -> None:
        if tags or movetext:
            position = tags.get("FEN") or None
            games.append((start, Opening(position, tuple(_pgn_moves("\n".join(movetext))))))
        tags.clear()
        movetext.clear()

    depth = 0  # inside a {comment} spanning lines
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if depth == 0 and stripped.startswith("%"):
            continue  # an escape line
        if depth == 0 and stripped.startswith("["):
            if in_movetext:  # the tags of the next game
                flush()
                in_movetext = False
            match = _TAG.match(stripped)
            if match is None:
                raise GameError(f"line {number}: malformed tag {stripped!r}")
            if not tags:
                start = number
            tags[match[1]] = match[2].replace('\\"', '"').replace("\\\\", "\\")
            continue
        if not stripped and depth == 0:
            continue
        if not tags and not movetext:
            start = number
        in_movetext = True
        movetext.append(line)
        depth += line.count("{") - line.count("}")
        depth = max(depth, 0)
        words = _strip_pgn(line).split()
        if depth == 0 and words and words[-1] in _RESULTS:
            flush()
            in_movetext = False
    flush()
    return games


def _strip_pgn(text: str) -> str:
    """Movetext without comments and variations (one line's worth or more)."""
    out = []
    braces = parens = 0
    semicolon = False
    for char in text:
        if semicolon:
            if char == "\n":
                semicolon = False
                out.append(" ")
            continue
        if braces:
            braces -= char == "}"
            continue
        if char == "{":
            braces = 1
            out.append(" ")
        elif char == ";" and not parens:
            semicolon = True
        elif char == "(":
            parens += 1
            out.append(" ")
        elif char == ")" and parens:
            parens -= 1
            out.append(" ")
        elif not parens:
            out.append(char)
    return "".join(out)


def _pgn_moves(movetext: str) -> list[str]:
    """The moves of one game's movetext (comments, variations and numbers removed)."""
    moves = []
    for word in _strip_pgn(movetext.replace("\r", "")).split():
        word = _MOVE_NUMBER.sub("", word)
        if not word or word.startswith("$") or word in _RESULTS:
            continue
        word = word.rstrip("!?")
        if word:
            moves.append(word)
    return moves


def _epd_openings(text: str) -> list[tuple[int, Opening | str]]:
    """``(line number, opening)`` for each EPD or FEN line."""
    openings: list[tuple[int, Opening | str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = stripped.split(None, 4)
        if len(fields) < 4:
            raise GameError(f"line {number}: an EPD line has at least four fields")
        board = fields[:4]
        rest = fields[4] if len(fields) > 4 else ""
        words = rest.split()
        if len(words) >= 2 and words[0].isdigit() and words[1].rstrip(";").isdigit():
            clocks = [words[0], words[1].rstrip(";")]  # a FEN's two counters
        else:
            operations = _epd_operations(rest)
            clocks = [operations.get("hmvc", "0"), operations.get("fmvn", "1")]
        openings.append((number, Opening(" ".join(board + clocks), ())))
    return openings


def _epd_operations(text: str) -> dict[str, str]:
    """``bm Nf3; hmvc 3;`` -> ``{"bm": "Nf3", "hmvc": "3"}`` (quoted operands unquoted)."""
    operations = {}
    for part in re.findall(r'(?:[^;"]|"[^"]*")+', text):
        words = part.strip().split(None, 1)
        if words:
            operations[words[0]] = words[1].strip().strip('"') if len(words) > 1 else ""
    return operations


def default_openings(name: str, game: Game[Any, Any]) -> list[Opening] | None:
    """The game's own openings when none are asked for; ``None``: generate random ones.

    Chess: the built-in named openings (:mod:`clients.tournament.chess_book`),
    which chess players accept, where random plies gave ``1. a3 g5 2. Nh3 b6``.
    Go: the empty board: a random first stone on the edge is no opening a Go
    player plays, and an empty board is what Go engines are tested from.
    Raises :class:`GameError` if a book line does not fit the game's options.
    """
    if name == "chess":
        openings = [Opening(None, moves) for _, moves in book_lines()]
        for opening in openings:
            opening.start(game)
        return openings
    if name == "go":
        return [Opening()]
    return None


def generate_openings(
    game: Game[Any, Any],
    count: int,
    plies: int,
    *,
    depth: int,
    max_score: int,
    seed: int,
) -> list[Opening]:
    """Up to ``count`` distinct openings of ``plies`` random moves, each roughly balanced.

    Balanced means a ``depth``-ply search scores the position within
    ``±max_score`` (a proven result is never balanced). With ``plies`` 0 the
    one opening is the initial position.
    """
    if plies <= 0:
        return [Opening()]
    rng = random.Random(seed)
    found: dict[tuple[str, ...], Opening] = {}
    for _ in range(count * TRIES_PER_OPENING):
        if len(found) >= count:
            break
        moves = _random_line(game, plies, rng)
        if moves is None or tuple(moves) in found:
            continue
        opening = Opening(None, tuple(moves))
        state, _ = opening.start(game)
        score = balance_score(game, state, depth)
        if score is not None and abs(score) <= max_score:
            found[tuple(moves)] = opening
    return list(found.values())


def balance_score(game: Game[Any, Any], state: Any, depth: int) -> int | None:
    """How far from balanced a position is, in the game's units; ``None`` for a proven result.

    A ``depth``-ply search, except in a game of chance, which is scored by
    its evaluation (for the player to move, or about to roll at a chance
    state), see the module docstring.
    """
    if game.chance_outcomes(state) is not None or _has_chance(game):
        return game.evaluate(state)
    result = think(game, SearchRequest(state, Limits(depth=depth)), tt_slots=BALANCE_TT_SLOTS)
    return result.info.score.value


def _has_chance(game: Game[Any, Any]) -> bool:
    """Whether ``game`` has dice: its default search is the one for games of chance."""
    return game.default_algorithm == EXPECTIMINIMAX


def _random_line(game: Game[Any, Any], plies: int, rng: random.Random) -> list[str] | None:
    state = game.initial_state()
    moves = []
    for _ in range(plies):
        chances = game.chance_outcomes(state)
        legal = game.legal_moves(state)
        if not legal:
            return None
        # dice fall with their probabilities (a double is half as likely as 6-5)
        move = sample_outcome(chances, rng) if chances is not None else rng.choice(legal)
        moves.append(game.format_move(state, move))
        state = game.play(state, move)
    return None if game.outcome(state) is not None else moves

"""Chess notation: FEN for positions, UCI for moves, SAN accepted (and written) too.

* FEN: the six standard fields; the last two (halfmove clock, move number)
  may be left out and default to ``0 1``, as in EPD. The en passant field is
  written only when a legal en passant capture exists (as python-chess
  writes it by default), so two positions with the same FEN are the same
  position for the repetition rule; a FEN naming an en passant square
  where no capture is legal is accepted and normalised to ``-``. Castling
  rights whose king or rook is not on its home square are dropped (as
  python-chess does); Chess960 castling (X-FEN, Shredder-FEN) is not supported.
* UCI long algebraic: from square, to square, promotion letter in lower
  case: ``e2e4``, ``e1g1`` (castling is the king's move), ``e7e8q``.
* SAN (input and :func:`format_san`): ``Nf3``, ``exd5``, ``O-O``,
  ``e8=Q+``; ``0-0``, a promotion without ``=`` and annotations such as
  ``+``, ``#``, ``!`` or ``?`` are accepted on input.
"""

from __future__ import annotations

import re
from typing import Final

from engine.errors import BadPositionError, IllegalMoveError
from engine.games.chess.bitboards import (
    BIT,
    BLACK_KINGSIDE,
    BLACK_QUEENSIDE,
    CASTLING_LETTERS,
    FILE_NAMES,
    KING,
    PAWN,
    PIECE_LETTERS,
    RANK_1,
    RANK_8,
    ROOK,
    SQUARE_NAMES,
    SQUARES,
    WHITE_KINGSIDE,
    WHITE_QUEENSIDE,
    Bitboard,
    popcount,
)
from engine.games.chess.evaluation import material_scores
from engine.games.chess.position import (
    FLAG_CASTLING,
    Move,
    Position,
    checkers_of,
    compute_key,
    en_passant_square,
    move_captured,
    move_flag,
    move_from,
    move_piece,
    move_promotion,
    move_to,
    play,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

#: For each castling right: the king's and the rook's home squares.
_CASTLING_HOMES = {
    WHITE_KINGSIDE: ("K", 4, 7),
    WHITE_QUEENSIDE: ("Q", 4, 0),
    BLACK_KINGSIDE: ("k", 60, 63),
    BLACK_QUEENSIDE: ("q", 60, 56),
}

_UCI_MOVE = re.compile(r"([a-h][1-8])([a-h][1-8])([qrbnQRBN]?)")
#: Piece letters a player may type in lower case ("nf3"); "b" is tried as a
#: pawn's file first.
LOWERCASE_PIECES: Final = "nbrqk"
_SAN_MOVE = re.compile(
    r"(?:(?P<long>[O0]-[O0]-[O0])|(?P<short>[O0]-[O0])|"
    r"(?P<piece>[NBRQK])?(?P<file>[a-h])?(?P<rank>[1-8])?x?(?P<to>[a-h][1-8])"
    r"(?:=?(?P<promotion>[NBRQnbrq]))?)"
    r"[+#]?[!?]*"
)


# ----------------------------------------------------------------------
# FEN.


def parse_fen(text: str) -> Position:
    """Parse a FEN; raise :class:`BadPositionError` saying what is wrong."""
    if not isinstance(text, str):
        raise BadPositionError("a chess position is a FEN string")
    fields = text.split()
    if not 2 <= len(fields) <= 6:
        raise BadPositionError(
            f"a FEN has 6 fields (board, side, castling, en passant, halfmove clock, "
            f"move number; the last four optional), got {len(fields)}"
        )
    # Missing fields take python-chess's and Stockfish's defaults: no castling
    # right, no en passant square, a fresh halfmove clock, move 1.
    fields += ["-", "-", "0", "1"][len(fields) - 2 :]
    boards = _parse_board(fields[0])
    if fields[1] not in ("w", "b"):
        raise BadPositionError(f"the side to move must be 'w' or 'b', got {fields[1]!r}")
    turn = 0 if fields[1] == "w" else 1
    castling = _parse_castling(fields[2], boards)
    ep = _parse_en_passant(fields[3], boards, turn)
    halfmove = _parse_counter(fields[4], "halfmove clock", 0)
    fullmove = _parse_counter(fields[5], "move number", 1)
    if checkers_of(boards, 1 - turn):
        raise BadPositionError("the side not to move is in check")
    mg, eg = material_scores(boards)
    key = compute_key(boards, turn, castling, ep)
    return Position(boards, turn, castling, ep, halfmove, fullmove, key, mg, eg)


def _parse_board(text: str) -> tuple[Bitboard, ...]:
    ranks = text.split("/")
    if len(ranks) != 8:
        raise BadPositionError(f"the FEN board needs 8 ranks separated by '/', got {len(ranks)}")
    boards: list[Bitboard] = [0] * 8
    for row, rank_text in enumerate(ranks):
        rank = 7 - row
        file = 0
        for char in rank_text:
            if char in "12345678":
                file += int(char)
            elif char.lower() in PIECE_LETTERS.strip():
                if file > 7:
                    raise BadPositionError(f"rank {rank + 1} of the FEN board has over 8 squares")
                bit = BIT[rank * 8 + file]
                boards[PIECE_LETTERS.index(char.lower())] |= bit
                boards[0 if char.isupper() else 7] |= bit
                file += 1
            else:
                raise BadPositionError(f"unexpected {char!r} in rank {rank + 1} of the FEN board")
        if file != 8:
            raise BadPositionError(f"rank {rank + 1} of the FEN board does not have 8 squares")
    result = tuple(boards)
    for color, name in ((0, "White"), (7, "Black")):
        side = result[color]
        if popcount(result[KING] & side) != 1:
            raise BadPositionError(f"{name} must have exactly one king")
        if popcount(side) > 16 or popcount(result[PAWN] & side) > 8:
            raise BadPositionError(f"{name} has too many pieces (at most 16, of them 8 pawns)")
    if result[PAWN] & (RANK_1 | RANK_8):
        raise BadPositionError("pawns cannot stand on the first or last rank")
    return result


def _parse_castling(text: str, boards: tuple[Bitboard, ...]) -> int:
    if text == "-":
        return 0
    castling = 0
    for char in text:
        if char not in CASTLING_LETTERS or (1 << CASTLING_LETTERS.index(char)) & castling:
            raise BadPositionError(
                f"the castling field must be '-' or some of 'KQkq' once each, got {text!r}"
            )
        castling |= 1 << CASTLING_LETTERS.index(char)
    for right, (letter, king_home, rook_home) in _CASTLING_HOMES.items():
        side = boards[0] if letter.isupper() else boards[7]
        if not boards[KING] & side & BIT[king_home] or not boards[ROOK] & side & BIT[rook_home]:
            castling &= ~right  # the king or the rook has left home: the right is gone
    return castling


def _parse_en_passant(text: str, boards: tuple[Bitboard, ...], turn: int) -> int:
    if text == "-":
        return 0
    square = SQUARES.get(text)
    expected_rank = "6" if turn == 0 else "3"
    if square is None or text[1] != expected_rank:
        raise BadPositionError(
            f"the en passant square must be '-' or a square on rank {expected_rank}, got {text!r}"
        )
    pushed = square ^ 8  # where the pawn that just moved two squares stands
    origin = square + 8 if turn == 0 else square - 8
    occupied = boards[0] | boards[7]
    if not boards[PAWN] & boards[7 - 7 * turn] & BIT[pushed] or occupied & (
        BIT[square] | BIT[origin]
    ):
        raise BadPositionError(
            f"en passant square {text} is impossible: no pawn can just have passed it"
        )
    return en_passant_square(boards, turn, square)


def _parse_counter(text: str, name: str, minimum: int) -> int:
    if not text.isdigit() or int(text) < minimum:
        raise BadPositionError(f"the {name} must be an integer >= {minimum}, got {text!r}")
    return int(text)


def format_fen(position: Position) -> str:
    """The position as FEN (six fields)."""
    boards = position.boards
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file in range(8):
            bit = BIT[rank * 8 + file]
            piece = next((p for p in range(PAWN, KING + 1) if boards[p] & bit), 0)
            if not piece:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            letter = PIECE_LETTERS[piece]
            row += letter.upper() if boards[0] & bit else letter
        rows.append(row + (str(empty) if empty else ""))
    castling = "".join(
        letter for index, letter in enumerate(CASTLING_LETTERS) if position.castling >> index & 1
    )
    return " ".join(
        (
            "/".join(rows),
            "wb"[position.turn],
            castling or "-",
            SQUARE_NAMES[position.ep] if position.ep else "-",
            str(position.halfmove),
            str(position.fullmove),
        )
    )


# ----------------------------------------------------------------------
# Moves.


def format_uci(move: Move) -> str:
    """The move in UCI long algebraic notation (``e2e4``, ``e7e8q``)."""
    text = SQUARE_NAMES[move_from(move)] + SQUARE_NAMES[move_to(move)]
    promotion = move_promotion(move)
    return text + PIECE_LETTERS[promotion] if promotion else text


def parse_move(position: Position, text: str) -> Move:
    """A legal move given in UCI or SAN; raise :class:`IllegalMoveError` otherwise.

    The error lists the legal moves in UCI.
    """
    legal = position.legal_moves()
    if not isinstance(text, str):
        raise IllegalMoveError("a chess move is a string such as 'e2e4' or 'Nf3'", _uci_list(legal))
    text = text.strip()
    if text and text[0] in LOWERCASE_PIECES and not _UCI_MOVE.fullmatch(text):
        # "nf3" for Nf3, as lichess takes it: a piece letter typed in lower
        # case was "not a legal move" (a review, 2026-12-07). A "b" is a
        # pawn's file first (bxc3), and a bishop only when no pawn move fits.
        try:
            return _parse(position, text, legal)
        except IllegalMoveError as first:
            try:
                return _parse(position, text[0].upper() + text[1:], legal)
            except IllegalMoveError:
                raise first from None
    return _parse(position, text, legal)


def _parse(position: Position, text: str, legal: list[Move]) -> Move:
    """``parse_move`` of a stripped ``text`` among the ``legal`` moves."""
    uci = _UCI_MOVE.fullmatch(text)
    if uci:
        promotion = PIECE_LETTERS.find(uci[3].lower()) if uci[3] else 0
        wanted = (SQUARES[uci[1]], SQUARES[uci[2]], promotion)
        for move in legal:
            if (move_from(move), move_to(move), move_promotion(move)) == wanted:
                return move
        raise IllegalMoveError(f"{text!r} is not a legal move here", _uci_list(legal))
    san = _SAN_MOVE.fullmatch(text)
    if not san:
        raise IllegalMoveError(
            f"{text!r} is not a chess move: write UCI (e2e4, e7e8q) or SAN (Nf3, exd5, O-O, e8=Q)",
            _uci_list(legal),
        )
    matches = [move for move in legal if _san_matches(move, san)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise IllegalMoveError(
            f"{text!r} is ambiguous here: it could be {', '.join(_uci_list(matches))}",
            _uci_list(legal),
        )
    raise IllegalMoveError(f"{text!r} is not a legal move here", _uci_list(legal))


def _san_matches(move: Move, san: re.Match[str]) -> bool:
    if san["long"] or san["short"]:
        return move_flag(move) == FLAG_CASTLING and (move_to(move) & 7) == (2 if san["long"] else 6)
    piece = PIECE_LETTERS.index(san["piece"].lower()) if san["piece"] else PAWN
    if move_piece(move) != piece or SQUARE_NAMES[move_to(move)] != san["to"]:
        return False
    if move_flag(move) == FLAG_CASTLING:
        return False  # castling is written O-O / O-O-O, never as a king move
    if piece == PAWN and bool(move_captured(move)) != bool(san["file"]):
        return False  # a pawn capture names its file (exd5), a push does not (d5)
    origin = SQUARE_NAMES[move_from(move)]
    if (san["file"] and origin[0] != san["file"]) or (san["rank"] and origin[1] != san["rank"]):
        return False
    promotion = san["promotion"]
    wanted = PIECE_LETTERS.index(promotion.lower()) if promotion else 0
    return move_promotion(move) == wanted


def _uci_list(moves: list[Move]) -> list[str]:
    # In the order of the game's legal_moves, as the state message lists them
    # (sorted, they differed from it: a review, 2026-12-07).
    return [format_uci(move) for move in moves]


def format_san(position: Position, move: Move) -> str:
    """The move in Standard Algebraic Notation, with ``+`` or ``#`` when it checks or mates."""
    piece = move_piece(move)
    to_name = SQUARE_NAMES[move_to(move)]
    if move_flag(move) == FLAG_CASTLING:
        text = "O-O" if move_to(move) & 7 == 6 else "O-O-O"
    elif piece == PAWN:
        text = to_name
        if move_captured(move):
            text = FILE_NAMES[move_from(move) & 7] + "x" + to_name
        if move_promotion(move):
            text += "=" + PIECE_LETTERS[move_promotion(move)].upper()
    else:
        text = PIECE_LETTERS[piece].upper() + _disambiguation(position, move)
        text += ("x" if move_captured(move) else "") + to_name
    after = play(position, move)
    if after.checkers():
        text += "#" if not after.legal_moves() else "+"
    return text


def _disambiguation(position: Position, move: Move) -> str:
    origin = move_from(move)
    rivals = [
        move_from(other)
        for other in position.legal_moves()
        if other != move
        and move_piece(other) == move_piece(move)
        and move_to(other) == move_to(move)
        and move_from(other) != origin
    ]
    if not rivals:
        return ""
    name = SQUARE_NAMES[origin]
    if all(rival & 7 != origin & 7 for rival in rivals):
        return name[0]
    if all(rival >> 3 != origin >> 3 for rival in rivals):
        return name[1]
    return name

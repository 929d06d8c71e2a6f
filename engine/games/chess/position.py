"""Chess positions, legal move generation and making moves.

Representation (chosen by measurement, see the benchmark): bitboards as
Python ints. A position holds a tuple of eight bitboards, ``boards``:
``boards[0]`` is White's occupancy, ``boards[1..6]`` the pawns, knights,
bishops, rooks, queens and kings of both colours (indexed by piece type),
``boards[7]`` Black's occupancy; so the side to move ``turn`` (0 White,
1 Black) owns ``boards[7 * turn]``. Besides the board a position keeps the
FEN fields, a 62-bit Zobrist ``key``, the incremental evaluation sums ``mg``
and ``eg`` (see :mod:`engine.games.chess.evaluation`) and ``history``: the
keys of the earlier positions since the last irreversible move, oldest
first, which is what threefold repetition needs.

Moves are ints, so that they hash and compare at C speed in the search's
tables, and they carry what making them needs (bits, low to high)::

    0-5 from square   6-11 to square   12-13 flag (0 plain, 1 en passant,
    2 castling, 3 double pawn push)    14-16 promotion type (0 none)
    17-19 7 - moving piece type        20-22 captured piece type (0 none)

With this layout sorting moves as ints, largest first, orders captures by
most valuable victim, then least valuable attacker (MVV-LVA), then the rest.

Legal moves are generated directly rather than by making pseudo-legal
moves and testing for check: the checkers and the absolutely pinned pieces
are found once per position (with the ``BETWEEN``/``LINE`` tables), pinned
pieces move only along their pin line, evasions must capture the checker or
block, king moves are tested square by square, and only en passant (which
can expose the king along a rank) is tried on a scratch board.

Why one module: one concept: the board and its move generation, make and
unmake, read together; the rules of the game, notation and evaluation have
their own modules in this package. Hence the length (over 600 lines).
"""

from __future__ import annotations

from typing import Final

from engine.games.chess.bitboards import (
    ALL_SQUARES,
    BETWEEN,
    BISHOP,
    BISHOP_EMPTY,
    BIT,
    BLACK_TO_MOVE_KEY,
    CASTLING_KEEP,
    CASTLING_KEYS,
    EP_FILE_KEYS,
    KING,
    KING_ATTACKS,
    KNIGHT,
    KNIGHT_ATTACKS,
    LINE,
    NOT_FILE_A,
    NOT_FILE_H,
    PAWN,
    PAWN_ATTACKS,
    PIECE_KEYS,
    QUEEN,
    RANK_1,
    RANK_3,
    RANK_6,
    RANK_8,
    ROOK,
    ROOK_EMPTY,
    Bitboard,
    bishop_attacks,
    rook_attacks,
)
from engine.games.chess.evaluation import EG, MG

Move = int

FLAG_EN_PASSANT: Final = 1
FLAG_CASTLING: Final = 2
FLAG_DOUBLE_PUSH: Final = 3

_MOVER_PAWN: Final = (7 - PAWN) << 17
_MOVER_KING: Final = (7 - KING) << 17
#: Promotion pieces in the order they are generated (queen first).
PROMOTIONS: Final = (QUEEN << 14, ROOK << 14, BISHOP << 14, KNIGHT << 14)

#: Squares that must be empty to castle, by side: f and g; b, c and d.
_CASTLING_EMPTY_KINGSIDE: Final[tuple[Bitboard, ...]] = (0x60, 0x60 << 56)
_CASTLING_EMPTY_QUEENSIDE: Final[tuple[Bitboard, ...]] = (0x0E, 0x0E << 56)
#: The squares below bit 55 (a logical right shift's mask, see has_legal_move).
_BELOW_BIT_55: Final[Bitboard] = (1 << 55) - 1
#: A position's ``_checkers`` and ``_pinned`` before they are computed:
#: every square, which neither can ever be.
_NOT_YET: Final[Bitboard] = -1

#: Castling by king destination: (king from, rook from, rook to).
CASTLING_ROOKS: Final = {6: (4, 7, 5), 2: (4, 0, 3), 62: (60, 63, 61), 58: (60, 56, 59)}


def move_from(move: Move) -> int:
    return move & 63


def move_to(move: Move) -> int:
    return move >> 6 & 63


def move_flag(move: Move) -> int:
    return move >> 12 & 3


def move_promotion(move: Move) -> int:
    return move >> 14 & 7


def move_piece(move: Move) -> int:
    return 7 - (move >> 17 & 7)


def move_captured(move: Move) -> int:
    return move >> 20 & 7


class Position:
    """One chess position; never changed after it is made (the caches are derived data).

    Build positions with :func:`engine.games.chess.notation.parse_fen` or
    :func:`play`, not with the constructor.
    """

    __slots__ = (
        "_checkers",
        "_moves",
        "_pinned",
        "boards",
        "castling",
        "eg",
        "ep",
        "fullmove",
        "halfmove",
        "history",
        "key",
        "mg",
        "turn",
    )

    boards: tuple[Bitboard, ...]
    turn: int
    castling: int
    ep: int
    halfmove: int
    fullmove: int
    key: int
    mg: int
    eg: int
    history: tuple[int, ...]
    _moves: list[Move] | None
    _checkers: Bitboard
    _pinned: Bitboard

    def __init__(
        self,
        boards: tuple[Bitboard, ...],
        turn: int,
        castling: int,
        ep: int,
        halfmove: int,
        fullmove: int,
        key: int,
        mg: int,
        eg: int,
        history: tuple[int, ...] = (),
    ) -> None:
        self.boards = boards
        self.turn = turn
        self.castling = castling
        self.ep = ep
        self.halfmove = halfmove
        self.fullmove = fullmove
        self.key = key
        self.mg = mg
        self.eg = eg
        self.history = history
        self._moves = None
        self._checkers = _NOT_YET
        self._pinned = _NOT_YET

    def _fields(self) -> tuple[object, ...]:
        return (
            self.boards,
            self.turn,
            self.castling,
            self.ep,
            self.halfmove,
            self.fullmove,
            self.key,
            self.mg,
            self.eg,
            self.history,
        )

    def __reduce__(self) -> tuple[type[Position], tuple[object, ...]]:
        # Pickle the value only: the move cache is rebuilt on demand.
        return (Position, self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self.key, self.halfmove, self.fullmove, self.history))

    def __repr__(self) -> str:
        from engine.games.chess.notation import format_fen

        return f"Position({format_fen(self)!r})"

    # ------------------------------------------------------------------
    # Derived facts, computed once per position.

    def legal_moves(self) -> list[Move]:
        """Every legal move (the cached list: copy it before changing it)."""
        moves = self._moves
        if moves is None:
            moves = generate(self, False)
            self._moves = moves
        return moves

    def checkers(self) -> Bitboard:
        """Bitboard of the pieces giving check to the side to move."""
        checkers = self._checkers
        if checkers == _NOT_YET:
            checkers = checkers_of(self.boards, self.turn)
            self._checkers = checkers
        return checkers

    def pinned(self) -> Bitboard:
        """Bitboard of the side to move's pieces pinned to its king."""
        pinned = self._pinned
        if pinned == _NOT_YET:
            boards = self.boards
            us = boards[7 * self.turn]
            them = boards[7 - 7 * self.turn]
            pinned = _pinned(
                int(boards[KING] & us).bit_length() - 1,
                us,
                us | them,
                (boards[ROOK] | boards[QUEEN]) & them,
                (boards[BISHOP] | boards[QUEEN]) & them,
            )
            self._pinned = pinned
        return pinned


def king_square(boards: tuple[Bitboard, ...], color: int) -> int:
    return int(boards[KING] & boards[7 * color]).bit_length() - 1


def attackers(
    boards: tuple[Bitboard, ...], square: int, occupied: Bitboard, color: int
) -> Bitboard:
    """Pieces of ``color`` attacking ``square``, sliders seeing through nothing but ``occupied``."""
    pieces = boards[7 * color]
    found = pieces & (
        (KNIGHT_ATTACKS[square] & boards[KNIGHT])
        | (PAWN_ATTACKS[1 - color][square] & boards[PAWN])
        | (KING_ATTACKS[square] & boards[KING])
    )
    # Sliders: the look-up by occupancy only when one of them stands on a
    # line through the square, which is seldom (the rays on an empty board
    # hold every square a slider could attack from).
    diagonal = (boards[BISHOP] | boards[QUEEN]) & pieces & BISHOP_EMPTY[square]
    if diagonal:
        found |= bishop_attacks(square, occupied) & diagonal
    straight = (boards[ROOK] | boards[QUEEN]) & pieces & ROOK_EMPTY[square]
    if straight:
        found |= rook_attacks(square, occupied) & straight
    return found


def checkers_of(boards: tuple[Bitboard, ...], turn: int) -> Bitboard:
    """Pieces giving check to the king of ``turn``."""
    occupied = boards[0] | boards[7]
    return attackers(boards, king_square(boards, turn), occupied, 1 - turn)


def _en_passant_is_legal(boards: tuple[Bitboard, ...], turn: int, frm: int, ep: int) -> bool:
    """Whether ``turn``'s pawn on ``frm`` may take en passant on ``ep`` (its king stays safe)."""
    captured_bit = BIT[ep ^ 8]
    us_index, them_index = 7 * turn, 7 - 7 * turn
    after: list[Bitboard] = list(boards)
    move_bits = BIT[frm] | BIT[ep]
    after[us_index] ^= move_bits
    after[PAWN] ^= move_bits | captured_bit
    after[them_index] ^= captured_bit
    occupied = after[0] | after[7]
    return not attackers(tuple(after), king_square(boards, turn), occupied, 1 - turn)


def _append_targets(
    moves: list[Move], base: int, targets: Bitboard, them: Bitboard, boards: tuple[Bitboard, ...]
) -> None:
    """Append one move per target square of the piece encoded in ``base``."""
    captures = targets & them
    quiet = targets ^ captures
    while captures:
        bit = captures & -captures
        captures ^= bit
        if bit & boards[PAWN]:
            victim = 0x100000
        elif bit & boards[KNIGHT]:
            victim = 0x200000
        elif bit & boards[BISHOP]:
            victim = 0x300000
        elif bit & boards[ROOK]:
            victim = 0x400000
        else:
            victim = 0x500000
        moves.append(base | (int(bit).bit_length() - 1) << 6 | victim)
    while quiet:
        bit = quiet & -quiet
        quiet ^= bit
        moves.append(base | (int(bit).bit_length() - 1) << 6)


def _victim_bits(bit: Bitboard, boards: tuple[Bitboard, ...]) -> int:
    if bit & boards[PAWN]:
        return 0x100000
    if bit & boards[KNIGHT]:
        return 0x200000
    if bit & boards[BISHOP]:
        return 0x300000
    if bit & boards[ROOK]:
        return 0x400000
    return 0x500000


def generate(position: Position, noisy_only: bool) -> list[Move]:
    """Legal moves; with ``noisy_only``, only captures and promotions unless in check.

    In check every legal move is returned either way (a quiescence search
    must consider every evasion).
    """
    boards = position.boards
    turn = position.turn
    us = boards[7 * turn]
    them = boards[7 - 7 * turn]
    occupied = us | them
    pawns = boards[PAWN]
    knights = boards[KNIGHT]
    bishops = boards[BISHOP]
    rooks = boards[ROOK]
    queens = boards[QUEEN]
    kings = boards[KING]
    king_sq = int(kings & us).bit_length() - 1
    their_pawns = pawns & them
    their_knights = knights & them
    their_king = kings & them
    their_diagonal = (bishops | queens) & them
    their_straight = (rooks | queens) & them
    checkers = position.checkers()
    if checkers:
        noisy_only = False
    moves: list[Move] = []
    not_us = ~us

    # King moves: each destination is tested with the king lifted off the
    # board, so that a slider's ray does not stop at the square it leaves.
    without_king = occupied ^ BIT[king_sq]
    targets = KING_ATTACKS[king_sq] & (them if noisy_only else not_us)
    base = king_sq | _MOVER_KING
    while targets:
        bit = targets & -targets
        targets ^= bit
        to = int(bit).bit_length() - 1
        if (
            (KNIGHT_ATTACKS[to] & their_knights)
            or (PAWN_ATTACKS[turn][to] & their_pawns)
            or (KING_ATTACKS[to] & their_king)
            or (
                BISHOP_EMPTY[to] & their_diagonal  # a slider on a line, first (see attackers)
                and bishop_attacks(to, without_king) & their_diagonal
            )
            or (ROOK_EMPTY[to] & their_straight and rook_attacks(to, without_king) & their_straight)
        ):
            continue
        if bit & them:
            moves.append(base | to << 6 | _victim_bits(bit, boards))
        else:
            moves.append(base | to << 6)

    if checkers & (checkers - 1):
        return moves  # double check: only the king may move

    if checkers:
        evasion = BETWEEN[king_sq * 64 + int(checkers).bit_length() - 1] | checkers
    else:
        evasion = ALL_SQUARES
        if position.castling and not noisy_only:
            _append_castling(moves, position, occupied)

    pinned = position.pinned()
    king_line = king_sq * 64

    target_mask = evasion & (them if noisy_only else not_us)

    # Knights: a pinned knight can never move.
    pieces = knights & us & ~pinned
    base_piece = (7 - KNIGHT) << 17
    while pieces:
        bit = pieces & -pieces
        pieces ^= bit
        square = int(bit).bit_length() - 1
        targets = KNIGHT_ATTACKS[square] & target_mask
        if targets:
            _append_targets(moves, square | base_piece, targets, them, boards)

    # Sliders, each along the lines it attacks (and its pin line if pinned).
    for piece_type in (BISHOP, ROOK, QUEEN):
        pieces = boards[piece_type] & us
        base_piece = (7 - piece_type) << 17
        while pieces:
            bit = pieces & -pieces
            pieces ^= bit
            square = int(bit).bit_length() - 1
            targets = 0
            if piece_type != ROOK:
                targets = bishop_attacks(square, occupied)
            if piece_type != BISHOP:
                targets |= rook_attacks(square, occupied)
            targets &= target_mask
            if bit & pinned:
                targets &= LINE[king_line + square]
            if targets:
                _append_targets(moves, square | base_piece, targets, them, boards)

    _append_pawn_moves(moves, position, us, them, occupied, evasion, pinned, king_sq, noisy_only)
    return moves


def _pinned(
    king_sq: int,
    us: Bitboard,
    occupied: Bitboard,
    their_straight: Bitboard,
    their_diagonal: Bitboard,
) -> Bitboard:
    """Our absolutely pinned pieces: each the lone blocker between our king and an enemy slider."""
    pinned: Bitboard = 0
    snipers = (ROOK_EMPTY[king_sq] & their_straight) | (BISHOP_EMPTY[king_sq] & their_diagonal)
    while snipers:
        bit = snipers & -snipers
        snipers ^= bit
        blockers = BETWEEN[king_sq * 64 + int(bit).bit_length() - 1] & occupied
        if blockers and not blockers & (blockers - 1) and blockers & us:
            pinned |= blockers
    return pinned


def has_legal_move(position: Position) -> bool:
    """Whether the side to move has any legal move, stopping at the first one found.

    Much cheaper than generating every move: in nearly every position an
    unpinned knight, pawn or slider has a square to go to, and the king is
    looked at only when they have none. Castling never needs checking: a
    side that can castle can also move its king one square towards the rook.
    """
    moves = position._moves
    if moves is not None:
        return bool(moves)
    boards = position.boards
    turn = position.turn
    us = boards[7 * turn]
    them = boards[7 - 7 * turn]
    occupied = us | them
    king_sq = int(boards[KING] & us).bit_length() - 1
    checkers = position.checkers()
    if not checkers & (checkers - 1):  # not a double check: other pieces may move
        evasion: Bitboard = ALL_SQUARES
        if checkers:
            evasion = BETWEEN[king_sq * 64 + int(checkers).bit_length() - 1] | checkers
        pinned = position.pinned()
        target_mask = evasion & ~us
        king_line = king_sq * 64
        pieces = boards[KNIGHT] & us & ~pinned
        while pieces:
            bit = pieces & -pieces
            pieces ^= bit
            if KNIGHT_ATTACKS[int(bit).bit_length() - 1] & target_mask:
                return True
        pawns = boards[PAWN] & us
        if pawns:
            if turn == 0:
                single = (pawns << 8) & ~occupied
                double = ((single & RANK_3) << 8) & ~occupied
                pushes = (single & evasion) >> 8 | (double & evasion) >> 16
                # The right shifts bring the sign bit (h8) in from the top in
                # compiled code; only the shift by 9 reaches a square a pawn
                # can stand on (h7), so its result is masked.
                captures = ((((pawns & NOT_FILE_A) << 7) & them & evasion) >> 7) | (
                    (((pawns & NOT_FILE_H) << 9) & them & evasion) >> 9 & _BELOW_BIT_55
                )
            else:
                single = (pawns >> 8) & ~occupied
                double = ((single & RANK_6) >> 8) & ~occupied
                pushes = (single & evasion) << 8 | (double & evasion) << 16
                captures = ((((pawns & NOT_FILE_A) >> 9) & them & evasion) << 9) | (
                    (((pawns & NOT_FILE_H) >> 7) & them & evasion) << 7
                )
            # Pawns with a move that are not pinned surely have a legal one;
            # pinned ones are left to the full generator below.
            if (pushes | captures) & pawns & ~pinned:
                return True
        for piece_type in (BISHOP, ROOK, QUEEN):
            pieces = boards[piece_type] & us
            while pieces:
                bit = pieces & -pieces
                pieces ^= bit
                square = int(bit).bit_length() - 1
                targets: Bitboard = 0
                if piece_type != ROOK:
                    targets = bishop_attacks(square, occupied)
                if piece_type != BISHOP:
                    targets |= rook_attacks(square, occupied)
                targets &= target_mask
                if bit & pinned:
                    targets &= LINE[king_line + square]
                if targets:
                    return True
    # Rare: only the king, pinned pawns or en passant might move.
    return bool(position.legal_moves())


def _append_castling(moves: list[Move], position: Position, occupied: Bitboard) -> None:
    boards = position.boards
    turn = position.turn
    rights = position.castling >> (2 * turn)
    rank = 56 * turn
    enemy = 1 - turn
    king_move = (rank + 4) | FLAG_CASTLING << 12 | _MOVER_KING
    # Kingside: f and g empty and not attacked (the king is not in check,
    # or castling would not be generated). Written out rather than as a loop
    # with any(): a generator is slow in compiled code.
    if (
        rights & 1
        and not occupied & _CASTLING_EMPTY_KINGSIDE[turn]
        and not attackers(boards, rank + 5, occupied, enemy)
        and not attackers(boards, rank + 6, occupied, enemy)
    ):
        moves.append(king_move | (rank + 6) << 6)
    # Queenside: b, c and d empty, d and c not attacked.
    if (
        rights & 2
        and not occupied & _CASTLING_EMPTY_QUEENSIDE[turn]
        and not attackers(boards, rank + 3, occupied, enemy)
        and not attackers(boards, rank + 2, occupied, enemy)
    ):
        moves.append(king_move | (rank + 2) << 6)


def _append_pawn_moves(
    moves: list[Move],
    position: Position,
    us: Bitboard,
    them: Bitboard,
    occupied: Bitboard,
    evasion: Bitboard,
    pinned: Bitboard,
    king_sq: int,
    noisy_only: bool,
) -> None:
    boards = position.boards
    our_pawns = boards[PAWN] & us
    if not our_pawns:
        return
    empty = ~occupied
    if position.turn == 0:
        single = (our_pawns << 8) & empty
        double = ((single & RANK_3) << 8) & empty
        left = ((our_pawns & NOT_FILE_A) << 7) & them
        right = ((our_pawns & NOT_FILE_H) << 9) & them
        last_rank = RANK_8
        promotion_rank = 7
        push, left_delta, right_delta = 8, 7, 9
    else:
        single = (our_pawns >> 8) & empty
        double = ((single & RANK_6) >> 8) & empty
        left = ((our_pawns & NOT_FILE_A) >> 9) & them
        right = ((our_pawns & NOT_FILE_H) >> 7) & them
        last_rank = RANK_1
        promotion_rank = 0
        push, left_delta, right_delta = -8, -9, -7
    single &= evasion
    if noisy_only:
        single &= last_rank
        double = 0
    else:
        double &= evasion
    king_line = king_sq * 64
    _append_pawn_targets(
        moves, left & evasion, left_delta, True, 0, pinned, king_line, promotion_rank, boards
    )
    _append_pawn_targets(
        moves, right & evasion, right_delta, True, 0, pinned, king_line, promotion_rank, boards
    )
    _append_pawn_targets(moves, single, push, False, 0, pinned, king_line, promotion_rank, boards)
    _append_pawn_targets(
        moves,
        double,
        2 * push,
        False,
        FLAG_DOUBLE_PUSH << 12,
        pinned,
        king_line,
        promotion_rank,
        boards,
    )

    ep = position.ep
    if ep:
        candidates = PAWN_ATTACKS[1 - position.turn][ep] & our_pawns
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            frm = int(bit).bit_length() - 1
            if _en_passant_is_legal(boards, position.turn, frm, ep):
                moves.append(frm | ep << 6 | FLAG_EN_PASSANT << 12 | _MOVER_PAWN | PAWN << 20)


def _append_pawn_targets(
    moves: list[Move],
    targets: Bitboard,
    delta: int,
    captures: bool,
    flag_bits: int,
    pinned: Bitboard,
    king_line: int,
    promotion_rank: int,
    boards: tuple[Bitboard, ...],
) -> None:
    """Append the pawn moves to ``targets``, each from ``delta`` squares behind it."""
    while targets:
        bit = targets & -targets
        targets ^= bit
        to = int(bit).bit_length() - 1
        frm = to - delta
        if pinned >> frm & 1 and not LINE[king_line + frm] & bit:
            continue
        move = frm | to << 6 | _MOVER_PAWN | flag_bits
        if captures:
            move |= _victim_bits(bit, boards)
        if to >> 3 == promotion_rank:
            for promotion in PROMOTIONS:
                moves.append(move | promotion)
        else:
            moves.append(move)


def play(position: Position, move: Move) -> Position:
    """The position after ``move``, which must be one of ``position``'s legal moves."""
    frm = move & 63
    to = move >> 6 & 63
    flag = move >> 12 & 3
    piece = 7 - (move >> 17 & 7)
    captured = move >> 20 & 7
    promotion = move >> 14 & 7
    turn = position.turn
    boards: list[Bitboard] = list(position.boards)  # typed: its items are XORed natively
    us_index = 7 * turn
    from_bit = BIT[frm]
    to_bit = BIT[to]
    boards[us_index] ^= from_bit | to_bit

    index = ((piece + 6 * turn) << 6) | frm
    key = position.key ^ BLACK_TO_MOVE_KEY ^ PIECE_KEYS[index]
    mg = position.mg - MG[index]
    eg = position.eg - EG[index]
    halfmove = position.halfmove + 1
    if captured:
        captured_square = to ^ 8 if flag == FLAG_EN_PASSANT else to
        captured_bit = BIT[captured_square]
        boards[7 - us_index] ^= captured_bit
        boards[captured] ^= captured_bit
        index = ((captured + 6 - 6 * turn) << 6) | captured_square
        key ^= PIECE_KEYS[index]
        mg -= MG[index]
        eg -= EG[index]
        halfmove = 0
    if promotion:
        boards[PAWN] ^= from_bit
        boards[promotion] ^= to_bit
        index = ((promotion + 6 * turn) << 6) | to
    else:
        boards[piece] ^= from_bit | to_bit
        index = ((piece + 6 * turn) << 6) | to
    key ^= PIECE_KEYS[index]
    mg += MG[index]
    eg += EG[index]
    if piece == PAWN:
        halfmove = 0

    if flag == FLAG_CASTLING:
        _, rook_from, rook_to = CASTLING_ROOKS[to]
        rook_bits = BIT[rook_from] | BIT[rook_to]
        boards[ROOK] ^= rook_bits
        boards[us_index] ^= rook_bits
        rook_index = (ROOK + 6 * turn) << 6
        key ^= PIECE_KEYS[rook_index | rook_from] ^ PIECE_KEYS[rook_index | rook_to]
        mg += MG[rook_index | rook_to] - MG[rook_index | rook_from]
        eg += EG[rook_index | rook_to] - EG[rook_index | rook_from]

    castling = position.castling & CASTLING_KEEP[frm] & CASTLING_KEEP[to]
    rights_changed = castling != position.castling
    if rights_changed:
        key ^= CASTLING_KEYS[position.castling] ^ CASTLING_KEYS[castling]

    if position.ep:
        key ^= EP_FILE_KEYS[position.ep & 7]
    new_boards = tuple(boards)
    ep = 0
    if flag == FLAG_DOUBLE_PUSH:
        square = (frm + to) >> 1
        candidates = PAWN_ATTACKS[turn][square] & new_boards[PAWN] & new_boards[7 - us_index]
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            if _en_passant_is_legal(new_boards, 1 - turn, int(bit).bit_length() - 1, square):
                ep = square
                key ^= EP_FILE_KEYS[square & 7]
                break

    if halfmove == 0 or rights_changed:
        history: tuple[int, ...] = ()  # no earlier position can recur after an irreversible move
    else:
        history = (*position.history, position.key)
    return Position(
        new_boards, 1 - turn, castling, ep, halfmove, position.fullmove + turn, key, mg, eg, history
    )


def pass_turn(position: Position) -> Position:
    """The position with the side to move passing (for null-move pruning only).

    The history is cut so that a line through a pass never counts as a
    repetition of the real game.
    """
    key = position.key ^ BLACK_TO_MOVE_KEY
    if position.ep:
        key ^= EP_FILE_KEYS[position.ep & 7]
    return Position(
        position.boards,
        1 - position.turn,
        position.castling,
        0,
        position.halfmove + 1,
        position.fullmove + position.turn,
        key,
        position.mg,
        position.eg,
    )


def perft(position: Position, depth: int) -> int:
    """Number of leaf positions ``depth`` plies below (the last ply counted, not made)."""
    if depth <= 1:
        return len(generate(position, False)) if depth == 1 else 1
    total = 0
    for move in generate(position, False):
        total += perft(play(position, move), depth - 1)
    return total


def compute_key(boards: tuple[Bitboard, ...], turn: int, castling: int, ep: int) -> int:
    """The Zobrist key from scratch (play updates it incrementally)."""
    key = BLACK_TO_MOVE_KEY if turn else 0
    for color in (0, 1):
        occupancy = boards[7 * color]
        for piece in range(PAWN, KING + 1):
            pieces = boards[piece] & occupancy
            while pieces:
                bit = pieces & -pieces
                pieces ^= bit
                key ^= PIECE_KEYS[((piece + 6 * color) << 6) | (int(bit).bit_length() - 1)]
    key ^= CASTLING_KEYS[castling]
    if ep:
        key ^= EP_FILE_KEYS[ep & 7]
    return key


def en_passant_square(boards: tuple[Bitboard, ...], turn: int, square: int) -> int:
    """``square`` if ``turn`` has a legal en passant capture there, else 0."""
    candidates = PAWN_ATTACKS[1 - turn][square] & boards[PAWN] & boards[7 * turn]
    while candidates:
        bit = candidates & -candidates
        candidates ^= bit
        if _en_passant_is_legal(boards, turn, int(bit).bit_length() - 1, square):
            return square
    return 0

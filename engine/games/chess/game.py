"""Chess as a :class:`~engine.game.Game`: the rules, the notation and the search hooks.

Players: ``white`` (0) moves first, ``black`` (1). Moves are written in UCI
(``e2e4``, ``e7e8q``) and read in UCI or SAN; positions are FEN. The state
is a :class:`~engine.games.chess.position.Position`.

The game ends by checkmate, stalemate, the fifty-move rule (100 plies
without a capture or pawn move), threefold repetition or insufficient
material (no pawn, rook or queen, and at most one minor piece or only
bishops all on squares of one colour). The draws by rule are declared at
once, as a server adjudicating both sides would (FIDE lets a player claim
them); checkmate on the hundredth ply still wins. Repetition is detected
from the history a position carries: the keys of the positions since the
last capture, pawn move or change of castling rights. A position parsed
from FEN has no history, so repetitions are counted from there on.
"""

from __future__ import annotations

from random import Random
from typing import Final

from mypy_extensions import mypyc_attr

from engine.errors import GameOverError
from engine.game import Game, Outcome
from engine.games.chess.bitboards import (
    BISHOP,
    BISHOP_EMPTY,
    DARK_SQUARES,
    KING,
    KING_ATTACKS,
    KNIGHT,
    KNIGHT_ATTACKS,
    LIGHT_SQUARES,
    PAWN,
    QUEEN,
    ROOK,
    ROOK_EMPTY,
    popcount,
    squares_of,
)
from engine.games.chess.evaluation import MG, evaluate
from engine.games.chess.notation import (
    STARTING_FEN,
    format_fen,
    format_san,
    format_uci,
    parse_fen,
    parse_move,
)
from engine.games.chess.position import (
    FLAG_CASTLING,
    FLAG_DOUBLE_PUSH,
    Move,
    Position,
    attackers,
    generate,
    has_legal_move,
    pass_turn,
    play,
)

#: Bits of a move that make it a capture or a promotion.
NOISY_BITS: Final = 0x71C000
#: Plies without capture or pawn move after which the game is drawn.
FIFTY_MOVE_PLIES: Final = 100
#: Rough piece values (pawns) by type, for the quiescence filter below.
EXCHANGE_VALUE: Final = (0, 1, 3, 3, 5, 9, 0)


def _quiet_move_gains(color: int) -> dict[Move, int]:
    """Middlegame piece-square gain of every quiet move ``color`` could ever make.

    Keyed by the move int itself, so that ordering quiet moves is a sort
    with a C-level key (``dict.__getitem__``) instead of a Python function.
    """
    gains: dict[Move, int] = {}
    sign = -1 if color else 1
    for piece in range(PAWN, KING + 1):
        index = (piece + 6 * color) << 6
        for frm in range(64):
            for to, flag in _quiet_destinations(piece, color, frm):
                move = frm | to << 6 | flag << 12 | (7 - piece) << 17
                gains[move] = sign * (MG[index | to] - MG[index | frm])
    return gains


def _quiet_destinations(piece: int, color: int, frm: int) -> list[tuple[int, int]]:
    if piece == PAWN:
        step = -8 if color else 8
        rank = frm >> 3 if not color else 7 - (frm >> 3)  # counted from the pawn's own side
        if not 1 <= rank <= 5:
            return []  # no pawn on the first rank; a push to the last rank is a promotion
        pushes = [(frm + step, 0)]
        if rank == 1:
            pushes.append((frm + 2 * step, FLAG_DOUBLE_PUSH))
        return pushes
    if piece == KING:
        moves = [(to, 0) for to in squares_of(KING_ATTACKS[frm])]
        if frm == (56 if color else 0) + 4:  # castling, from the king's home square
            moves += [(frm + 2, FLAG_CASTLING), (frm - 2, FLAG_CASTLING)]
        return moves
    attacks = {
        KNIGHT: KNIGHT_ATTACKS[frm],
        BISHOP: BISHOP_EMPTY[frm],
        ROOK: ROOK_EMPTY[frm],
        QUEEN: BISHOP_EMPTY[frm] | ROOK_EMPTY[frm],
    }[piece]
    return [(to, 0) for to in squares_of(attacks)]


#: ``QUIET_GAIN[color][move]``: see :func:`_quiet_move_gains`.
QUIET_GAIN: Final = (_quiet_move_gains(0), _quiet_move_gains(1))
#: Share of Monte Carlo playout moves that take the most valuable piece on
#: offer (when there is one) instead of a random move: see
#: :meth:`Chess.playout_move`. Half keeps playouts varied.
PLAYOUT_CAPTURE_SHARE: Final = 0.5


@mypyc_attr(allow_interpreted_subclasses=True)
class Chess(Game[Position, Move]):
    """Chess: bitboard move generation, tapered piece-square evaluation."""

    name = "chess"
    title = "Chess"
    players = ("white", "black")
    eval_unit = "centipawns"
    #: Half a pawn: wide enough that most iterations stay inside it.
    aspiration_window = 50
    #: Centipawns per unit of log-odds: Lichess turns centipawns into a
    #: winning chance by ``1 / (1 + exp(-0.00368208 * cp))``, that is 272.
    #: (Random playouts are no judge of chess: fitted against them, as the
    #: other games' scales are, the figure is about 2,400.)
    win_odds_scale = 270
    #: Futility pruning near the horizon, per ply of depth: one pawn (the
    #: order of the margins of open engines such as Ethereal, 70-90 per
    #: ply, rounded up for an evaluation with fewer terms to swing).
    futility_margin = 100
    #: Late moves are reduced by the logarithmic formula (engine.search.alphabeta).
    log_reductions = True
    #: Random moves rarely end a game of chess; a playout stops after 20
    #: plies and the evaluation judges it. 20 plies take 0.27 ms compiled,
    #: 0.8 ms pure on average (``python -m bench.mcts_bench --only playouts``;
    #: 200 plies took 2.9 ms), so a search answers within a few ms of its deadline.
    playout_limit = 20

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self._start = parse_fen(STARTING_FEN)

    # ------------------------------------------------------------------
    # The game as a search problem.

    def initial_state(self) -> Position:
        return self._start

    def to_move(self, state: Position) -> int:
        return state.turn

    def legal_moves(self, state: Position) -> list[Move]:
        if self._draw_by_rule(state) is not None:
            return []
        return list(state.legal_moves())

    def play(self, state: Position, move: Move) -> Position:
        return play(state, move)

    def outcome(self, state: Position) -> Outcome | None:
        draw = self._draw_by_rule(state)
        if draw is not None:
            return draw
        if not has_legal_move(state):
            if state.checkers():
                return Outcome(1 - state.turn, "checkmate")
            return Outcome(None, "stalemate")
        if state.halfmove >= FIFTY_MOVE_PLIES:
            return Outcome(None, "fifty-move rule")
        return None

    def is_legal(self, state: Position, move: Move) -> bool:
        # The moves are generated once and kept with the position, so the
        # ordering that follows when this move does not cut reuses them.
        return move in state.legal_moves()

    def quiescence_outcome(self, state: Position) -> Outcome | None:
        """Draws by rule and checkmate; a stalemate out of check is not looked for.

        A quiescence search tries only captures, and nearly every position
        it reaches stands pat on its evaluation at once. Looking for a legal
        move in each (:func:`has_legal_move`, which finds the pins too) was
        about 4% of a search's time, to find a stalemate that a capture
        almost never brings about; the full-width search above still finds
        every one. Stockfish's quiescence search does not look for
        stalemate either.
        """
        if state.halfmove >= FIFTY_MOVE_PLIES or state.checkers():
            return self.outcome(state)
        return self._draw_by_rule(state)

    def _draw_by_rule(self, state: Position) -> Outcome | None:
        """Repetition and dead material (the fifty-move rule waits for mate to be ruled out)."""
        history = state.history
        if len(history) >= 4 and history.count(state.key) >= 2:
            return Outcome(None, "threefold repetition")
        boards = state.boards
        if not (boards[PAWN] | boards[ROOK] | boards[QUEEN]):
            minors = boards[KNIGHT] | boards[BISHOP]
            if popcount(minors) <= 1 or (
                not boards[KNIGHT] and (not minors & LIGHT_SQUARES or not minors & DARK_SQUARES)
            ):
                return Outcome(None, "insufficient material")
        return None

    def unclaimed(self, state: Position) -> Position:
        """``state`` as a search root when the players have not claimed a draw they could.

        Threefold repetition and the fifty-move rule end a game only when a
        player claims the draw (FIDE Laws 9.2 and 9.3), and a UCI GUI is the
        arbiter that may play on; this game counts both as the game's end.
        The root keeps one earlier occurrence of its position (a further
        repetition in the tree is again a draw) and a fifty-move count of at
        most 99 plies (a move that neither captures nor moves a pawn reaches
        the rule again). Dead material is a draw no move changes, not a claim.
        """
        earlier = [index for index, key in enumerate(state.history) if key == state.key]
        history = state.history
        if len(earlier) > 1:
            dropped = set(earlier[:-1])
            history = tuple(key for index, key in enumerate(history) if index not in dropped)
        halfmove = min(state.halfmove, FIFTY_MOVE_PLIES - 1)
        return Position(
            state.boards,
            state.turn,
            state.castling,
            state.ep,
            halfmove,
            state.fullmove,
            state.key,
            state.mg,
            state.eg,
            history,
        )

    def repeats(self, state: Position, plies: int) -> bool:
        # The history holds the positions since the last irreversible move;
        # only those with the same side to move (every other one) can match.
        history = state.history
        key = state.key
        index = len(history) - 2
        stop = len(history) - plies + 1  # the root itself is left out, as in Stockfish
        while index >= stop and index >= 0:
            if history[index] == key:
                return True
            index -= 2
        return False

    def evaluate(self, state: Position) -> int:
        return evaluate(state)

    def key(self, state: Position) -> int:
        return state.key

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: Position, move: Move) -> str:
        return format_uci(move)

    def format_san(self, state: Position, move: Move) -> str:
        """The move in SAN (``Nf3``, ``O-O``, ``e8=Q+``), for people."""
        return format_san(state, move)

    def parse_move(self, state: Position, text: str) -> Move:
        """A legal move in UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``exd5``, ``O-O``)."""
        outcome = self.outcome(state)
        if outcome is not None:
            raise GameOverError(f"the game is over ({outcome.reason}): no move can be played")
        return parse_move(state, text)

    def format_position(self, state: Position) -> str:
        return format_fen(state)

    def parse_position(self, text: str) -> Position:
        return parse_fen(text)

    # ------------------------------------------------------------------
    # Search hooks.

    def ordered_moves(self, state: Position) -> list[Move]:
        """Captures by MVV-LVA, then promotions, then quiet moves by piece-square gain."""
        moves = state.legal_moves()
        noisy = [move for move in moves if move & NOISY_BITS]
        quiet = [move for move in moves if not move & NOISY_BITS]
        noisy.sort(reverse=True)
        if len(quiet) > 1:
            quiet.sort(key=QUIET_GAIN[state.turn].__getitem__, reverse=True)
        noisy.extend(quiet)
        return noisy

    def noisy_moves(self, state: Position) -> list[Move]:
        """Captures and queen promotions by MVV-LVA; every legal move when in check.

        Out of check two kinds of noisy move are left out, as a cheap stand-in
        for a static exchange evaluation: a capture of a lesser piece on a
        square the opponent defends (it loses material unless it is part of a
        combination, which the full-width search finds), and underpromotions.
        On WAC at a fixed node budget (150 positions, 12,000 nodes) this took
        the score from 98 to 110 solved.
        """
        if state.checkers():
            moves = list(state.legal_moves())
            moves.sort(reverse=True)
            return moves
        cached = state._moves
        if cached is None:
            moves = generate(state, True)
        else:
            moves = [move for move in cached if move & NOISY_BITS]
        moves.sort(reverse=True)
        boards = state.boards
        occupied = boards[0] | boards[7]
        opponent = 1 - state.turn
        worth = EXCHANGE_VALUE
        kept = []
        for move in moves:
            promotion = move >> 14 & 7
            if promotion and promotion != QUEEN:
                continue
            captured = move >> 20 & 7
            if (
                captured
                and worth[7 - (move >> 17 & 7)] > worth[captured]
                and attackers(boards, move >> 6 & 63, occupied, opponent)
            ):
                continue
            kept.append(move)
        return kept

    def is_quiet(self, state: Position, move: Move) -> bool:
        return not move & NOISY_BITS

    def in_check(self, state: Position) -> bool:
        return bool(state.checkers())

    def null_move(self, state: Position) -> Position | None:
        """A pass, unless in check or the side to move has only king and pawns (zugzwang)."""
        boards = state.boards
        pieces = (boards[KNIGHT] | boards[BISHOP] | boards[ROOK] | boards[QUEEN]) & boards[
            7 * state.turn
        ]
        if not pieces or state.checkers():
            return None
        return pass_turn(state)

    def uses_reductions(self) -> bool:
        return True

    def playout_move(self, state: Position, rng: Random) -> Move:
        """Half the time, the capture of the most valuable piece on offer; else a random move.

        Random play leaves pieces hanging and rarely takes them, so a short
        playout judged by the evaluation says little; taking what is
        offered makes the material at stake count. Moves sort by MVV-LVA
        as ints, so the largest capture takes the most valuable victim
        with the least valuable attacker.
        """
        moves = state.legal_moves()
        if rng.random() < PLAYOUT_CAPTURE_SHARE:
            best = 0
            for move in moves:
                if move >> 20 & 7 and move > best:
                    best = move
            if best:
                return best
        return moves[rng.randrange(len(moves))]

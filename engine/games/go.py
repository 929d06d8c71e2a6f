"""Go on a square board, with area scoring and positional superko.

Options: ``size`` (5-19 lines, default 9) and ``komi`` (the points White
gets for moving second, default 7.5; an integer or a multiple of 0.5
between -150 and 150, so an integer komi allows draws).

Rules as implemented (the Tromp-Taylor rules, with suicide forbidden):

* Black (player 0) moves first; a move puts a stone on an empty point or
  passes. Opposing strings left without liberties are captured, then the
  mover's own; a move whose own string would be captured (suicide) is
  illegal unless it captures first.
* Positional superko: a move may not recreate any whole-board position of
  this game seen before, whoever was to move then. Passing is always legal.
* The game ends after two passes in a row, or when a player resigns
  (``resign`` is accepted as a move but never listed among the legal
  moves, so a search never picks it), or after :attr:`Go.max_length`
  plies (``2 * size * size``, passes included, the bound OpenSpiel's ``go``
  uses as its ``max_game_length``), so that every game ends.
* Scoring by area: a player's score is the number of points of their
  colour plus the empty points whose region (connected empty points)
  borders only that colour; White adds the komi. The higher score wins:
  ``result.reason`` reads "white wins by 4.5", "black wins by 0.5",
  "draw at 40 points each" or "black resigns".

Move notation: GTP vertices, the column letter (``A``-``T`` without ``I``,
from the left) and the row number (1 at the bottom): ``D4``, ``T19``;
``pass``; ``resign``. Lower case is read too.

Position notation: the rows from the top separated by ``/``, each point
``.`` (empty), ``X`` (Black) or ``O`` (White), then a space and the side
to move (``X`` or ``O``). The empty 9x9 board with Black to move is::

    ........./........./........./........./........./........./........./........./......... X

The superko history of a position read this way holds just that position
(the server replays the moves played since). :meth:`Go.parse_position` also
reads an SGF game record, such as ``(;SZ[9]KM[7.5]AB[dd][ee]AW[cc];B[ef])``:
its setup stones (``AB``, ``AW``, ``AE``, point lists ``aa:cc`` included),
``PL`` and the moves of its main line (``B[]``, ``W[]`` or ``[tt]`` for a
pass), checked and played in order, so the history, captures and passes
are those of the record; a setup node starts the history afresh (and
ends any run of passes); moves after two passes play on (a clean-up
phase, :meth:`Go.resumed`). ``SZ``
must equal the game's size (19 when missing, as SGF says); ``KM`` is
ignored: the game's ``komi`` option governs. Without ``PL`` the side to
move follows the last move, or is White after handicap stones (Black setup
stones only), else Black.

Representation: the board is a ``bytes`` with one border ring, row-major
from the top, ``size + 1`` points per row (the border column is shared by
the right edge of one row and the left edge of the next), so the four
neighbours of ``p`` are ``p ± 1`` and ``p ± (size + 1)``. Moves are these
indices; :data:`PASS` and :data:`RESIGN` are two border indices that no
stone can take. A :class:`GoState` also keeps the Zobrist key of the board
(XOR of one random 62-bit number per stone), the set of keys of every
position of the game so far (the superko history), the simple-ko point,
the consecutive passes, the plies played, the stones each side has
captured, the last move and who resigned. The transposition-table key adds
the side to move and the pass count to the board key; positions that
differ only by their history share it (the usual graph-history compromise).

Evaluation (alpha-beta): area by distance, each empty point counts for the
colour whose nearest stone is nearer (equidistant points count for none),
plus stones, minus komi: tenths of a point for the side to move.

Monte Carlo: :meth:`Go.playout` plays on the mutable board of
:mod:`engine.games.go_policy` (strings kept as circular lists of stones and
pseudo-liberties, so that capture, suicide and atari tests cost O(1)) with
its heavy policy: captures and escapes around the last move, 3x3 patterns,
random moves that fill no own eye and make no bad self-atari
(:attr:`Go.heavy_playouts` off: the older light policy). Inside a playout
only simple ko is enforced (superko is ignored: its cycles are rare and
only make a random game a little longer); the board is then scored by area
and komi. :meth:`Go.priors` gives the tree search its priors from the same
module. Read :mod:`engine.games.go_policy` for the knowledge and where each
rule comes from.

Speed (``python -m bench.go_bench``: 9x9 from the empty board, CPython
3.11, one core of a 2-core machine shared with other work at load average
2-4, so the figures vary by a third from run to run): 2,200-3,300 playouts
a second pure and 7,400-12,000 compiled, 107 plies each on average (the
compiled hot loop's ``i64`` locals gave about 5% of that);
:meth:`Go.legal_moves` 15,000-20,000 positions a second pure and
50,000-70,000 compiled; :meth:`Go.play` 90,000-150,000 pure and
150,000-170,000 compiled (it copies the board and the history set, which
the compiler cannot speed up).

Why one module: one game whole: its rules (captures, superko, area scoring),
notation, evaluation and the hooks the searches use are read together, like
every module of ``engine/games`` (the playout policy and priors are in
:mod:`engine.games.go_policy`); hence the length (over 600 lines).
"""

from __future__ import annotations

import math
from random import Random
from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

from engine.errors import BadOptionsError, BadPositionError, GameOverError, IllegalMoveError
from engine.game import EVAL_LIMIT, MCTS, Game, Option, Outcome, int_option
from engine.games import go_policy
from engine.games.go_policy import PlayoutBoard, run_playout

#: Point contents on the board (defined with the playout board).
EMPTY: Final = go_policy.EMPTY
BLACK: Final = go_policy.BLACK
WHITE: Final = go_policy.WHITE
EDGE: Final = go_policy.EDGE

#: The moves that are not points: two border indices (the top-left corner
#: of the border ring and the point right of it), which no stone can take.
PASS: Final = 0
RESIGN: Final = 1
#: The resignation as a move's text (protocol.md, ``bestmove``; GTP's too).
RESIGN_TEXT: Final = "resign"
#: ``GoState.last_move`` and ``GoState.ko`` when there is none.
NO_MOVE: Final = -1
NO_KO: Final = 0

MIN_SIZE: Final = 5
MAX_SIZE: Final = 19
#: The komi's bound in points: a sane range (real komis are under 20; 150
#: leaves room for point-handicap experiments and refuses typing slips).
MAX_KOMI: Final = 150

#: GTP column letters (``I`` is skipped).
COLUMNS: Final = "ABCDEFGHJKLMNOPQRST"
SGF_LETTERS: Final = "abcdefghijklmnopqrs"

#: Largest padded board: 21 rows of 20 points, plus one past the corner.
MAX_POINTS: Final = (MAX_SIZE + 2) * (MAX_SIZE + 1) + 1

#: Evaluation: tenths of a point. Win odds: a lead of 5 points on the
#: distance estimate is taken for about 3:1 (e**1.0 to 1), the rough worth
#: of such a lead on 9x9 by the estimate's noise (a guess, set by hand).
POINT: Final = 10
WIN_ODDS_SCALE: Final = 5 * POINT

#: Time management (:meth:`Go.time_weight`): the phases by the plies played
#: as a share of the board's points (9x9: the opening is plies 0-8, the
#: endgame starts at ply 49; 19x19: plies 0-36 and 217), and the share of the
#: clock's even allotment each phase gets. Pachi divides a game the same
#: way (its ``fuseki_end`` and ``yose_start``, and more time between them),
#: as Go players do: the opening is a few known shapes, the middle game's
#: fights decide a 9x9 game, and the endgame's moves are small. The values
#: are set by hand (an SPRT at 10+0.1 against a flat allotment without the
#: early stop: +6.9 ± 48.5 Elo in 200 games, undecided; docs/benchmarks.md), with the
#: middle weight under the hard deadline's stretch
#: (:data:`engine.search.limits.HARD_STRETCH`, 3) so that it is never cut.
#: A game's length in plies as a share of the board's points, for a
#: sudden-death clock (:meth:`Go.moves_left`): our 9x9 games against GNU Go
#: last 68 plies on average (0.84 of 81 points; docs/benchmarks.md), and
#: 19x19 games between strong players about 250 (0.69 of 361), so 0.8,
#: a little long, keeps time for the end. Before, every board shared its
#: clock over the 30 moves chess engines assume: a 19x19 game had spent
#: 44 s of a 60 s clock by its 40th move (a review, 2026-12-07).
GAME_LENGTH_PER_POINT: Final = 0.8
#: The fewest moves a sudden-death clock is shared over, however far the
#: game has gone: the end of a game can run long (captures, a clean-up).
MIN_MOVES_LEFT: Final = 10
TIME_OPENING_END: Final = 0.1
TIME_ENDGAME_START: Final = 0.6
TIME_OPENING_WEIGHT: Final = 0.6
TIME_MIDDLE_WEIGHT: Final = 1.5
TIME_ENDGAME_WEIGHT: Final = 0.7


def _zobrist(count: int, seed: int) -> list[int]:
    # Fixed seed: keys are the same in every process (the server's workers
    # and the session compare them). Below 2**62 so that the compiled
    # engine keeps them native.
    rng = Random(seed)
    return [rng.getrandbits(62) for _ in range(count)]


#: One key per point and colour: ``ZOBRIST[colour * MAX_POINTS + p]``.
ZOBRIST: Final = _zobrist(3 * MAX_POINTS, 20261124)
#: Added to the board key for White to move, and per pass in a row.
SIDE_KEY: Final = _zobrist(1, 7)[0]
PASS_KEYS: Final = _zobrist(3, 11)


class GoState(NamedTuple):
    """A Go position with what the rules need of its past; see the module docstring."""

    board: bytes
    player: int  # 0 Black, 1 White: the side to move
    passes: int  # passes in a row just before this position
    ply: int  # plies played since the position the game started from
    black_captures: int  # White stones Black has captured
    white_captures: int
    last_move: int  # the point last played, PASS, or NO_MOVE
    ko: int  # the simple-ko point the side to move may not retake, or NO_KO
    board_key: int  # Zobrist key of the board alone
    history: frozenset[int]  # board keys of every position so far, this one included
    resigned: int  # the player who resigned, or -1


def komi_option(name: str, value: object) -> int | float:
    """Checker for ``komi``: a number, a multiple of 0.5 within ``±MAX_KOMI``.

    An integer stays one (so that clients show ``6``, not ``6.0``).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadOptionsError(f"option {name!r} must be a number, got {value!r}")
    if isinstance(value, float) and math.isnan(value):
        raise BadOptionsError(f"option {name!r} must be a multiple of 0.5, got {value!r}")
    # The range first: doubling a huge float (1e308) overflows to infinity,
    # which int() cannot convert.
    if not -MAX_KOMI <= value <= MAX_KOMI:
        raise BadOptionsError(
            f"option {name!r} must be between {-MAX_KOMI} and {MAX_KOMI}, got {value}"
        )
    if value * 2 != int(value * 2):
        raise BadOptionsError(f"option {name!r} must be a multiple of 0.5, got {value!r}")
    return value


def _half_points(twice: int) -> str:
    """``twice / 2`` as "4" or "4.5"."""
    text = str(abs(twice) // 2)
    return text + ".5" if twice % 2 else text


# ----------------------------------------------------------------------
# Rules on an immutable-state board (a bytearray being built).


def _string(board: bytearray, start: int, stride: int, stones: list[int]) -> bool:
    """Collect the string through ``start`` into ``stones``; whether it has a liberty."""
    # Apart from go_ladder's walk (a list, cut short): one over both types would read them boxed.
    colour = board[start]
    stones.append(start)
    seen = {start}
    free = False
    i = 0
    while i < len(stones):
        p = stones[i]
        i += 1
        for n in (p - 1, p + 1, p - stride, p + stride):
            v = board[n]
            if v == EMPTY:
                free = True
            elif v == colour and n not in seen:
                seen.add(n)
                stones.append(n)
    return free


def _place(board: bytearray, p: int, colour: int, stride: int) -> tuple[list[int], bool]:
    """Put a stone of ``colour`` on ``p`` and remove captured enemy strings.

    Returns the captured points and whether the new stone's string has a
    liberty (False: the move was suicide; the board is then unusable).
    """
    board[p] = colour
    enemy = 3 - colour
    captured: list[int] = []
    for n in (p - 1, p + 1, p - stride, p + stride):
        if board[n] == enemy:
            stones: list[int] = []
            if not _string(board, n, stride, stones):
                for s in stones:
                    board[s] = EMPTY
                captured.extend(stones)
    own: list[int] = []
    return captured, bool(captured) or _string(board, p, stride, own)


def _area(board: bytes | bytearray, points: list[int], stride: int) -> tuple[int, int]:
    """Tromp-Taylor area of Black and White (stones plus regions reaching one colour)."""
    black = white = 0
    seen = bytearray(len(board))
    for start in points:
        v = board[start]
        if v == BLACK:
            black += 1
        elif v == WHITE:
            white += 1
        elif not seen[start]:
            region, reach = _region(board, start, seen, stride)
            if reach == BLACK:
                black += len(region)
            elif reach == WHITE:
                white += len(region)
    return black, white


def _region(
    board: bytes | bytearray, start: int, seen: bytearray, stride: int
) -> tuple[list[int], int]:
    """The empty region around ``start`` (marked in ``seen``) and the colours it reaches
    (``BLACK | WHITE`` bits: one colour's area, a neutral region, or neither on an open board)."""
    seen[start] = 1
    region = [start]
    reach = 0
    i = 0
    while i < len(region):
        p = region[i]
        i += 1
        for n in (p - 1, p + 1, p - stride, p + stride):
            c = board[n]
            if c == EMPTY:
                if not seen[n]:
                    seen[n] = 1
                    region.append(n)
            elif c != EDGE:
                reach |= c
    return region, reach


class _Analysis:
    """Strings of one board: label per stone, liberties and Zobrist key per label."""

    def __init__(self, board: bytes, points: list[int], stride: int) -> None:
        label = [-1] * len(board)
        liberties: list[int] = []
        keys: list[int] = []
        atari_point: list[int] = []
        mark = [0] * len(board)  # liberty already counted for string ``mark - 1``
        for start in points:
            colour = board[start]
            if colour == EMPTY or label[start] >= 0:
                continue
            index = len(liberties)
            label[start] = index
            stack = [start]
            libs = 0
            key = 0
            last_liberty = 0
            base = colour * MAX_POINTS
            while stack:
                p = stack.pop()
                key ^= ZOBRIST[base + p]
                for n in (p - 1, p + 1, p - stride, p + stride):
                    v = board[n]
                    if v == EMPTY:
                        if mark[n] != index + 1:
                            mark[n] = index + 1
                            libs += 1
                            last_liberty = n
                    elif v == colour and label[n] < 0:
                        label[n] = index
                        stack.append(n)
            liberties.append(libs)
            keys.append(key)
            atari_point.append(last_liberty if libs == 1 else 0)
        self.label = label
        self.liberties = liberties
        self.keys = keys
        self.atari_point = atari_point


@mypyc_attr(allow_interpreted_subclasses=True)
class Go(Game[GoState, int]):
    """Go with area scoring and positional superko; evaluation = area by distance."""

    name = "go"
    title = "Go"
    players = ("black", "white")
    eval_unit = "tenths of a point (area by distance, komi included)"
    default_algorithm = MCTS
    win_odds_scale = WIN_ODDS_SCALE
    #: A playout also stops at the game's own end, :attr:`max_length` plies
    #: (``2 * size * size``), which comes first on every board; this bound
    #: (3 x 19 x 19) only keeps the generic contract.
    playout_limit = 3 * MAX_SIZE * MAX_SIZE
    OPTIONS = (
        Option("size", 9, "board size (lines)", int_option(MIN_SIZE, MAX_SIZE)),
        Option("komi", 7.5, "points given to White (a multiple of 0.5)", komi_option),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size: int = self.options["size"]
        # The komi as given (an int or a float), and twice it as an int:
        # scores are kept in half points so that no float enters them.
        komi: int | float = self.options["komi"]
        self.size = size
        self.komi = komi
        self.komi2 = int(komi * 2)
        stride = size + 1
        self.stride = stride
        length = (size + 2) * stride + 1
        self.length = length
        #: Plies after which the game ends and is scored.
        self.max_length = 2 * size * size
        self.points = [(row + 1) * stride + col + 1 for row in range(size) for col in range(size)]
        board = bytearray([EDGE]) * length
        for p in self.points:
            board[p] = EMPTY
        self.empty_board = bytes(board)
        # 1 on the first and last lines (where one enemy diagonal spoils an eye).
        edge = bytearray(length)
        for p in self.points:
            row, col = divmod(p, stride)
            if row in (1, size) or col in (1, size):
                edge[p] = 1
        self.on_edge = bytes(edge)
        # The four neighbours of each point (border points: none), for the
        # playouts: a list read is cheaper than building a tuple of four
        # sums, in both builds.
        self.neighbours: list[list[int]] = [[] for _ in range(length)]
        #: The four diagonal points of each point, likewise (eye tests, patterns).
        self.diagonals: list[list[int]] = [[] for _ in range(length)]
        for p in self.points:
            self.neighbours[p] = [p - 1, p + 1, p - stride, p + stride]
            self.diagonals[p] = [p - stride - 1, p - stride + 1, p + stride - 1, p + stride + 1]
        #: The heavy playout policy (:mod:`engine.games.go_policy`); False
        #: gives the light one, the yardstick of the benchmarks.
        self.heavy_playouts = True

    # ------------------------------------------------------------------
    # The game.

    def initial_state(self) -> GoState:
        return self._fresh_state(self.empty_board, 0)

    def _fresh_state(self, board: bytes, player: int) -> GoState:
        key = _board_key(board)
        return GoState(board, player, 0, 0, 0, 0, NO_MOVE, NO_KO, key, frozenset((key,)), -1)

    def to_move(self, state: GoState) -> int:
        return state.player

    def _over(self, state: GoState) -> bool:
        return state.passes >= 2 or state.resigned >= 0 or state.ply >= self.max_length

    def resumed(self, state: GoState) -> GoState:
        """``state`` with play going on, if two passes or the length bound ended it.

        The end of a game by passes is the players' agreement, not a rule
        of the board: KGS's clean-up phase, GoGui and SGF records play on
        after two passes. The board, the side to move, the ko, the
        captures and the superko history stay; the passes in a row and the
        plies count again from here. A resigned game stays over.
        """
        if state.resigned >= 0 or (state.passes < 2 and state.ply < self.max_length):
            return state
        return state._replace(passes=0, ply=0)

    def legal_moves(self, state: GoState) -> list[int]:
        if self._over(state):
            return []
        moves = self._point_moves(state, _Analysis(state.board, self.points, self.stride))
        moves.append(PASS)
        return moves

    def _point_moves(self, state: GoState, info: _Analysis) -> list[int]:
        """The legal moves on points, in board order."""
        board = state.board
        stride = self.stride
        me = state.player + 1
        base = me * MAX_POINTS
        label = info.label
        liberties = info.liberties
        keys = info.keys
        history = state.history
        key = state.board_key
        moves: list[int] = []
        for p in self.points:
            if board[p] != EMPTY:
                continue
            legal = False
            new_key = key ^ ZOBRIST[base + p]
            taken: list[int] | None = None  # strings this move captures
            for n in (p - 1, p + 1, p - stride, p + stride):
                v = board[n]
                if v == EMPTY:
                    legal = True
                elif v == EDGE:
                    continue
                elif v == me:
                    if liberties[label[n]] > 1:
                        legal = True
                else:
                    s = label[n]
                    if liberties[s] == 1:
                        legal = True
                        if taken is None:
                            taken = [s]
                            new_key ^= keys[s]
                        elif s not in taken:
                            taken.append(s)
                            new_key ^= keys[s]
            if legal and new_key not in history:
                moves.append(p)
        return moves

    def play(self, state: GoState, move: int) -> GoState:
        player = state.player
        if move == PASS:
            return state._replace(
                player=1 - player,
                passes=state.passes + 1,
                ply=state.ply + 1,
                last_move=PASS,
                ko=NO_KO,
            )
        if move == RESIGN:
            return state._replace(resigned=player, last_move=RESIGN, ply=state.ply + 1)
        board = bytearray(state.board)
        me = player + 1
        captured, _ = _place(board, move, me, self.stride)
        key = state.board_key ^ ZOBRIST[me * MAX_POINTS + move]
        base = (3 - me) * MAX_POINTS
        for s in captured:
            key ^= ZOBRIST[base + s]
        ko = NO_KO
        if len(captured) == 1:
            # Ko: a lone stone that took one stone and has that point as
            # its only liberty.
            stride = self.stride
            alone = True
            for n in (move - 1, move + 1, move - stride, move + stride):
                v = board[n]
                if v == me or (v == EMPTY and n != captured[0]):
                    alone = False
            if alone:
                ko = captured[0]
        black_captures, white_captures = state.black_captures, state.white_captures
        if player == 0:
            black_captures += len(captured)
        else:
            white_captures += len(captured)
        return GoState(
            bytes(board),
            1 - player,
            0,
            state.ply + 1,
            black_captures,
            white_captures,
            move,
            ko,
            key,
            state.history | {key},
            -1,
        )

    def outcome(self, state: GoState) -> Outcome | None:
        if state.resigned >= 0:
            return Outcome(1 - state.resigned, f"{self.players[state.resigned]} resigns")
        if state.passes < 2 and state.ply < self.max_length:
            return None
        black, white = _area(state.board, self.points, self.stride)
        return self._scored(black, white)

    def _scored(self, black: int, white: int) -> Outcome:
        margin2 = 2 * (black - white) - self.komi2
        if margin2 == 0:
            return Outcome(None, f"draw at {_half_points(2 * black)} points each")
        winner = 0 if margin2 > 0 else 1
        return Outcome(winner, f"{self.players[winner]} wins by {_half_points(margin2)}")

    def score(self, state: GoState) -> tuple[int, int]:
        """Black's and White's area on the board now (komi not included)."""
        return _area(state.board, self.points, self.stride)

    def result_text(self, state: GoState) -> str:
        """The area count now, komi included, as Go writes a result: ``B+3``, ``W+4.5``, ``0``.

        The notation of SGF's ``RE`` and of GTP's ``final_score``.
        """
        black, white = self.score(state)
        margin2 = 2 * (black - white) - self.komi2
        if margin2 == 0:
            return "0"
        return f"{'B' if margin2 > 0 else 'W'}+{_half_points(margin2)}"

    def evaluate(self, state: GoState) -> int:
        black, white = _distance_area(state.board, self.points, self.stride)
        value = POINT * (black - white) - POINT * self.komi2 // 2
        if state.player == 1:
            value = -value
        return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))

    def key(self, state: GoState) -> int:
        key: int = state.board_key ^ PASS_KEYS[min(state.passes, 2)]
        if state.player:
            key ^= SIDE_KEY
        return key

    def ordered_moves(self, state: GoState) -> list[int]:
        """Captures first, then moves next to own strings in atari, then the rest, pass last."""
        if self._over(state):
            return []
        info = _Analysis(state.board, self.points, self.stride)
        moves = self._point_moves(state, info)
        board = state.board
        stride = self.stride
        label = info.label
        liberties = info.liberties
        me = state.player + 1
        urgent: list[int] = []
        rest: list[int] = []
        for p in moves:
            hot = False
            for n in (p - 1, p + 1, p - stride, p + stride):
                v = board[n]
                if (v == me or v == 3 - me) and liberties[label[n]] == 1:
                    hot = True
            if hot:
                urgent.append(p)
            else:
                rest.append(p)
        urgent.extend(rest)
        urgent.append(PASS)
        return urgent

    def max_remaining_plies(self, state: GoState) -> int:
        return max(0, self.max_length - state.ply)

    # ------------------------------------------------------------------
    # Monte Carlo.

    def playout(
        self, state: GoState, rng: Random, max_plies: int
    ) -> tuple[float, list[tuple[int, int]]]:
        played: list[tuple[int, int]] = []
        if self._over(state):
            outcome = self.outcome(state)
            assert outcome is not None
            return self.reward(outcome), played
        board = PlayoutBoard(state.board, self.points, self.stride)
        limit = min(max_plies, self.max_length - state.ply)
        run_playout(
            board,
            state.player,
            state.passes,
            state.ko,
            state.last_move,
            rng,
            limit,
            self.on_edge,
            self.neighbours,
            self.diagonals,
            played,
            self.heavy_playouts,
        )
        black, white = _colour_area(board.colour, self.points, self.stride)
        margin2 = 2 * (black - white) - self.komi2
        if margin2 > 0:
            return 1.0, played
        if margin2 < 0:
            return 0.0, played
        return 0.5, played

    def moves_left(self, state: GoState) -> int:
        """The mover's share of the plies a game on this board lasts, less those played.

        Plies played are the game's, or the stones on the board if more (a
        position set up or loaded from a record starts at ply 0).
        """
        board = state.board
        stones = sum(1 for point in self.points if board[point] != EMPTY)
        played = max(state.ply, stones)
        length = GAME_LENGTH_PER_POINT * self.size * self.size
        return max(MIN_MOVES_LEFT, math.ceil((length - played) / 2))

    def time_weight(self, state: GoState) -> float:
        """Less time in the opening and the endgame, more in the middle game (TIME_* above)."""
        share = state.ply / (self.size * self.size)
        if share < TIME_OPENING_END:
            return TIME_OPENING_WEIGHT
        if share < TIME_ENDGAME_START:
            return TIME_MIDDLE_WEIGHT
        return TIME_ENDGAME_WEIGHT

    def priors(self, state: GoState, moves: list[int]) -> tuple[list[int], list[int]] | None:
        """Virtual visits and wins for the mover of each move (:func:`go_policy.priors`)."""
        return go_policy.priors(
            state.board, state.player, state.last_move, self.stride, self.size, moves
        )

    def quick_move(self, state: GoState) -> int:
        """The playout policy's move (capture, escape, shape, else a random move that fills
        no own eye), seeded by the position: a board's first point, the corner A9, was the
        answer with no time to search before."""
        return self.playout_move(state, Random(self.key(state)))

    def playout_move(self, state: GoState, rng: Random) -> int:
        """The playout policy's move, among the legal moves (superko respected)."""
        info = _Analysis(state.board, self.points, self.stride)
        moves = self._point_moves(state, info)
        if not moves:
            return PASS
        legal = set(moves)
        board = state.board
        stride = self.stride
        last = state.last_move
        me = state.player + 1
        if last > RESIGN and board[last] == 3 - me:
            point = info.atari_point[info.label[last]]
            if point in legal:
                return point
            for n in (last - 1, last + 1, last - stride, last + stride):
                if board[n] == me:
                    point = info.atari_point[info.label[n]]
                    if point in legal:
                        free = 0
                        for m in (point - 1, point + 1, point - stride, point + stride):
                            if board[m] == EMPTY:
                                free += 1
                        if free >= 2:
                            return point
        start = int(rng.random() * len(moves))
        for i in range(len(moves)):
            p = moves[(start + i) % len(moves)]
            if not self._own_eye(board, p, me):
                return p
        return PASS

    def _own_eye(self, board: bytes, p: int, me: int) -> bool:
        stride = self.stride
        for n in (p - 1, p + 1, p - stride, p + stride):
            v = board[n]
            if v != me and v != EDGE:
                return False
        bad = self.on_edge[p]
        for d in (p - stride - 1, p - stride + 1, p + stride - 1, p + stride + 1):
            if board[d] == 3 - me:
                bad += 1
        return bad < 2

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: GoState, move: int) -> str:
        if move == PASS:
            return "pass"
        if move == RESIGN:
            return "resign"
        row, col = divmod(move, self.stride)
        if not (0 < row <= self.size and 0 < col <= self.size):
            # NO_MOVE (a state's last move before any) or a stray number:
            # a clear error rather than a vertex off the board.
            raise ValueError(f"{move} is not a move on a {self.size}x{self.size} board")
        return f"{COLUMNS[col - 1]}{self.size + 1 - row}"

    def point(self, text: str) -> int | None:
        """The point of a GTP vertex (``D4``), or None when it is not one on this board."""
        text = text.strip().upper()
        if len(text) < 2 or text[0] not in COLUMNS or not text[1:].isdigit():
            return None
        col = COLUMNS.index(text[0]) + 1
        number = int(text[1:])
        if col > self.size or not 1 <= number <= self.size:
            return None
        return (self.size + 1 - number) * self.stride + col

    def parse_move(self, state: GoState, text: str) -> int:
        if self._over(state):
            raise GameOverError("the game is over: no move can be played")
        word = text.strip().lower() if isinstance(text, str) else ""
        if word == "pass":
            return PASS
        if word == "resign":
            return RESIGN
        p = self.point(word) if word else None
        if p is not None and state.board[p] == EMPTY and self._legal_point(state, p):
            return p
        legal = self.legal_moves(state)
        raise IllegalMoveError(
            f"{text!r} is not a legal move here: {self.why_illegal(state, text)}",
            [self.format_move(state, m) for m in legal],
        )

    def why_illegal(self, state: GoState, text: str) -> str:
        """Why ``text`` is not a legal move in ``state``, in words a player reads.

        Not a vertex, the missing column I (GTP skips it), off the board, an
        occupied point, suicide, or a repeated whole-board position (ko,
        positional superko). The server puts it in its ``illegal_move`` error,
        so that every client shows the same reason.
        """
        word = text.strip().upper() if isinstance(text, str) else ""
        letter, number = word[:1], word[1:]
        if not (letter.isalpha() and number.isdigit() and len(number) <= 2):
            return "a point is a column letter and a row number, like D4 (or pass)"
        if letter == "I":
            return "there is no column I: Go boards skip the letter, so H is followed by J"
        p = self.point(word)
        if p is None:
            columns = COLUMNS[: self.size]
            return (
                f"{word} is off the {self.size}x{self.size} board "
                f"(columns {columns[0]}-{columns[-1]} without I, rows 1-{self.size})"
            )
        if state.board[p] != EMPTY:
            return f"{word} is occupied"
        board = bytearray(state.board)
        _captured, alive = _place(board, p, state.player + 1, self.stride)
        if not alive:
            return f"{word} would be suicide: its own string would be left without a liberty"
        return f"{word} would repeat an earlier whole-board position (ko, positional superko)"

    def _legal_point(self, state: GoState, p: int) -> bool:
        """Whether a stone on the empty point ``p`` is legal (no suicide, no superko)."""
        board = bytearray(state.board)
        me = state.player + 1
        captured, alive = _place(board, p, me, self.stride)
        if not alive:
            return False
        key = state.board_key ^ ZOBRIST[me * MAX_POINTS + p]
        base = (3 - me) * MAX_POINTS
        for s in captured:
            key ^= ZOBRIST[base + s]
        return key not in state.history

    def format_position(self, state: GoState) -> str:
        board = state.board
        stride = self.stride
        rows = []
        for row in range(1, self.size + 1):
            rows.append(
                "".join(".XO"[board[row * stride + col]] for col in range(1, self.size + 1))
            )
        return "/".join(rows) + (" X" if state.player == 0 else " O")

    def parse_position(self, text: str) -> GoState:
        if not isinstance(text, str):
            raise BadPositionError("a Go position is a string")
        text = text.strip()
        if text.startswith("("):
            return self._parse_sgf(text)
        size = self.size
        parts = text.split()
        rows = parts[0].split("/") if parts else []
        if len(parts) != 2 or parts[1] not in ("X", "O") or len(rows) != size:
            raise BadPositionError(
                f"a {size}x{size} Go position is {size} rows of {size} points (., X or O)"
                " from the top separated by /, a space and the side to move (X or O),"
                " or an SGF record"
            )
        board = bytearray(self.empty_board)
        for r, row in enumerate(rows):
            if len(row) != size:
                raise BadPositionError(
                    f"row {r + 1} from the top has {len(row)} points, not {size}"
                )
            for c, char in enumerate(row):
                if char not in ".XO":
                    raise BadPositionError(f"row {r + 1} from the top: {char!r} is not ., X or O")
                board[(r + 1) * self.stride + c + 1] = ".XO".index(char)
        self._check_alive(board)
        return self._fresh_state(bytes(board), 0 if parts[1] == "X" else 1)

    def _check_alive(self, board: bytearray) -> None:
        """Refuse a board with a string that has no liberty (it could not arise)."""
        for p in self.points:
            if board[p] != EMPTY:
                stones: list[int] = []
                if not _string(board, p, self.stride, stones):
                    raise BadPositionError(
                        f"the string at {self.format_move(self.initial_state(), p)} has no liberty"
                    )

    # ------------------------------------------------------------------
    # SGF.

    def _parse_sgf(self, text: str) -> GoState:
        nodes = _sgf_main_line(text)
        if not nodes:
            raise BadPositionError("the SGF record has no node")
        root = nodes[0]
        for prop, values in root:
            if prop == "SZ":
                declared = values[0].strip() if values else ""
                columns, _, rows = declared.partition(":")
                if rows and rows.strip() != columns.strip():
                    raise BadPositionError(f"SGF SZ[{declared}]: only square boards are played")
                declared = columns.strip()
                if declared != str(self.size):
                    raise BadPositionError(
                        f"the SGF record is for a board of size {declared or '?'},"
                        f" this game's board is {self.size}"
                    )
        if not any(prop == "SZ" for prop, _ in root) and self.size != 19:
            raise BadPositionError(
                f"the SGF record has no SZ (so its board is 19x19), this game's board is"
                f" {self.size}"
            )
        state = self._fresh_state(self.empty_board, 0)
        to_move = -1
        any_setup = black_setup = white_setup = False
        for number, node in enumerate(nodes):
            setup = False
            board = bytearray(state.board)
            for prop, values in node:
                if prop in ("AB", "AW", "AE"):
                    setup = True
                    colour = {"AB": BLACK, "AW": WHITE, "AE": EMPTY}[prop]
                    for value in values:
                        for p in self._sgf_points(value, prop):
                            board[p] = colour
                    black_setup = black_setup or prop == "AB"
                    white_setup = white_setup or prop == "AW"
            if setup:
                any_setup = True
                self._check_alive(board)
                key = _board_key(bytes(board))
                state = state._replace(
                    board=bytes(board),
                    board_key=key,
                    history=frozenset((key,)),
                    passes=0,
                    ko=NO_KO,
                    last_move=NO_MOVE,
                )
            for prop, values in node:
                if prop == "PL":
                    value = values[0].strip().upper() if values else ""
                    if value not in ("B", "W"):
                        raise BadPositionError(f"SGF PL[{value}] is not B or W")
                    to_move = 0 if value == "B" else 1
                    state = state._replace(player=to_move)
            for prop, values in node:
                if prop in ("B", "W"):
                    player = 0 if prop == "B" else 1
                    value = values[0].strip() if values else ""
                    # A record may play on after two passes (a clean-up phase).
                    state = self.resumed(state)._replace(player=player)
                    move = self._sgf_move(value, prop)
                    if self._over(state):
                        raise BadPositionError(f"SGF node {number + 1}: the game is already over")
                    if move != PASS and not (
                        state.board[move] == EMPTY and self._legal_point(state, move)
                    ):
                        raise BadPositionError(
                            f"SGF node {number + 1}: {prop}[{value}]"
                            f" ({self.format_move(state, move)}) is not a legal move"
                        )
                    state = self.play(state, move)
                    to_move = state.player
        if to_move < 0 and any_setup and black_setup and not white_setup:
            state = state._replace(player=1)  # handicap stones: White moves first
        return state

    def _sgf_point(self, value: str, prop: str) -> int:
        if (
            len(value) != 2
            or value[0] not in SGF_LETTERS[: self.size]
            or value[1] not in SGF_LETTERS[: self.size]
        ):
            raise BadPositionError(
                f"SGF {prop}[{value}] is not a point of a {self.size}x{self.size} board"
            )
        col = SGF_LETTERS.index(value[0]) + 1
        row = SGF_LETTERS.index(value[1]) + 1
        return row * self.stride + col

    def _sgf_points(self, value: str, prop: str) -> list[int]:
        value = value.strip()
        if ":" not in value:
            return [self._sgf_point(value, prop)]
        first, _, second = value.partition(":")
        a = self._sgf_point(first.strip(), prop)
        b = self._sgf_point(second.strip(), prop)
        (r1, c1), (r2, c2) = divmod(a, self.stride), divmod(b, self.stride)
        return [
            r * self.stride + c
            for r in range(min(r1, r2), max(r1, r2) + 1)
            for c in range(min(c1, c2), max(c1, c2) + 1)
        ]

    def _sgf_move(self, value: str, prop: str) -> int:
        if value == "" or (value == "tt" and self.size <= 19):
            return PASS
        return self._sgf_point(value, prop)


def _board_key(board: bytes) -> int:
    key = 0
    for p in range(len(board)):
        v = board[p]
        if v in (BLACK, WHITE):
            key ^= ZOBRIST[v * MAX_POINTS + p]
    return key


def _colour_area(colour: list[int], points: list[int], stride: int) -> tuple[int, int]:
    """:func:`_area` of a playout board (a list)."""
    return _area(bytes(colour), points, stride)


def _distance_area(board: bytes, points: list[int], stride: int) -> tuple[int, int]:
    """Stones plus the empty points nearer to one colour's stones than to the other's.

    A breadth-first search from all stones at once, layer by layer: an
    empty point first reached in the same layer from both colours (or from
    a neutral point) is neutral and stays so.
    """
    owner = bytearray(len(board))  # 0 unreached, 1 Black, 2 White, 3 neutral
    layer = [0] * len(board)  # the layer an empty point was reached in
    frontier: list[int] = []
    black = white = 0
    for p in points:
        v = board[p]
        if v in (BLACK, WHITE):
            owner[p] = v
            frontier.append(p)
            if v == BLACK:
                black += 1
            else:
                white += 1
    depth = 0
    while frontier:
        depth += 1
        reached: list[int] = []
        for p in frontier:
            o = owner[p]
            for n in (p - 1, p + 1, p - stride, p + stride):
                if board[n] != EMPTY:
                    continue
                have = owner[n]
                if have == 0:
                    owner[n] = o
                    layer[n] = depth
                    reached.append(n)
                elif have != o and layer[n] == depth:
                    owner[n] = 3
        frontier = reached
    for p in points:
        if board[p] == EMPTY:
            if owner[p] == BLACK:
                black += 1
            elif owner[p] == WHITE:
                white += 1
    return black, white


def _sgf_main_line(text: str) -> list[list[tuple[str, list[str]]]]:
    """The nodes of an SGF game's main line (first variation at each fork).

    Each node is a list of ``(property, values)``; only upper-case letters
    of a property name count (old SGF allowed ``AddBlack``-style names).
    """
    nodes: list[list[tuple[str, list[str]]]] = []
    i = 0
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    if i >= n or text[i] != "(":
        raise BadPositionError("an SGF record starts with '('")
    i += 1
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            raise BadPositionError("the SGF record ends before its closing ')'")
        char = text[i]
        if char == ";":
            i += 1
            node: list[tuple[str, list[str]]] = []
            while True:
                while i < n and text[i].isspace():
                    i += 1
                start = i
                while i < n and text[i].isalpha():
                    i += 1
                if i == start:
                    break
                name = "".join(c for c in text[start:i] if c.isupper())
                values: list[str] = []
                while True:
                    while i < n and text[i].isspace():
                        i += 1
                    if i >= n or text[i] != "[":
                        break
                    i += 1
                    chars: list[str] = []
                    while i < n and text[i] != "]":
                        if text[i] == "\\" and i + 1 < n:
                            i += 1
                        chars.append(text[i])
                        i += 1
                    if i >= n:
                        raise BadPositionError(f"SGF property {name} has an unclosed '['")
                    i += 1
                    values.append("".join(chars))
                if not values:
                    raise BadPositionError(f"SGF property {name or '?'} has no [value]")
                node.append((name, values))
            nodes.append(node)
        elif char == "(":
            i += 1  # the first variation continues the main line
        elif char == ")":
            return nodes
        else:
            raise BadPositionError(f"unexpected {char!r} at character {i + 1} of the SGF record")


# ----------------------------------------------------------------------
# Dead stones: ownership by playouts, and the clean-up phase's move.

#: Playouts behind an ownership estimate (:func:`ownership`, a GTP analyze
#: view): at 2,200 playouts a second (9x9, pure build) some 30 ms.
OWNERSHIP_PLAYOUTS: Final = 64
#: Stones closed in by at least this many times as many opposing stones,
#: without two eyes, are taken for dead (:func:`dead_stones`): a rule of
#: thumb set by hand, which leaves a wall facing a wall alone.
DEAD_WALL_RATIO: Final = 2
#: A region with at most this many empty points and not two eyes is dead
#: whatever its size: two empty points make one eye at most (the first
#: lesson of life and death in any Go primer). A 16-stone group round a
#: two-point eye, which GNU Go counts dead, stayed on the board of a
#: clean-up phase and gave the opposite count (2026-11-29).
DEAD_EYE_SPACE: Final = 2


def ownership(
    game: Go,
    state: GoState,
    playouts: int = OWNERSHIP_PLAYOUTS,
    seed: int = 0,
    deadline: float | None = None,
) -> list[float]:
    """Black's share of each point at the end of random playouts, from -1 (White's) to 1.

    Indexed by the board's points (``game.points``); a stone or an empty
    point is owned at a playout's end by the colour on it or, empty, by the
    only colour around it. The playouts are the search's own (the passes
    so far forgotten, so that they play the position out); at least one is
    played, then they stop at ``deadline`` (``time.monotonic()`` seconds).
    """
    import time  # only this judgement reads the clock

    rng = Random(seed ^ state.board_key)
    stride = game.stride
    points = game.points
    totals = [0] * len(points)
    played = 0
    while played < playouts:
        board = PlayoutBoard(state.board, points, stride)
        run_playout(
            board,
            state.player,
            0,
            state.ko,
            state.last_move,
            rng,
            game.max_length,
            game.on_edge,
            game.neighbours,
            game.diagonals,
            [],
        )
        colour = board.colour
        for i, p in enumerate(points):
            v = colour[p]
            if v == EMPTY:
                reach = 0
                for n in (p - 1, p + 1, p - stride, p + stride):
                    c = colour[n]
                    if c != EDGE:
                        reach |= c
                v = reach if reach in (BLACK, WHITE) else EMPTY
            if v == BLACK:
                totals[i] += 1
            elif v == WHITE:
                totals[i] -= 1
        played += 1
        if deadline is not None and time.monotonic() >= deadline:
            break
    return [total / played for total in totals]


def dead_stones(game: Go, state: GoState) -> list[int]:
    """The stones on the board (points) that a capture-all-dead policy would take off.

    A rule of thumb, not a life-and-death reader: the stones of one colour
    in a region closed by the other colour (connected points that are empty
    or of that colour) are dead when they have fewer than two eyes (empty
    points of the region whose neighbours are all theirs) and the closing
    stones outnumber them by :data:`DEAD_WALL_RATIO` or more (a few stones
    inside a wall, as after two passes in a finished game), or the region
    holds at most :data:`DEAD_EYE_SPACE` empty points (a group of any size
    round a space too small for two eyes). A wall facing a wall of the same
    length, a group with two eyes, and a large living group stay alive.
    """
    board = state.board
    stride = game.stride
    seen = bytearray(len(board))
    dead: list[int] = []
    for start in game.points:
        colour = board[start]
        if colour not in (BLACK, WHITE) or seen[start]:
            continue
        other = 3 - colour
        region = [start]
        seen_here = {start}
        stones: list[int] = []
        closing: set[int] = set()
        eyes = 0
        empty = 0
        i = 0
        while i < len(region):
            p = region[i]
            i += 1
            if board[p] == colour:
                stones.append(p)
                seen[p] = 1
            else:
                empty += 1
                eye = True
                for n in (p - 1, p + 1, p - stride, p + stride):
                    if board[n] != colour and board[n] != EDGE:
                        eye = False
                eyes += eye
            for n in (p - 1, p + 1, p - stride, p + stride):
                v = board[n]
                if v == other:
                    closing.add(n)
                elif v != EDGE and n not in seen_here:
                    seen_here.add(n)
                    region.append(n)
        if eyes < 2 and (len(closing) >= DEAD_WALL_RATIO * len(stones) or empty <= DEAD_EYE_SPACE):
            dead.extend(stones)
    return sorted(dead)


def cleanup_move(game: Go, state: GoState) -> int | None:
    """A move towards taking the opponent's dead stones off the board; ``None`` when none is left.

    The move of a clean-up phase in place of a pass (protocol.md,
    ``think.cleanup``): a capture of a dead string first, else a liberty of
    the dead string with the fewest, played where the mover's own string
    keeps two liberties (no self-atari); else, in a dead string's last two
    liberties (its eye space), a stone put in atari on purpose: taking it
    leaves the string one liberty, and the next move takes the string. The
    mover's own dead stones are the opponent's to take.
    """
    if game._over(state):
        return None
    enemy = 2 - state.player
    dead = [p for p in dead_stones(game, state) if state.board[p] == enemy]
    if not dead:
        return None
    info = _Analysis(state.board, game.points, game.stride)
    legal = set(game._point_moves(state, info))
    stride = game.stride
    board = state.board
    best: tuple[int, int] | None = None
    placement: int | None = None
    for s in sorted({info.label[p] for p in dead}, key=lambda label: info.liberties[label]):
        for p in dead:
            if info.label[p] != s:
                continue
            for n in (p - 1, p + 1, p - stride, p + stride):
                if board[n] != EMPTY or n not in legal:
                    continue
                if info.liberties[s] == 1:
                    return n  # the capture
                after = game.play(state, n)
                mine = _Analysis(after.board, game.points, stride)
                freedom = mine.liberties[mine.label[n]]
                if freedom >= 2 and (best is None or info.liberties[s] < best[0]):
                    best = (info.liberties[s], n)
                elif info.liberties[s] == 2 and placement is None:
                    around = (n - 1, n + 1, n - stride, n + stride)
                    if all(after.board[m] != after.board[n] for m in around):
                        placement = n  # a lone stone: taking it costs the string
    if best is not None:
        return best[1]
    return placement


def fills_own_eye(game: Go, state: GoState, move: int) -> bool:
    """Whether ``move`` puts a stone in one of the mover's own eyes (a point whose four
    neighbours are the mover's stones or the edge, and not a false eye).

    Under area counting the point is the mover's either way, and the stone
    takes a liberty from its own group: never a gain. A search that sees
    every move win alike may choose one (ours did, at 100 ms a move, until
    its whole area had one eye left, 2026-11-29); the answer passes instead.
    """
    return move not in (PASS, RESIGN) and game._own_eye(state.board, move, state.player + 1)


def in_own_area(game: Go, state: GoState, move: int) -> bool:
    """Whether ``move`` is an empty point of a region that reaches only the mover's
    stones (its own area as the board is counted).

    A stone there changes no count under area scoring. After the opponent
    has passed, a search that sees every line won may still choose one (H5,
    J7, H3 inside its own area with a neutral column left, a review of
    2026-12-07): the answer plays what a pass would give away instead.
    """
    if move in (PASS, RESIGN) or state.board[move] != EMPTY:
        return False
    seen = bytearray(len(state.board))
    _, reach = _region(state.board, move, seen, game.stride)
    return reach == state.player + 1


def gaining_move(game: Go, state: GoState) -> int | None:
    """A move that still gains on the board's count, for a search that would pass; else ``None``.

    Under area counting a pass gives away what a move could still take:
    the opponent's dead stones (:func:`cleanup_move`), then a neutral point
    (an empty point of a region that borders both colours, or neither on an
    open board) that the mover can fill keeping two liberties: one touching
    both colours first, else the best of the others by the tree's priors.
    ``None`` when passing loses nothing.
    """
    move = cleanup_move(game, state)
    if move is not None:
        return move
    if game._over(state):
        return None
    board = state.board
    stride = game.stride
    info = _Analysis(board, game.points, stride)
    legal = set(game._point_moves(state, info))
    me = state.player + 1
    for p in game.points:
        if p not in legal:
            continue
        near = 0
        for n in (p - 1, p + 1, p - stride, p + stride):
            v = board[n]
            if v in (BLACK, WHITE):
                near |= v
        if near != BLACK | WHITE:
            continue  # a neutral point touches both colours
        if _keeps_two_liberties(game, state, p, me):
            return p
    # No point touches both colours, yet a region may still reach both (or
    # neither: an open board, a gap of two points between two walls): a
    # move there still gains, where a pass ended a game at move 3 with 79
    # neutral points on the board (a browser review, 2026-12-07). The best
    # such point by the tree's priors (shape, distance to the last move).
    candidates = [p for p in _unsettled_points(board, game.points, stride) if p in legal]
    if not candidates:
        return None
    ranked = go_policy.priors(board, state.player, state.last_move, stride, game.size, candidates)
    visits, wins = ranked
    order = sorted(range(len(candidates)), key=lambda i: (-wins[i] / visits[i], candidates[i]))
    for i in order:
        if _keeps_two_liberties(game, state, candidates[i], me):
            return candidates[i]
    return None


def _keeps_two_liberties(game: Go, state: GoState, point: int, me: int) -> bool:
    """Whether ``point`` stays the mover's with at least two liberties once played."""
    after = game.play(state, point)
    mine = _Analysis(after.board, game.points, game.stride)
    return after.board[point] == me and mine.liberties[mine.label[point]] >= 2


def _unsettled_points(board: bytes, points: list[int], stride: int) -> list[int]:
    """The empty points of regions that reach both colours or neither (not yet anyone's area)."""
    unsettled: list[int] = []
    seen = bytearray(len(board))
    for start in points:
        if board[start] == EMPTY and not seen[start]:
            region, reach = _region(board, start, seen, stride)
            if reach not in (BLACK, WHITE):
                unsettled.extend(region)
    return unsettled


def passing_wins(game: Go, state: GoState) -> bool:
    """Whether a pass now ends the game, the side to move winning the board as it stands.

    The opponent has just passed, so a pass is the game's second in a row
    and the board is counted (area, komi included). Only a board that
    needs no clean-up qualifies: no dead stones by :func:`dead_stones` (the
    opponent's would be a point given away, the mover's a count that
    flatters it), so the count is the one a capture-all-dead referee
    makes too. A search that wins every line may answer any move there
    (ours filled its area, or played inside the opponent's, while a player
    in the browser passed again and again, 2026-12-06); passing back ends
    the game it has won, as Pachi and KataGo do.
    """
    if state.passes != 1 or game._over(state) or dead_stones(game, state):
        return False
    outcome = game.outcome(game.play(state, PASS))
    return outcome is not None and outcome.winner == state.player


#: Resign when the search gives the side to move less than this chance of
#: winning (protocol.md, ``bestmove``): 5%, the level at which Monte Carlo
#: programs commonly resign, low enough that a light-playout search's
#: noise (a few percent at a thousand playouts) does not cross it.
RESIGN_BELOW: Final = 0.05
#: No resignation before this share of the board's points has been played
#: (plies since the game's start, or stones on the board, whichever is
#: more): early win rates are noisy.
RESIGN_AFTER_SHARE: Final = 0.4
#: No resignation on a win rate that has not stayed low over this many
#: games played out, summed over the streak of searches that resigns
#: (:data:`RESIGN_CONSECUTIVE`): each of them must rest on at least
#: :data:`RESIGN_MIN_THINK_PLAYOUTS` (its own playouts and those of the tree
#: it reused, ``SearchResult.root_playouts``). A streak of short thinks
#: (50 ms, some 250 playouts each) once never resigned and played on until
#: the whole board was taken.
RESIGN_MIN_PLAYOUTS: Final = 500
#: A side resigns only when this many of its searches in a row, in one game,
#: would each resign (:func:`should_resign`); the earlier ones play their
#: best move. KataGo's ``resignConsecTurns`` (default 3) is the model: one
#: search can misjudge a fight, and a resignation cannot be taken back
#: (GNU Go counted W+0.5 for our White on the board where it resigned, at
#: move 82 of a game in docs/benchmarks.md, issue 30's fifth step).
RESIGN_CONSECUTIVE: Final = 3
#: The playouts each search of the streak rests on at least (167).
RESIGN_MIN_THINK_PLAYOUTS: Final = -(-RESIGN_MIN_PLAYOUTS // RESIGN_CONSECUTIVE)


class ResignStreak:
    """Per side, how many searches in a row in one game would have resigned.

    The one home of the RESIGN_CONSECUTIVE rule, kept by whoever answers
    for a game (the server's session, ``arena gtp``); a new game takes a
    new streak.
    """

    def __init__(self) -> None:
        self.counts = [0, 0]

    def confirms(self, side: int, low: bool, record: bool = True) -> bool:
        """Whether ``side``'s search, ``low`` when it would resign, resigns now.

        ``record=False`` asks what it would do without counting it (GTP's
        ``reg_genmove``).
        """
        streak = self.counts[side] + 1 if low else 0
        if record:
            self.counts[side] = streak
        return streak >= RESIGN_CONSECUTIVE


def should_resign(
    game: Go, state: GoState, win_chance: float, playouts: int, below: float = RESIGN_BELOW
) -> bool:
    """Whether a search that gives the side to move ``win_chance`` after ``playouts`` resigns.

    ``below`` is the threshold: the server's :data:`RESIGN_BELOW`, or the
    one ``arena gtp --resign-below`` was given.
    """
    if win_chance >= below or playouts < RESIGN_MIN_THINK_PLAYOUTS:
        return False
    stones = sum(1 for p in game.points if state.board[p] != EMPTY)
    return max(state.ply, stones) >= RESIGN_AFTER_SHARE * game.size * game.size


def sgf_main_line(text: str) -> list[list[tuple[str, list[str]]]]:
    """The nodes of an SGF game's main line, each a list of (property, values).

    Raises :class:`~engine.errors.BadPositionError` for text that is not SGF.
    """
    return _sgf_main_line(text)

"""Go knowledge for Monte Carlo tree search: the playout policy and the tree's priors.

Reading guide
-------------

Plain Monte Carlo Go plays random games to the end and counts who won.
Random games are a poor judge: a random player leaves its stones in atari,
plays on the first line for nothing and fills its own eyes, so the search
spends its playouts on moves a beginner would not look at. Every strong
Monte Carlo program since MoGo (2006) adds Go knowledge in two places,
and this module holds both, in the order to read them:

1. **The playout board** (:class:`PlayoutBoard`): a mutable board whose
   strings keep *pseudo-liberties* (a liberty counted once per adjacent
   stone) with their sum and sum of squares, so that "is this string in
   atari, and where is its last liberty?" costs O(1)
   (:func:`in_atari`, :func:`atari_liberty`).

2. **3x3 patterns** (:data:`PATTERNS`, :func:`pattern_code`): the eight
   points around an empty point, two bits each, make a 16-bit code; a
   table (:data:`PATTERN_TABLE`) says for each code and each side to move
   whether the point is a good shape move (hane, cut, connecting against
   a cut, blocking on the edge). The shapes are written out below from
   ordinary Go knowledge, in the spirit of the hand-made patterns of
   Gelly, Wang, Munos & Teytaud, "Modification of UCT with patterns in
   Monte-Carlo Go" (INRIA RR-6062, 2006, section 3), and of michi's
   and Pachi's 3x3 sets; the table is built from them at import.

3. **Heavy playouts** (:func:`run_playout`): each move of a playout is
   the first of these that applies, looking first near the opponent's
   last move (where the action is):

   a. capture the opponent's last string if it is in atari, or another
      opponent string next to the last move that is in atari;
   b. save an own string next to the last move from atari: by capturing
      an opponent string that touches it, else by extending where the
      string gets at least two liberties, unless it then dies in a ladder
      (:mod:`engine.games.go_ladder`, a short read:
      :data:`~engine.games.go_ladder.PLAYOUT_BUDGET` stones);
   c. with probability :data:`PROB_PATTERN`, a point next to the last move
      that matches a 3x3 pattern and is not a self-atari;
   d. a random legal move that fills none of the mover's own eyes and is
      not a self-atari of two or more stones (a lone stone's self-atari,
      sometimes a useful throw-in, is refused with probability
      :data:`PROB_REJECT_LONE_SELF_ATARI`).

   Steps a and b are the classic capture/escape heuristics of MoGo;
   c and d's self-atari rule come from the same paper and from Pachi
   (Baudis & Gailly, "Pachi: State of the art open source Go program",
   ACG 2011). With ``heavy=False`` only the older light policy runs (a,
   the extension of b when the liberty has two empty neighbours, and d
   without the self-atari rule): the yardstick the benchmarks compare to.

4. **Priors** (:func:`priors`): when the tree search first lists a node's
   moves, each move starts with *virtual* visits and wins, as if it had
   already been played out a few times (progressive bias; Chaslot et al.,
   "Progressive strategies for Monte-Carlo tree search", 2008; Gelly &
   Silver 2007 "Combining online and offline knowledge in UCT" call it a
   prior). Every move gets an even prior (:data:`PRIOR_EVEN` visits at a
   win rate of one half); captures, atari escapes, ataris that start a
   working ladder, pattern moves and moves near the last move get virtual
   wins; self-ataris, escapes into a working ladder and first-line
   moves far from every stone get virtual losses (the ladders are read by
   :mod:`engine.games.go_ladder`). The search
   (:mod:`engine.search.mcts`) asks the game for these through
   :meth:`engine.game.Game.priors`, so it needs no Go knowledge itself.

The constants' values are set by hand in the range michi and Pachi use
(michi: Petr Baudis, 2015, a ~550-line Python Go engine; its defaults are
an even prior of 10 visits, 15-30 for captures, 10 for a pattern) and
kept where the benchmarks in docs/benchmarks.md measured them.

Why one module: read top to bottom beside its reading guide, as michi keeps
its policy in one file: the patterns, the playout and the priors use the
same board and neighbour tables; hence the length (over 600 lines).
"""

from __future__ import annotations

from random import Random
from typing import Final

from mypy_extensions import i64

from engine.games.go_ladder import PLAYOUT_BUDGET, PRIORS_BUDGET, atari_captures, escape_fails

#: Point contents on the board (:mod:`engine.games.go` uses the same codes).
EMPTY: Final = 0
BLACK: Final = 1
WHITE: Final = 2
EDGE: Final = 3
#: The pass move: a border index no stone can take.
PASS: Final = 0
#: No simple-ko point.
NO_KO: Final = 0

# ----------------------------------------------------------------------
# Tuned constants (see the module docstring for their sources).

#: Probability that a playout move tries the 3x3 patterns around the last
#: move (step c). MoGo and michi play a pattern move when one exists with
#: probability near 1 (michi: 0.95); a little randomness keeps playouts
#: from repeating one line.
PROB_PATTERN: Final = 0.9
#: Probability that a random move which puts a lone stone in atari is
#: refused (michi refuses random self-ataris half the time: 0.5).
PROB_REJECT_LONE_SELF_ATARI: Final = 0.5

#: Virtual visits at a win rate of one half given to every move (michi 10;
#: even, so that half of it is a whole number of wins).
PRIOR_EVEN: Final = 10
#: Virtual wins (and as many visits) for a move that captures one stone,
#: and several (michi: 15 and 30).
PRIOR_CAPTURE_ONE: Final = 15
PRIOR_CAPTURE_MANY: Final = 30
#: Virtual wins for a move that saves an own string in atari (it ends
#: with three liberties or more, or two and no working ladder). Set like a
#: capture of one stone.
PRIOR_ESCAPE: Final = 15
#: Virtual losses for an escape that runs out of atari into a ladder that
#: works (:mod:`engine.games.go_ladder`): it only adds stones to a dead
#: string, as bad as a self-atari, so as many (michi refuses such an escape
#: in its ``fix_atari``; the virtual loss is ours). An atari that starts a
#: working ladder gets the capture priors above, by the stones it takes,
#: as michi counts a ladder attack among its capture moves.
PRIOR_LADDER_RUN: Final = 10
#: Virtual wins for a move that matches a 3x3 pattern (michi 10).
PRIOR_PATTERN: Final = 10
#: Virtual losses (visits, no wins) for a self-atari (michi 10).
PRIOR_SELF_ATARI: Final = 10
#: Virtual wins for a move near the last move, by gridcular distance
#: ``dx + dy + max(dx, dy)`` (Pachi's measure): 2-3 (the eight neighbours),
#: 4-5 (one further). michi gives 24 / 22 / 8 by its own distance.
PRIOR_NEAR_LAST: Final = 20
PRIOR_FAR_LAST: Final = 10
#: Virtual losses for a first-line move and virtual wins for a third-line
#: move when no stone stands within :data:`EMPTY_AREA_DISTANCE` (Manhattan)
#: of the point: the opening proverbs "the first line is for death" and
#: "the third line is for territory" (michi: 10 either way).
PRIOR_FIRST_LINE: Final = 10
PRIOR_THIRD_LINE: Final = 10
EMPTY_AREA_DISTANCE: Final = 3

# ----------------------------------------------------------------------
# The playout board.


class PlayoutBoard:
    """A mutable board for playouts: strings as circular lists with pseudo-liberties.

    ``colour`` is the board (one of the point codes per index, the border
    ring :data:`EDGE`); each stone's ``head`` names its string, ``next``
    links the string's stones in a ring; per head, ``stones`` counts them
    and ``libs``, ``lib_sum`` and ``lib_squares`` the pseudo-liberties,
    their sum and the sum of their squares. ``empties`` lists the empty
    points and ``where`` gives each one's index in it.
    """

    def __init__(self, board: bytes, points: list[int], stride: int) -> None:
        size = len(board)
        self.stride = stride
        self.colour = list(board)
        self.head = [0] * size
        self.next = [0] * size
        self.stones = [0] * size
        self.libs = [0] * size  # pseudo-liberties, per string head
        self.lib_sum = [0] * size
        self.lib_squares = [0] * size
        self.empties: list[int] = []
        self.where = [0] * size  # index of an empty point in ``empties``
        #: An escape that step b refused (it runs into a working ladder):
        #: steps c and d do not play it either this move (PASS: none).
        self.refused = PASS
        colour = self.colour
        steps = [-1, 1, -stride, stride]  # to the four neighbours, made once
        for p in points:
            if colour[p] == EMPTY:
                self.where[p] = len(self.empties)
                self.empties.append(p)
        # Strings: each stone first alone, then merged with earlier neighbours.
        for p in points:
            c = colour[p]
            if c == EMPTY:
                continue
            self.head[p] = p
            self.next[p] = p
            self.stones[p] = 1
            for step in steps:
                n = p + step
                if colour[n] == EMPTY:
                    self.libs[p] += 1
                    self.lib_sum[p] += n
                    self.lib_squares[p] += n * n
        for p in points:
            c = colour[p]
            if c == EMPTY:
                continue
            for n in (p + 1, p + stride):
                if colour[n] == c and self.head[n] != self.head[p]:
                    self.merge(self.head[p], self.head[n])

    def merge(self, a: int, b: int) -> None:
        """Join the strings headed by ``a`` and ``b`` (the smaller is relabelled)."""
        head = self.head
        stones = self.stones
        if stones[a] < stones[b]:
            a, b = b, a
        s = b
        while True:
            head[s] = a
            s = self.next[s]
            if s == b:
                break
        nxt = self.next
        nxt[a], nxt[b] = nxt[b], nxt[a]
        stones[a] += stones[b]
        self.libs[a] += self.libs[b]
        self.lib_sum[a] += self.lib_sum[b]
        self.lib_squares[a] += self.lib_squares[b]


def in_atari(pb: PlayoutBoard, h: int) -> bool:
    """Whether the string headed by ``h`` has one liberty: all pseudo-liberties are one point.

    For ``k`` pseudo-liberties with sum ``S`` and sum of squares ``Q``,
    ``k * Q == S * S`` holds exactly when they are all equal (Cauchy-Schwarz).
    """
    total = pb.lib_sum[h]
    return pb.libs[h] * pb.lib_squares[h] == total * total


def atari_liberty(pb: PlayoutBoard, h: int) -> int:
    """The only liberty of the string headed by ``h``, which is in atari."""
    return pb.lib_sum[h] // pb.libs[h]


def liberties_after(
    pb: PlayoutBoard, p: int, me: int, neighbours: list[list[int]], enough: int, capture: int
) -> int:
    """The distinct liberties ``me``'s string through ``p`` would have after a stone on ``p``.

    Counted up to ``enough`` (2 or 3: the walk stops there) and without
    the captures the stone would make: when the neighbours, taken in
    order, reach an opponent string in atari before ``enough`` liberties,
    the answer is ``capture``.
    """
    colour = pb.colour
    head = pb.head
    nxt = pb.next
    p_: i64 = p
    found: i64 = 0
    first: i64 = -1  # the last two distinct liberties found
    second: i64 = -1
    n: i64
    m: i64
    s: i64
    h: i64
    for n in neighbours[p_]:
        v = colour[n]
        if v == EDGE:
            continue
        if v == EMPTY:
            if n != first and n != second:
                found += 1
                if found >= enough:
                    return found
                first, second = n, first
            continue
        h = head[n]
        if v != me:
            if in_atari(pb, h):
                return capture
            continue
        if in_atari(pb, h):
            continue  # its only liberty is p
        # Two liberties or more: look for those that are not p.
        s = h
        while True:
            for m in neighbours[s]:
                if colour[m] == EMPTY and m != p_ and m != first and m != second:
                    found += 1
                    if found >= enough:
                        return found
                    first, second = m, first
            s = nxt[s]
            if s == h:
                break
    return found


def freedom(pb: PlayoutBoard, p: int, me: int, neighbours: list[list[int]]) -> int:
    """The liberties ``me``'s string through ``p`` would have after a stone on ``p``, capped at 2.

    0 means suicide (illegal), 1 a self-atari; a move that captures counts
    as 2 (the captured stones give liberties).
    """
    return liberties_after(pb, p, me, neighbours, 2, 2)


def three_liberties(pb: PlayoutBoard, p: int, me: int, neighbours: list[list[int]]) -> bool:
    """Whether ``me``'s string through ``p`` would have three liberties or more after a stone there.

    Counted without the captures the stone would make (a capture answers
    False: the caller reads the position out instead).
    """
    return liberties_after(pb, p, me, neighbours, 3, 0) >= 3


# ----------------------------------------------------------------------
# 3x3 patterns.

#: The shapes, each three rows top to bottom around the empty point ``*``
#: where the side to move (``X``) would play; ``O`` is the opponent,
#: ``.`` empty, ``#`` off the board, ``?`` anything, ``x`` not ``X``,
#: ``o`` not ``O``. Each is matched in its eight rotations and
#: reflections. Written here from Go shape knowledge (see the module
#: docstring), each with the reason it is a good move.
PATTERNS: Final = (
    # Hane: bend round the head of an opponent stone that touches mine.
    ("XO?", ".*.", "???"),
    # Hane with the opponent stone backed up: still the vital bend.
    ("XOO", ".*.", "?.?"),
    # Press between: an opponent stone flanked by two of mine, play under it.
    ("XOX", ".*.", "???"),
    # Cut: separate two opponent stones that meet only diagonally here.
    ("XO?", "O*?", "???"),
    # Connect against the cut: my two stones meet diagonally, the opponent
    # holds the other corner.
    ("OX?", "X*?", "???"),
    # Stretch from a contact: my stone touched on its side extends away.
    ("?XO", ".*.", "???"),
    # Edge: block the opponent's crawl along the first line.
    ("X??", "O*?", "###"),
    # Edge: block under my stone on the second line.
    ("?X?", "O*?", "###"),
)

#: Bit shifts of the eight neighbours in a pattern code, in this order:
#: north, south, west, east, north-west, north-east, south-west, south-east.
_CELLS: Final = ((0, 1), (2, 1), (1, 0), (1, 2), (0, 0), (0, 2), (2, 0), (2, 2))


def pattern_code(colour: list[int], p: int, stride: int) -> int:
    """The 16-bit code of the eight points around ``p`` (two bits each, in :data:`_CELLS` order).

    ``colour`` is a list (the playout board's): typed so, the compiled build
    reads it directly, where a list-or-bytes argument cost a generic lookup
    (and a boxed index) for each of the eight points.
    """
    return (
        colour[p - stride]
        | colour[p + stride] << 2
        | colour[p - 1] << 4
        | colour[p + 1] << 6
        | colour[p - stride - 1] << 8
        | colour[p - stride + 1] << 10
        | colour[p + stride - 1] << 12
        | colour[p + stride + 1] << 14
    )


def _symmetries(rows: tuple[str, str, str]) -> list[list[str]]:
    """The eight rotations and reflections of a 3x3 shape, as lists of rows."""
    grid = [list(row) for row in rows]
    shapes: list[list[str]] = []
    for _ in range(4):
        grid = [[grid[2 - c][r] for c in range(3)] for r in range(3)]  # a quarter turn
        shapes.append(["".join(row) for row in grid])
        shapes.append(["".join(reversed(row)) for row in grid])
    return shapes


def _allowed(symbol: str, me: int) -> tuple[int, ...]:
    enemy = 3 - me
    table = {
        "X": (me,),
        "O": (enemy,),
        ".": (EMPTY,),
        "#": (EDGE,),
        "?": (EMPTY, BLACK, WHITE, EDGE),
        "x": (EMPTY, enemy, EDGE),
        "o": (EMPTY, me, EDGE),
    }
    return table[symbol]


def build_pattern_table(patterns: tuple[tuple[str, str, str], ...]) -> bytes:
    """1 at ``(player << 16) | code`` where ``code`` matches for ``player`` (0 Black) to move."""
    table = bytearray(2 << 16)
    for pattern in patterns:
        for shape in _symmetries(pattern):
            for player in (0, 1):
                codes = [0]
                for shift, (row, col) in enumerate(_CELLS):
                    values = _allowed(shape[row][col], player + 1)
                    codes = [code | value << (2 * shift) for code in codes for value in values]
                for code in codes:
                    table[player << 16 | code] = 1
    return bytes(table)


#: :func:`build_pattern_table` of :data:`PATTERNS` (read-only bytes).
PATTERN_TABLE: Final = build_pattern_table(PATTERNS)


def matches_pattern(colour: list[int] | bytes, p: int, stride: int, player: int) -> bool:
    """Whether a stone of ``player`` (0 Black) on the empty point ``p`` makes a pattern shape."""
    board = colour if isinstance(colour, list) else list(colour)
    return PATTERN_TABLE[player << 16 | pattern_code(board, p, stride)] == 1


# ----------------------------------------------------------------------
# Heavy playouts.


def _tactical_move(
    pb: PlayoutBoard,
    last: int,
    me: int,
    ko: int,
    neighbours: list[list[int]],
    diagonals: list[list[int]],
) -> int:
    """Steps a and b of the policy around the last move; :data:`PASS` when none applies."""
    colour = pb.colour
    head = pb.head
    nxt = pb.next
    enemy = 3 - me
    n: i64
    m: i64
    s: i64
    h: i64
    move: i64
    # a. The last string, then opponent strings diagonal to the last move, in atari.
    h = head[last]
    if in_atari(pb, h):
        move = atari_liberty(pb, h)
        if move != ko:
            return move
    stride = pb.stride
    for n in diagonals[last]:
        if colour[n] == enemy:
            h = head[n]
            if in_atari(pb, h):
                move = atari_liberty(pb, h)
                if move != ko:
                    return move
    # b. Own strings next to the last move in atari: capture a neighbour, else extend.
    for n in neighbours[last]:
        if colour[n] != me:
            continue
        h = head[n]
        if not in_atari(pb, h):
            continue
        s = h
        while True:
            for m in neighbours[s]:
                if colour[m] == enemy and in_atari(pb, head[m]):
                    move = atari_liberty(pb, head[m])
                    if move != ko:
                        return move
            s = nxt[s]
            if s == h:
                break
        move = atari_liberty(pb, h)
        if move != ko and freedom(pb, move, me, neighbours) >= 2:
            # Not into a ladder that works (read briefly: a playout is
            # cheap); three liberties are out of any ladder, no read needed.
            # The read plays on the playout's own colours and restores them:
            # no copy of the board for each read.
            if three_liberties(pb, move, me, neighbours) or not escape_fails(
                colour, stride, move, me, PLAYOUT_BUDGET
            ):
                return move
            pb.refused = move
    return PASS


def _light_tactical_move(
    pb: PlayoutBoard, last: int, me: int, ko: int, neighbours: list[list[int]]
) -> int:
    """The light policy's capture and escape (``heavy=False``): the yardstick."""
    colour = pb.colour
    head = pb.head
    n: i64
    m: i64
    h: i64
    move: i64
    h = head[last]
    if in_atari(pb, h):
        move = atari_liberty(pb, h)
        if move != ko:
            return move
    for n in neighbours[last]:
        if colour[n] != me:
            continue
        h = head[n]
        if not in_atari(pb, h):
            continue
        move = atari_liberty(pb, h)
        free = 0
        for m in neighbours[move]:
            if colour[m] == EMPTY:
                free += 1
        if free >= 2:
            return move
    return PASS


def _pattern_move(
    pb: PlayoutBoard,
    last: int,
    player: int,
    ko: int,
    rng: Random,
    neighbours: list[list[int]],
    diagonals: list[list[int]],
) -> int:
    """Step c: a random pattern move of the eight points around ``last``, else :data:`PASS`."""
    colour = pb.colour
    stride = pb.stride
    me = player + 1
    base = player << 16
    found: list[int] = []
    q: i64
    for ring in (neighbours[last], diagonals[last]):
        for q in ring:
            if colour[q] != EMPTY or q == ko or q == pb.refused:
                continue
            if PATTERN_TABLE[base | pattern_code(colour, q, stride)] != 1:
                continue
            if freedom(pb, q, me, neighbours) >= 2:
                found.append(q)
    if not found:
        return PASS
    return found[int(rng.random() * len(found))]


def run_playout(
    pb: PlayoutBoard,
    player: int,
    passes: int,
    ko: int,
    last: int,
    rng: Random,
    max_plies: int,
    on_edge: bytes,
    neighbours: list[list[int]],
    diagonals: list[list[int]],
    played: list[tuple[int, int]],
    heavy: bool = True,
) -> tuple[int, int]:
    """Play the policy of the module docstring from ``pb``; returns plies and passes at the end.

    ``played`` receives ``(player, move)`` for each move. Only simple ko
    is enforced (superko cycles are rare in a random game and only make it
    longer).
    """
    colour = pb.colour
    head = pb.head
    nxt = pb.next
    stones = pb.stones
    libs = pb.libs
    lib_sum = pb.lib_sum
    lib_squares = pb.lib_squares
    empties = pb.empties
    where = pb.where
    random = rng.random
    # Machine integers in the compiled build (plain ints to the
    # interpreter): no tag or overflow checks in the hot loop.
    p: i64
    n: i64
    m: i64
    s: i64
    h: i64
    hm: i64
    v: i64
    total: i64
    move: i64
    me: i64
    enemy: i64
    i: i64
    count: i64
    plies: i64 = 0
    while plies < max_plies and passes < 2:
        me = player + 1
        enemy = 2 - player
        move = PASS
        pb.refused = PASS
        if last > PASS and colour[last] == enemy:
            if heavy:
                move = _tactical_move(pb, last, me, ko, neighbours, diagonals)
                if move == PASS and random() < PROB_PATTERN:
                    move = _pattern_move(pb, last, player, ko, rng, neighbours, diagonals)
            else:
                move = _light_tactical_move(pb, last, me, ko, neighbours)
        # d. A random legal move that fills no own eye (and, heavy, no bad self-atari).
        if move == PASS:
            refused = pb.refused
            count = len(empties)
            if count:
                i = int(random() * int(count))
                for _ in range(count):
                    p = empties[i]
                    i += 1
                    if i == count:
                        i = 0
                    if p in (ko, refused):
                        continue
                    # Eye test and legality from the four neighbours.
                    legal = False
                    eye = True
                    alone = True  # no own stone next to p
                    for n in neighbours[p]:
                        v = colour[n]
                        if v == EMPTY:
                            eye = False
                            legal = True
                        elif v == EDGE:
                            continue
                        else:
                            h = head[n]
                            total = lib_sum[h]
                            atari = libs[h] * lib_squares[h] == total * total
                            if v == me:
                                alone = False
                                if not atari:
                                    legal = True
                            else:
                                eye = False
                                if atari:
                                    legal = True
                    if not legal:
                        continue
                    if eye:
                        # All neighbours own: a real eye unless the enemy
                        # holds two diagonals (one on the edge).
                        bad = 0
                        for d in diagonals[p]:
                            if colour[d] == enemy:
                                bad += 1
                        if bad + on_edge[p] < 2:
                            continue
                    if (
                        heavy
                        and freedom(pb, p, me, neighbours) < 2
                        and (not alone or random() < PROB_REJECT_LONE_SELF_ATARI)
                    ):
                        continue
                    move = p
                    break
        played.append((player, move))
        plies += 1
        player = 1 - player
        last = move
        if move == PASS:
            passes += 1
            ko = NO_KO
            continue
        passes = 0
        # Play ``move`` for ``me``.
        p = move
        k = where[p]
        tail = empties.pop()
        if tail != p:
            empties[k] = tail
            where[tail] = k
        colour[p] = me
        head[p] = p
        nxt[p] = p
        stones[p] = 1
        own_libs = 0
        own_sum = 0
        own_squares = 0
        square = p * p
        for n in neighbours[p]:
            v = colour[n]
            if v == EMPTY:
                own_libs += 1
                own_sum += n
                own_squares += n * n
            elif v != EDGE:
                h = head[n]
                libs[h] -= 1
                lib_sum[h] -= p
                lib_squares[h] -= square
        libs[p] = own_libs
        lib_sum[p] = own_sum
        lib_squares[p] = own_squares
        captured = 0
        captured_point = NO_KO
        for n in neighbours[p]:
            v = colour[n]
            if v == me:
                if head[n] != head[p]:
                    pb.merge(head[p], head[n])
            elif v == enemy:
                h = head[n]
                if libs[h] == 0:
                    captured += stones[h]
                    captured_point = h
                    # Empty the string, then give its points as liberties
                    # to the strings around (all the mover's).
                    s = h
                    while True:
                        colour[s] = EMPTY
                        where[s] = len(empties)
                        empties.append(s)
                        s = nxt[s]
                        if s == h:
                            break
                    while True:
                        sq = s * s
                        for m in neighbours[s]:
                            if colour[m] == me:
                                hm = head[m]
                                libs[hm] += 1
                                lib_sum[hm] += s
                                lib_squares[hm] += sq
                        s = nxt[s]
                        if s == h:
                            break
        ko = NO_KO
        if captured == 1 and stones[head[p]] == 1 and libs[p] == 1:
            ko = captured_point
    return plies, passes


# ----------------------------------------------------------------------
# Priors for the tree.


def _liberty_points(
    board: bytes, start: int, steps: list[int], label: list[int], index: int
) -> set[int]:
    """Flood the string through ``start``, labelling its stones ``index``; its liberty points."""
    colour = board[start]
    liberties: set[int] = set()
    stack = [start]
    label[start] = index
    while stack:
        p = stack.pop()
        for step in steps:
            n = p + step
            v = board[n]
            if v == EMPTY:
                liberties.add(n)
            elif v == colour and label[n] < 0:
                label[n] = index
                stack.append(n)
    return liberties


def priors(
    board: bytes,
    player: int,
    last_move: int,
    stride: int,
    size: int,
    moves: list[int],
) -> tuple[list[int], list[int]]:
    """Virtual visits and wins (for ``player``, 0 Black) of each of ``moves`` (points or PASS).

    The rules of the module docstring, step 4. ``last_move`` is the last
    point played (anything not on the board when there is none).
    """
    me = player + 1
    enemy = 3 - me
    label = [-1] * len(board)
    steps = [-1, 1, -stride, stride]  # to the four neighbours, made once
    string_libs: list[set[int]] = []
    string_stones: list[int] = []
    scratch: list[int] | None = None  # the board for ladder reads, made when one is needed
    colour = list(board)  # for pattern_code
    # Small ints (Python shares those under 257): a prior costs the tree a pointer.
    visits: list[int] = []
    wins: list[int] = []
    last_row, last_col = divmod(last_move, stride)
    has_last = 0 < last_row <= size and 0 < last_col <= size and board[last_move] != EMPTY
    for p in moves:
        if p == PASS or board[p] != EMPTY:
            visits.append(PRIOR_EVEN)
            wins.append(PRIOR_EVEN // 2)
            continue
        v = PRIOR_EVEN
        w = PRIOR_EVEN // 2
        # Strings around: captures, escapes, the new string's liberties.
        liberties = set()
        captured = 0
        escape = False
        chased = 0  # stones of enemy strings this move ataris (two liberties, p one)
        chased_at = PASS  # a stone of the largest of them
        for step in steps:
            n = p + step
            c = board[n]
            if c == EMPTY:
                liberties.add(n)
            elif c == EDGE:
                continue
            else:
                s = label[n]
                if s < 0:
                    s = len(string_libs)
                    string_libs.append(_liberty_points(board, n, steps, label, s))
                    string_stones.append(0)
                libs = string_libs[s]
                if c == enemy:
                    if len(libs) <= 2 and string_stones[s] == 0:
                        string_stones[s] = sum(1 for q in range(len(board)) if label[q] == s)
                    if len(libs) == 1:
                        captured += string_stones[s]
                    elif len(libs) == 2 and string_stones[s] > chased:
                        chased = string_stones[s]
                        chased_at = n
                else:
                    if len(libs) == 1:
                        escape = True
                    liberties |= libs
        liberties.discard(p)
        if captured:
            bonus = PRIOR_CAPTURE_ONE if captured == 1 else PRIOR_CAPTURE_MANY
            v += bonus
            w += bonus
        elif len(liberties) <= 1:
            v += PRIOR_SELF_ATARI  # virtual losses
        else:
            if escape:
                # Two liberties may be a ladder: read it before crediting the escape.
                if len(liberties) == 2:
                    if scratch is None:
                        scratch = list(board)
                    runs = escape_fails(scratch, stride, p, me, PRIORS_BUDGET)
                else:
                    runs = False
                if runs:
                    v += PRIOR_LADDER_RUN  # virtual losses
                else:
                    v += PRIOR_ESCAPE
                    w += PRIOR_ESCAPE
            if chased:
                if scratch is None:
                    scratch = list(board)
                if atari_captures(scratch, stride, p, me, chased_at, PRIORS_BUDGET):
                    bonus = PRIOR_CAPTURE_ONE if chased == 1 else PRIOR_CAPTURE_MANY
                    v += bonus
                    w += bonus
        if PATTERN_TABLE[player << 16 | pattern_code(colour, p, stride)] == 1:
            v += PRIOR_PATTERN
            w += PRIOR_PATTERN
        row, col = divmod(p, stride)
        if has_last:
            dx = abs(col - last_col)
            dy = abs(row - last_row)
            gridcular = dx + dy + max(dx, dy)
            if gridcular <= 3:
                v += PRIOR_NEAR_LAST
                w += PRIOR_NEAR_LAST
            elif gridcular <= 5:
                v += PRIOR_FAR_LAST
                w += PRIOR_FAR_LAST
        line = min(row, col, size + 1 - row, size + 1 - col)
        if (line == 1 or line == 3) and _empty_around(board, p, stride, size):
            if line == 1:
                v += PRIOR_FIRST_LINE
            else:
                v += PRIOR_THIRD_LINE
                w += PRIOR_THIRD_LINE
        visits.append(v)
        wins.append(w)
    return visits, wins


def _empty_around(board: bytes, p: int, stride: int, size: int) -> bool:
    """Whether no stone stands within :data:`EMPTY_AREA_DISTANCE` (Manhattan) of ``p``."""
    row, col = divmod(p, stride)
    reach = EMPTY_AREA_DISTANCE
    for r in range(max(1, row - reach), min(size, row + reach) + 1):
        spare = reach - abs(r - row)
        for c in range(max(1, col - spare), min(size, col + spare) + 1):
            v = board[r * stride + c]
            if v in (BLACK, WHITE):
                return False
    return True

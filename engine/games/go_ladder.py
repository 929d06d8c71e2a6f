"""Ladder reading for Go's Monte Carlo knowledge: does a string in atari really escape?

A string in atari that extends to two liberties has not escaped yet: the
opponent may atari it again from the side that drives it along, and again,
until it runs into the edge or the opponent's stones and dies. That is a
*ladder* (shicho), the first tactic a Go player learns to read. A string
that extends to three liberties or more is out; one that reaches two
escapes only if the chase breaks: a friendly stone on its path (a *ladder
breaker*) gives it liberties, or a chasing stone is left in atari and can
be taken.

:class:`LadderReader` reads it out by trying the moves: the attacker ataris
at either liberty, the defender answers by taking a chasing string that is
in atari or by extending at its last liberty, and so on while the string
keeps exactly two liberties after each defence. The defender escapes at
three liberties; the attacker wins when no defence is left. The reading is
bounded by a count of moves (:attr:`LadderReader.budget`); a read that runs
out of it says "escapes", which is what the policy assumed before it read
ladders. Ko and snapback are not read (a ladder rarely hinges on them).

The model is michi's ``fix_atari`` with its ``read_ladder_attack`` (Petr
Baudis, 2015): credit an escape only when the ladder fails, and count an
atari that starts a working ladder like a capture. This module is written
here on its own board: a plain list of point codes with the same layout as
:mod:`engine.games.go` (a border ring of :data:`EDGE`, ``stride`` points a
row), changed in place and put back after each read.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

EMPTY: Final = 0
EDGE: Final = 3

#: Moves a ladder read in the tree's priors may try (each a stone placed):
#: a ladder across a 19x19 board is about 40 moves, and each step of it
#: costs four or so (two ataris, the defence of each); more than any 9x9
#: ladder needs.
PRIORS_BUDGET: Final = 200
#: Moves a read inside a playout may try: a 9x9 ladder, cut short on
#: larger boards (the playout stays fast; an unfinished read escapes).
PLAYOUT_BUDGET: Final = 40


class LadderReader:
    """Reads ladders on ``colour`` (changed during a read, restored after it).

    ``budget`` is how many stones the reads may still place; when it runs
    out the read answers "escapes" and :attr:`exhausted` is set.
    """

    def __init__(self, colour: list[int], stride: int, budget: int) -> None:
        self.colour = colour
        self.stride = stride
        #: The steps to a point's four neighbours: a list made once, where
        #: a tuple of four sums would be built for every stone walked.
        self._steps = [-1, 1, -stride, stride]
        self.budget = budget
        self.exhausted = False
        self._log: list[int] = []  # pairs (point, old colour) to undo
        # Points met by the current walk carry the walk's stamp: a list
        # indexed by point, cheaper than a new set for every walk (a read
        # walks strings hundreds of thousands of times in a search).
        self._seen = [0] * len(colour)
        self._stamp = 0

    # ------------------------------------------------------------------
    # The board.

    def string(self, start: int, enough: int) -> tuple[list[int], list[int]]:
        """The stones of the string through ``start`` and its liberties.

        The walk stops as soon as it has found ``enough`` liberties (the
        stones are then only those walked so far): a playout's strings can
        be long, and most questions are "one liberty?" or "three?".
        """
        # Apart from go._string (the rules' bytearray, all stones): one walk for both reads boxed.
        colour = self.colour
        steps = self._steps
        seen = self._seen
        self._stamp += 1
        stamp = self._stamp
        mine = colour[start]
        stones = [start]
        seen[start] = stamp
        liberties: list[int] = []
        # Machine integers in the compiled build (go_policy's playouts do
        # the same): no tag checks on the walk's arithmetic.
        p: i64
        n: i64
        step: i64
        i: i64 = 0
        while i < len(stones):
            p = stones[i]
            i += 1
            for step in steps:
                n = p + step
                if seen[n] == stamp:
                    continue
                v = colour[n]
                if v == EMPTY:
                    seen[n] = stamp
                    liberties.append(n)
                    if len(liberties) >= enough:
                        return stones, liberties
                elif v == mine:
                    seen[n] = stamp
                    stones.append(n)
        return stones, liberties

    def liberties(self, start: int, enough: int) -> int:
        """The liberties of the string through ``start``, counted up to ``enough``."""
        return len(self.string(start, enough)[1])

    def play(self, p: int, mine: int) -> bool:
        """Put a stone of ``mine`` on the empty ``p``, taking captured strings off.

        Returns False, with the board unchanged, for a suicide. Every
        change is logged for :meth:`undo`.
        """
        colour = self.colour
        steps = self._steps
        log = self._log
        enemy = 3 - mine
        self.budget -= 1
        log.append(p)
        log.append(colour[p])
        colour[p] = mine
        took = False
        for step in steps:
            n = p + step
            if colour[n] == enemy:
                stones, liberties = self.string(n, 1)
                if not liberties:
                    took = True
                    for s in stones:
                        log.append(s)
                        log.append(enemy)
                        colour[s] = EMPTY
        if not took and not self.string(p, 1)[1]:
            log.pop()
            log.pop()
            colour[p] = EMPTY
            return False
        return True

    def mark(self) -> int:
        """A point in the change log to :meth:`undo` back to."""
        return len(self._log)

    def undo(self, mark: int) -> None:
        """Put back every change made since :meth:`mark` gave ``mark``."""
        colour = self.colour
        log = self._log
        while len(log) > mark:
            old = log.pop()
            p = log.pop()
            colour[p] = old

    # ------------------------------------------------------------------
    # The reading.

    def captures(self, target: int) -> bool:
        """With the attacker to move, whether the string through ``target`` dies in a ladder.

        The string must have two liberties to be read: with three or more
        it is not in a ladder (False), with one it is taken at once (True).
        """
        colour = self.colour
        defender = colour[target]
        attacker = 3 - defender
        _, liberties = self.string(target, 3)
        if len(liberties) >= 3:
            return False
        if len(liberties) <= 1:
            return True
        for atari in liberties:
            if self.budget <= 0:
                self.exhausted = True
                return False
            mark = self.mark()
            if self.play(atari, attacker):
                dead = not self.escapes(target)
                self.undo(mark)
                if dead:
                    return True
        return False

    def escapes(self, target: int) -> bool:
        """With the defender to move, whether the string through ``target`` (in atari) escapes.

        A defence is to take a chasing string that is in atari, or to
        extend at the last liberty; it works when the string then has three
        liberties, or two and the attacker's ladder fails.
        """
        colour = self.colour
        defender = colour[target]
        attacker = 3 - defender
        steps = self._steps
        stones, liberties = self.string(target, 2)  # all its stones when in atari
        if len(liberties) >= 2:
            return True
        if not liberties:
            return False
        # Take a chasing string in atari (the chaser's own weakness).
        tried: list[int] = []
        for s in stones:
            for step in steps:
                n = s + step
                if colour[n] != attacker:
                    continue
                _, chaser_liberties = self.string(n, 2)
                if len(chaser_liberties) != 1 or chaser_liberties[0] in tried:
                    continue
                take = chaser_liberties[0]
                tried.append(take)
                if self._defends(take, target, defender):
                    return True
        if liberties[0] in tried:
            return False  # taking there was the extension too, and failed
        return self._defends(liberties[0], target, defender)

    def _defends(self, move: int, target: int, defender: int) -> bool:
        """Whether the defender's ``move`` saves the string through ``target``."""
        if self.budget <= 0:
            self.exhausted = True
            return True
        mark = self.mark()
        if not self.play(move, defender):
            return False
        count = self.liberties(target, 3)
        saved = count >= 3 or (count == 2 and not self.captures(target))
        self.undo(mark)
        return saved


def escape_fails(colour: list[int], stride: int, move: int, mine: int, budget: int) -> bool:
    """Whether ``mine``'s stone on ``move`` leaves its string caught in a working ladder.

    ``move`` is an extension of a string in atari. True when the string it
    joins has at most two liberties after it and the opponent, to move,
    captures it in a ladder (one liberty: it is still in atari, and dies).
    A suicide counts as failing. ``colour`` is restored.
    """
    reader = LadderReader(colour, stride, budget)
    mark = reader.mark()
    if not reader.play(move, mine):
        return True
    dead = reader.captures(move)
    reader.undo(mark)
    return dead


def atari_captures(
    colour: list[int], stride: int, move: int, mine: int, target: int, budget: int
) -> bool:
    """Whether ``mine``'s atari on ``move`` against the string through ``target`` captures it.

    The string has two liberties, one of them ``move``; after the atari the
    defender, to move, cannot escape (by extending or taking a chaser)
    from the ladder. ``colour`` is restored.
    """
    reader = LadderReader(colour, stride, budget)
    mark = reader.mark()
    if not reader.play(move, mine):
        return False
    if colour[target] == EMPTY:
        reader.undo(mark)
        return True  # the move took the string outright
    dead = not reader.escapes(target)
    reader.undo(mark)
    return dead

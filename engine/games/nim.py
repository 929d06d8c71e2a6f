"""Nim: players take any positive number of objects from one heap.

Options: ``heaps`` (list of heap sizes) and ``misere`` (if true, taking
the last object loses; otherwise it wins, which is normal play).

State: ``(heaps, to_move)`` with ``heaps`` a tuple of sizes. A move is
one int (:func:`nim_move`).
Move notation: ``<heap>:<count>``, heaps numbered from 1: ``2:3`` takes 3
objects from the second heap.
Position notation: the heap sizes separated by spaces, then ``/`` and the
player to move (0 first): ``3 4 5 /0``.
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from engine.errors import BadOptionsError, BadPositionError, GameOverError, IllegalMoveError
from engine.game import Game, Option, Outcome, bool_option

NimState = tuple[tuple[int, ...], int]
#: A move takes ``count`` objects from heap ``heap`` (numbered from 0),
#: packed into one int as ``heap * MOVE_STRIDE + count`` (see :func:`nim_move`):
#: an int compares and hashes faster than a pair, in the search's tables.
NimMove = int

MAX_HEAPS: Final = 16
MAX_HEAP_SIZE: Final = 1000
#: Keys are 62-bit: non-negative, and small enough for the compiled engine
#: to keep them as machine integers.
KEY_MASK: Final = (1 << 62) - 1
#: Packs a move's heap and count into one int; above MAX_HEAP_SIZE.
MOVE_STRIDE: Final = 1024
#: Evaluation of a position the nim-sum says is won; proven scores dwarf it.
THEORY_VALUE: Final = 100


def _check_heaps(name: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not 1 <= len(value) <= MAX_HEAPS:
        raise BadOptionsError(f"option {name!r} must be a list of 1 to {MAX_HEAPS} heap sizes")
    for size in value:
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_HEAP_SIZE:
            raise BadOptionsError(
                f"option {name!r}: each heap must be an integer from 0 to {MAX_HEAP_SIZE}"
            )
    if not any(value):
        # Every heap empty is a game over before its first move (a position
        # may still be over: new_game's position text says where play is).
        raise BadOptionsError(f"option {name!r}: at least one heap must hold an object")
    return tuple(value)


def nim_move(heap: int, count: int) -> NimMove:
    """The move taking ``count`` objects from heap ``heap`` (heaps numbered from 0)."""
    return heap * MOVE_STRIDE + count


def move_heap(move: NimMove) -> int:
    return move // MOVE_STRIDE


def move_count(move: NimMove) -> int:
    return move % MOVE_STRIDE


def nim_sum(heaps: tuple[int, ...]) -> int:
    """The exclusive or of the heap sizes (Bouton's nim-sum)."""
    total = 0
    for size in heaps:
        total ^= size
    return total


@mypyc_attr(allow_interpreted_subclasses=True)
class Nim(Game[NimState, NimMove]):
    """Nim with any heaps, normal or misère play.

    The evaluation applies the theory (Bouton 1901): in normal play the side
    to move wins exactly when the nim-sum is not 0; in misère play the same
    holds unless every heap has at most one object, where the side to move
    wins exactly when the number of non-empty heaps is even.
    """

    name = "nim"
    title = "Nim"
    players = ("first", "second")
    eval_unit = f"±{THEORY_VALUE} when nim theory says the side to move wins/loses"
    #: Evaluation units per unit of log-odds (Monte Carlo search), fitted by ``python -m
    #: bench.mcts_bench --only scales``: evaluations of 200 random positions against the results of
    #: 16 playouts from each (fitted 299): random play often squanders a won Nim position.
    win_odds_scale = 300
    OPTIONS = (
        Option("heaps", [3, 4, 5], "heap sizes", _check_heaps),
        Option("misere", False, "taking the last object loses", bool_option),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.misere: bool = self.options["misere"]

    def initial_state(self) -> NimState:
        return (tuple(self.options["heaps"]), 0)

    def to_move(self, state: NimState) -> int:
        return state[1]

    def legal_moves(self, state: NimState) -> list[NimMove]:
        return [nim_move(i, k) for i, size in enumerate(state[0]) for k in range(1, size + 1)]

    def ordered_moves(self, state: NimState) -> list[NimMove]:
        """Legal moves, those that win by the theory first (each group in legal order)."""
        heaps = state[0]
        # Each move's result follows from a few running totals, so no heap
        # tuple is built: the nim-sum, the object count and how many heaps
        # hold more than one object (misère play changes at zero of those).
        nim = nim_sum(heaps)
        objects = 0
        big_heaps = 0
        for size in heaps:
            objects += size
            if size > 1:
                big_heaps += 1
        winning: list[NimMove] = []
        others: list[NimMove] = []
        for i, size in enumerate(heaps):
            big_others = big_heaps - 1 if size > 1 else big_heaps
            for k in range(1, size + 1):
                left = size - k
                if self.misere and big_others == 0 and left <= 1:
                    # Only heaps of 0 or 1 left: the side to move then wins
                    # exactly when the count is even, so the mover wins when odd.
                    mover_wins = (objects - k) % 2 == 1
                else:
                    mover_wins = nim ^ size ^ left == 0
                if mover_wins:
                    winning.append(nim_move(i, k))
                else:
                    others.append(nim_move(i, k))
        return winning + others

    def _after(self, heaps: tuple[int, ...], move: NimMove) -> tuple[int, ...]:
        i, k = move_heap(move), move_count(move)
        return (*heaps[:i], heaps[i] - k, *heaps[i + 1 :])

    def play(self, state: NimState, move: NimMove) -> NimState:
        return (self._after(state[0], move), 1 - state[1])

    def outcome(self, state: NimState) -> Outcome | None:
        heaps, to_move = state
        if any(heaps):
            return None
        if self.misere:
            return Outcome(to_move, "the opponent took the last object")
        return Outcome(1 - to_move, "took the last object")

    def _side_to_move_wins(self, heaps: tuple[int, ...]) -> bool:
        if self.misere and max(heaps) <= 1:
            return sum(heaps) % 2 == 0
        return nim_sum(heaps) != 0

    def evaluate(self, state: NimState) -> int:
        return THEORY_VALUE if self._side_to_move_wins(state[0]) else -THEORY_VALUE

    def key(self, state: NimState) -> int:
        # Heap order does not change the value for the side to move, and
        # Nim is impartial, so sorted sizes merge every transposition.
        return hash(tuple(sorted(state[0]))) & KEY_MASK

    def max_remaining_plies(self, state: NimState) -> int:
        return sum(state[0])

    def format_move(self, state: NimState, move: NimMove) -> str:
        return f"{move_heap(move) + 1}:{move_count(move)}"

    def parse_move(self, state: NimState, text: str) -> NimMove:
        if self.outcome(state) is not None:
            raise GameOverError("the game is over: every heap is empty")
        heaps = state[0]
        legal_hint = [f"{i + 1}:1..{size}" for i, size in enumerate(heaps) if size]
        try:
            heap_text, count_text = text.split(":")
            heap, count = int(heap_text) - 1, int(count_text)
        except (ValueError, AttributeError):
            raise IllegalMoveError(
                f"{text!r} is not a Nim move; write <heap>:<count>, e.g. 1:2", legal_hint
            ) from None
        if not 0 <= heap < len(heaps):
            raise IllegalMoveError(f"there is no heap {heap + 1}", legal_hint)
        if not 1 <= count <= heaps[heap]:
            raise IllegalMoveError(
                f"heap {heap + 1} has {heaps[heap]} objects; take 1 to {heaps[heap]}", legal_hint
            )
        return nim_move(heap, count)

    def format_position(self, state: NimState) -> str:
        return " ".join(str(size) for size in state[0]) + f" /{state[1]}"

    def parse_position(self, text: str) -> NimState:
        try:
            heaps_text, turn_text = text.rsplit("/", 1)
            heaps = tuple(int(part) for part in heaps_text.split())
            to_move = int(turn_text)
        except (ValueError, AttributeError):
            raise BadPositionError(
                "a Nim position is heap sizes then '/' and the player to move, e.g. '3 4 5 /0'"
            ) from None
        if (
            not heaps
            or len(heaps) > MAX_HEAPS
            or any(not 0 <= size <= MAX_HEAP_SIZE for size in heaps)
        ):
            raise BadPositionError(
                f"a Nim position has 1 to {MAX_HEAPS} heaps of 0 to {MAX_HEAP_SIZE} objects"
            )
        if to_move not in (0, 1):
            raise BadPositionError("the player to move is 0 or 1")
        return (heaps, to_move)

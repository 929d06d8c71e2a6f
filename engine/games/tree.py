"""Exercise trees: a game whose position is an explicit game tree, as drawn in lecture notes.

Lecture notes teach minimax on small trees written by hand: MAX at the
root, three MIN nodes below it with leaves ``3 12 8``, ``2 4 6`` and
``14 5 2``. This game makes any such tree a position the engine can search
and trace, so each exercise of the notes can be typed and checked.

Position notation: the tree in JSON.

* a leaf is an integer utility, from MAX's side: ``3``;
* a decision node is the list of its children: ``[[3,12,8],[2,4,6],[14,5,2]]``.
  MAX moves at the root and the decision levels alternate (MAX, MIN, MAX...);
* a chance node is ``{"p": [probabilities], "c": [children]}``: the
  probabilities are numbers or fraction strings (``"1/3"``) that sum to 1.
  Chance nodes do not count as a level: the player after a chance node is
  the opponent of the player before it, as in backgammon;
* any inner node may carry a heuristic value for depth cut-offs:
  ``{"v": 5, "c": [...]}`` (decision) or ``{"v": 5, "p": [...], "c": [...]}``
  (chance). Without one, a cut-off scores the node 0.

A position whose root MIN moves at (after MAX has played) is prefixed with
``min ``: ``min [2,4,6]``; ``max `` is accepted and implied.

Moves are child indices from 1 (``1``, ``2``, ...), also at chance nodes,
where they name the outcome.

The values are exact textbook utilities: a finished game is won by MAX for
a positive leaf, by MIN for a negative one, drawn at zero, and the winner
scores the leaf's size in points, so UTILITY is the leaf's own number and
the expectiminimax search, whose utility is linear, plays for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Final

from engine.errors import BadPositionError
from engine.game import CHANCE, EVAL_LIMIT, EXPECTIMINIMAX, Game, Outcome
from engine.records import reduce_record

#: The notes' example (Russell & Norvig, figure 5.2): minimax value 3.
NOTES_TREE: Final = "[[3,12,8],[2,4,6],[14,5,2]]"
#: Caps on a tree, far above any exercise; the server's position length
#: limit (4096 characters) usually binds first.
MAX_TREE_NODES: Final = 5_000
MAX_TREE_HEIGHT: Final = 30
MAX_BRANCHING: Final = 50
#: Leaf utilities and heuristic values are integers within the evaluation's bound.
MAX_UTILITY: Final = EVAL_LIMIT
#: Probabilities may be given as floats; they become exact fractions with
#: denominators up to this (0.1 is 1/10, 0.333333 is 1/3 within 1e-6).
PROBABILITY_DENOMINATOR_LIMIT: Final = 10**6
KEY_MASK: Final = (1 << 62) - 1


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One node: a leaf (no children), a decision node, or a chance node (with probabilities).

    ``value`` is a leaf's utility or an inner node's heuristic value, from
    MAX's side. ``digest`` identifies the subtree's shape and numbers (equal
    subtrees have equal digests), computed once at parsing.
    """

    value: int
    children: tuple[TreeNode, ...] = ()
    probabilities: tuple[Fraction, ...] | None = None
    has_value: bool = False
    height: int = 0
    digest: int = field(default=0, compare=False)

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)  # a compiled frozen class refuses pickle's assignments

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def is_chance(self) -> bool:
        return self.probabilities is not None


@dataclass(frozen=True, slots=True)
class TreeState:
    """A node of the tree and who moves there: ``player`` 0 (MAX) or 1 (MIN).

    At a chance node ``player`` is the one who moves after the chance event.
    """

    node: TreeNode
    player: int

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


class TreeGame(Game[TreeState, int]):
    """A game tree given explicitly (see the module docstring)."""

    name: ClassVar[str] = "tree"
    title: ClassVar[str] = "Exercise tree"
    players: ClassVar[tuple[str, str]] = ("MAX", "MIN")
    eval_unit: ClassVar[str] = "utility (the tree's own numbers)"
    utility_scale: ClassVar[int] = 1
    value_bound: ClassVar[int] = MAX_UTILITY
    # A tree's values are its utilities, not wins and losses: the search
    # whose utility is linear (expectiminimax) plays for them exactly.
    default_algorithm: ClassVar[str] = EXPECTIMINIMAX

    def initial_state(self) -> TreeState:
        return self.parse_position(NOTES_TREE)

    def to_move(self, state: TreeState) -> int:
        return CHANCE if state.node.is_chance else state.player

    def legal_moves(self, state: TreeState) -> list[int]:
        return list(range(len(state.node.children)))

    def play(self, state: TreeState, move: int) -> TreeState:
        node = state.node
        player = state.player if node.is_chance else 1 - state.player
        return TreeState(node.children[move], player)

    def ordered_moves(self, state: TreeState) -> list[int]:
        """Children best first for the mover by their own numbers (a leaf's utility, an inner
        node's ``"v"``, else 0): the static ordering an evaluation gives.

        Ties keep the order typed, so a tree without heuristic values keeps
        its inner nodes in order.
        """
        children = state.node.children
        sign = -1 if state.player == 0 else 1
        return sorted(range(len(children)), key=lambda index: sign * children[index].value)

    def outcome(self, state: TreeState) -> Outcome | None:
        node = state.node
        if not node.is_leaf:
            return None
        if node.value == 0:
            return Outcome(None, "leaf 0")
        # The points are the leaf's size: UTILITY (and so every search
        # that scores points) gives back the leaf's own number.
        return Outcome(0 if node.value > 0 else 1, f"leaf {node.value}", abs(node.value))

    def evaluate(self, state: TreeState) -> int:
        """The node's heuristic value (``"v"``, else 0) for the player to move."""
        return state.node.value if state.player == 0 else -state.node.value

    def key(self, state: TreeState) -> int:
        return (state.node.digest * 2 + state.player) & KEY_MASK

    def chance_outcomes(self, state: TreeState) -> list[tuple[int, float]] | None:
        probabilities = state.node.probabilities
        if probabilities is None:
            return None
        return [(index, float(p)) for index, p in enumerate(probabilities)]

    def roller(self, state: TreeState) -> int:
        return state.player

    def max_remaining_plies(self, state: TreeState) -> int | None:
        return state.node.height

    def exact_probability(self, state: TreeState, move: int) -> Fraction:
        """The exact probability of outcome ``move`` at a chance node (as typed)."""
        probabilities = state.node.probabilities
        if probabilities is None:
            raise ValueError("not a chance node")
        return probabilities[move]

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: TreeState, move: int) -> str:
        return str(move + 1)

    def format_position(self, state: TreeState) -> str:
        text = json.dumps(_to_json(state.node), separators=(",", ":"))
        return text if state.player == 0 else "min " + text

    def parse_position(self, text: str) -> TreeState:
        text = text.strip()
        player = 0
        for prefix, who in (("max", 0), ("min", 1)):
            if text.lower().startswith(prefix):
                text, player = text[len(prefix) :].strip(), who
                break
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise BadPositionError(
                "a tree is written in JSON: nested lists of integer leaves, "
                f'e.g. {NOTES_TREE}, with chance nodes as {{"p": [...], "c": [...]}}'
            ) from None
        counter = [0]
        return TreeState(_parse_node(data, counter, 0), player)


def _parse_node(data: Any, counter: list[int], level: int) -> TreeNode:
    """One node from its JSON value; ``counter`` counts nodes against the cap."""
    counter[0] += 1
    if counter[0] > MAX_TREE_NODES:
        raise BadPositionError(f"a tree has at most {MAX_TREE_NODES} nodes")
    if level > MAX_TREE_HEIGHT:
        raise BadPositionError(f"a tree is at most {MAX_TREE_HEIGHT} levels deep")
    if isinstance(data, bool | float):
        raise BadPositionError(f"leaf utilities are integers, got {data!r}")
    if isinstance(data, int):
        return TreeNode(_check_value(data, "a leaf"), digest=hash((data,)))
    value, has_value, probabilities = 0, False, None
    if isinstance(data, dict):
        unknown = set(data) - {"p", "c", "v"}
        if unknown or "c" not in data:
            raise BadPositionError(
                'an inner node written as a map has "c" (its children), optionally "v" '
                f'(a heuristic value) and, for a chance node, "p"; got the keys {sorted(data)}'
            )
        if "v" in data:
            raw = data["v"]
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise BadPositionError(f'a heuristic value "v" is an integer, got {raw!r}')
            value, has_value = _check_value(raw, "a heuristic value"), True
        children_data = data["c"]
        if "p" in data:
            probabilities = _parse_probabilities(data["p"], children_data)
    else:
        children_data = data
    if not isinstance(children_data, list) or not children_data:
        raise BadPositionError(
            f"an inner node needs a non-empty list of children, got {children_data!r:.60}"
        )
    if len(children_data) > MAX_BRANCHING:
        raise BadPositionError(f"a node has at most {MAX_BRANCHING} children")
    children = tuple(_parse_node(child, counter, level + 1) for child in children_data)
    height = 1 + max(child.height for child in children)
    digest = hash((value, probabilities, tuple(child.digest for child in children)))
    return TreeNode(value, children, probabilities, has_value, height, digest)


def _check_value(value: int, what: str) -> int:
    if not -MAX_UTILITY <= value <= MAX_UTILITY:
        raise BadPositionError(f"{what} must be between {-MAX_UTILITY} and {MAX_UTILITY}")
    return value


def _parse_probabilities(data: Any, children: Any) -> tuple[Fraction, ...]:
    if not isinstance(data, list) or not isinstance(children, list) or len(data) != len(children):
        raise BadPositionError('a chance node has as many probabilities "p" as children "c"')
    probabilities = []
    for raw in data:
        try:
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ValueError
            probability = Fraction(raw).limit_denominator(PROBABILITY_DENOMINATOR_LIMIT)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise BadPositionError(
                f'a probability is a number or a fraction such as "1/3", got {raw!r}'
            ) from None
        if not 0 < probability <= 1:
            raise BadPositionError(f"a probability is above 0 and at most 1, got {raw!r}")
        probabilities.append(probability)
    if sum(probabilities) != 1:
        raise BadPositionError(
            "the probabilities of a chance node sum to 1, "
            f"these sum to {float(sum(probabilities)):g}"
        )
    return tuple(probabilities)


def _to_json(node: TreeNode) -> Any:
    if node.is_leaf:
        return node.value
    children = [_to_json(child) for child in node.children]
    if node.probabilities is None and not node.has_value:
        return children
    written: dict[str, Any] = {}
    if node.has_value:
        written["v"] = node.value
    if node.probabilities is not None:
        written["p"] = [_format_probability(p) for p in node.probabilities]
    written["c"] = children
    return written


def _format_probability(probability: Fraction) -> float | str:
    """A probability as typed back: a float when it is exact in decimal, else ``"1/3"``."""
    as_float = float(probability)
    if Fraction(as_float).limit_denominator(PROBABILITY_DENOMINATOR_LIMIT) == probability:
        text = repr(as_float)
        if len(text) <= 8:
            return as_float
    return f"{probability.numerator}/{probability.denominator}"

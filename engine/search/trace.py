"""Search traces: the textbook searches, recorded node by node, for teaching.

:func:`trace` runs one of the textbook searches on a position and returns a
:class:`Trace`: every node the search entered, in order, with the window
(alpha, beta) it was entered with and left with, the value it returned, and
the moves alpha-beta never looked at. A drawing of it is the tree of the
lecture notes, made by the same engine that plays.

The searches mirror the pseudocode of Russell & Norvig, *Artificial
Intelligence: A Modern Approach* (4th ed.) and :mod:`engine.search.reference`:

* ``minimax``: MINIMAX-SEARCH (figure 5.3) with a depth cut-off;
* ``alphabeta``: ALPHA-BETA-SEARCH (figure 5.7), moves in the game's
  natural order (``legal_moves``, the book's ACTIONS);
* ``alphabeta_ordered``: the same, with the production search's move
  ordering (:meth:`~engine.game.Game.ordered_moves`, then
  :meth:`~engine.game.Game.sort_moves` where two plies or more remain) but
  no transposition table, killers or history;
* ``negamax``: alpha-beta in negamax form (Knuth & Moore 1975): one
  function, values from the side to move, negated on the way up. It enters
  exactly the nodes ``alphabeta`` enters;
* ``expectiminimax``: section 5.5, MAX and MIN nodes as in minimax, a chance
  node the probability-weighted average of its outcomes, computed exactly;
* ``mcts``: the production Monte Carlo tree search
  (:mod:`engine.search.mcts`, section 5.4) after ``playouts`` iterations,
  its tree as it stands: each node with its ``visits`` and ``wins`` (MAX's
  reward summed over them: 1 a win, 1/2 a draw), ``value`` their ratio,
  and ``order`` the iteration that added it. It has no depth and no window.
  ``playout_log`` tells each iteration's path (its last node) and result,
  so that a drawing can replay the statistics playout by playout.

Values are the textbook's: MAX is the player to move at the root, and every
value, alpha and beta is from MAX's side (negamax's own values are kept in
``mover_value``). A finished game is worth its utility: the tree game's own
numbers, a game of chance's points times its ``utility_scale``, and in the
other games ``WIN - plies`` for a MAX win (``plies - WIN`` for a loss, 0 for
a draw), as in :mod:`engine.search.reference`. A cut-off is worth the
game's evaluation, turned to MAX's side.

``depth`` counts moves (plies); chance nodes use none. A trace is bounded:
it records at most ``max_nodes`` nodes; past that it only counts, for a
while, so that the error can say how big the full trace is.

Why one module: one recorder per algorithm (minimax, alpha-beta,
expectiminimax, Monte Carlo), each the textbook algorithm written to be
drawn, sharing the node records and the size bounds; hence the length (over
600 lines).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from engine.errors import GameError, GameOverError, UnknownAlgorithmError
from engine.game import CHANCE, Game
from engine.games.tree import TreeGame
from engine.search.mcts import UNPROVEN, MctsSearcher, tree_size
from engine.search.mcts import Node as MctsNode
from engine.search.request import StopSignal
from engine.search.score import WIN

MINIMAX: Final = "minimax"
ALPHABETA: Final = "alphabeta"
ALPHABETA_ORDERED: Final = "alphabeta_ordered"
NEGAMAX: Final = "negamax"
EXPECTIMINIMAX: Final = "expectiminimax"
MCTS: Final = "mcts"
#: Every algorithm :func:`trace` knows, in the order a lesson meets them.
TRACE_ALGORITHMS: Final = (MINIMAX, ALPHABETA, ALPHABETA_ORDERED, NEGAMAX, EXPECTIMINIMAX, MCTS)
#: The ones that take a window (alpha, beta), and so report it.
WINDOWED: Final = frozenset({ALPHABETA, ALPHABETA_ORDERED, NEGAMAX})

#: Nodes recorded when the request names no bound, and the most it may name.
#: 5,000 nodes draw as a tree a person can still explore; 50,000 are a
#: message of a few megabytes.
DEFAULT_MAX_NODES: Final = 5_000
MAX_TRACE_NODES: Final = 50_000
#: Depth of a trace that names none, except in an exercise tree (traced whole).
DEFAULT_TRACE_DEPTH: Final = 2
#: Deepest trace: far beyond what any bound on nodes lets through, except
#: in a thin exercise tree.
MAX_TRACE_DEPTH: Final = 30
#: Past ``max_nodes`` the search goes on counting, up to this many times
#: ``max_nodes`` (and at most COUNT_LIMIT nodes), to tell how big the full
#: trace is: a few seconds at most in pure Python.
COUNT_FACTOR: Final = 10
COUNT_LIMIT: Final = 200_000
#: A deterministic trace is refused before it runs (:func:`check_cost`) when
#: its estimated size is more than this many times what the trace may count
#: (:func:`count_limit`): such a trace could only end in "more than N nodes".
#: The estimate (:func:`estimate_nodes`) was at most 1.2 times the true size
#: in every game's start and midgame positions to depth 4
#: (tests/engine/search/test_trace_cost.py), hence 4.
ESTIMATE_MARGIN: Final = 4
#: Nodes between two looks at the clock and the stop signal.
CHECK_INTERVAL: Final = 256
#: Iterations of an ``mcts`` trace that names none, and the most it may name:
#: 100 grow a tree a student can read (tic-tac-toe's first two plies); each
#: adds at most one node, so the largest fits in ``MAX_TRACE_NODES``.
DEFAULT_TRACE_PLAYOUTS: Final = 100
MAX_TRACE_PLAYOUTS: Final = 20_000
#: An ``mcts`` trace that has run this long (seconds) and whose playouts so
#: far say it needs more than PROJECTION_MARGIN times the time it has left
#: stops at once with ``limit_exceeded`` rather than hold its process to
#: the end for nothing. Half a second measures a rate in every game (a
#: 19x19 Go playout takes a few milliseconds); playout costs vary by less
#: than the margin along one search (the late ones are in a larger tree).
PROJECTION_AFTER_S: Final = 0.5
PROJECTION_MARGIN: Final = 1.5
#: Seed of an ``mcts`` trace's random generator when the request names none:
#: the same request draws the same tree.
DEFAULT_TRACE_SEED: Final = 1
#: Largest denominator of a probability, as in the reference searches.
PROBABILITY_DENOMINATOR_LIMIT: Final = 10**6

#: ``player`` of a node, in the textbook's MAX/MIN view.
MAX_NODE: Final = "max"
MIN_NODE: Final = "min"
CHANCE_NODE: Final = "chance"
#: ``kind`` of a node: a finished game, a depth cut-off scored by the
#: evaluation, or a node whose children were searched.
TERMINAL: Final = "terminal"
CUTOFF: Final = "cutoff"
INNER: Final = "inner"
#: ``kind`` of an ``mcts`` node with no children in the tree yet: its value
#: comes from the playouts that started there.
PLAYOUT: Final = "playout"

#: A value: an int, or a fraction below chance nodes.
Value = int | Fraction | float
#: A bound of the window: a value or an infinity.
Bound = int | Fraction | float


class TraceLimitError(GameError):
    """The trace would exceed a limit (nodes, time); the message says which and by how much.

    An ``mcts`` trace refused for time tells how many ``playouts`` it ran
    in how many ``seconds``, so that a server can refuse the same request
    before it runs again.
    """

    code = "limit_exceeded"

    def __init__(self, message: str, playouts: int = 0, seconds: float = 0.0) -> None:
        super().__init__(message)
        self.playouts = playouts
        self.seconds = seconds


class TraceChanceError(GameError):
    """``mcts`` asked at a chance state: its tree grows from a decision."""

    code = "chance_state"


@dataclass(slots=True)
class TraceNode:
    """One node the search entered; see :mod:`engine.search.trace` for the meanings.

    ``order`` and ``exit_order`` are the steps at which the search entered
    and left the node; steps count entries and exits together from 0, so
    the two numbers of every node, sorted, replay the search.
    """

    id: int
    parent: int | None
    move: str | None
    player: str
    depth: int
    order: int
    exit_order: int = -1
    probability: Fraction | float | None = None
    alpha_in: Bound | None = None
    beta_in: Bound | None = None
    alpha_out: Bound | None = None
    beta_out: Bound | None = None
    value: Value = 0
    kind: str = INNER
    best_move: str | None = None
    pruned_after: list[str] | None = None
    mover_value: Value | None = None
    visits: int | None = None
    wins: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The protocol form: fields that do not apply are left out."""
        data: dict[str, Any] = {
            "id": self.id,
            "parent": self.parent,
            "move": self.move,
            "player": self.player,
            "depth": self.depth,
            "order": self.order,
            "exit_order": self.exit_order,
            "value": wire_number(self.value),
            "kind": self.kind,
        }
        if self.probability is not None:
            data["probability"] = float(self.probability)
        if self.alpha_in is not None:
            data["alpha_in"] = wire_number(self.alpha_in)
            data["beta_in"] = wire_number(self.beta_in)
            data["alpha_out"] = wire_number(self.alpha_out)
            data["beta_out"] = wire_number(self.beta_out)
        if self.best_move is not None:
            data["best_move"] = self.best_move
        if self.pruned_after is not None:
            data["pruned_after"] = self.pruned_after
        if self.mover_value is not None:
            data["mover_value"] = wire_number(self.mover_value)
        if self.visits is not None:
            data["visits"] = self.visits
            data["wins"] = wire_number(self.wins)
        return data


@dataclass(slots=True)
class Trace:
    """A finished trace: the root's value and move, counts, and every node in entry order.

    For ``mcts``: ``depth`` is the tree's height, ``visited`` its nodes,
    ``leaves`` and ``playouts`` the iterations run, and the nodes come in
    depth-first order.
    """

    algorithm: str
    depth: int
    value: Value
    best_move: str | None
    visited: int
    leaves: int
    nodes: list[TraceNode] = field(default_factory=list)
    playouts: int | None = None
    #: ``mcts`` only: per iteration, in order, the id of the last node of its
    #: path (the node it added, or the finished game it reached) and its
    #: result for MAX (1 a win, 0.5 a draw, 0 a loss, or a playout's estimate).
    playout_log: list[tuple[int, float]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The protocol form of the ``trace`` reply (without ``type`` and ``id``)."""
        data = {
            "algorithm": self.algorithm,
            "depth": self.depth,
            "value": wire_number(self.value),
            "best_move": self.best_move,
            "visited": self.visited,
            "leaves": self.leaves,
            "nodes": [node.to_dict() for node in self.nodes],
        } | ({} if self.playouts is None else {"playouts": self.playouts})
        if self.playout_log is not None:
            data["playout_log"] = [[node, _number(result)] for node, result in self.playout_log]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """A trace from its protocol form (a client's view: fractions arrive as floats)."""
        nodes = [
            TraceNode(
                id=node["id"],
                parent=node["parent"],
                move=node["move"],
                player=node["player"],
                depth=node["depth"],
                order=node["order"],
                exit_order=node["exit_order"],
                probability=node.get("probability"),
                alpha_in=_number(node.get("alpha_in")),
                beta_in=_number(node.get("beta_in")),
                alpha_out=_number(node.get("alpha_out")),
                beta_out=_number(node.get("beta_out")),
                value=node["value"],
                kind=node["kind"],
                best_move=node.get("best_move"),
                pruned_after=node.get("pruned_after"),
                mover_value=node.get("mover_value"),
                visits=node.get("visits"),
                wins=node.get("wins"),
            )
            for node in data["nodes"]
        ]
        return cls(
            data["algorithm"],
            data["depth"],
            data["value"],
            data["best_move"],
            data["visited"],
            data["leaves"],
            nodes,
            data.get("playouts"),
            [(int(node), float(result)) for node, result in data["playout_log"]]
            if "playout_log" in data
            else None,
        )


def _number(value: Any) -> Any:
    """The inverse of :func:`wire_number` (infinities back to floats)."""
    if value == "inf":
        return math.inf
    if value == "-inf":
        return -math.inf
    return value


def wire_number(value: Bound | None) -> int | float | str | None:
    """A value as the protocol writes it: an int when whole, ``"inf"``/``"-inf"`` for infinities."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return int(value) if value.is_integer() else value
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value


def default_depth(game: Game[Any, Any], state: Any) -> int:
    """The depth a trace gets when it names none: an exercise tree whole, else two plies."""
    if isinstance(game, TreeGame):
        return max(1, min(MAX_TRACE_DEPTH, game.max_remaining_plies(state) or 1))
    return DEFAULT_TRACE_DEPTH


def check_request(
    algorithm: str, depth: int, max_nodes: int, playouts: int = DEFAULT_TRACE_PLAYOUTS
) -> None:
    """Raise the error a bad request deserves: unknown algorithm, depth or bound out of range."""
    if algorithm not in TRACE_ALGORITHMS:
        raise UnknownAlgorithmError(
            f"a trace runs one of {', '.join(TRACE_ALGORITHMS)}; got {algorithm!r}"
        )
    if not 1 <= depth <= MAX_TRACE_DEPTH:
        raise TraceLimitError(f"a trace's depth is between 1 and {MAX_TRACE_DEPTH}, got {depth}")
    if not 1 <= max_nodes <= MAX_TRACE_NODES:
        raise TraceLimitError(
            f"a trace records at most {MAX_TRACE_NODES} nodes; max_nodes {max_nodes} is too many"
        )
    if not 1 <= playouts <= MAX_TRACE_PLAYOUTS:
        raise TraceLimitError(
            f"an mcts trace runs between 1 and {MAX_TRACE_PLAYOUTS} playouts, got {playouts}"
        )


def count_limit(max_nodes: int) -> int:
    """Most nodes a trace bounded by ``max_nodes`` enters (it counts on past ``max_nodes``)."""
    return min(COUNT_LIMIT, max_nodes * COUNT_FACTOR)


def estimate_nodes(
    game: Game[Any, Any], state: Any, algorithm: str, depth: int, cap: int = COUNT_LIMIT
) -> int:
    """A cautious estimate of the nodes a deterministic trace enters, from three lines of play.

    A line is walked down to ``depth`` plies, and its branching factors
    stand for their whole level: ``minimax`` and ``expectiminimax`` enter
    every node of the tree, the alpha-beta searches at least its minimal
    tree (Knuth & Moore 1975: with the best ordering, ply ``k`` holds
    ``b**ceil(k/2) + b**floor(k/2) - 1`` nodes for a uniform ``b``). The
    lines follow each node's first, middle and last move, and the median
    of their estimates is the answer, so that one line that runs long (in
    Nim, taking one stone at a time) or ends early (in Go, two passes)
    does not sway it. Each ply costs
    one ``legal_moves`` and one ``result``, and a walk stops once its
    estimate passes ``cap``. ``mcts`` and exercise trees (whose size their
    text bounds) have no estimate: 1 is returned.
    """
    if algorithm == MCTS or isinstance(game, TreeGame):
        return 1
    estimates = sorted(
        _line_estimate(game, state, algorithm, depth, cap, pick) for pick in LINE_PICKS
    )
    return estimates[len(estimates) // 2]


#: Which move each estimated line follows: the first, the middle, the last.
LINE_PICKS: Final = (0.0, 0.5, 1.0)


def _line_estimate(
    game: Game[Any, Any], state: Any, algorithm: str, depth: int, cap: int, pick: float
) -> int:
    """:func:`estimate_nodes` along one line: the move at ``pick`` of the way down each list."""
    full = algorithm in (MINIMAX, EXPECTIMINIMAX)
    widths: list[int] = []
    total = 1
    line = state
    plies = depth
    while plies > 0 and not game.is_terminal(line):
        outcomes = game.chance_outcomes(line)
        if outcomes is not None:
            if algorithm != EXPECTIMINIMAX:
                break  # the trace stops at its first chance node with an error
            widths.append(len(outcomes))
            step: Any = outcomes[round(pick * (len(outcomes) - 1))][0]
        else:
            moves = game.legal_moves(line)
            if not moves:
                break
            widths.append(len(moves))
            step = moves[round(pick * (len(moves) - 1))]
            plies -= 1
        total += _level_size(widths, full)
        if total > cap:
            break
        line = game.result(line, step)
    return total


def _level_size(widths: list[int], full: bool) -> int:
    """Nodes of the level below ``widths`` (the branching factors above it), all or minimal."""
    if full:
        return math.prod(widths)
    even = math.prod(widths[0::2])
    odd = math.prod(widths[1::2])
    return even + odd - 1


def check_cost(
    game: Game[Any, Any], state: Any, algorithm: str, depth: int, max_nodes: int
) -> None:
    """Refuse at once a trace that could only end in "more than N nodes".

    Raises :class:`TraceLimitError` when :func:`estimate_nodes` is more
    than :data:`ESTIMATE_MARGIN` times :func:`count_limit`: running it would
    hold a search process while it counted to its limit, for nothing.
    """
    limit = count_limit(max_nodes)
    cap = ESTIMATE_MARGIN * limit
    estimate = estimate_nodes(game, state, algorithm, depth, cap)
    if estimate > cap:
        raise TraceLimitError(
            f"the full trace would have more than {cap} nodes (about {estimate} or more, "
            f"estimated from the branching factors at depth {depth}), and with max_nodes "
            f"{max_nodes} a trace stops counting at {limit} nodes (max_nodes may be at most "
            f"{MAX_TRACE_NODES}): ask for a smaller depth or a larger max_nodes"
        )


def trace(
    game: Game[Any, Any],
    state: Any,
    algorithm: str,
    depth: int,
    max_nodes: int = DEFAULT_MAX_NODES,
    deadline: float | None = None,
    stop: StopSignal | None = None,
    playouts: int = DEFAULT_TRACE_PLAYOUTS,
    seed: int = DEFAULT_TRACE_SEED,
) -> Trace:
    """Run ``algorithm`` on ``state`` to ``depth`` plies and return its :class:`Trace`.

    ``mcts`` ignores ``depth`` and runs ``playouts`` iterations with a
    random generator seeded by ``seed``; it raises
    :class:`TraceChanceError` at a chance state.

    Raises :class:`TraceLimitError` when the trace would record more than
    ``max_nodes`` nodes (the message says how many it would take when the
    count finished), when ``deadline`` (``time.monotonic()`` seconds)
    passes or ``stop`` is set; :class:`UnknownAlgorithmError` for an
    algorithm not in :data:`TRACE_ALGORITHMS`, or a deterministic one on a
    chance node; :class:`GameOverError` when the game is over.
    """
    check_request(algorithm, depth, max_nodes, playouts)
    if game.outcome(state) is not None:
        raise GameOverError("the game is over: there is no search to trace")
    if algorithm == MCTS:
        return mcts_trace(game, state, playouts, max_nodes, seed, deadline, stop)
    tracer = _Tracer(game, state, algorithm, max_nodes, deadline, stop)
    return tracer.run(state, depth)


def mcts_trace(
    game: Game[Any, Any],
    state: Any,
    playouts: int,
    max_nodes: int,
    seed: int,
    deadline: float | None,
    stop: StopSignal | None,
) -> Trace:
    """The production MCTS tree of ``state`` after ``playouts`` iterations (see :func:`trace`).

    The searcher is the one that plays (:class:`~engine.search.mcts.MctsSearcher`,
    with the game's RAVE setting and the solver), seeded, so one request
    always draws the same tree. Fewer iterations run when the solver proves
    the root first.
    """
    if game.to_move(state) == CHANCE:
        raise TraceChanceError(
            "the dice are to be rolled: Monte Carlo tree search grows from a decision; "
            "roll first, or trace expectiminimax"
        )
    searcher = MctsSearcher(game, seed=seed, reuse=False)
    started = time.monotonic()
    try:
        root, best_index, log = _grow_logged(searcher, state, playouts, deadline, stop)
    except _TooSlow as slow:
        seconds = time.monotonic() - started
        rate = searcher.playouts / seconds
        raise TraceLimitError(
            f"the trace would take about {slow.projected_s:.0f} s ({searcher.playouts} playouts "
            f"in {seconds:.1f} s), more than the time a trace may run: ask for fewer playouts "
            f"(about {int(rate * slow.budget_s / PROJECTION_MARGIN)} fit)",
            searcher.playouts,
            seconds,
        ) from None
    if searcher.playouts < playouts and root.proven == UNPROVEN:
        why = "was stopped" if stop is not None and stop.is_set() else "did not finish in time"
        raise TraceLimitError(
            f"the trace {why} ({searcher.playouts} of {playouts} playouts): ask for fewer playouts",
            searcher.playouts,
            time.monotonic() - started,
        )
    max_player = game.to_move(state)
    size, _ = tree_size(root)
    if size > max_nodes:
        advice = (
            f"ask for max_nodes {size}" if size <= MAX_TRACE_NODES else "ask for fewer playouts"
        )
        raise TraceLimitError(
            f"the tree after {searcher.playouts} playouts has {size} nodes, more than "
            f"max_nodes ({max_nodes}): {advice}"
        )
    nodes: list[TraceNode] = []
    ids: dict[int, int] = {}  # id() of a tree node -> its trace id
    # Depth first, children in the game's move order, as the other traces.
    pending: list[tuple[MctsNode, int | None, str | None, float | None, int]] = [
        (root, None, None, None, 0)
    ]
    while pending:
        node, parent, move, probability, depth = pending.pop()
        record = _mcts_record(game, node, len(nodes), parent, move, probability, depth, max_player)
        ids[id(node)] = record.id
        nodes.append(record)
        followers = []
        for index, child in enumerate(node.children):
            if child is None:
                continue
            chance = node.mover == CHANCE
            followers.append(
                (
                    child,
                    record.id,
                    game.format_move(node.state, node.moves[index]),
                    node.probabilities[index] if chance else None,
                    depth if chance else depth + 1,
                )
            )
        if followers:
            record.kind = INNER
            record.best_move = (
                game.format_move(node.state, node.moves[best_index])
                if node is root
                else max(followers, key=lambda follower: follower[0].visits)[2]
            )
        pending.extend(reversed(followers))
    return Trace(
        MCTS,
        max(record.depth for record in nodes),
        nodes[0].value,
        nodes[0].best_move,
        len(nodes),
        searcher.playouts,
        nodes,
        searcher.playouts,
        [
            (ids[id(last)], reward if max_player == 0 else 1.0 - reward)
            for last, reward in log
            if id(last) in ids
        ],
    )


def _grow_logged(
    searcher: MctsSearcher,
    state: Any,
    playouts: int,
    deadline: float | None,
    stop: StopSignal | None,
) -> tuple[MctsNode, int, list[tuple[MctsNode, float]]]:
    """``searcher.grow(state, playouts, ...)``, noting each iteration's last node and reward.

    The same iterations in the same order as :meth:`MctsSearcher.grow` (its
    first iteration is grow's own, the rest the searcher's own iteration
    step with grow's stopping rules), so the tree and the move are the ones
    grow makes; grow has no per-iteration hook, hence the private calls. An
    iteration's path is found by walking down the children whose visits
    grew; its reward (player 0's) is the root's gain.
    """
    started = time.monotonic()
    root, best_index = searcher.grow(state, 1, deadline, stop)
    # Visits last seen, by id(); the node is kept so that its id is not reused.
    seen: dict[int, tuple[MctsNode, int]] = {id(root): (root, root.visits)}

    def last_of_path() -> MctsNode:
        node = root
        seen[id(root)] = (root, root.visits)
        while True:
            grown = None
            for child in node.children:
                if child is not None and child.visits > seen.get(id(child), (child, 0))[1]:
                    grown = child
                    break
            if grown is None:
                return node
            seen[id(grown)] = (grown, grown.visits)
            node = grown

    log = [(last_of_path(), root.reward)]
    if searcher.playouts < 1:
        return root, best_index, []
    while searcher.playouts < playouts and root.proven == UNPROVEN:
        if stop is not None and stop.is_set():
            break
        now = time.monotonic()
        if deadline is not None:
            if now >= deadline:
                break
            elapsed = now - started
            if elapsed >= PROJECTION_AFTER_S:
                needed = elapsed / searcher.playouts * (playouts - searcher.playouts)
                if needed > (deadline - now) * PROJECTION_MARGIN:
                    raise _TooSlow(elapsed + needed, deadline - started)
        before = root.reward
        searcher._playout(root)
        searcher.playouts += 1
        log.append((last_of_path(), root.reward - before))
    return root, searcher._best_index(root) if root.expanded else 0, log


def _mcts_record(
    game: Game[Any, Any],
    node: MctsNode,
    node_id: int,
    parent: int | None,
    move: str | None,
    probability: float | None,
    depth: int,
    max_player: int,
) -> TraceNode:
    """A tree node as a trace node: its statistics turned to MAX's side."""
    finished = game.outcome(node.state) is not None
    if node.mover == CHANCE and not finished:
        player = CHANCE_NODE
    else:
        player = MAX_NODE if node.mover == max_player else MIN_NODE
    # The tree keeps player 0's rewards; MAX is player 1 when 1 is to move at the root.
    wins = node.reward if max_player == 0 else node.visits - node.reward
    value = wins / node.visits if node.visits else 0.5
    return TraceNode(
        node_id,
        parent,
        move,
        player,
        depth,
        node.created,
        node.created,
        probability=probability,
        value=value,
        kind=TERMINAL if finished else PLAYOUT,
        visits=node.visits,
        wins=wins,
    )


class _Tracer:
    """One trace in progress: the searches, and the record they write as they go."""

    def __init__(
        self,
        game: Game[Any, Any],
        root: Any,
        algorithm: str,
        max_nodes: int,
        deadline: float | None,
        stop: StopSignal | None,
    ) -> None:
        self.game = game
        self.algorithm = algorithm
        to_move = game.to_move(root)
        #: MAX is the player to move at the root (at a chance root: who moves after it).
        self.max_player = game.roller(root) if to_move == CHANCE else to_move
        self.exact_utilities = type(game).chance_outcomes is not Game.chance_outcomes
        self.max_nodes = max_nodes
        self.count_limit = count_limit(max_nodes)
        self.deadline = deadline
        self.stop = stop
        self.nodes: list[TraceNode] = []
        self.visited = 0
        self.leaves = 0
        self.step = 0
        #: Stands in for every node past ``max_nodes``: counted, not kept.
        self._scratch = TraceNode(-1, None, None, MAX_NODE, 0, 0)

    def run(self, root: Any, depth: int) -> Trace:
        node = self._enter(root, None, None, None)
        try:
            value = self._search(root, node, depth)
        except _CountExceeded:
            raise TraceLimitError(
                f"the full trace has more than {self.count_limit} nodes, where a trace with "
                f"max_nodes {self.max_nodes} stops counting (max_nodes may be at most "
                f"{MAX_TRACE_NODES}): ask for a smaller depth or a larger max_nodes"
            ) from None
        if self.visited > self.max_nodes:
            raise TraceLimitError(self._too_large_message())
        return Trace(
            self.algorithm,
            depth,
            value,
            self.nodes[0].best_move,
            self.visited,
            self.leaves,
            self.nodes,
        )

    def _too_large_message(self) -> str:
        advice = (
            f"ask for max_nodes {self.visited}"
            if self.visited <= MAX_TRACE_NODES
            else f"more than the {MAX_TRACE_NODES} a trace may hold: ask for a smaller depth"
        )
        return (
            f"the full trace has {self.visited} nodes, more than max_nodes ({self.max_nodes}): "
            + advice
        )

    def _search(self, state: Any, node: TraceNode, depth: int) -> Value:
        """The root call of the chosen algorithm."""
        if self.algorithm == MINIMAX:
            return self.minimax(state, node, depth)
        if self.algorithm == EXPECTIMINIMAX:
            return self.expectiminimax(state, node, depth)
        if self.algorithm == NEGAMAX:
            color = 1 if node.player == MAX_NODE else -1
            return color * self.negamax(state, node, depth, -math.inf, math.inf, color)
        return self.alphabeta(state, node, depth, -math.inf, math.inf)

    # ------------------------------------------------------------------
    # The searches, as in the book; ``_enter``/``_exit`` keep the record.

    def minimax(self, state: Any, node: TraceNode, depth: int) -> Value:
        """MAX-VALUE and MIN-VALUE of MINIMAX-SEARCH in one function."""
        leaf = self._leaf_value(state, node, depth)
        if leaf is not None:
            return leaf
        self._require_decision(state, node)
        return self._best_child(state, node, depth, self.minimax)

    def _best_child(
        self,
        state: Any,
        node: TraceNode,
        depth: int,
        search: Callable[[Any, TraceNode, int], Value],
    ) -> Value:
        """MAX-VALUE or MIN-VALUE without a window: the best of the children ``search`` values."""
        maximizing = node.player == MAX_NODE
        v: Value | None = None
        for move in self._moves(state, depth):
            child_state = self.game.result(state, move)
            child = self._enter(child_state, node, self._move_text(state, move), None)
            v2 = search(child_state, child, depth - 1)
            if v is None or (v2 > v if maximizing else v2 < v):
                v, node.best_move = v2, child.move
        assert v is not None  # a state that is not terminal has a move
        return self._exit(node, v)

    def alphabeta(
        self, state: Any, node: TraceNode, depth: int, alpha: Bound, beta: Bound
    ) -> Value:
        """MAX-VALUE and MIN-VALUE of ALPHA-BETA-SEARCH in one function."""
        node.alpha_in, node.beta_in = alpha, beta
        leaf = self._leaf_value(state, node, depth)
        if leaf is not None:
            node.alpha_out, node.beta_out = alpha, beta
            return leaf
        self._require_decision(state, node)
        maximizing = node.player == MAX_NODE
        moves = self._moves(state, depth)
        v: Value | None = None
        for index, move in enumerate(moves):
            child_state = self.game.result(state, move)
            child = self._enter(child_state, node, self._move_text(state, move), None)
            v2 = self.alphabeta(child_state, child, depth - 1, alpha, beta)
            # The order of the notes' MAX-VALUE and MIN-VALUE (Russell and
            # Norvig): the test, then the window's update, so that a node cut
            # off leaves its window as the pseudocode beside the tree does.
            if maximizing:
                if v is None or v2 > v:
                    v, node.best_move = v2, child.move
                if v >= beta:  # MIN above will never let the game come here
                    self._prune(node, state, moves[index + 1 :])
                    break
                alpha = max(alpha, v)
            else:
                if v is None or v2 < v:
                    v, node.best_move = v2, child.move
                if v <= alpha:  # MAX above already has something better
                    self._prune(node, state, moves[index + 1 :])
                    break
                beta = min(beta, v)
        assert v is not None
        node.alpha_out, node.beta_out = alpha, beta
        return self._exit(node, v)

    def negamax(
        self, state: Any, node: TraceNode, depth: int, alpha: Bound, beta: Bound, color: int
    ) -> Value:
        """Alpha-beta in negamax form: ``color`` is +1 at MAX's nodes, -1 at MIN's.

        The value returned and the window are from the side to move; the
        record converts them to MAX's side.
        """
        self._window(node, alpha, beta, color, entry=True)
        leaf = self._leaf_value(state, node, depth)
        if leaf is not None:
            self._window(node, alpha, beta, color, entry=False)
            node.mover_value = color * leaf
            return color * leaf
        self._require_decision(state, node)
        moves = self._moves(state, depth)
        v: Value | None = None
        for index, move in enumerate(moves):
            child_state = self.game.result(state, move)
            child = self._enter(child_state, node, self._move_text(state, move), None)
            v2 = -self.negamax(child_state, child, depth - 1, -beta, -alpha, -color)
            if v is None or v2 > v:
                v, node.best_move = v2, child.move
            if v >= beta:  # the test before the update, as in alphabeta above
                self._prune(node, state, moves[index + 1 :])
                break
            alpha = max(alpha, v)
        assert v is not None
        self._window(node, alpha, beta, color, entry=False)
        node.mover_value = v
        self._exit(node, color * v)
        return v

    def expectiminimax(self, state: Any, node: TraceNode, depth: int) -> Value:
        """EXPECTIMINIMAX: MAX and MIN as in minimax, chance nodes average their outcomes."""
        leaf = self._leaf_value(state, node, depth)
        if leaf is not None:
            return leaf
        outcomes = self.game.chance_outcomes(state)
        if outcomes is not None:
            total: Value = Fraction(0)
            for outcome, p in outcomes:
                probability = Fraction(p).limit_denominator(PROBABILITY_DENOMINATOR_LIMIT)
                child_state = self.game.result(state, outcome)
                label = self._move_text(state, outcome)
                child = self._enter(child_state, node, label, probability)
                total += probability * self.expectiminimax(child_state, child, depth)
            return self._exit(node, total)
        return self._best_child(state, node, depth, self.expectiminimax)

    # ------------------------------------------------------------------
    # What the searches share.

    def _leaf_value(self, state: Any, node: TraceNode, depth: int) -> Value | None:
        """TERMINAL-TEST and the cut-off test: the value of a leaf, or ``None`` to search on."""
        game = self.game
        if game.is_terminal(state):
            node.kind = TERMINAL
            return self._exit(node, self._utility(state, node.depth), leaf=True)
        if depth <= 0:
            node.kind = CUTOFF
            return self._exit(node, self._evaluation(state), leaf=True)
        return None

    def _utility(self, state: Any, ply: int) -> int:
        if self.exact_utilities:
            return self.game.utility(state, self.max_player) * self.game.utility_scale
        outcome = self.game.outcome(state)
        assert outcome is not None  # only asked of terminal states
        if outcome.winner is None:
            return 0
        return WIN - ply if outcome.winner == self.max_player else ply - WIN

    def _evaluation(self, state: Any) -> int:
        to_move = self.game.to_move(state)
        player = self.game.roller(state) if to_move == CHANCE else to_move
        value = self.game.evaluate(state)
        return value if player == self.max_player else -value

    def _moves(self, state: Any, depth: int) -> list[Any]:
        """ACTIONS in the game's natural order, or the production order (``alphabeta_ordered``)."""
        if self.algorithm != ALPHABETA_ORDERED:
            return self.game.legal_moves(state)
        moves = self.game.ordered_moves(state)
        if depth >= 2 and len(moves) > 1:
            moves = self.game.sort_moves(state, moves)
        return moves

    def _require_decision(self, state: Any, node: TraceNode) -> None:
        if node.player == CHANCE_NODE:
            raise UnknownAlgorithmError(
                f"{self.algorithm} has no chance nodes, and this game has one at ply "
                f"{node.depth}: trace it with {EXPECTIMINIMAX}"
            )

    def _move_text(self, state: Any, move: Any) -> str:
        return self.game.format_move(state, move)

    def _prune(self, node: TraceNode, state: Any, unvisited: list[Any]) -> None:
        if unvisited and node is not self._scratch:
            node.pruned_after = [self._move_text(state, move) for move in unvisited]

    def _window(self, node: TraceNode, alpha: Bound, beta: Bound, color: int, entry: bool) -> None:
        """Record negamax's window (side to move) as MAX's: at MIN, [a, b] is [-b, -a]."""
        low, high = (alpha, beta) if color == 1 else (-beta, -alpha)
        if entry:
            node.alpha_in, node.beta_in = low, high
        else:
            node.alpha_out, node.beta_out = low, high

    def _enter(
        self, state: Any, parent: TraceNode | None, move: str | None, probability: Fraction | None
    ) -> TraceNode:
        """Count and (within ``max_nodes``) record a node as the search enters it."""
        self.visited += 1
        if self.visited % CHECK_INTERVAL == 0:
            self._check_budget()
        to_move = self.game.to_move(state)
        if to_move == CHANCE and not self.game.is_terminal(state):
            player = CHANCE_NODE
        else:
            player = MAX_NODE if to_move == self.max_player else MIN_NODE
        depth = 0 if parent is None else parent.depth + (0 if parent.player == CHANCE_NODE else 1)
        if self.visited > self.max_nodes:
            node = self._scratch
            node.player, node.depth, node.pruned_after = player, depth, None
            self.step += 1
            return node
        node = TraceNode(
            len(self.nodes),
            None if parent is None else parent.id,
            move,
            player,
            depth,
            self.step,
            probability=probability,
        )
        self.step += 1
        self.nodes.append(node)
        return node

    def _exit(self, node: TraceNode, value: Value, leaf: bool = False) -> Value:
        """Record the value a node returns and the step at which it does."""
        if leaf:
            self.leaves += 1
        node.value = value
        node.exit_order = self.step
        self.step += 1
        return value

    def _check_budget(self) -> None:
        if self.visited > self.count_limit:
            raise _CountExceeded
        if self.stop is not None and self.stop.is_set():
            raise TraceLimitError("the trace was stopped")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TraceLimitError(
                f"the trace did not finish in time ({self.visited} nodes so far): "
                "ask for a smaller depth"
            )


class _TooSlow(Exception):
    """An ``mcts`` trace's projection: it needs ``projected_s`` seconds of its ``budget_s``."""

    def __init__(self, projected_s: float, budget_s: float) -> None:
        super().__init__(projected_s)
        self.projected_s = projected_s
        self.budget_s = budget_s


class _CountExceeded(Exception):
    """Counting past ``max_nodes`` reached its own bound: the full size is unknown."""

"""Monte Carlo tree search: UCT with RAVE, an MCTS-Solver and tree reuse.

:class:`MctsSearcher` runs the driver every searcher shares
(:meth:`engine.search.budget.BudgetedSearch.think`: limits, stop signal,
progress reports, best move so far), for any game: it needs no evaluation,
only the game's random playouts (:meth:`engine.game.Game.playout`). One
iteration of that driver is a batch of playouts, up to the next progress
report (:meth:`MctsSearcher._iterate`).

One *playout* of the search is the textbook four steps (Browne et al.,
"A Survey of Monte Carlo Tree Search Methods", 2012, figure 2), numbered in
:meth:`MctsSearcher._playout` as Stockfish numbers the steps of its search:

1. **Selection**: from the root, follow the child with the best UCT value
   (Kocsis & Szepesvari 2006, "Bandit based Monte-Carlo Planning")::

       Q(child) + C * sqrt(ln N(node) / N(child))

   where ``Q`` is the child's mean reward for the player who moves at
   ``node``. With RAVE (Gelly & Silver 2011, "Monte-Carlo tree search and
   rapid action value estimation in computer Go", section 5) ``Q`` is blended
   with the child's all-moves-as-first mean ``Q~``: ``(1 - b) Q + b Q~``
   with ``b = sqrt(K / (3 N(child) + K))`` (their hand-selected schedule;
   ``K`` is the *equivalence parameter*, the visits at which both count
   alike). An unvisited child has priority (plain UCT tries each child once,
   in the game's move order) unless RAVE already knows something about it:
   then its RAVE mean stands in for ``Q`` as if it had one visit. With
   RAVE ``C`` is 0 (:data:`RAVE_EXPLORATION`, as in MoGo): the
   all-moves-as-first statistics and the priors do the exploring. At a
   chance node (dice) the outcome is drawn with its probability instead.
2. **Expansion**: the first move out of the tree adds one node (a node
   lists its moves the first time the selection passes through it).
3. **Simulation**: play the new node out at random with the game's playout
   (:attr:`~engine.game.Game.playout_limit` plies at most; a playout cut
   off there is judged by :meth:`~engine.game.Game.win_probability`).
4. **Back-propagation**: add the reward to every node on the path, and
   with RAVE credit every sibling move that the same player played later
   in the tree path or the playout (all moves as first). Then the solver
   (Winands, Bjornsson & Saito 2008, "Monte-Carlo Tree Search Solver")
   marks nodes whose value is proven: a finished game, a node with a child
   that wins for its mover, or a node whose children are all proven.

Rewards are stored for player 0 (1 win, 0.5 draw, 0 loss, or a probability),
and read for the player to move where a choice is made, so a game that
passes the move back to the same player (a pass in Othello) needs nothing
special.

Limits (:class:`~engine.search.limits.Limits`):

* ``nodes`` caps the **playouts** (the nodes the search adds to its tree are
  reported as ``nodes``);
* ``movetime`` and ``clock``: the search runs to the caller's planned
  deadlines; it checks the clock and the stop signal between playouts, and
  each game's :attr:`~engine.game.Game.playout_limit` keeps one playout short
  (see ``python -m bench.mcts_bench --only playouts``). It stops at the
  allotment the deadlines carry (:attr:`~engine.search.limits.Deadlines.allotment`,
  never after the hard deadline): it has no iterations to finish. With a
  ``clock`` and no ``movetime`` it manages its time: the allotment is
  scaled by the game's :meth:`~engine.game.Game.time_weight` (Go: more in
  the middle game), still never past the hard deadline, and the search
  stops early when the most-visited root move can no longer be overtaken
  in the playouts left (:data:`EARLY_STOP_INTERVAL`). A fixed ``movetime``
  is searched to its end: time saved there would be lost;
* ``depth`` is ignored: a tree search has no fixed depth;
* with no limit and no stop signal it stops after :data:`DEFAULT_PLAYOUTS`,
  or earlier when the root is proven (reason ``proven``).

A stopped search answers with the most-visited root move (a proven win if
it has one, never a proven loss while another move remains); before the
first playout, with the first of the game's ordered moves. A single legal
move is answered at once (reason ``only_move``, no playout; its score is
the reused tree's win rate, or the game's evaluation's chance of winning
on the same scale).

Reports (``on_info``) come about every :data:`INFO_INTERVAL_S` seconds
(after half the time left when that is less, but never closer than
:data:`MIN_INFO_INTERVAL_S`: a short search has some) and once at the
end: ``nodes`` the tree's nodes made by this search (a reused tree's are
not counted), ``playouts`` the playouts so far, ``depth`` the length of
``pv`` (the most-visited line, stopping at a chance node), ``seldepth``
the deepest node reached by a selection. The score maps the root's win
rate ``p`` for the side to move into the game's evaluation unit by the
inverse of :meth:`~engine.game.Game.win_probability`::

    value = round(win_odds_scale * ln(p / (1 - p))),  p clamped to [0.001, 0.999]

(so about ``±6.9 * win_odds_scale``, also kept within ``±EVAL_LIMIT``); a
proven root reports ``win_in``/``loss_in`` (the plies of the proven line,
not necessarily the shortest) or ``draw``.

Several lines (``SearchRequest.multipv`` k above 1), as Leela Chess Zero and
KataGo give them: each report is k reports, one per visited root move (fewer
while fewer are visited), ranked as :meth:`MctsSearcher._root_lines` says:
line 1 is the move the search would play, then the others by their visits.
Each line's ``pv`` is its move and the most-visited line below it, and its
score is that move's own win rate (its child's mean) by the same mapping, or
the child's proof one ply further from the root. The answer (``bestmove``)
is line 1, with line 1's score: the move's own, where a single-line search
gives the root's mean over every move it tried. No search is added: the
lines are read off the one tree.

Tree reuse: the searcher keeps its tree after a search. The next
:meth:`~MctsSearcher.think` looks for its position among the old tree's
nodes up to :data:`REUSE_DEPTH` levels below the old root
(:data:`REUSE_DEPTH_WITH_CHANCE` in a game of chance), by equal states
(``==``); if found, that subtree becomes the new root with all its
statistics, otherwise the search starts afresh. A worker that serves many
sessions therefore reuses a tree only for a position that really follows.
The tree's memory is bounded (:data:`MAX_LISTED_MOVES`, about 150 MB), and
more tightly by :attr:`MctsSearcher.max_tree_bytes` when set (a worker's
memory budget, :mod:`server.runtime.memory`): a tree that reaches it stops
growing and the search goes on in it; a reused subtree already over it is
dropped for a fresh root; :meth:`MctsSearcher.release` drops the kept tree.

RAVE is on by default only in the games of :data:`RAVE_GAMES` (Go and
Othello), where it measured better; the constructor's ``rave`` turns it on or off anywhere.

Priors (progressive bias): a game that knows which moves look good says so
through :meth:`~engine.game.Game.priors` (Go: :mod:`engine.games.go_policy`).
When a node lists its moves, each move gets virtual visits ``n0`` and wins
``w0`` for the mover, which count in its mean as if they had been played
out: ``Q = (w + w0) / (n + n0)``, and ``n + n0`` stands for ``N(child)`` in
the exploration term. A move with priors is never "untried": its prior is
its first estimate. With RAVE the prior counts in the all-moves-as-first
statistics as well (Gelly & Silver 2011, section 6, "heuristic MC-RAVE",
initialise both), and RAVE blends by their minimum-MSE schedule (section
5.3), ``b = n~ / (n + n~ + n n~ / K)`` with ``n~`` the move's
all-moves-as-first visits and ``n`` its own, priors included in both, so
that a few AMAF samples do not drown the prior (the hand-selected schedule
gives RAVE almost all the weight while ``n`` is small). The searcher's ``priors``
turns them off (the benchmarks' yardstick). The most-visited move is
still the one played: virtual visits do not count there.

Why one module: one searcher: selection, expansion, playout, backup and tree
reuse are one loop read in order beside the textbook algorithm (ordering,
budget and results live in their own modules); hence the length (over 600
lines).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from random import Random
from typing import Any, Final, final

from engine.game import CHANCE, EVAL_LIMIT, Game, Outcome
from engine.search.budget import BudgetedSearch, SearchAborted
from engine.search.limits import Limits
from engine.search.request import SearchRequest, StopSignal
from engine.search.results import Info, SearchResult, SearchStats
from engine.search.score import WIN, Score

#: UCT's exploration constant ``C`` for rewards in [0, 1]. UCB1's bound is
#: ``sqrt(2)`` (Auer et al. 2002). Against 1.0 in Connect Four at 1,000
#: playouts per move over 30 games, C = 0.5 scored 0.48 and C = 1.4 0.45
#: (``python -m bench.mcts_bench --only tune --tune-games connect4 --games
#: 30``): a flat optimum, within the noise.
EXPLORATION: Final = 1.0
#: With RAVE the all-moves-as-first statistics (and in Go the priors) do
#: the exploring, and no UCT term is added: Gelly & Silver 2011 set it to
#: 0 in MoGo, as michi and Pachi do. Measured against the 0.3 used before,
#: at 1,000 playouts a move, compiled, colours alternating over seeded
#: openings (``python -m bench.mcts_bench --only tune --tune-games go
#: --exploration= --rave-k 1000 --rave-c 0 --games 40``; score of C = 0,
#: 95% Wilson interval): 9x9 Go 38 wins in 40 (0.95, 0.83-0.99), and C =
#: 0.1 36 in 40 (0.90, 0.77-0.96); Othello 0.66 (0.51-0.79) over 40.
RAVE_EXPLORATION: Final = 0.0
#: RAVE's equivalence parameter ``K`` (Gelly & Silver 2011, section 5.2):
#: the child's own mean gets half the weight at ``N = K``. They found a
#: wide plateau around 1000 in 9x9 Go.
RAVE_EQUIVALENCE: Final = 1000
#: Games whose searches use RAVE unless told otherwise, where it measured
#: better against plain UCT (``python -m bench.mcts_bench --only rave``,
#: compiled, colours alternating; score of RAVE, 95% Wilson interval):
#:
#: * 9x9 Go: 10 of 10 games at 1,000 playouts per move, 6 of 6 at 500 ms;
#: * Othello: 0.68 (0.52-0.80) over 40 games at 1,000 playouts, 0.65
#:   (0.43-0.82) over 20 at 100 ms; over all 90 games measured, 0.63;
#: * not Connect Four: 0.15 over 20 games at 1,000 playouts (a column is a
#:   different cell at every height, so what a move was worth later says
#:   little about it now), and ``--only tune`` found no K (100, 1000) or C
#:   (0.3, 1.0) that helps there.
RAVE_GAMES: Final = frozenset({"go", "othello"})
#: Time management with a clock (not a fixed move time): the search stops
#: early when the most-visited root move leads the second by more visits
#: than the playouts left before the allotment ends could give it (at the
#: rate measured so far), so that the saved time goes to later moves:
#: Pachi's and Fuego's "early stop" (Huang, Coulom & Lin, "Time management
#: for Monte-Carlo tree search applied to the game of Go", TAAI 2010,
#: call it EARLY-C). It looks every :data:`EARLY_STOP_INTERVAL` playouts,
#: once :data:`EARLY_STOP_MIN_PLAYOUTS` have measured the rate; both are
#: bookkeeping (a look scans the root's moves), not tuned.
EARLY_STOP_INTERVAL: Final = 64
EARLY_STOP_MIN_PLAYOUTS: Final = 256
#: Playouts of a search with no limit at all (no time, no nodes, no stop
#: signal) and whose root is not proven first.
DEFAULT_PLAYOUTS: Final = 20_000
#: Moves listed by the tree's nodes at most (its size in memory): beyond it
#: the tree stops growing and the search goes on with playouts from its
#: leaves. A listed move costs about 30 bytes (a child slot, and with RAVE
#: its statistics): 20,000 playouts from the start took 49 MB in 9x9 Go
#: with RAVE (2.5 KB per node) and 9 MB in chess (0.5 KB), compiled. So the
#: tree stays near 150 MB; Go fills it in about 10 s of a compiled search.
MAX_LISTED_MOVES: Final = 4_000_000
#: The estimate of a tree's memory that :attr:`MctsSearcher.max_tree_bytes`
#: bounds: ``nodes * NODE_BYTES + listed * LISTED_MOVE_BYTES``. Measured on
#: the pure-Python build (RSS growth of ``grow()`` over 3,000 playouts from
#: the start, after ``gc.collect()``): 9x9 Go with RAVE took 2,200 bytes a
#: node listing 32 moves each, chess 1,880 bytes a node listing 3; these
#: figures cover both with a little room (Go: 2,410 estimated for 2,200
#: measured). The compiled build takes less, so the bound holds there too.
NODE_BYTES: Final = 1_900
#: A listed move's priors (:meth:`~engine.game.Game.priors`, two pointers
#: to small shared ints, and a list header per node) add 16 bytes to the
#: 16 measured without them: 32 covers both (a little room in other games).
LISTED_MOVE_BYTES: Final = 32
#: What the last step of a tree that stopped at its budget may have added
#: past it: one node and the moves it lists (362 in 19x19 Go, rounded up).
#: A kept tree over its budget by no more than this stopped there and is
#: reused; one further over was grown under a larger budget and is dropped.
GROWTH_SLACK_BYTES: Final = NODE_BYTES + 400 * LISTED_MOVE_BYTES
#: Levels of the old tree searched for the new position: two plies (my
#: move and the reply), four in a game of chance, where a roll is a level
#: too (my move, the roll, the reply, the next roll). Each node on those
#: levels costs one comparison of states, charged to the new search.
REUSE_DEPTH: Final = 2
REUSE_DEPTH_WITH_CHANCE: Final = 4
#: Seconds between two progress reports: one iteration of the driver is the
#: playouts between two reports.
INFO_INTERVAL_S: Final = 0.1
#: A search with less time left reports sooner: after half the time left,
#: but not sooner than this. The server's guard answers a worker that is
#: late on a loaded machine with the last report; at 100 ms a move a first
#: report due after INFO_INTERVAL_S came too late for any, and the guard
#: answered with the first move of the game's order (A9 in Go) where the
#: search had made some 50 playouts. Reports at about 43, 64, 74 and 80 ms
#: of an 85 ms search give it one from late in the search; 10 ms keeps
#: their cost (one pv walk each) under 1% of the playouts.
MIN_INFO_INTERVAL_S: Final = 0.01
#: Iterations of the driver at most: more than any search lasts (a year of
#: reports), so the limits, the stop signal or a proof end it.
MAX_BATCHES: Final = 1 << 40
#: Root win rates are clamped into this range before the log-odds mapping.
MIN_WIN_RATE: Final = 0.001
#: Marks a node whose value is not proven (proven values lie in [0, 1]).
UNPROVEN: Final = -1.0
#: Priority of a move nothing is known about: tried before any other.
UNTRIED_PRIORITY: Final = 1e9


@final
class Node:
    """One position of the tree, with its statistics.

    ``reward`` sums player 0's rewards over ``visits``. ``moves`` are the
    legal moves (the outcomes at a chance node, with ``probabilities``) and
    ``children`` the nodes they lead to, ``None`` until first visited;
    both stay empty until :attr:`expanded`. ``amaf_visits`` and
    ``amaf_reward`` are the RAVE statistics of each move, kept in the
    parent so that moves not yet visited have them too; ``prior_visits``
    and ``prior_wins`` the game's priors of each move (wins for the
    node's mover), empty when it has none. ``proven`` is
    :data:`UNPROVEN` or player 0's exact reward, reached in ``proven_plies``
    plies. ``created`` is the iteration that added the node (0 for a root),
    so that a trace can replay the tree's growth.
    """

    def __init__(self, state: Any, mover: int) -> None:
        self.state = state
        self.mover = mover
        self.visits = 0
        self.reward = 0.0
        self.expanded = False
        self.moves: list[Any] = []
        self.children: list[Node | None] = []
        self.probabilities: list[float] = []
        self.amaf_visits: list[int] = []
        self.amaf_reward: list[float] = []
        self.prior_visits: list[int] = []
        self.prior_wins: list[int] = []
        self.proven = UNPROVEN
        self.proven_plies = 0
        self.created = 0


def _mover_value(reward: float, mover: int) -> float:
    """A reward for player 0, read for ``mover``."""
    return reward if mover == 0 else 1.0 - reward


def score_from_win_rate(p: float, win_odds_scale: int) -> int:
    """The evaluation-unit score of a win rate ``p`` (the module docstring's mapping)."""
    p = min(max(p, MIN_WIN_RATE), 1.0 - MIN_WIN_RATE)
    value = round(win_odds_scale * math.log(p / (1.0 - p)))
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))


@final  # direct calls between its methods once compiled (no vtable)
class MctsSearcher(BudgetedSearch):
    """Searches positions of one game by Monte Carlo tree search, keeping its tree.

    ``rave`` switches the all-moves-as-first statistics on or off (default:
    on where it measured better, :func:`rave_pays`); ``seed`` makes the
    search reproducible (each searcher has its own random generator).
    ``exploration`` and ``rave_equivalence`` override the constants above,
    for tuning; ``priors`` asks the game for its priors (module docstring).
    Not thread-safe: one search at a time.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        seed: int | None = None,
        rave: bool | None = None,
        exploration: float | None = None,
        rave_equivalence: int = RAVE_EQUIVALENCE,
        reuse: bool = True,
        priors: bool = True,
    ) -> None:
        super().__init__(game)
        self.priors = priors
        self.rates_playouts = True
        self.rng = Random(seed)
        self.rave = rave_pays(game) if rave is None else rave
        if exploration is None:
            exploration = RAVE_EXPLORATION if self.rave else EXPLORATION
        self.exploration = exploration
        self.rave_equivalence = float(rave_equivalence)
        self.reuse = reuse
        chance = type(game).chance_outcomes is not Game.chance_outcomes
        self._reuse_depth = REUSE_DEPTH_WITH_CHANCE if chance else REUSE_DEPTH
        self.playout_plies = game.playout_limit
        self._tree: Node | None = None
        self._search_root = Node(None, CHANCE)  # the current search's root, set by _begin_search
        self._playout_cap: int | None = None
        self._next_info = 0.0
        #: Visits of the root when the last search began (> 0 when a tree was reused).
        self.reused_visits = 0
        #: Bound on the estimated tree bytes (:meth:`tree_bytes`); None: MAX_LISTED_MOVES only.
        self.max_tree_bytes: int | None = None
        #: Nodes of the tree kept from an earlier think (``nodes`` counts this search's only).
        self._reused_nodes = 0
        #: Whether the current search is timed by a clock (not a fixed move
        #: time): its allotment is weighed by the game and it may stop early.
        self._clocked = False
        self._reset_counters()

    def tree_bytes(self) -> int:
        """The estimated memory of the tree kept for the next think (0 when none is kept)."""
        if self._tree is None:
            return 0
        return self.tree_bytes_now()

    def tree_bytes_now(self) -> int:
        """The estimated memory of the tree being searched: reused nodes and this search's."""
        return (self._reused_nodes + self.nodes) * NODE_BYTES + self.listed * LISTED_MOVE_BYTES

    def release(self) -> None:
        """Drop the kept tree: the next think starts afresh, its memory can be freed."""
        self._tree = None
        self._search_root = Node(None, CHANCE)
        self.nodes = 0
        self._reused_nodes = 0
        self.listed = 0

    def _tree_full(self) -> bool:
        """Whether the tree may not grow: MAX_LISTED_MOVES, or :attr:`max_tree_bytes` reached."""
        if self.listed >= MAX_LISTED_MOVES:
            return True
        cap = self.max_tree_bytes
        return cap is not None and self.tree_bytes_now() >= cap

    def _reset_counters(self) -> None:
        self.nodes = 0
        self.listed = 0  # moves listed by the tree's nodes (see MAX_LISTED_MOVES)
        self.playouts = 0
        self.seldepth = 0
        self.tt_probes = 0
        self.tt_hits = 0
        self.stats = SearchStats()

    # ------------------------------------------------------------------
    # The search loop.

    # ------------------------------------------------------------------
    # The driver's steps (BudgetedSearch.think): one iteration is a batch of
    # playouts, up to the next progress report.

    def _no_moves(self, state: Any, outcome: Outcome | None) -> SearchResult:
        self._tree = None
        return super()._no_moves(state, outcome)

    def _arm(self, request: SearchRequest) -> None:
        super()._arm(request)
        limits = request.limits
        self._clocked = limits.clock is not None and limits.movetime_ms is None

    def _begin_search(self, state: Any, root_moves: list[Hashable]) -> SearchResult | None:
        """Find or plant the tree; a single move is answered at once, without playouts."""
        game = self.game
        root = self._reuse_or_new_root(state)
        self._search_root = root
        self.reused_visits = root.visits
        self.stats.reused_visits = root.visits
        if len(root_moves) == 1:
            value = score_from_win_rate(self._root_win_rate(root, state), game.win_odds_scale)
            if root.visits == 0:
                # The evaluation's chance of winning, on the win-rate scale of
                # every other MCTS score (issue 30: a pass reported -815).
                chance = game.win_probability(state, game.to_move(state))
                value = score_from_win_rate(chance, game.win_odds_scale)
            pv = (game.format_move(state, root_moves[0]),)
            return self._result(state, root_moves[0], Score(value=value), value, pv, "only_move")
        # The time to stop is the allotment: with no iterations to finish,
        # a tree search uses all of it (never after the hard deadline).
        # A clock's allotment is weighed by the game's phase.
        if self._clocked and self._allotment is not None:
            self._allotment = weighed_allotment(
                self._start, self._allotment, self._hard_deadline, game.time_weight(state)
            )
        self._iteration_deadline = self._allotment
        self._playout_cap = self._node_limit
        if self._playout_cap is None and self._allotment is None and self._stop is None:
            self._playout_cap = DEFAULT_PLAYOUTS
        self._next_info = self._next_report(self.clock())
        return None

    def _next_report(self, now: float) -> float:
        """When the next progress report is due: soon enough for a short search to have one."""
        interval = INFO_INTERVAL_S
        if self._allotment is not None:
            interval = max(MIN_INFO_INTERVAL_S, min(interval, (self._allotment - now) / 2))
        return now + interval

    def _max_depth(self, state: Any, limits: Limits) -> int:
        return MAX_BATCHES  # a tree search has no depth: the limits end it

    def _iterate(self, state: Any, depth: int, root_moves: list[Hashable]) -> bool:
        """Playouts until the next report is due; proven when the solver proved the root."""
        root = self._search_root
        cap = self._playout_cap
        stop = self._stop
        until = self._allotment
        clock = self.clock
        early = self._clocked and until is not None
        while True:
            if root.proven != UNPROVEN:
                return True
            if cap is not None and self.playouts >= cap:
                raise SearchAborted("nodes")
            if stop is not None and stop.is_set():
                raise SearchAborted("stopped")
            now = clock()
            if until is not None and now >= until:
                raise SearchAborted("time")
            if (
                early
                and until is not None
                and self.playouts >= EARLY_STOP_MIN_PLAYOUTS
                and self.playouts % EARLY_STOP_INTERVAL == 0
            ):
                left = playouts_left(self.playouts, now - self._start, until - now)
                if cap is not None:
                    left = min(left, float(cap - self.playouts))
                if decided(root, left):
                    raise SearchAborted("time")  # the clock's time management ended it
            if self._on_info is not None and now >= self._next_info:
                self._next_info = self._next_report(now)
                return False
            self._playout(root)
            self.playouts += 1

    def _progress(self, state: Any, depth: int) -> Info | None:
        return self._report(self._search_root, state)

    def _reports(self, state: Any, depth: int) -> list[Info]:
        return self._line_reports(self._search_root, state)

    def _conclude(
        self, state: Any, limits: Limits, completed: int, max_depth: int, reason: str
    ) -> SearchResult:
        root = self._search_root
        if self._on_info is not None:
            for info in self._line_reports(root, state):
                self._on_info(info)
        return self._answer_from_tree(root, state, reason)

    def grow(
        self, state: Any, playouts: int, deadline: float | None, stop: StopSignal | None
    ) -> tuple[Node, int]:
        """Run ``playouts`` iterations on a fresh tree for ``state``; its root and the move's index.

        For traces (:mod:`engine.search.trace`): no time management, reports
        or reuse. Stops early when the root is proven; returns when
        ``deadline`` (on :attr:`clock`, ``time.monotonic()`` seconds) passes or ``stop`` is set,
        with :attr:`playouts` telling how many ran. The index is the root
        move :meth:`think` would play. Raises ``ValueError`` at a chance state
        or a finished game.
        """
        game = self.game
        if game.outcome(state) is not None or game.to_move(state) == CHANCE:
            raise ValueError("grow() needs a decision state of a game in progress")
        self._reset_counters()
        root = self._new_node(state)
        self._tree = None  # not kept for a later think: it was grown with other settings
        while self.playouts < playouts and root.proven == UNPROVEN:
            if stop is not None and stop.is_set():
                break
            if deadline is not None and self.clock() >= deadline:
                break
            self._playout(root)
            self.playouts += 1
        return root, self._best_index(root) if root.expanded else 0

    def _playout(self, root: Node) -> None:
        """One iteration of the tree search: the four steps of the module docstring."""
        game = self.game
        path: list[Node] = [root]
        taken: list[Any] = []  # the move out of each node of path but the last

        # 1. Selection: descend by the UCT value (or a dice draw) while the
        #    node's children are known and its value is not yet proven.
        node = root
        while node.proven == UNPROVEN:
            if not node.expanded:
                if node is not root and self._tree_full():
                    break  # the tree is full: simulate from its leaf
                self._expand(node)
            if node.mover == CHANCE:
                index = _draw(node.probabilities, self.rng)
            else:
                index = self._select(node)
            child = node.children[index]
            taken.append(node.moves[index])
            if child is None:
                # 2. Expansion: the first move out of the tree adds one node.
                child_state = game.play(node.state, node.moves[index])
                child = self._new_node(child_state)
                child.created = self.playouts + 1
                if not self._tree_full():  # else the tree is full: not kept
                    node.children[index] = child
                    self.nodes += 1
                path.append(child)
                node = child
                break
            path.append(child)
            node = child
        leaf = node
        if len(path) - 1 > self.seldepth:
            self.seldepth = len(path) - 1

        # 3. Simulation: a random playout from the leaf (or its proven value).
        played: list[tuple[int, Any]] = []
        if leaf.proven != UNPROVEN:
            reward = leaf.proven
        else:
            reward, played = game.playout(leaf.state, self.rng, self.playout_plies)

        # 4. Back-propagation: visits and rewards up the path, RAVE credit
        #    to every move its player played later on, then proofs.
        for visited in path:
            visited.visits += 1
            visited.reward += reward
        if self.rave:
            self._update_amaf(path, taken, played, reward)
        if leaf.proven != UNPROVEN:
            self._propagate_proofs(path)

    def _expand(self, node: Node) -> None:
        """List the node's moves (or dice outcomes) and make room for their children."""
        game = self.game
        if node.mover == CHANCE:
            outcomes = game.chance_outcomes(node.state)
            assert outcomes is not None  # mover is CHANCE only at chance states
            node.moves = [outcome for outcome, _ in outcomes]
            node.probabilities = [probability for _, probability in outcomes]
        else:
            node.moves = game.ordered_moves(node.state)
        count = len(node.moves)
        self.listed += count
        node.children = [None] * count
        if self.rave and node.mover != CHANCE:
            node.amaf_visits = [0] * count
            node.amaf_reward = [0.0] * count
        if self.priors and node.mover != CHANCE:
            known = game.priors(node.state, node.moves)
            if known is not None:
                node.prior_visits, node.prior_wins = known
        node.expanded = True

    def _new_node(self, state: Any) -> Node:
        game = self.game
        outcome = game.outcome(state)
        node = Node(state, game.to_move(state))
        if outcome is not None:
            node.proven = game.reward(outcome)
        return node

    def _select(self, node: Node) -> int:
        """The index of the child with the best UCT (or UCT-RAVE) value, for the node's mover.

        Rewards are player 0's: for player 1 a mean ``m`` reads ``1 - m``.
        """
        flip = node.mover != 0
        log_visits = math.log(node.visits) if node.visits > 1 else 0.0
        exploration = self.exploration
        rave = self.rave
        equivalence = self.rave_equivalence
        children = node.children
        amaf_visits_of = node.amaf_visits
        amaf_reward_of = node.amaf_reward
        prior_visits_of = node.prior_visits
        prior_wins_of = node.prior_wins
        with_priors = len(prior_visits_of) > 0
        loss = 1.0 if flip else 0.0  # player 0's reward when the mover loses
        best_index = -1
        best_value = -math.inf
        for index in range(len(children)):
            child = children[index]
            amaf_visits = amaf_visits_of[index] if rave else 0
            if with_priors and prior_visits_of[index] > 0:
                # The prior's virtual playouts count with the move's own
                # (wins read for the mover); RAVE by the minimum-MSE schedule.
                visits_with_prior = float(prior_visits_of[index])
                wins = float(prior_wins_of[index])
                if child is not None and child.visits > 0:
                    if child.proven == loss:
                        continue
                    visits_with_prior += child.visits
                    wins += child.visits - child.reward if flip else child.reward
                mean = wins / visits_with_prior
                if rave:
                    # The prior counts in the all-moves-as-first statistics too.
                    amaf_wins = amaf_reward_of[index]
                    if flip:
                        amaf_wins = amaf_visits - amaf_wins
                    amaf_with_prior = amaf_visits + float(prior_visits_of[index])
                    amaf = (amaf_wins + prior_wins_of[index]) / amaf_with_prior
                    beta = amaf_with_prior / (
                        amaf_with_prior
                        + visits_with_prior
                        + visits_with_prior * amaf_with_prior / equivalence
                    )
                    mean = (1.0 - beta) * mean + beta * amaf
                value = mean + exploration * math.sqrt(log_visits / visits_with_prior)
            elif child is None or child.visits == 0:
                if amaf_visits == 0:
                    value = UNTRIED_PRIORITY
                else:
                    amaf = amaf_reward_of[index] / amaf_visits
                    if flip:
                        amaf = 1.0 - amaf
                    value = amaf + exploration * math.sqrt(log_visits)
            else:
                if child.proven == loss:
                    continue  # a proven loss for the mover: never worth a visit
                visits = child.visits
                mean = child.reward / visits
                if amaf_visits > 0:
                    beta = math.sqrt(equivalence / (3.0 * visits + equivalence))
                    mean = (1.0 - beta) * mean + beta * amaf_reward_of[index] / amaf_visits
                if flip:
                    mean = 1.0 - mean
                value = mean + exploration * math.sqrt(log_visits / visits)
            if value > best_value:
                best_value = value
                best_index = index
        if best_index < 0:
            return 0  # every child a proven loss: the solver proves the node next
        return best_index

    def _update_amaf(
        self, path: list[Node], taken: list[Any], played: list[tuple[int, Any]], reward: float
    ) -> None:
        """All moves as first: credit each path node's moves that its mover played later on."""
        later: list[set[Any]] = [set(), set()]
        for player, move in played:
            later[player].add(move)
        for position in range(len(taken) - 1, -1, -1):
            node = path[position]
            mover = node.mover
            if mover == CHANCE:
                continue  # dice outcomes are not moves anybody chose
            seen = later[mover]
            seen.add(taken[position])
            moves = node.moves
            amaf_visits = node.amaf_visits
            amaf_reward = node.amaf_reward
            for index in range(len(moves)):
                if moves[index] in seen:
                    amaf_visits[index] += 1
                    amaf_reward[index] += reward

    def _propagate_proofs(self, path: list[Node]) -> None:
        """Mark proven the path's nodes whose value follows from proven children (MCTS-Solver)."""
        for position in range(len(path) - 2, -1, -1):
            node = path[position]
            if node.proven != UNPROVEN:
                continue
            if node.mover == CHANCE or not self._prove(node):
                return  # unchanged: nothing above can change either

    def _prove(self, node: Node) -> bool:
        """Prove ``node`` from its children if they decide it; return whether it is proven."""
        mover = node.mover
        best_value = -1.0
        best_plies = 0
        all_proven = True
        for child in node.children:
            if child is None or child.proven == UNPROVEN:
                all_proven = False
                continue
            value = _mover_value(child.proven, mover)
            plies = child.proven_plies + 1
            better = value > best_value
            if value == best_value:
                # A faster win, a slower loss.
                better = plies < best_plies if value > 0.5 else plies > best_plies
            if better:
                best_value = value
                best_plies = plies
        if best_value == 1.0 or (all_proven and best_value >= 0.0):
            node.proven = best_value if mover == 0 else 1.0 - best_value
            node.proven_plies = best_plies
            return True
        return False

    # ------------------------------------------------------------------
    # Tree reuse.

    def _reuse_or_new_root(self, state: Any) -> Node:
        """The old tree's node for ``state`` (as the new root), or a fresh root."""
        old = self._tree
        found: Node | None = None
        if old is not None and self.reuse:
            level = [old]
            for _ in range(self._reuse_depth + 1):
                following: list[Node] = []
                for node in level:
                    if node.state == state:
                        found = node
                        break
                    for child in node.children:
                        if child is not None:
                            following.append(child)
                if found is not None or not following:
                    break
                level = following
        root = found if found is not None else self._new_node(state)
        self._tree = root
        reused, self.listed = tree_size(root)
        # ``nodes`` counts this search's nodes (protocol.md: counters since
        # the search started), not a reused tree's (issue 30); the reused
        # ones still weigh on the tree's memory (tree_bytes).
        self.nodes = 1 if found is None else 0
        self._reused_nodes = reused if found is not None else 0
        cap = self.max_tree_bytes
        over = cap is not None and self.tree_bytes() > cap + GROWTH_SLACK_BYTES
        if found is not None and over:
            # Over the budget (set lower since it grew): start afresh rather than grow past it.
            root = self._new_node(state)
            self._tree = root
            self.nodes, self.listed, self._reused_nodes = 1, 0, 0
        return root

    # ------------------------------------------------------------------
    # Reporting.

    def _root_win_rate(self, root: Node, state: Any) -> float:
        if root.visits == 0:
            return 0.5
        return _mover_value(root.reward / root.visits, self.game.to_move(state))

    def _best_index(self, root: Node) -> int:
        """The root move to play: a proven win, else the most-visited move not proven lost."""
        mover = root.mover
        best_index = 0
        best_key = (-1, -1.0)
        for index, child in enumerate(root.children):
            if child is None:
                continue
            if child.proven != UNPROVEN:
                value = _mover_value(child.proven, mover)
                won = value == 1.0 and root.proven != UNPROVEN
                if won and child.proven_plies + 1 == root.proven_plies:
                    return index  # the proven win the solver found
                if value == 0.0:
                    continue
            key = (child.visits, _mover_value(child.reward / child.visits, mover))
            if key > best_key:
                best_key = key
                best_index = index
        if best_key[0] < 0 and root.proven != UNPROVEN:
            # Every move loses: take the slowest loss.
            slowest = -1
            for index, child in enumerate(root.children):
                if child is not None and child.proven_plies > slowest:
                    slowest = child.proven_plies
                    best_index = index
        return best_index

    def _principal_line(self, root: Node) -> list[Any]:
        """The most-visited line from the root, stopping at a chance node or a leaf."""
        line: list[Any] = []
        node = root
        while node.expanded and node.mover != CHANCE and node.visits > 0:
            index = self._best_index(node)
            child = node.children[index]
            if child is None:
                break
            line.append(node.moves[index])
            node = child
        return line

    def _score(self, root: Node, state: Any) -> tuple[Score, int]:
        if root.proven != UNPROVEN:
            proven = _proven_score(_mover_value(root.proven, root.mover), root.proven_plies)
            if proven is not None:
                return proven
        value = score_from_win_rate(self._root_win_rate(root, state), self.game.win_odds_scale)
        return Score(value=value), value

    def _line_score(self, root: Node, child: Node) -> tuple[Score, int]:
        """The score of the root move leading to ``child`` (visited), for the root's mover.

        A proven child gives its proof, one ply further from the root;
        otherwise the child's own win rate, mapped as the root's is.
        """
        if child.proven != UNPROVEN:
            proven = _proven_score(_mover_value(child.proven, root.mover), child.proven_plies + 1)
            if proven is not None:
                return proven
        rate = _mover_value(child.reward / child.visits, root.mover)
        value = score_from_win_rate(rate, self.game.win_odds_scale)
        return Score(value=value), value

    def _root_lines(self, root: Node) -> list[tuple[int, Node]]:
        """The root moves to report as lines (index, child), best first, at most ``multipv``.

        Line 1 is the move the search would play (:meth:`_best_index`);
        the others are the visited root moves by their visits (then their
        win rates), those proven lost last: the ranking of Leela Chess
        Zero's and KataGo's MultiPV. Only visited moves have a line to show.
        """
        if root.visits == 0 or not root.expanded:
            return []
        best = self._best_index(root)
        first: list[tuple[int, Node]] = []
        ranked: list[tuple[tuple[int, int, float], int, Node]] = []
        for index, child in enumerate(root.children):
            if child is None or child.visits == 0:
                continue
            if index == best:
                first.append((index, child))
            else:
                ranked.append((_line_key(child, root.mover), index, child))
        if not first:
            return []  # the move to play has no line of its own: one report, as without lines
        ranked.sort(key=_ranking, reverse=True)
        chosen = first + [(index, child) for _, index, child in ranked]
        return chosen[: self._multipv]

    def _line_reports(self, root: Node, state: Any) -> list[Info]:
        """The progress reports now: one per root line with ``multipv`` above 1, else one."""
        lines = self._root_lines(root) if self._multipv > 1 else []
        if not lines:
            info = self._report(root, state)
            return [] if info is None else [info]
        elapsed = self._elapsed_ms()
        reports: list[Info] = []
        for rank, (index, child) in enumerate(lines, 1):
            line = [root.moves[index], *self._principal_line(child)]
            score, _ = self._line_score(root, child)
            pv = tuple(self.game.format_moves(state, line))
            reports.append(self._info(len(line), score, pv, False, elapsed, rank))
        return reports

    def _report(self, root: Node, state: Any) -> Info | None:
        """The progress report now; ``None`` before the root's first visit."""
        if root.visits == 0:
            return None
        line = self._principal_line(root)
        score, _ = self._score(root, state)
        pv = tuple(self.game.format_moves(state, line))
        return self._info(len(line), score, pv, False, self._elapsed_ms())

    def _answer_from_tree(self, root: Node, state: Any, reason: str) -> SearchResult:
        game = self.game
        if root.visits == 0 or not root.expanded:
            move = game.ordered_moves(state)[0]
            first: tuple[str, ...] = (game.format_move(state, move),)
            return self._result(state, move, Score(value=0), 0, first, reason)
        line = self._principal_line(root)
        if not line:
            line = [root.moves[self._best_index(root)]]
        score, value = self._score(root, state)
        lines = self._root_lines(root) if self._multipv > 1 else []
        if lines:
            # Several lines: the answer is line 1, its score the move's own
            # (as its report gave it), not the root's mean over every move.
            score, value = self._line_score(root, lines[0][1])
        pv_text = tuple(game.format_moves(state, line))
        self.stats.root_visits = tuple(
            (game.format_move(state, root.moves[index]), child.visits)
            for index, child in enumerate(root.children)
            if child is not None and child.visits > 0
        )
        return self._result(state, line[0], score, value, pv_text, reason)

    def _result(
        self,
        state: Any,
        move: Hashable,
        score: Score,
        value: int,
        pv: tuple[str, ...],
        reason: str,
    ) -> SearchResult:
        # A tree search's depth is the length of its principal variation.
        return self._answer(state, move, score, value, len(pv), pv, reason)


def pooled_choice(results: Sequence[SearchResult]) -> int:
    """Which of several searches of one position to answer with: root parallelism.

    Independent searches of the same position (other processes, other random
    playouts) are pooled as Chaslot, Winands and van den Herik pool them
    ("Parallel Monte-Carlo Tree Search", 2008: root parallelization): the
    move with the most visits summed over the searches is played. The answer
    is the first search that plays that move, so its line and score are a
    real search's; the first search's answer stands when one found a proven
    result (a win or loss the solver proved outranks visits), when its move
    is no search's most visited one (the game's own rules chose it: Go's
    pass, a resignation), or when no search played the pooled move.
    """
    if len(results) < 2:
        return 0
    first = results[0]
    if _proven(first):
        return 0
    own = dict(first.stats.root_visits)
    if not own or first.move != max(own, key=own.__getitem__):
        return 0
    totals: dict[str, int] = {}
    for result in results:
        if _proven(result):
            return 0  # a proof in another search: left to the first one's judgement
        for move, visits in result.stats.root_visits:
            totals[move] = totals.get(move, 0) + visits
    best = max(sorted(totals), key=totals.__getitem__)
    for index, result in enumerate(results):
        if result.move == best:
            return index
    return 0


def _proven(result: SearchResult) -> bool:
    """Whether a search's answer rests on a proof (a solved root, or a move's proven end)."""
    score = result.info.score
    return (
        result.reason == "proven"
        or score.win_in is not None
        or score.loss_in is not None
        or score.draw
    )


def _proven_score(value: float, plies: int) -> tuple[Score, int] | None:
    """The score of a proven value for the side it is read for (1 win, 0 loss, 0.5 draw)."""
    if value == 1.0:
        return Score(win_in=plies), WIN - plies
    if value == 0.0:
        return Score(loss_in=plies), plies - WIN
    if value == 0.5:
        return Score(draw=True), 0
    return None


def _line_key(child: Node, mover: int) -> tuple[int, int, float]:
    """How a visited root move ranks among the lines: proven wins first, proven losses
    last, and in between (and within each) by visits, then by win rate for ``mover``."""
    rank = 1
    if child.proven != UNPROVEN:
        proven = _mover_value(child.proven, mover)
        rank = 2 if proven == 1.0 else 0 if proven == 0.0 else 1
    return rank, child.visits, _mover_value(child.reward / child.visits, mover)


def _ranking(entry: tuple[tuple[int, int, float], int, Node]) -> tuple[int, int, float]:
    """The sort key of a ranked root move: its :func:`_line_key` (never the node itself)."""
    return entry[0]


def weighed_allotment(start: float, allotment: float, hard: float | None, weight: float) -> float:
    """The end of an allotment from ``start`` scaled by ``weight``, never after ``hard``."""
    scaled = start + max(0.0, weight) * (allotment - start)
    return scaled if hard is None else min(scaled, hard)


def playouts_left(playouts: int, elapsed_s: float, left_s: float) -> float:
    """The playouts ``left_s`` seconds more would make at the rate of the first ``playouts``."""
    if elapsed_s <= 0.0:
        return math.inf
    return playouts / elapsed_s * max(0.0, left_s)


def decided(root: Node, left: float) -> bool:
    """Whether the root's most-visited move leads the next by more than ``left`` visits."""
    first = 0
    second = 0
    for child in root.children:
        if child is None:
            continue
        visits = child.visits
        if visits > first:
            second = first
            first = visits
        elif visits > second:
            second = visits
    return first - second > left


def _draw(probabilities: list[float], rng: Random) -> int:
    """An index drawn with the given probabilities."""
    draw = rng.random()
    for index in range(len(probabilities)):
        draw -= probabilities[index]
        if draw < 0.0:
            return index
    return len(probabilities) - 1


def tree_size(root: Node) -> tuple[int, int]:
    """The nodes under ``root`` (itself included) and the moves they list."""
    size = 0
    listed = 0
    pending = [root]
    while pending:
        node = pending.pop()
        size += 1
        listed += len(node.moves)
        for child in node.children:
            if child is not None:
                pending.append(child)
    return size, listed


def rave_pays(game: Game[Any, Any]) -> bool:
    """Whether RAVE is on by default for ``game``: where it measured better (:data:`RAVE_GAMES`)."""
    return game.name in RAVE_GAMES

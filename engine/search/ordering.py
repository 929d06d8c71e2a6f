"""Move ordering for the alpha-beta node search: a lazy picker.

Alpha-beta cuts off soonest when the best move comes first, so a node tries
its moves in stages, as Stockfish's ``MovePicker`` and sunfish's ``moves()``
do, and pays for a stage only when the ones before it did not cut:

1. the transposition table's move, before anything is sorted;
2. the noisy moves (chess captures) in the game's order, then the killer
   moves of this ply (quiet moves that cut off a sibling);
3. the remaining quiet moves by their history credit (cutoffs they caused
   anywhere), over the game's own order; the sort is stable.

Near the horizon (below :data:`SORT_MIN_DEPTH`) the game's dynamic ordering
(:meth:`~engine.game.Game.sort_moves`) costs more than it saves and is
skipped. Games whose own ordering is stronger turn killers and history off
(:meth:`~engine.game.Game.uses_ordering_heuristics`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterator
from typing import Any, Final

from engine.game import Game

#: The game's dynamic ordering (:meth:`Game.sort_moves`) is used from this
#: remaining depth on: below it the children are leaves, and evaluating a
#: leaf costs less than sorting it (Connect Four: 2 threat scans vs 7).
SORT_MIN_DEPTH: Final = 2


def pick_moves(
    game: Game[Any, Any],
    state: Any,
    moves: list[Hashable],
    tt_move: Hashable,
    depth: int,
    killers: list[Hashable] | None,
    history: defaultdict[Hashable, int] | None,
    split_noisy: bool,
) -> Iterator[Hashable]:
    """Yield ``moves`` (reordered in place) best first, in the stages of the module.

    ``killers`` and ``history`` are this ply's killer moves and the side's
    history table, ``None`` for a game that does not use them;
    ``split_noisy`` says whether the game tells noisy moves apart
    (:meth:`~engine.game.Game.is_quiet`).
    """
    if len(moves) < 2:
        yield from moves
        return
    # Stage 1. A table move is tried before the costly sort: the sort of
    # the rest waits until it failed to cut.
    sort_rest = False
    if depth >= SORT_MIN_DEPTH:
        if tt_move is not None and tt_move in moves:
            sort_rest = True
        else:
            moves = game.sort_moves(state, moves)
    # Stage 2 and 3. Killers after the noisy moves, history over the quiet.
    if killers is not None and history is not None:
        first_quiet = 0
        if split_noisy:
            while first_quiet < len(moves) and not game.is_quiet(state, moves[first_quiet]):
                first_quiet += 1
        if history:
            if first_quiet == 0:
                moves.sort(key=history.__getitem__, reverse=True)
            else:
                tail = moves[first_quiet:]
                tail.sort(key=history.__getitem__, reverse=True)
                moves[first_quiet:] = tail
        for killer in killers:
            if killer in moves and killer != tt_move:
                moves.remove(killer)
                moves.insert(first_quiet, killer)
    if tt_move is not None and tt_move in moves:
        moves.remove(tt_move)
        moves.insert(0, tt_move)
    yield moves[0]
    if sort_rest:
        moves[1:] = game.sort_moves(state, moves[1:])
    for index in range(1, len(moves)):
        yield moves[index]

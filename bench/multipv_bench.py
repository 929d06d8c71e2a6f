"""The cost of several root lines: nodes of a ``multipv`` k search against one line.

Each case is searched to a fixed depth by a fresh
:class:`~engine.search.alphabeta.Searcher` with ``multipv`` 1, 2, 3 and 5;
the nodes (summed over the iterations) are machine-independent, the
seconds are not (say the load average beside them).

Usage::

    python -m bench.multipv_bench

Result (2026-11-26, nodes; the method is in ``Searcher._iterate_lines``):

=================  =====  ======  ======  ======
case               depth  k=2     k=3     k=5
=================  =====  ======  ======  ======
chess start        4      1.19x   1.66x   2.11x
chess Italian      4      1.46x   1.60x   2.39x
Connect Four       9      1.69x   2.29x   3.80x
Othello            6      1.17x   1.23x   1.36x
=================  =====  ======  ======  ======
"""

from __future__ import annotations

import time
from typing import Any, Final

from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest

ITALIAN: Final = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
#: (label, game, options, position or None for the start, depth)
CASES: Final[list[tuple[str, str, dict[str, Any], str | None, int]]] = [
    ("chess start", "chess", {}, None, 4),
    ("chess Italian", "chess", {}, ITALIAN, 4),
    ("Connect Four", "connect4", {}, None, 9),
    ("Othello", "othello", {}, None, 6),
]
LINES: Final = (1, 2, 3, 5)


def main() -> None:
    for label, name, options, position, depth in CASES:
        game = create_game(name, options)
        state = game.parse_position(position) if position else game.initial_state()
        base = 0
        row = []
        for k in LINES:
            started = time.perf_counter()
            result = Searcher(game).think(SearchRequest(state, Limits(depth=depth), multipv=k))
            nodes = sum(result.stats.nodes_per_depth)
            base = base or nodes
            seconds = time.perf_counter() - started
            row.append(f"k={k} {nodes} nodes ({nodes / base:.2f}x, {seconds:.1f} s)")
        print(f"{label}, depth {depth}: " + "; ".join(row), flush=True)


if __name__ == "__main__":
    main()

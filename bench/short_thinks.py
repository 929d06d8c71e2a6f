"""Short thinks that come back unsearched: MCTS and alpha-beta in turn at 50 ms.

A review of 2026-12-07 saw a class's SPRT decided while MCTS answered many
of its 50 ms moves with no playout at all (reason ``time``, depth 0, not
queued). The cause was Python's cyclic garbage collector: a full collection
of a search process's tables and trees took 9-39 ms and ran inside
searches. Search processes now collect between searches
(:class:`server.runtime.memory.Collector`).

This plays Connect Four games through a server of two search processes:
one client thinks with ``mcts``, the other with ``alphabeta``, in turn, at
``--movetime-ms`` a move, and counts the MCTS answers at depth 0 for reason
``time`` (not ``proven`` or ``only_move``). Target: none.

Run: ``python -m bench.short_thinks`` (``--games 12 --movetime-ms 50``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

from bench.server_bench import server_process
from clients.client import connect


async def run(games: int, movetime_ms: int) -> tuple[int, int]:
    """(unsearched MCTS answers, MCTS answers) over ``games`` games."""
    unsearched = asked = 0
    async with (
        server_process(2) as (url, _pid),
        connect(url) as mcts,
        connect(url) as alphabeta,
    ):
        for game in range(games):
            moves: list[str] = []
            while True:
                for client in (mcts, alphabeta):
                    state = await client.new_game("connect4", moves=moves)
                if state.result is not None:
                    break
                ours = (len(moves) + game) % 2 == 0
                client, algorithm = (mcts, "mcts") if ours else (alphabeta, "alphabeta")
                best = await client.think(movetime_ms=movetime_ms, algorithm=algorithm)
                if ours:
                    asked += 1
                    if best.depth == 0 and best.reason == "time":
                        unsearched += 1
                moves.append(best.move)
    return unsearched, asked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--movetime-ms", type=int, default=50)
    args = parser.parse_args(argv)
    started = time.monotonic()
    unsearched, asked = asyncio.run(run(args.games, args.movetime_ms))
    print(
        f"MCTS at {args.movetime_ms} ms beside alpha-beta: {unsearched} of {asked} answers "
        f"unsearched (reason time, depth 0); {args.games} games, "
        f"{time.monotonic() - started:.0f} s, load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

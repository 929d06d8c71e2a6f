"""Connect Four solves through the protocol: Pons' sets answered by ``think`` (issue 29).

Starts the server as a subprocess with one worker (``python -m server
--workers 1``, as :mod:`bench.server_bench` does) and sends each position of
a Pons set as ``new_game`` + ``think`` with a generous ``movetime``, so the
figures are what a user gets: round-trip time per position (client side),
the answer's reason and node count, and whether its score is Pons' exact
score. Targets (issue 29): Test_L2_R2 first 100 in at most 20 s in all,
median at most 30 ms. On a shared machine the round trips include waiting
for a CPU, so the line also gives the load average and the CPU seconds the
server and its worker used over the run (read from ``/proc``; Linux only).

Run: ``python -m bench.c4_think_bench`` (``--set Test_L2_R1 --count 1000``
for another set; ``--movetime-ms`` for the think's budget). The sets are in
``../shared/refdata/connect4`` beside the repository (``--refdata DIR``
names another directory).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from bench.server_bench import server_process
from clients.client import connect
from engine.games.connect4 import ConnectFour

REFDATA = Path(__file__).resolve().parent.parent.parent / "shared" / "refdata" / "connect4"
#: The think's budget: long enough that every position of the middle-game
#: sets is proven within it (the slowest take a few seconds).
DEFAULT_MOVETIME_MS = 60_000


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) of process ``pid`` and its descendants (``None``: no /proc)."""
    proc = Path("/proc")
    if not (proc / str(pid)).exists():
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            stat = (proc / str(current) / "stat").read_text()
            # Fields after the command's closing parenthesis; utime and
            # stime are fields 14 and 15 of the whole line.
            fields = stat[stat.rindex(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in (proc / str(current) / "task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children)
        except (OSError, ValueError):
            continue  # a process that ended meanwhile
    return total


async def run(path: Path, count: int, movetime_ms: int) -> int:
    set_name = path.name
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()][:count]
    game = ConnectFour()
    times: list[float] = []
    nodes = wrong = unproven = 0
    timeout = movetime_ms / 1000 + 30
    async with (
        server_process(1) as (url, pid),
        connect(url, request_timeout=timeout) as engine,
    ):
        cpu_before = tree_cpu_seconds(pid)
        for position, expected in rows:
            await engine.new_game("connect4", position=position)
            sent = time.perf_counter()
            best = await engine.think(movetime_ms / 1000)
            times.append(time.perf_counter() - sent)
            nodes += best.nodes
            state = game.parse_position(position)
            if best.reason != "proven":
                unproven += 1
            elif game.pons_score(state, best.score.win_in, best.score.loss_in) != int(expected):
                wrong += 1
        cpu_after = tree_cpu_seconds(pid)
    total = sum(times)
    cpu = (
        f"{cpu_after - cpu_before:.2f} s"
        if cpu_before is not None and cpu_after is not None
        else "unknown"
    )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"{set_name} first {len(rows)} through the protocol (one worker): "
        f"total {total:.2f} s, median {statistics.median(times) * 1000:.1f} ms, "
        f"max {max(times) * 1000:.0f} ms, nodes/position {nodes / len(rows):.0f}, "
        f"exact {len(rows) - wrong - unproven}/{len(rows)} (unproven {unproven}); "
        f"server CPU {cpu}, load average {load}"
    )
    return 0 if wrong == 0 and unproven == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="Test_L2_R2", help="a Pons set (default Test_L2_R2)")
    parser.add_argument("--count", type=int, default=100, help="positions from the top")
    parser.add_argument("--movetime-ms", type=int, default=DEFAULT_MOVETIME_MS)
    parser.add_argument("--refdata", type=Path, default=REFDATA, help="the sets' directory")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.refdata / args.set, args.count, args.movetime_ms))


if __name__ == "__main__":
    sys.exit(main())

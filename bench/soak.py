"""A bounded mixed soak (issue 26): hostile engine programs and normal sessions together.

Runs an in-process server on a loopback port with ``--workers`` search
workers and the fake UCI engines of ``tests/server/fake_uci_engine.py`` in
their hostile modes (each offered as a chess algorithm named after its
mode), and for ``--seconds`` (default 600) keeps one session per hostile
mode thinking with its engine, plus normal sessions: 9x9 Go MCTS (four
komi values: four cached trees per worker) and chess alpha-beta. Each
think has ``--think-ms`` of movetime. Reports:

* **lost** answers: a think with no ``bestmove`` within LOST_AFTER_S of its
  deadline (or whose connection failed);
* **late** answers: a ``bestmove`` received more than LATE_AFTER_S after
  the think's movetime ran out, counted and the worst given;
* the peak RSS (``VmRSS`` from ``/proc``, sampled every SAMPLE_S) of the
  server and of each worker process (a worker replaced after a fault is a
  new one), and of the engine programs by mode (restarted often);
* the load average at the start and the end (other work shares the host);
* a timeline: every TIMELINE_S, the one-minute load average and the RSS of
  the server and of each worker then.

The server has the default transposition tables (sized from the worker
memory budget, docs/load.md), not the harness's small test tables.

Not part of the test suite: ``python -m bench.soak --seconds 60``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.app import ArenaServer
from server.config import ServerConfig
from server.external import ExternalEngine
from tests.server.server_harness import RawClient, raw_client

FAKE_UCI = Path(__file__).resolve().parent.parent / "tests" / "server" / "fake_uci_engine.py"
#: The fake engine's hostile modes the soak runs (see its docstring).
HOSTILE_MODES = ("flood", "hang", "crash", "illegal", "garbage", "liar", "longpv")
GO_KOMIS = (5.5, 6.5, 7.5, 0.5)
#: A bestmove later than this after the movetime ran out counts as late:
#: the pool's delivery margin plus a loaded two-core host's scheduling.
LATE_AFTER_S = 0.5
#: A think with no bestmove this long after its movetime counts as lost.
LOST_AFTER_S = 15.0
#: Seconds between two RSS samples.
SAMPLE_S = 2.0
#: Seconds between two rows of the timeline.
TIMELINE_S = 60.0


@dataclass
class Tally:
    """What one kind of session saw."""

    thinks: int = 0
    lost: int = 0
    late: int = 0
    worst_late_s: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)


def _rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    pending = [root]
    while pending:
        pid = pending.pop()
        for child in children.get(pid, []):
            found.append(child)
            pending.append(child)
    return found


def _label(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode(errors="replace") for w in words if w)
    if "fake_uci_engine" in text:
        return "engine " + text.rsplit(" ", 1)[-1]
    if "multiprocessing" in text:
        return "worker"
    return text[:40]


async def _sample_rss(
    peaks: dict[int, tuple[str, int]], until: float, timeline: list[dict[str, Any]]
) -> None:
    me = os.getpid()
    started = time.monotonic()
    next_row = started
    while time.monotonic() < until:
        row: dict[str, Any] = {}
        for pid in (me, *_descendants(me)):
            rss = _rss_kb(pid)
            if rss is None:
                continue
            label = "server" if pid == me else _label(pid)
            old = peaks.get(pid, (label, 0))[1]
            peaks[pid] = (label, max(old, rss))
            if label in ("server", "worker"):
                row[f"{label} {pid}"] = round(rss / 1024, 1)
        if time.monotonic() >= next_row:
            row["t_s"] = round(time.monotonic() - started)
            row["load_1min"] = os.getloadavg()[0]
            timeline.append(row)
            next_row += TIMELINE_S
        await asyncio.sleep(SAMPLE_S)


async def _answer(client: RawClient, think_id: int, timeout: float) -> dict[str, Any] | None:
    """The think's ``bestmove`` or refusing ``error``, past its infos; ``None``: lost."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            message = await client.recv(max(0.0, deadline - time.monotonic()))
        except (TimeoutError, AssertionError):
            return None
        if message.get("id") != think_id:
            return None
        if message.get("type") in ("bestmove", "error"):
            return message
        if message.get("type") != "info":
            return None


async def _session(
    port: int,
    game: dict[str, Any],
    algorithm: str | None,
    think_ms: int,
    until: float,
    tally: Tally,
) -> None:
    """One session thinking back to back until ``until``; a failed connection is reopened."""
    think_id = 0
    while time.monotonic() < until:
        try:
            async with raw_client(port) as client:
                await client.request({"type": "new_game", "id": "g", **game})
                while time.monotonic() < until:
                    think_id += 1
                    sent = time.monotonic()
                    tally.thinks += 1
                    request: dict[str, Any] = {
                        "type": "think",
                        "id": think_id,
                        "limits": {"movetime_ms": think_ms},
                    }
                    if algorithm is not None:
                        request["algorithm"] = algorithm
                    await client.send(request)
                    best = await _answer(client, think_id, think_ms / 1000 + LOST_AFTER_S)
                    if best is None:
                        tally.lost += 1
                        break  # the connection is out of step: open another
                    late = time.monotonic() - sent - think_ms / 1000
                    if late > LATE_AFTER_S:
                        tally.late += 1
                    tally.worst_late_s = max(tally.worst_late_s, late)
                    reason = str(best.get("reason") or best.get("code"))
                    tally.reasons[reason] = tally.reasons.get(reason, 0) + 1
                    # Pace like a client: an answer given at once (overloaded) is
                    # followed by the next think only when its movetime is over.
                    await asyncio.sleep(max(0.0, sent + think_ms / 1000 - time.monotonic()))
        except OSError:
            tally.lost += 1


async def soak(seconds: float, workers: int, think_ms: int) -> dict[str, Any]:
    engines = tuple(
        ExternalEngine("chess", mode, "uci", (sys.executable, str(FAKE_UCI), mode), (), False)
        for mode in HOSTILE_MODES
    )
    load_start = os.getloadavg()
    tallies: dict[str, Tally] = {}
    peaks: dict[int, tuple[str, int]] = {}
    timeline: list[dict[str, Any]] = []
    async with _server(workers, engines) as server:
        until = time.monotonic() + seconds
        tasks = [asyncio.create_task(_sample_rss(peaks, until, timeline))]
        plans: list[tuple[str, dict[str, Any], str | None]] = [
            (f"chess {mode}", {"game": "chess"}, mode) for mode in HOSTILE_MODES
        ]
        plans += [
            (f"go mcts komi {komi}", {"game": "go", "options": {"size": 9, "komi": komi}}, "mcts")
            for komi in GO_KOMIS
        ]
        plans.append(("chess alphabeta", {"game": "chess"}, None))
        for name, game, algorithm in plans:
            tallies[name] = Tally()
            tasks.append(
                asyncio.create_task(
                    _session(server.port, game, algorithm, think_ms, until, tallies[name])
                )
            )
        await asyncio.gather(*tasks)
    load_end = os.getloadavg()
    return {
        "seconds": seconds,
        "workers": workers,
        "think_ms": think_ms,
        "load_average_start": load_start,
        "load_average_end": load_end,
        "sessions": {name: vars(tally) for name, tally in tallies.items()},
        "lost": sum(t.lost for t in tallies.values()),
        "late": sum(t.late for t in tallies.values()),
        "thinks": sum(t.thinks for t in tallies.values()),
        "peak_rss_mb": _rss_summary(peaks),
        "timeline": timeline,
    }


@contextlib.asynccontextmanager
async def _server(workers: int, engines: tuple[ExternalEngine, ...]) -> AsyncIterator[ArenaServer]:
    """A real server on a free loopback port, with the default tables and budgets."""
    server = ArenaServer(ServerConfig(host="127.0.0.1", port=0, workers=workers, externals=engines))
    await server.start()
    try:
        yield server
    finally:
        await server.shutdown()


def _rss_summary(peaks: dict[int, tuple[str, int]]) -> dict[str, str]:
    """Peak RSS of the server and each worker; engine programs by mode (they restart often)."""
    summary: dict[str, str] = {}
    engines: dict[str, list[int]] = {}
    for pid, (label, rss) in sorted(peaks.items()):
        if label.startswith("engine "):
            engines.setdefault(label, []).append(rss)
        else:
            summary[f"{label} {pid}"] = f"{rss / 1024:.1f}"
    for label, values in sorted(engines.items()):
        summary[f"{label} (max of {len(values)} processes)"] = f"{max(values) / 1024:.1f}"
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--think-ms", type=int, default=300)
    args = parser.parse_args(argv)
    report = asyncio.run(soak(args.seconds, args.workers, args.think_ms))
    print(json.dumps(report, indent=2))
    return 0 if report["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

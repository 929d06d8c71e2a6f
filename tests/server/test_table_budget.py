"""A worker's transposition tables share its memory budget (docs/load.md, worker memory)."""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from multiprocessing.connection import Connection

import pytest

from engine.registry import create_game
from engine.search.limits import Limits, plan_deadlines
from engine.search.results import SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS, ENTRY_BYTES
from server.cli import MIB, add_arguments, config_from_args
from server.runtime.memory import DEFAULT_TABLE_BYTES, MAX_CACHED_SEARCHERS, TreeBudget
from server.runtime.worker import StopFlag, WorkerJob, worker_main
from tests.timing import UNIT


def test_each_cached_searchers_table_gets_its_share() -> None:
    budget = TreeBudget()
    slots = budget.table_slots(DEFAULT_TT_SLOTS)
    assert slots == DEFAULT_TABLE_BYTES // MAX_CACHED_SEARCHERS // ENTRY_BYTES < DEFAULT_TT_SLOTS
    assert MAX_CACHED_SEARCHERS * slots * ENTRY_BYTES <= DEFAULT_TABLE_BYTES
    # A smaller table asked for is kept; a tiny budget still gives one slot.
    assert budget.table_slots(1 << 10) == 1 << 10
    assert TreeBudget(table_bytes=1).table_slots(1 << 10) == 1


def test_the_table_budget_is_a_serve_option() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = config_from_args(parser.parse_args(["--worker-table-mb", "16"]))
    assert config.tree_budget.table_bytes == 16 * MIB
    default = config_from_args(parser.parse_args([]))
    assert default.tree_budget.table_bytes == DEFAULT_TABLE_BYTES


#: The worker is asked for tables of 2**22 slots (a 32 MiB list of slots
#: alone, before any entry) with a table budget of 1 MiB in all.
ASKED_SLOTS = 1 << 22
TABLE_BUDGET_BYTES = 1024 * 1024
#: RSS a worker gains besides its tables in a short think (its own caches).
RSS_SLACK_BYTES = 6 * 1024 * 1024


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _think(conn: Connection, seq: int, game: str, limits: Limits) -> SearchResult:
    state = create_game(game).initial_state()
    deadlines = plan_deadlines(limits, time.monotonic())
    conn.send(WorkerJob(seq, game, {}, state, limits, deadlines, "alphabeta"))
    while True:
        assert conn.poll(60 * UNIT)
        message = conn.recv()
        if message[0] == "done" and message[1] == seq:
            assert isinstance(message[2], SearchResult), message
            return message[2]
        assert message[0] == "info", message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_real_worker_sizes_its_tables_from_the_budget() -> None:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=True)
    budget = TreeBudget(table_bytes=TABLE_BUDGET_BYTES)
    process = context.Process(
        target=worker_main, args=(child, StopFlag(context), ASKED_SLOTS, 0, (), budget), daemon=True
    )
    process.start()
    child.close()
    pid = process.pid
    assert pid is not None
    try:
        assert parent.poll(60 * UNIT) and parent.recv() == ("ready",)
        _think(parent, 0, "tictactoe", Limits(nodes=10))  # warm the imports up
        baseline = _rss(pid)
        # Three more games: three more searchers, each with its own table.
        for seq, game in enumerate(("connect4", "checkers", "chess"), start=1):
            assert _think(parent, seq, game, Limits(nodes=3000)).move is not None
        grown = _rss(pid) - baseline
        print(f"worker RSS grew {grown / 2**20:.1f} MiB")
        # Unbounded, each table's list alone would take 32 MiB.
        assert grown <= TABLE_BUDGET_BYTES + RSS_SLACK_BYTES, grown
    finally:
        parent.send(None)
        process.join(10 * UNIT)
        if process.is_alive():
            process.kill()
            process.join()

"""A worker's transposition tables share its memory budget (docs/load.md, worker memory)."""

from __future__ import annotations

import argparse

from engine.search.tt import DEFAULT_TT_SLOTS, ENTRY_BYTES
from server.cli import MIB, add_arguments, config_from_args
from server.runtime.memory import DEFAULT_TABLE_BYTES, MAX_CACHED_SEARCHERS, TreeBudget


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

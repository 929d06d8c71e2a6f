"""Pickling for the engine's frozen records, in both builds.

Results, limits and scores cross process boundaries (the server's workers
send them back by pickle). Compiled by mypyc, a frozen dataclass refuses
the default unpickling, which sets the fields one by one; rebuilding the
record through its constructor works in both builds and checks nothing
twice.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def reduce_record(record: Any) -> tuple[type[Any], tuple[object, ...]]:
    """``__reduce__`` for a dataclass: its class and its fields, in order."""
    fields = dataclasses.fields(record)
    return type(record), tuple(getattr(record, field.name) for field in fields)

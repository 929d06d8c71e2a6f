"""Fixtures for server tests (the harness itself is in server_harness.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from server.app import ArenaServer
from tests.server.server_harness import running_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_server() -> AsyncIterator[ArenaServer]:
    """One two-worker server for a whole test module."""
    async with running_server(workers=2) as server:
        yield server

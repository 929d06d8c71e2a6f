"""A real server shared by the client tests of a module."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from server.app import ArenaServer
from tests.server.server_harness import running_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_server() -> AsyncIterator[ArenaServer]:
    async with running_server(workers=2) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def url(shared_server: ArenaServer) -> str:
    return f"ws://127.0.0.1:{shared_server.port}/ws"

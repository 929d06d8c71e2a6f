"""A Go komi no sane game has is refused as ``bad_options``, never an ``internal`` error."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import ArenaServer
from tests.server.server_harness import raw_client

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("komi", [1e308, -1e308, 10**30, 151])
async def test_huge_komi_is_bad_options(shared_server: ArenaServer, komi: Any) -> None:
    # 1e308 once reached int(komi * 2) = int(inf): OverflowError, answered `internal`
    async with raw_client(shared_server.port, "json") as client:
        reply = await client.request(
            {"type": "new_game", "game": "go", "options": {"komi": komi}, "id": 1}
        )
    assert reply["type"] == "error", reply
    assert reply["code"] == "bad_options", reply
    assert reply["id"] == 1
    assert "between -150 and 150" in reply["message"], reply

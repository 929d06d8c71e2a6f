"""A Connect Four think within the solver's reach is answered ``proven`` with Pons' score."""

from __future__ import annotations

import pytest

from engine.games.connect4 import ConnectFour
from server.app import ArenaServer
from tests.server.server_harness import UNIT, raw_client

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: Pons' Test_L3_R1, line 2 (tests/facts/connect4_pons.txt): score 1, a
#: win for the side to move with its last stone (22 - 1 = 21 of its own).
POSITION = "7422341735647741166133573473242566"
PONS_SCORE = 1


async def test_a_pons_position_is_answered_proven_with_the_published_score(
    shared_server: ArenaServer,
) -> None:
    async with raw_client(shared_server.port) as client:
        reply = await client.request(
            {"type": "new_game", "id": "g", "game": "connect4", "position": POSITION}
        )
        assert reply["type"] == "state", reply
        _, best = await client.think(1, {"movetime_ms": round(5000 * UNIT)})
    assert best["reason"] == "proven"
    game = ConnectFour()
    state = game.parse_position(POSITION)
    score = best["score"]
    assert game.pons_score(state, score.get("win_in"), score.get("loss_in")) == PONS_SCORE
    assert best["move"] in reply["legal_moves"]

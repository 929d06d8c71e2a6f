"""Games of chance over the protocol: chance states, rolls by the client or the server, think."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.games.backgammon import Backgammon
from protocol.errors import ErrorCode, ProtocolError
from protocol.records import Move, NewGame, Roll, Think, parse_request
from server.app import ArenaServer
from server.session import Session, draw_outcome
from tests.server.server_harness import ENCODINGS, RawClient, raw_client

on_shared_loop = pytest.mark.asyncio(loop_scope="module")


async def roll_and_play(client: RawClient, rolls: int) -> list[str]:
    """Let the server roll ``rolls`` times, playing the first legal move after each."""
    history: list[str] = []
    for index in range(rolls):
        state = await client.request({"type": "roll", "id": f"r{index}"})
        assert state["type"] == "state" and state["to_move"] in (0, 1), state
        history.append(state["history"][-1])
        state = await client.request(
            {"type": "move", "move": state["legal_moves"][0], "id": f"m{index}"}
        )
        assert state["to_move"] == "chance"
    return history


@on_shared_loop
@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_backgammon_flow_with_server_rolls_and_think(
    shared_server: ArenaServer, encoding: str
) -> None:
    async with raw_client(shared_server.port, encoding) as client:
        state = await client.request(
            {"type": "new_game", "game": "backgammon", "seed": 42, "id": "g"}
        )
        assert state["position"] == "4HPwATDgc/ABMA opening"
        assert state["to_move"] == "chance" and state["seed"] == 42
        assert len(state["outcomes"]) == 30
        assert state["legal_moves"] == [outcome["move"] for outcome in state["outcomes"]]
        assert abs(sum(outcome["probability"] for outcome in state["outcomes"]) - 1) < 1e-9

        refused = await client.request({"type": "think", "id": 1, "limits": {"depth": 1}})
        assert refused["type"] == "error" and refused["code"] == "chance_state"

        state = await client.request({"type": "roll", "id": "r"})
        assert state["to_move"] in (0, 1) and "outcomes" not in state
        assert len(state["history"]) == 1
        again = await client.request({"type": "roll", "id": "r2"})
        assert again["type"] == "error" and again["code"] == "illegal_move"
        assert again["legal_moves"] == state["legal_moves"]

        infos, best = await client.think(2, {"movetime_ms": 300})
        assert best["move"] in state["legal_moves"]
        assert infos and infos[0]["depth"] == 1 and infos[0]["pv"][0] in state["legal_moves"]
        assert "value" in best["score"] and best["reason"] in ("time", "depth", "only_move")
        state = await client.request({"type": "move", "move": best["move"], "id": "m"})
        assert state["to_move"] == "chance" and len(state["outcomes"]) == 21

        # The client may name the roll itself, in either order; history has it high die first.
        state = await client.request({"type": "move", "move": "2-6", "id": "c"})
        assert state["history"][-1] == "6-2"
        assert state["position"].endswith(" 6-2")


@on_shared_loop
async def test_same_seed_replays_the_same_rolls(shared_server: ArenaServer) -> None:
    rolls = []
    for _ in range(2):
        async with raw_client(shared_server.port, "json") as client:
            await client.request({"type": "new_game", "game": "backgammon", "seed": 7})
            rolls.append(await roll_and_play(client, 6))
    assert rolls[0] == rolls[1]


@on_shared_loop
async def test_roll_errors(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port, "json") as client:
        reply = await client.request({"type": "roll", "id": 1})
        assert reply["code"] == "no_game"
        await client.request({"type": "new_game", "game": "connect4"})
        reply = await client.request({"type": "roll", "id": 2})
        assert reply["code"] == "illegal_move" and reply["legal_moves"][0] == "1"
        reply = await client.request({"type": "new_game", "game": "backgammon", "seed": -1})
        assert reply["code"] == "bad_message"


def test_server_rolls_follow_the_probabilities() -> None:
    """36000 draws from one seed look like two fair dice."""
    outcomes = Backgammon().chance_outcomes(Backgammon().parse_position("4HPwATDgc/ABMA 0 -"))
    assert outcomes is not None
    rng = random.Random(1)
    counts: dict[Any, int] = {}
    for _ in range(36000):
        roll = draw_outcome(rng, outcomes)
        counts[roll] = counts.get(roll, 0) + 1
    assert len(counts) == 21
    assert 850 <= counts[(6, 6)] <= 1150  # expected 1000
    assert 1750 <= counts[(5, 3)] <= 2250  # expected 2000


def test_parse_roll_and_seed() -> None:
    assert parse_request({"type": "roll", "id": 3}) == Roll(3)
    request: Any = parse_request({"type": "new_game", "game": "backgammon", "seed": 5})
    assert request.seed == 5
    with pytest.raises(ProtocolError) as error:
        parse_request({"type": "new_game", "game": "backgammon", "seed": "x"})
    assert error.value.code is ErrorCode.BAD_MESSAGE
    session = Session()
    session.handle(NewGame("backgammon"), 0.0)
    with pytest.raises(ProtocolError) as error:
        session.handle(Think(limits=parse_think_limits()), 0.0)
    assert error.value.code is ErrorCode.CHANCE_STATE


def parse_think_limits() -> Any:
    request: Any = parse_request({"type": "think", "limits": {"depth": 1}})
    return request.limits


@on_shared_loop
async def test_finished_game_reports_points(shared_server: ArenaServer) -> None:
    async with raw_client(shared_server.port, "json") as client:
        # Player 0 bears off its last checker; player 1 has none off: a gammon.
        state = await client.request(
            {
                "type": "new_game",
                "game": "backgammon",
                "position": "AP7/AAABAAAAAA 0 6-1",
                "moves": ["1/off"],
            }
        )
        assert state["result"] == {"winner": 0, "reason": "gammon", "points": 2}
        assert state["legal_moves"] == [] and state["to_move"] == 1


def _session_roll(session: Session, tag: str) -> Any:
    reaction = session.handle(Roll(tag), 0.0)
    return reaction.replies[0]


def test_taking_back_a_move_does_not_change_the_rolls_that_follow() -> None:
    """A roll belongs to its place in the game, not to how many rolls were asked.

    Reproduces a review of 2026-12-07: the terminal client's ``undo`` starts
    the game again with the same seed and the moves so far, and the server's
    dice then began their sequence again, so the engine's next roll changed
    and a player could take a move back until the dice suited them.
    """
    session = Session()
    session.handle(NewGame("backgammon", seed=2026), 0.0)
    state = _session_roll(session, "opening")
    first_choice, other_choice = state.legal_moves[0], state.legal_moves[-1]
    assert first_choice != other_choice
    session.handle(Move(first_choice), 0.0)
    engine_roll = _session_roll(session, "reply").history[-1]

    # undo: the same seed, the history up to the person's decision, another move
    session.handle(NewGame("backgammon", seed=2026, moves=tuple(state.history)), 0.0)
    session.handle(Move(other_choice), 0.0)
    assert _session_roll(session, "reply again").history[-1] == engine_roll


def test_the_opening_roll_is_the_same_after_a_new_game_with_the_seed() -> None:
    rolls = []
    for _ in range(2):
        session = Session()
        session.handle(NewGame("backgammon", seed=99), 0.0)
        rolls.append(_session_roll(session, "r").history[-1])
    assert rolls[0] == rolls[1]

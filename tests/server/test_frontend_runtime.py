"""The front ends' share of the runtime: jobs for the pool, lines in, a clean stdout."""

from __future__ import annotations

import asyncio
import io
import os

import pytest

from engine.games.chess.game import Chess
from engine.search.limits import Limits
from server.frontends.runtime import (
    FRONTEND_WORKER_NICE,
    UNTIMED_DUE_S,
    FrontendPool,
    protocol_stdout,
    read_lines,
    search_job,
)
from server.runtime.constants import DELIVERY_MARGIN_S
from tests.timing import UNIT


def test_a_timed_search_keeps_its_whole_time_and_is_due_a_delivery_margin_later() -> None:
    game = Chess()
    state = game.initial_state()
    job = search_job(3, game, state, Limits(movetime_ms=250), "alphabeta", 100.0)
    assert job.deadlines.soft == pytest.approx(100.25)
    assert job.deadline == pytest.approx(100.25 + DELIVERY_MARGIN_S)
    # The pool ends the worker's search a delivery margin before the answer is due.
    assert job.deadlines.capped(job.deadline - DELIVERY_MARGIN_S).hard == pytest.approx(100.25)
    assert job.fallback_move == game.format_move(state, game.legal_moves(state)[0])
    assert (job.think_id, job.algorithm, job.untimed) == (3, "alphabeta", False)


def test_an_untimed_search_is_due_far_off() -> None:
    game = Chess()
    job = search_job(1, game, game.initial_state(), Limits(depth=5), "alphabeta", 10.0)
    assert job.untimed and job.deadlines.soft is None
    assert job.deadline == pytest.approx(10.0 + UNTIMED_DUE_S + DELIVERY_MARGIN_S)


def test_the_front_ends_worker_is_not_niced() -> None:
    assert FrontendPool(1 << 10).pool.worker_nice == FRONTEND_WORKER_NICE == 0


def test_lines_are_read_to_the_end() -> None:
    async def read_all() -> list[str]:
        return [line async for line in read_lines(io.StringIO("uci\nisready\n\nquit"))]

    assert asyncio.run(read_all()) == ["uci\n", "isready\n", "\n", "quit"]


def test_lines_from_a_pipe_are_read_from_its_descriptor() -> None:
    reading, writing = os.pipe()
    os.write(writing, "uci\r\nisready\nposition startpos moves e2e4 é\r".encode())
    os.write(writing, b"\ngo\npartial")
    os.close(writing)

    async def read_all() -> list[str]:
        with os.fdopen(reading) as read:
            return [line async for line in read_lines(read)]

    assert asyncio.run(read_all()) == [
        "uci\n",
        "isready\n",
        "position startpos moves e2e4 é\n",
        "go\n",
        "partial",
    ]


def test_stdout_carries_the_protocol_alone(capfd: pytest.CaptureFixture[str]) -> None:
    with protocol_stdout() as out:
        os.write(1, b"noise from a worker or a library\n")  # what a child would inherit
        out.write("readyok\n")
    os.write(1, b"after\n")
    captured = capfd.readouterr()
    assert captured.out == "readyok\nafter\n"
    assert "noise from a worker" in captured.err


async def test_a_wait_on_the_pool_wakes_at_its_events_not_on_a_clock() -> None:
    """Seen: the front ends polled ``idle_workers`` every 10 ms; they wait on the pool's events."""
    pool = FrontendPool(1 << 10).pool
    loop = asyncio.get_running_loop()
    flag = {"up": False}

    def flip() -> None:
        flag["up"] = True

    # A change the pool's scheduler did not handle is not looked for: no
    # poll finds it, the wait reads the condition again only at its end.
    loop.call_soon(flip)
    started = loop.time()
    assert await pool.wait_until(lambda: flag["up"], 0.1)
    assert loop.time() - started >= 0.09
    # A change followed by an event the pool handles ends the wait at once.
    flag["up"] = False
    loop.call_soon(lambda: (flip(), pool._execute([])))
    started = loop.time()
    assert await pool.wait_until(lambda: flag["up"], 10 * UNIT)
    assert loop.time() - started < 5 * UNIT
    assert not await pool.wait_until(lambda: False, 0.01)

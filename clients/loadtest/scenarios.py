"""The scripts the load tester's sessions run: the built-in ones, and loading your own."""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from clients.loadtest.session import LoadSession

Scenario = Callable[[LoadSession], Awaitable[None]]


async def mixed(session: LoadSession) -> None:
    """A game of Connect Four with everything a client does, some of it rudely.

    new_game, then moves alternating with thinks (movetime 50-300 ms);
    one think in eight is stopped mid-way, one game in twenty-five ends
    with an abrupt disconnect in the middle of a think.
    """
    rng = session.rng
    if await session.new_game("connect4") is None:
        return
    abort_this_game = rng.random() < 0.04
    while session.running and not session.game_over:
        if rng.random() < 0.5:
            if await session.random_move() is None:
                return
            continue
        movetime = rng.choice((50, 100, 200, 300))
        if abort_this_game and rng.random() < 0.3:
            await session.think(movetime, abort_after_ms=rng.uniform(5, movetime))
            return
        if rng.random() < 0.125:
            best = await session.think(None, stop_after_ms=rng.uniform(5, 150))
        else:
            best = await session.think(movetime)
        if best is None and session.refused:
            continue  # the next think waits the server's retry_after_ms first
        if best is None or await session.move(best.move) is None:
            return


async def think(session: LoadSession) -> None:
    """Engine against itself at movetime ``--movetime`` ms: think, play the answer, repeat.

    The opening is four random moves, so that sessions search different
    positions. A refused think is sent again after the server's
    ``retry_after_ms``.
    """
    if await session.new_game("connect4") is None:
        return
    for _ in range(4):
        if await session.random_move() is None:
            return
    while session.running and not session.game_over:
        best = await session.think(session.movetime_ms)
        if best is None and session.refused:
            continue  # the next think waits the server's retry_after_ms first
        if best is None or await session.move(best.move) is None:
            return


async def single(session: LoadSession) -> None:
    """One think of ``--movetime`` ms on a fresh Connect Four position: the unit for ``--rate``.

    New game, two random moves, one think (sent again after the server's
    ``retry_after_ms`` if refused, while the run lasts): in the arrival-rate
    mode each arrival is then exactly one think.
    """
    if await session.new_game("connect4") is None:
        return
    for _ in range(2):
        if await session.random_move() is None:
            return
    while True:
        best = await session.think(session.movetime_ms)
        if best is not None or not session.refused or not session.running:
            return


async def idle(session: LoadSession) -> None:
    """Say hello, then hold the connection open, doing nothing, until the run ends."""
    while session.running:
        await asyncio.sleep(0.2)


SCENARIOS: dict[str, Scenario] = {"mixed": mixed, "think": think, "single": single, "idle": idle}


def _import_from_cwd(module_name: str) -> Any:
    """Import ``module_name``, also looking in the current directory (as ``python -m`` does).

    ``arena`` is an installed script, so its ``sys.path`` does not hold the
    directory it was started in: ``--scenario mymod:run`` with ``mymod.py``
    there would not be found without this. The directory is looked in last,
    so it cannot shadow an installed module.
    """
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.append(cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise ValueError(
                f"no module {module_name!r} (looked in the current directory and on sys.path)"
            ) from None
        raise
    finally:
        if added:
            sys.path.remove(cwd)


def load_scenario(name: str) -> Scenario:
    """A built-in scenario by name, or ``module:function`` (looked up in the current
    directory too)."""
    if name in SCENARIOS:
        return SCENARIOS[name]
    module_name, sep, function_name = name.partition(":")
    if not sep:
        raise ValueError(
            f"unknown scenario {name!r}: use one of {', '.join(SCENARIOS)} "
            "or package.module:function"
        )
    function = getattr(_import_from_cwd(module_name), function_name, None)
    if not callable(function):
        raise ValueError(f"{name!r} is not a function")
    scenario: Scenario = function
    return scenario

"""The terminal client: play a game against the engine, watching it think.

Used by ``arena play``; the board is drawn by :mod:`clients.render`, moves
are typed in the game's notation, and while the engine thinks one status
line shows its depth, score and principal variation as they arrive.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TextIO

from clients.client import BestMove, Engine, EngineError, GameState, Info, connect
from clients.codec import EncodingName
from clients.render import render

InputFunction = Callable[[str], Awaitable[str | None]]

QUIT_WORDS = {"quit", "q", "exit"}
#: How many legal moves the prompt lists before abbreviating.
PROMPT_MOVES = 16
#: Pause before asking again when a busy server refused a think without a hint.
OVERLOADED_RETRY_MS = 1000


async def read_line(prompt: str) -> str | None:
    """Read a line without blocking the event loop; ``None`` at end of input."""
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


async def play(
    url: str,
    game: str,
    *,
    options: Mapping[str, Any] | None = None,
    position: str | None = None,
    movetime_ms: int = 1000,
    human: int = 0,
    encoding: EncodingName = "msgpack",
    read: InputFunction = read_line,
    out: TextIO = sys.stdout,
) -> int:
    """Play one game; ``human`` is the player index the person plays (2: engine vs engine)."""
    async with connect(url, encoding=encoding, client_name="arena play") as engine:
        state = await engine.new_game(game, options, position)
        players = _player_names(engine, game)
        while not state.is_over:
            if state.is_chance:  # dice: the server rolls them with the game's seed
                state = await engine.roll()
                print(f"dice: {state.history[-1]}", file=out)
                continue
            print(render(state.game, state.position, state.options), file=out)
            mover = _player_name(players, state.to_move)
            if state.to_move == human:
                next_state = await _human_turn(engine, state, read, out)
                if next_state is None:
                    print("bye", file=out)
                    return 0
                state = next_state
            else:
                print(f"{mover} (engine) is thinking...", file=out)
                best = await _engine_turn(engine, movetime_ms, out)
                print(
                    f"engine plays {best.move}  (score {best.score}, depth {best.depth}, "
                    f"{best.time_ms} ms, {best.reason})",
                    file=out,
                )
                state = await engine.move(best.move)
        print(render(state.game, state.position, state.options), file=out)
        print(_result_text(state, players, human), file=out)
        return 0


async def _human_turn(
    engine: Engine, state: GameState, read: InputFunction, out: TextIO
) -> GameState | None:
    while True:
        legal = list(state.legal_moves)
        shown = " ".join(legal[:PROMPT_MOVES]) + (" ..." if len(legal) > PROMPT_MOVES else "")
        text = await read(f"your move [{shown}] (quit to leave): ")
        if text is None or text.strip().lower() in QUIT_WORDS:
            return None
        try:
            return await engine.move(text.strip())
        except EngineError as error:
            print(f"{error.message}", file=out)


async def _engine_turn(engine: Engine, movetime_ms: int, out: TextIO) -> BestMove:
    while True:
        try:
            async with engine.analysis(movetime_ms=movetime_ms) as analysis:
                async for info in analysis:
                    _show_progress(info, out)
                best = await analysis.wait()
        except EngineError as error:
            if error.code != "overloaded":
                raise
            # A busy server refused the think: wait as it suggests, then ask again.
            wait_ms = getattr(error, "retry_after_ms", None) or OVERLOADED_RETRY_MS
            print(f"the server is busy; asking again in {wait_ms} ms", file=out)
            await asyncio.sleep(wait_ms / 1000)
            continue
        if out.isatty():
            out.write("\n")
        return best


def _show_progress(info: Info, out: TextIO) -> None:
    line = (
        f"  depth {info.depth:2d}  score {info.score!s:>10}  nodes {info.nodes:>9}  "
        f"{info.time_ms:>6} ms  pv {' '.join(info.pv[:12])}"
    )
    if out.isatty():
        out.write("\r\x1b[K" + line)  # rewrite one status line in place
        out.flush()
    else:
        print(line, file=out)


def _player_names(engine: Engine, game: str) -> list[str]:
    description = engine.server.game(game) if engine.server else None
    return list(description["players"]) if description else ["player 0", "player 1"]


def _player_name(players: list[str], player: int | str) -> str:
    if isinstance(player, int) and 0 <= player < len(players):
        return players[player]
    return str(player)


def _result_text(state: GameState, players: list[str], human: int) -> str:
    result = state.result
    if result is None:
        return ""
    if result.winner is None:
        return f"draw ({result.reason})"
    who = "you win" if result.winner == human else "the engine wins"
    return f"{_player_name(players, result.winner)} wins ({result.reason}): {who}"

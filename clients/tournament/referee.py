"""The referee: plays one game between two engine connections and judges it.

It holds the authoritative game (``engine.registry.create_game``), asks the
side to move to ``think`` under the time control, measures the answer on
its own clock, checks the move against the rules and tells both engines.
Anything an engine does wrong (an illegal move, a late or missing answer,
a dropped connection, a broken message) loses it the game, with the
reason recorded. Every wait is bounded, so a game always ends.

Nothing an engine sends reaches a record unchecked: the client library
(strict mode) validates every field of every message, so a ``bestmove``
whose fields have the wrong types or are not finite fails its think with
:class:`~clients.client.ProtocolViolationError`, a protocol-error loss
here, and so is any other exception the client raises on an engine's
replies. The records are strict JSON besides
(:func:`clients.tournament.validation.strict_json`).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from clients.client import (
    BestMove,
    Engine,
    EngineError,
    EngineTerminatedError,
    ProtocolViolationError,
)
from clients.tournament.adjudication import Adjudicator
from clients.tournament.clock import (
    GameClock,
    is_late,
    move_budget,
    think_limits,
    watchdog_ms,
)
from clients.tournament.config import EngineSpec, TournamentConfig
from clients.tournament.openings import Opening
from clients.tournament.records import (
    ADJUDICATION,
    DISCONNECT,
    ILLEGAL_MOVE,
    PROTOCOL_ERROR,
    RULES,
    TIME_FORFEIT,
    TIMEOUT,
    GameRecord,
    MoveRecord,
)
from engine.errors import GameError
from engine.game import Game
from engine.registry import create_game

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One scheduled game: who plays first, from which opening."""

    game_id: int
    round: int
    pair: int
    opening_index: int
    opening: Opening
    engines: tuple[EngineSpec, EngineSpec]


class Fault(Exception):
    """An engine broke the rules or the protocol: it loses the game."""

    def __init__(self, player: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.player = player
        self.kind = kind
        self.detail = detail


#: Called after every move with the game and the number of plies played.
MoveListener = Callable[[GameSpec, int], None]


class Referee:
    """Plays games of one tournament; holds no state between games."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config

    async def play(
        self,
        spec: GameSpec,
        engines: tuple[Engine, Engine],
        on_move: MoveListener | None = None,
    ) -> tuple[GameRecord, tuple[bool, bool]]:
        """Play ``spec`` on the two connections (first mover first).

        Returns the record and, for each connection, whether it may be
        reused (false for the engine at fault).
        """
        return await _Game(self.config, spec, engines, on_move).run()

    def forfeit(self, spec: GameSpec, player: int, kind: str, detail: str) -> GameRecord:
        """The record of a game ``player`` lost before it began (e.g. unreachable)."""
        game = create_game(self.config.game, self.config.options)
        state, played = spec.opening.start(game)
        now = _now()
        return _record(
            self.config,
            spec,
            1 - player,
            kind,
            f"{spec.engines[player].name} {detail}",
            tuple(MoveRecord(move, book=True) for move in played),
            game.format_position(state),
            now,
            now,
        )


class _Game:
    """The state of one game in progress."""

    def __init__(
        self,
        config: TournamentConfig,
        spec: GameSpec,
        engines: tuple[Engine, Engine],
        on_move: MoveListener | None,
    ) -> None:
        self.config = config
        self.spec = spec
        self.engines = engines
        self.on_move = on_move
        self.game: Game[Any, Any] = create_game(config.game, config.options)
        self.state, self.opening_moves = spec.opening.start(self.game)
        self.moves: list[MoveRecord] = [MoveRecord(move, book=True) for move in self.opening_moves]
        self.adjudicator = Adjudicator(config.adjudication)
        for _ in self.opening_moves:
            self.adjudicator.add(0, None)
        tc = config.time_control
        self.clock = GameClock(tc.base_ms, tc.inc_ms, tc.moves) if tc.base_ms is not None else None
        self.request_timeout_s = config.timing.request_timeout_ms / 1000

    async def run(self) -> tuple[GameRecord, tuple[bool, bool]]:
        started = _now()
        try:
            winner, kind, reason = await self._play()
            healthy = (True, True)
        except Fault as fault:
            winner, kind = 1 - fault.player, fault.kind
            reason = f"{self.spec.engines[fault.player].name} {fault.detail}"
            healthy = (fault.player != 0, fault.player != 1)
        record = _record(
            self.config,
            self.spec,
            winner,
            kind,
            reason,
            tuple(self.moves),
            self.game.format_position(self.state),
            started,
            _now(),
        )
        return record, healthy

    async def _play(self) -> tuple[int | None, str, str]:
        spec, opening = self.spec, self.spec.opening
        await self._both(
            lambda engine: engine.new_game(
                self.config.game,
                self.config.options or None,
                opening.position,
                list(opening.moves) or None,
            )
        )
        while True:
            outcome = self.game.outcome(self.state)
            if outcome is not None:
                return outcome.winner, RULES, outcome.reason
            player = self.game.to_move(self.state)
            best, elapsed_ms = await self._think(player)
            move, text = self._check_move(player, best)
            self.state = self.game.play(self.state, move)
            if self.clock is not None:
                self.clock.punch(player, elapsed_ms)
            self.moves.append(
                MoveRecord(
                    move=text,
                    time_ms=round(elapsed_ms),
                    clock_ms=None if self.clock is None else self.clock.left_ms[player],
                    depth=best.depth,
                    seldepth=best.seldepth,
                    score=best.score.to_dict(),
                    nodes=best.nodes,
                    engine_time_ms=best.time_ms,
                    reason=best.reason or None,
                    queued_ms=best.queued_ms,
                    playouts=best.playouts,
                )
            )
            if self.on_move is not None:
                self.on_move(spec, len(self.moves))
            verdict = self.adjudicator.add(player, best.score)
            if self.game.outcome(self.state) is None:
                if verdict is not None:
                    return verdict.winner, ADJUDICATION, verdict.reason
                await self._both(functools.partial(Engine.move, move=text))

    async def _think(self, player: int) -> tuple[BestMove, float]:
        tc, timing = self.config.time_control, self.config.timing
        clock = None if self.clock is None else self.clock.clock_for(player)
        limits = think_limits(tc, self.spec.engines[player], clock)
        budget = move_budget(tc, clock)
        timeout_ms = watchdog_ms(budget, timing)
        engine = self.engines[player]
        started = time.monotonic()
        best = await self._guard(
            player,
            engine.think(
                movetime_ms=limits.movetime_ms,
                depth=limits.depth,
                nodes=limits.nodes,
                clock=limits.clock,
                algorithm=self.spec.engines[player].algorithm,
            ),
            timeout_ms / 1000,
            "gave no move",
        )
        elapsed_ms = (time.monotonic() - started) * 1000
        if is_late(elapsed_ms, budget, timing.margin_ms):
            raise Fault(
                player,
                TIME_FORFEIT,
                f"lost on time: answered after {elapsed_ms:.0f} ms with {budget} ms left "
                f"(margin {timing.margin_ms} ms)",
            )
        return best, elapsed_ms

    def _check_move(self, player: int, best: BestMove) -> tuple[Any, str]:
        """The move and its canonical notation; a :class:`Fault` when it is not legal."""
        try:
            move = self.game.parse_move(self.state, best.move)
        except GameError:
            state = self.state
            legal = [self.game.format_move(state, m) for m in self.game.legal_moves(state)]
            raise Fault(
                player,
                ILLEGAL_MOVE,
                f"played an illegal move {best.move[:40]!r} (legal: {' '.join(legal[:40])})",
            ) from None
        return move, self.game.format_move(self.state, move)

    async def _both(self, request: Callable[[Engine], Awaitable[Any]]) -> None:
        """Send one request to both engines at once; the first one at fault loses."""
        results = await asyncio.gather(
            *(
                self._guard(player, request(engine), self.request_timeout_s, "did not answer")
                for player, engine in enumerate(self.engines)
            ),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _guard(self, player: int, request: Awaitable[T], timeout_s: float, silent: str) -> T:
        """Await one request of ``player``'s engine, turning every failure into a Fault."""
        try:
            return await asyncio.wait_for(request, timeout_s)
        except TimeoutError as error:  # the watchdog's, or the client's own (EngineTimeoutError)
            detail = f" ({_short(error.message)})" if isinstance(error, EngineError) else ""
            raise Fault(
                player, TIMEOUT, f"{silent} within {timeout_s * 1000:.0f} ms (watchdog){detail}"
            ) from None
        except EngineTerminatedError as error:
            raise Fault(player, DISCONNECT, f"disconnected ({_short(error.message)})") from None
        except ProtocolViolationError as error:
            raise Fault(
                player, PROTOCOL_ERROR, f"broke the protocol: {_short(error.message)}"
            ) from None
        except EngineError as error:
            raise Fault(
                player,
                PROTOCOL_ERROR,
                f"answered with error {_short(str(error.code))}: {_short(error.message)}",
            ) from None
        except Exception as error:  # anything else the engine's replies made the client raise
            raise Fault(
                player, PROTOCOL_ERROR, f"sent a malformed reply ({_short(repr(error))})"
            ) from None


#: The longest piece of an engine's own text (an error message...) kept in a reason.
MAX_QUOTED_CHARS = 200


def _short(text: str) -> str:
    return text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 3] + "..."


def _record(
    config: TournamentConfig,
    spec: GameSpec,
    winner: int | None,
    kind: str,
    reason: str,
    moves: Sequence[MoveRecord],
    final_position: str,
    started: str,
    finished: str,
) -> GameRecord:
    return GameRecord(
        game_id=spec.game_id,
        round=spec.round,
        pair=spec.pair,
        game=config.game,
        options=dict(config.options),
        players=(spec.engines[0].name, spec.engines[1].name),
        opening_index=spec.opening_index,
        opening_position=spec.opening.position,
        winner=winner,
        kind=kind,
        reason=reason,
        moves=tuple(moves),
        final_position=final_position,
        time_control=config.time_control.describe(),
        started=started,
        finished=finished,
        tournament=config.name,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")

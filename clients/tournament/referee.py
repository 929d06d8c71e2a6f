"""The referee: plays one game between two engine connections and judges it.

It holds the authoritative game (``engine.registry.create_game``), asks the
side to move to ``think`` under the time control, measures the answer on
its own clock, checks the move against the rules and tells both engines.
Anything an engine does wrong (an illegal move, a late or missing answer,
a dropped connection, a broken message) loses it the game, with the
reason recorded. Every wait is bounded, so a game always ends.

Games of chance (backgammon): the referee rolls the dice itself, as
protocol.md says a referee does. At a chance state it draws a roll with
the game's probabilities from its own generator, plays it and sends it to
both engines as a ``move``; the roll is recorded as a move with ``roll``
set. The generator's seed (:func:`dice_seed`, recorded as the record's
``extra["dice_seed"]``) depends only on the tournament's ``seed`` and the
pair of games, so both games of a pair (one opening, colours swapped) get
the same sequence of rolls: the n-th roll of one game is the n-th roll of
the other, as in duplicate backgammon, and a game played again after
``--resume`` gets the dice it had. Engines are asked to ``think`` at
decision states only, so a fault is always one of the two players'.

Go: a game that two passes (or the length bound) end with dead stones still on the board gets
a clean-up phase before it is counted (:mod:`clients.tournament.go_cleanup`);
the record's ``extra["cleanup_ply"]`` says where it began.

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
import dataclasses
import functools
import hashlib
import random
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
from clients.tournament import reasons
from clients.tournament.adjudication import Adjudicator, Verdict
from clients.tournament.clock import (
    GameClock,
    is_late,
    move_budget,
    think_limits,
    watchdog_ms,
)
from clients.tournament.config import EngineSpec, TournamentConfig
from clients.tournament.go_cleanup import GO, RESIGN, countable
from clients.tournament.openings import Opening
from clients.tournament.reasons import quoted
from clients.tournament.records import (
    ADJUDICATION,
    DISCONNECT,
    ENGINE_FAILURE,
    ILLEGAL_MOVE,
    PROTOCOL_ERROR,
    RULES,
    TIME_FORFEIT,
    TIMEOUT,
    GameRecord,
    MoveRecord,
)
from clients.tournament.validation import win_odds_scale
from engine.errors import GameError
from engine.game import Game, sample_outcome
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


#: The ``bestmove`` reason of a think the engine's server answered for it
#: (protocol.md section 8: the program behind it failed).
ENGINE_ERROR = "engine_error"
#: The ``bestmove`` reason of a think answered at its deadline; at depth 0
#: with no node searched, no result of the engine stood behind the move.
TIME_REASON = "time"
#: The ``bestmove`` reason of a think no search (nor program) answered: the
#: server had no time left for it (protocol.md).
OVERLOADED_REASON = "overloaded"
#: A class bot's moves played for it (reason ``engine_error``, or ``time`` at
#: depth 0: it failed, or was silent at its deadline) lose it the game at
#: this many separate failures in the game (each one a failed move after a
#: move of its own)... One is played on (a bug on one position should not
#: lose a student the game, docs/bots.md); bots that never played drew every
#: game against each other (42-ply Connect Four draws of stand-in moves, a
#: review of 2026-12-07). A failure's restart may cost the next moves too
#: (the program not ready, "starting"): those count as the same failure.
BOT_FAILURES_TO_LOSE = 3
#: ... or at this many of its moves in a row played for it: a bot silent or
#: answering garbage at every move. More than a restart's few moves.
BOT_FAILED_IN_A_ROW_TO_LOSE = 5
#: Bits of a dice seed: below 2**53, so that it is an exact number in any JSON reader.
DICE_SEED_BITS = 48


def unsearched(best: BestMove) -> bool:
    """Whether the engine's server answered without any result of the engine: at its
    deadline with nothing searched (``time``, depth 0, no node), or ``overloaded``."""
    if best.reason == OVERLOADED_REASON:
        return True
    return best.reason == TIME_REASON and best.depth == 0 and best.nodes == 0


def dice_seed(seed: int, pair: int) -> int:
    """The seed of the referee's dice for both games of pair ``pair`` of a tournament.

    A hash, so that neighbouring pairs get unrelated dice; stable across
    Python versions and processes (``hash()`` of a string is not).
    """
    digest = hashlib.sha256(f"arena tournament dice {seed} {pair}".encode()).digest()
    return int.from_bytes(digest[: DICE_SEED_BITS // 8], "big")


def opening_rolls(game: Game[Any, Any], opening: Opening) -> list[bool]:
    """For each move of ``opening`` (valid: already checked), whether it is a roll of the dice."""
    state = (
        game.initial_state() if opening.position is None else game.parse_position(opening.position)
    )
    rolls = []
    for text in opening.moves:
        rolls.append(game.chance_outcomes(state) is not None)
        state = game.play_text(state, text)
    return rolls


#: Called after every move with the game and its moves so far (the opening's
#: included; the list grows as the game goes on: copy it to keep it).
MoveListener = Callable[[GameSpec, Sequence[MoveRecord]], None]


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

    def forfeit(self, spec: GameSpec, player: int | None, kind: str, detail: str) -> GameRecord:
        """The record of a game ``player`` lost before it began (e.g. unreachable);
        ``None``: both players at fault, a draw neither earned."""
        game = create_game(self.config.game, self.config.options)
        state, played = spec.opening.start(game)
        now = _now()
        names = [engine.name for engine in spec.engines]
        at_fault = " and ".join(names) if player is None else names[player]
        return _record(
            self.config,
            spec,
            None if player is None else 1 - player,
            kind,
            reasons.fault_reason(at_fault, detail),
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
        rolls = opening_rolls(self.game, Opening(spec.opening.position, tuple(self.opening_moves)))
        self.moves: list[MoveRecord] = [
            MoveRecord(move, book=True, roll=roll)
            for move, roll in zip(self.opening_moves, rolls, strict=True)
        ]
        #: Per player, the scale its server maps a Monte Carlo win rate into a
        #: score with (recorded with each such move, for the live page).
        self.win_odds_scales = tuple(
            win_odds_scale(engine.server.games if engine.server is not None else (), config.game)
            for engine in engines
        )
        self.adjudicator = Adjudicator(config.adjudication)
        for roll in rolls:
            if roll:
                self.adjudicator.add_roll()
            else:
                self.adjudicator.add(0, None)
        #: Go: where the clean-up phase began (the number of moves before it), if it did.
        self.cleanup_ply: int | None = None
        self.dice_seed = dice_seed(config.seed, spec.pair)
        self.dice = random.Random(self.dice_seed)
        self.rolled = any(rolls)
        tc = config.time_control
        self.clock = GameClock(tc.base_ms, tc.inc_ms, tc.moves) if tc.base_ms is not None else None
        self.request_timeout_s = config.timing.request_timeout_ms / 1000
        #: Per player (bots only): its moves played for it in this game, the
        #: separate failures among them, and the last ones in a row.
        self.failed_moves = [0, 0]
        self.failures = [0, 0]
        self.failed_in_a_row = [0, 0]
        #: Per player (bots only): its own moves in this game.
        self.own_moves = [0, 0]

    async def run(self) -> tuple[GameRecord, tuple[bool, bool]]:
        started = _now()
        try:
            winner, kind, reason = await self._play()
            healthy = (True, True)
        except Fault as fault:
            winner, kind = 1 - fault.player, fault.kind
            reason = reasons.fault_reason(self.spec.engines[fault.player].name, fault.detail)
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
            self._extra(),
        )
        return record, healthy

    def _extra(self) -> dict[str, Any]:
        """The record's ``extra``: the dice's seed and the points the game was won
        for (games of chance), where a clean-up phase began."""
        extra: dict[str, Any] = {}
        if self.rolled:
            extra["dice_seed"] = self.dice_seed
            # Backgammon's 2 for a gammon, 3 for a backgammon: a game ended
            # any other way (adjudicated, a fault) is won for 1.
            outcome = self.game.outcome(self.state)
            extra["points"] = outcome.points if outcome is not None else 1
        if self.cleanup_ply is not None:
            extra["cleanup_ply"] = self.cleanup_ply
        return extra

    def _needs_cleanup(self) -> bool:
        """Go: two passes (or the game's length bound) ended the game on a board
        that cannot be counted as it stands; not after a resignation."""
        return (
            self.config.game == GO
            and self.cleanup_ply is None
            and bool(self.moves)
            and self.moves[-1].move != RESIGN
            and not countable(self.game, self.state)
        )

    async def _start_cleanup(self) -> None:
        """Resume play from the board after the passes (see :mod:`.go_cleanup`).

        The engines saw the first pass, not the second (the game was over),
        or every move up to the length bound: both get the board as a new
        game, the same side to move, no passes, the ply count from zero.
        """
        position = self.game.format_position(self.state)
        self.state = self.game.parse_position(position)
        self.cleanup_ply = len(self.moves)
        await self._both(
            lambda engine: engine.new_game(
                self.config.game, self.config.options or None, position, None
            )
        )

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
            if outcome is not None and self._needs_cleanup():
                await self._start_cleanup()
                continue
            if outcome is not None:
                # "counted after a clean-up phase" only when counted: a side
                # may resign during the clean-up (the Go review of 2026-11-29).
                resigned = bool(self.moves) and self.moves[-1].move == RESIGN
                after = "" if self.cleanup_ply is None or resigned else reasons.AFTER_CLEANUP
                self._no_result_without_a_move(outcome.winner)
                return outcome.winner, RULES, outcome.reason + after
            chances = self.game.chance_outcomes(self.state)
            if chances is not None:
                verdict = await self._roll(chances)
                if verdict is not None:
                    return verdict.winner, ADJUDICATION, verdict.reason
                continue
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
                    win_odds_scale=(
                        None if best.playouts is None else self.win_odds_scales[player]
                    ),
                )
            )
            if self.on_move is not None:
                self.on_move(spec, self.moves)
            # After the move is recorded: the record then ends on the move
            # that would have won, marked as played for the bot, where it
            # ended a move early and the bot's summary counted no failure
            # (a review, 2026-12-07).
            self._no_win_by_stand_in(player, best)
            verdict = self.adjudicator.add(player, best.score)
            if self.game.outcome(self.state) is None:
                if verdict is not None:
                    return verdict.winner, ADJUDICATION, verdict.reason
                await self._both(functools.partial(Engine.move, move=text))

    async def _roll(self, chances: list[tuple[Any, float]]) -> Verdict | None:
        """Roll the dice, play the roll and tell both engines; an adjudication, if any."""
        roll = sample_outcome(chances, self.dice)
        text = self.game.format_move(self.state, roll)
        self.state = self.game.play(self.state, roll)
        self.rolled = True
        self.moves.append(MoveRecord(move=text, roll=True))
        if self.on_move is not None:
            self.on_move(self.spec, self.moves)
        verdict = self.adjudicator.add_roll()
        if self.game.outcome(self.state) is None and verdict is None:
            await self._both(functools.partial(Engine.move, move=text))
        return verdict

    async def _think(self, player: int) -> tuple[BestMove, float]:
        tc, timing = self.config.time_control, self.config.timing
        engine = self.engines[player]
        clock = None if self.clock is None else self.clock.clock_for(player)
        if clock is not None and not _reads_opponent_clock(engine):
            # A server that does not list it may refuse it (protocol.md section 11).
            clock = dataclasses.replace(clock, opponent_ms=None)
        limits = think_limits(tc, self.spec.engines[player], clock)
        budget = move_budget(tc, clock)
        timeout_ms = watchdog_ms(budget, timing)
        started = time.monotonic()
        best = await self._guard(
            player,
            engine.think(
                movetime_ms=limits.movetime_ms,
                depth=limits.depth,
                nodes=limits.nodes,
                clock=limits.clock,
                algorithm=self.spec.engines[player].algorithm,
                cleanup=self.cleanup_ply is not None,
            ),
            timeout_ms / 1000,
            reasons.GAVE_NO_MOVE,
        )
        elapsed_ms = (time.monotonic() - started) * 1000
        if is_late(elapsed_ms, budget, timing.margin_ms):
            raise Fault(
                player,
                TIME_FORFEIT,
                reasons.FAULT_LATE.format(
                    elapsed_ms=elapsed_ms, budget_ms=budget, margin_ms=timing.margin_ms
                )
                + reasons.FAULT_LATE_ANSWER.format(
                    move=best.move[:40],
                    reason=best.reason,
                    engine_ms=best.time_ms,
                    queued_ms=best.queued_ms,
                ),
            )
        engine_spec = self.spec.engines[player]
        if best.reason == ENGINE_ERROR and not engine_spec.is_bot:
            # The move is the server's fallback, not the engine's: a game
            # played on so measures the server (issue 29's SPRT of
            # 2026-11-29 drew 67 games of such moves and accepted H0).
            raise Fault(
                player, ENGINE_FAILURE, reasons.FAULT_ENGINE_ERROR.format(move=best.move[:40])
            )
        silent = best.reason == TIME_REASON and unsearched(best)
        if silent and engine_spec.command is not None and not engine_spec.is_bot:
            # A program (proto=uci or gtp) with no answer at its deadline: the
            # server's stand-in is not its move; it loses on time, as in
            # cutechess-cli (a late GNU Go had A9, C9, D9 ... played for it and
            # the game was scored, a review of 2026-12-07).
            raise Fault(
                player,
                TIME_FORFEIT,
                reasons.FAULT_STAND_IN.format(
                    within="" if budget is None else f" ({budget:.0f} ms)", move=best.move[:40]
                ),
            )
        if engine_spec.is_bot:
            if not (silent or best.reason == ENGINE_ERROR):
                self.failed_in_a_row[player] = 0
                self.own_moves[player] += 1
            else:
                if self.failed_in_a_row[player] == 0:
                    self.failures[player] += 1
                self.failed_in_a_row[player] += 1
                self.failed_moves[player] += 1
                if (
                    self.failures[player] >= BOT_FAILURES_TO_LOSE
                    or self.failed_in_a_row[player] >= BOT_FAILED_IN_A_ROW_TO_LOSE
                ):
                    raise Fault(
                        player,
                        ENGINE_FAILURE,
                        reasons.FAULT_BOT_FAILED.format(
                            times=reasons.times(self.failed_moves[player])
                        ),
                    )
        return best, elapsed_ms

    def _no_win_by_stand_in(self, player: int, best: BestMove) -> None:
        """A bot's move played for it that would win the game loses it by fault.

        Its stand-ins are the first legal moves: in Connect Four four of
        them make a column, and bots that never gave an answer won games so
        (a review of 2026-12-07). A win is the bot's own move, or none.
        """
        stand_in = best.reason == ENGINE_ERROR or unsearched(best)
        if not self.spec.engines[player].is_bot or not stand_in:
            return
        outcome = self.game.outcome(self.state)
        if outcome is not None and outcome.winner == player:
            raise Fault(
                player,
                ENGINE_FAILURE,
                reasons.FAULT_BOT_STAND_IN_WIN.format(
                    times=reasons.times(self.failed_moves[player])
                ),
            )

    def _no_result_without_a_move(self, winner: int | None) -> None:
        """A bot that gave no move of its own in a game it did not win loses it by fault.

        A short game leaves a silent bot too few moves to reach either limit
        of BOT_FAILURES_TO_LOSE (tic-tac-toe after four opening plies: three
        at most), and its stand-ins drew (a teacher's review, 2026-12-07).
        """
        for player in (0, 1):
            never = self.failed_moves[player] > 0 and self.own_moves[player] == 0
            if self.spec.engines[player].is_bot and never and winner != player:
                raise Fault(
                    player,
                    ENGINE_FAILURE,
                    reasons.FAULT_BOT_NEVER_MOVED.format(
                        times=reasons.times(self.failed_moves[player])
                    ),
                )

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
                reasons.FAULT_ILLEGAL.format(move=best.move[:40], legal=" ".join(legal[:40])),
            ) from None
        return move, self.game.format_move(self.state, move)

    async def _both(self, request: Callable[[Engine], Awaitable[Any]]) -> None:
        """Send one request to both engines at once; the first one at fault loses."""
        results = await asyncio.gather(
            *(
                self._guard(player, request(engine), self.request_timeout_s, reasons.DID_NOT_ANSWER)
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
            detail = f" ({quoted(error.message)})" if isinstance(error, EngineError) else ""
            text = reasons.FAULT_SILENT.format(
                what=silent, timeout_ms=timeout_s * 1000, detail=detail
            )
            raise Fault(player, TIMEOUT, text) from None
        except EngineTerminatedError as error:
            text = reasons.FAULT_DISCONNECTED.format(message=quoted(error.message))
            raise Fault(player, DISCONNECT, text) from None
        except ProtocolViolationError as error:
            text = reasons.FAULT_PROTOCOL.format(message=quoted(error.message))
            raise Fault(player, PROTOCOL_ERROR, text) from None
        except EngineError as error:
            text = reasons.FAULT_ERROR_REPLY.format(
                code=quoted(str(error.code)), message=quoted(error.message)
            )
            raise Fault(player, PROTOCOL_ERROR, text) from None
        except Exception as error:  # anything else the engine's replies made the client raise
            text = reasons.FAULT_MALFORMED.format(error=quoted(repr(error)))
            raise Fault(player, PROTOCOL_ERROR, text) from None


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
    extra: dict[str, Any] | None = None,
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
        # No control of the tournament's own (each engine capped): PGN's "-".
        time_control=config.time_control.describe() if config.time_control.limits else "",
        started=started,
        finished=finished,
        tournament=config.name,
        extra=extra or {},
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _reads_opponent_clock(engine: Engine) -> bool:
    """Whether the engine's server said (``welcome.clock_fields``) it reads ``opponent_ms``."""
    return engine.server is not None and "opponent_ms" in engine.server.clock_fields

"""What the live page shows, as JSON: standings, crosstable, games, bots' logs.

:class:`LiveTournament` is told of every game as the runner plays it (it
is a :class:`~clients.tournament.runner.GameWatcher`) and builds the
page's data from the tournament's own database: the numbers come from the
functions the text tables use (:mod:`clients.tournament.standings`,
:func:`~clients.tournament.display.format_elo`), so the page and the
terminal never disagree.

Everything a bot chose is hostile input here: its name (a file name in
``--bots``), the reasons that quote it and its log. Each is cut to a
bounded length and stripped of control characters; the JSON is written
with ``<``, ``>`` and ``&`` escaped, and the page puts text in with
``textContent`` only, never as HTML.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.tournament import knockout
from clients.tournament.bots import bot_log_path
from clients.tournament.config import EngineSpec, TournamentConfig
from clients.tournament.display import FAULT_COLUMNS, format_elo, game_points
from clients.tournament.records import GameRecord, MoveRecord, replay
from clients.tournament.referee import ENGINE_ERROR, GameSpec
from clients.tournament.standings import (
    GameResult,
    crosstable,
    engine_tallies,
    fault_counts,
    pairing_results,
    ranking,
)
from clients.tournament.stats import Estimate
from clients.tournament.store import Store
from clients.tournament.validation import checked_scale
from engine.registry import create_game

#: Longest engine name shown (a bot's name is its file name: anything).
MAX_NAME_CHARS = 40
#: Longest reason or other text shown in one piece (reasons quote engines).
MAX_TEXT_CHARS = 300
#: Lines of a bot's log shown for one game (the last ones written during it).
MAX_LOG_LINES = 40
#: Longest log line shown; longer ones are cut.
MAX_LOG_LINE_CHARS = 200
#: Most bytes read from a log for one excerpt: its end, where the game's last lines are.
MAX_LOG_READ_BYTES = 64 * 1024
#: Finished games listed in the snapshot, latest first (the rest stay replayable by id).
MAX_LISTED_GAMES = 200
#: Finished games whose log excerpts are kept in memory (the oldest are dropped).
MAX_KEPT_EXCERPTS = 500
#: Characters shown in place of text that was cut.
CUT = "…"


def clean_text(text: object, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` without control characters (tabs become spaces), at most ``limit`` long."""
    value = str(text)
    kept = "".join(
        " " if char == "\t" else char
        for char in value
        if char == "\t" or unicodedata.category(char)[0] != "C"
    )
    return kept if len(kept) <= limit else kept[: limit - 1] + CUT


def display_name(name: str) -> str:
    return clean_text(name, MAX_NAME_CHARS)


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end is ``null``."""
    return round(value, 1) if math.isfinite(value) else None


def elo_json(estimate: Estimate, unit: str = "games") -> dict[str, Any]:
    """An Elo estimate: the text the tables print, and the numbers for the error bar."""
    return {
        "text": format_elo(estimate, unit),
        "elo": _finite(estimate.elo),
        "low": _finite(estimate.low),
        "high": _finite(estimate.high),
        "samples": estimate.samples,
        "score": round(estimate.score, 4),
        "los": round(estimate.los, 4),
    }


def standings_json(names: Sequence[str], results: Sequence[GameResult]) -> list[dict[str, Any]]:
    """The standings table's rows, best first (:func:`.display.standings_table`)."""
    tallies = engine_tallies(results, len(names))
    faults = fault_counts(results, len(names))
    rows = []
    for rank, index in enumerate(ranking(tallies), 1):
        tally = tallies[index]
        rows.append(
            {
                "rank": rank,
                "engine": index,
                "name": display_name(names[index]),
                "games": tally.games,
                "points": tally.points,
                "score": round(tally.points / tally.games, 4) if tally.games else None,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "elo": elo_json(tally.estimate()) if tally.games else None,
                "faults": sum(faults[index].values()),
            }
        )
    return rows


def crosstable_json(
    names: Sequence[str], results: Sequence[GameResult]
) -> list[list[dict[str, float] | None]]:
    """``[i][j]``: engine ``i``'s points and games against ``j`` (``null`` on the diagonal)."""
    return [
        [None if cell is None else {"points": cell.points, "games": cell.games} for cell in row]
        for row in crosstable(results, len(names))
    ]


def pairings_json(results: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Each pairing from its first engine's side, as :func:`.display.pairings_table`."""
    rows = []
    for pairing in pairing_results(results):
        tally = pairing.tally
        penta = pairing.pentanomial()
        rows.append(
            {
                "a": pairing.a,
                "b": pairing.b,
                "games": tally.games,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "elo": elo_json(pairing.trinomial()),
                "pentanomial": None
                if penta is None
                else {"counts": list(pairing.pairs), "elo": elo_json(penta, "pairs")},
            }
        )
    return rows


def faults_json(names: Sequence[str], results: Sequence[GameResult]) -> list[dict[str, int]]:
    """Each engine's losses by fault, keyed by the text table's column headings."""
    return [
        {FAULT_COLUMNS[kind]: count for kind, count in counts.items()}
        for counts in fault_counts(results, len(names))
    ]


# ----------------------------------------------------------------------
# Games.


def _score_json(move: MoveRecord) -> Any:
    return move.score if isinstance(move.score, dict) else None


def move_json(move: MoveRecord) -> dict[str, Any]:
    """One move as the page lists it (the engine's figures, bounded)."""
    data: dict[str, Any] = {"move": clean_text(move.move, 40)}
    for key in ("time_ms", "depth", "nodes", "playouts"):
        value = getattr(move, key)
        if isinstance(value, int):
            data[key] = value
    # The page shows a Monte Carlo score as the win rate this scale maps it back to.
    scale = checked_scale(move.win_odds_scale)
    if "playouts" in data and scale is not None:
        data["win_odds_scale"] = scale
    score = _score_json(move)
    if score is not None:
        data["score"] = {
            key: value
            for key, value in score.items()
            if key in ("value", "win_in", "loss_in", "draw") and isinstance(value, int | bool)
        }
    if move.book:
        data["book"] = True
    if move.roll:
        data["roll"] = True
    if move.reason is not None:
        data["reason"] = clean_text(move.reason, 40)
    return data


def positions(record: GameRecord) -> list[dict[str, Any]]:
    """The position before the first move and after each move (``len(moves) + 1``),
    each with the side to move (``"chance"`` where dice are to be rolled)."""
    out = []
    game = None
    state: Any = None
    for game, state, _ in replay(record):
        out.append(_position(game, state))
    if game is None:
        game = create_game(record.game, record.options)
        state = (
            game.initial_state()
            if record.opening_position is None
            else game.parse_position(record.opening_position)
        )
    elif record.moves:
        state = game.play_text(state, record.moves[-1].move)
    out.append(_position(game, state))
    return out


def _position(game: Any, state: Any) -> dict[str, Any]:
    if game.chance_outcomes(state) is not None:
        to_move: int | str = "chance"
    elif game.outcome(state) is not None:
        to_move = -1
    else:
        to_move = int(game.to_move(state))
    return {"position": game.format_position(state), "to_move": to_move}


def _engine_errors(record: GameRecord) -> list[int]:
    """Per player, the moves the server played for a bot that failed to answer."""
    counts = [0, 0]
    for game, state, move in replay(record):
        if move.reason == ENGINE_ERROR and not move.book and not move.roll:
            mover = game.to_move(state)
            if mover in (0, 1):
                counts[mover] += 1
    return counts


def shown_reason(record: GameRecord) -> str:
    """The record's reason as the page shows it: an engine's name in it cut as the page cuts names.

    A fault's reason begins with the full name of the engine at fault; the
    page knows the names only as :func:`display_name` cut them, and finds
    the name (to translate what follows it) by that form.
    """
    reason = record.reason
    for name in sorted(record.players, key=len, reverse=True):
        shown = display_name(name)
        if shown != name and reason.startswith(f"{name} "):
            reason = shown + reason[len(name) :]
            break
    return clean_text(reason)


def result_json(record: GameRecord) -> dict[str, Any]:
    return {
        "winner": record.winner,
        "result": record.result_text,
        "kind": record.kind,
        "reason": shown_reason(record),
    }


# ----------------------------------------------------------------------
# Bots' logs.


@dataclass(slots=True)
class LogMark:
    """Where a bot's log stood when a game began: read from there for its excerpt."""

    name: str
    path: Path
    offset: int


def log_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def log_excerpt(path: Path, start: int, end: int | None = None) -> dict[str, Any]:
    """The lines written to ``path`` between byte ``start`` and ``end`` (the end of
    the file): the last :data:`MAX_LOG_LINES`, each cut to :data:`MAX_LOG_LINE_CHARS`."""
    try:
        with open(path, "rb") as file:
            size = file.seek(0, 2)
            stop = size if end is None else min(end, size)
            if start > size:  # the log was replaced: all of it is new
                start = 0
            first = max(start, stop - MAX_LOG_READ_BYTES)
            file.seek(first)
            data = file.read(max(0, stop - first))
    except OSError:
        return {"lines": [], "cut": False, "missing": True}
    lines = data.decode("utf-8", errors="replace").splitlines()
    if first > start and lines:
        lines = lines[1:]  # began mid-line
    cut = first > start or len(lines) > MAX_LOG_LINES
    return {
        "lines": [clean_text(line, MAX_LOG_LINE_CHARS) for line in lines[-MAX_LOG_LINES:]],
        "cut": cut,
        "missing": False,
    }


def logged_engines(config: TournamentConfig) -> dict[str, Path]:
    """The engines that keep a log (``cmd`` bots), by name, with their log's path."""
    return {
        engine.name: bot_log_path(engine.algorithm or engine.name)
        for engine in config.engines
        if engine.is_bot
    }


# ----------------------------------------------------------------------
# The live state.


@dataclass(slots=True)
class RunningGame:
    spec: GameSpec
    moves: tuple[MoveRecord, ...] = ()
    marks: list[LogMark] = field(default_factory=list)


def _json_bytes(data: Any) -> bytes:
    """Strict JSON with ``<``, ``>`` and ``&`` escaped: never read as HTML, even by mistake."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


#: How much of why a bot was left out the live page shows (a traceback's last
#: lines; the terminal and the bot's log have the rest).
LEFT_OUT_WHY_CHARS = 300


class LiveTournament:
    """The live page's data for one tournament; told of its games by the runner."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.config = store.config()
        self.names = [engine.name for engine in self.config.engines]
        self.logs = logged_engines(self.config)
        self.running: dict[int, RunningGame] = {}
        self.excerpts: dict[int, dict[str, dict[str, Any]]] = {}
        self.finished_here: set[int] = set()
        #: Finished games' rows by id (a finished game never changes; replaying
        #: every one for every snapshot would cost seconds in a chess tournament).
        self._rows: dict[int, dict[str, Any]] = {}
        self.version = 1
        self.over = False
        self._snapshot: tuple[int, bytes] | None = None

    # The runner's watcher.

    def started(self, spec: GameSpec) -> None:
        marks = [
            LogMark(engine.name, self.logs[engine.name], log_size(self.logs[engine.name]))
            for engine in spec.engines
            if engine.name in self.logs
        ]
        self.running[spec.game_id] = RunningGame(spec, marks=marks)
        self._changed()

    def moved(self, spec: GameSpec, moves: Sequence[MoveRecord]) -> None:
        game = self.running.get(spec.game_id)
        if game is None:
            game = self.running[spec.game_id] = RunningGame(spec)
        game.moves = tuple(moves)
        self._changed()

    def finished(self, record: GameRecord) -> None:
        game = self.running.pop(record.game_id, None)
        if game is not None and game.marks:
            self.excerpts[record.game_id] = {
                mark.name: log_excerpt(mark.path, mark.offset) for mark in game.marks
            }
            while len(self.excerpts) > MAX_KEPT_EXCERPTS:
                del self.excerpts[next(iter(self.excerpts))]
        self.finished_here.add(record.game_id)
        self._changed()

    def abandoned(self, game_id: int) -> None:
        self.running.pop(game_id, None)
        self._changed()

    def finish(self) -> None:
        """No more games will be played in this run."""
        self.over = True
        self.running.clear()
        self._changed()

    def _changed(self) -> None:
        self.version += 1

    # What the page reads.

    def snapshot(self) -> dict[str, Any]:
        """Everything the main view shows (games in progress as their current position)."""
        results = self.store.results()
        records = self.store.records()
        names = self.names
        status = self.store.status()
        config = self.config
        return {
            "version": self.version,
            "tournament": {
                "name": clean_text(config.name, 80),
                "game": config.game,
                "options": self._options(),
                "time_control": clean_text(config.time_control.describe(), 80),
                "engines": [display_name(name) for name in names],
                "bots": [display_name(name) for name in names if name in self.logs],
                "games": self._total(),
                "played": len(results),
                "state": "stopped" if status else "finished" if self.over else "running",
                "status": clean_text(status) if status else None,
                # The bots left out because they cannot start, and why: the
                # page named none of them, only "2 engines" (a teacher's
                # review of 2026-12-07: students watching could not see it).
                "left_out": [
                    {"name": display_name(name), "why": clean_text(why, LEFT_OUT_WHY_CHARS)}
                    for name, why in sorted(self.store.left_out().items())
                ],
            },
            "standings": standings_json(names, results),
            # Games of chance: the points as the games scored them (gammons).
            "game_points": [
                {
                    "engine": row.engine,
                    "name": display_name(names[row.engine]),
                    "games": row.games,
                    "won": row.won,
                    "lost": row.lost,
                    "net": row.net,
                    "per_game": round(row.per_game, 4),
                    "gammons": row.gammons,
                }
                for row in game_points(names, records)
            ],
            "crosstable": crosstable_json(names, results),
            "pairings": pairings_json(results),
            "faults": faults_json(names, results),
            "running": [self._running_json(game) for game in self.running.values()],
            "finished": [
                self._finished_json(record) for record in records[::-1][:MAX_LISTED_GAMES]
            ],
        }

    def snapshot_bytes(self) -> tuple[int, bytes]:
        """The snapshot as JSON, built once per change."""
        if self._snapshot is None or self._snapshot[0] != self.version:
            self._snapshot = (self.version, _json_bytes(self.snapshot()))
        return self._snapshot

    def game(self, game_id: int) -> dict[str, Any] | None:
        """One game in full, for its replay: every position, every move, the bots' logs."""
        running = self.running.get(game_id)
        if running is not None:
            record = self._partial_record(running)
            data = self._game_json(record, running.spec.engines)
            data["running"] = True
            data["result"] = None
            data["logs"] = {
                display_name(mark.name): log_excerpt(mark.path, mark.offset)
                for mark in running.marks
            }
            return data
        stored = self._record(game_id)
        if stored is None:
            return None
        engines = tuple(self._engine(name) for name in stored.players)
        data = self._game_json(stored, engines)
        data["running"] = False
        data["result"] = result_json(stored)
        excerpts = self.excerpts.get(game_id)
        data["logs"] = (
            {display_name(name): excerpt for name, excerpt in excerpts.items()}
            if excerpts is not None
            else {}
        )
        if excerpts is None and any(name in self.logs for name in stored.players):
            # The page says why in its language: "earlier" (played in an earlier
            # run, whose log offsets are not known) or "dropped" (not kept).
            data["logs_note"] = "earlier" if game_id not in self.finished_here else "dropped"
        return data

    def game_bytes(self, game_id: int) -> bytes | None:
        data = self.game(game_id)
        return None if data is None else _json_bytes(data)

    # ------------------------------------------------------------------

    def _total(self) -> int:
        """The games of the tournament as far as they are known (as the runner counts them:
        a knockout's later matches are scheduled as results decide them)."""
        schedule = self.store.schedule()
        if not self.config.knockout:
            return len(schedule)
        bracket = knockout.build(
            len(self.names), self.config.games_per_pair, schedule, self.store.results()
        )
        return knockout.expected_games(bracket, self.config.games_per_pair)

    def _options(self) -> dict[str, Any]:
        options: dict[str, Any] = create_game(self.config.game, self.config.options).options
        return options

    def _engine(self, name: str) -> EngineSpec | None:
        return next((engine for engine in self.config.engines if engine.name == name), None)

    def _record(self, game_id: int) -> GameRecord | None:
        return next((r for r in self.store.records() if r.game_id == game_id), None)

    def _partial_record(self, game: RunningGame) -> GameRecord:
        spec = game.spec
        return GameRecord(
            game_id=spec.game_id,
            round=spec.round,
            pair=spec.pair,
            game=self.config.game,
            options=dict(self.config.options),
            players=(spec.engines[0].name, spec.engines[1].name),
            opening_index=spec.opening_index,
            opening_position=spec.opening.position,
            winner=None,
            kind="",
            reason="",
            moves=game.moves,
        )

    def _header(self, record: GameRecord) -> dict[str, Any]:
        return {
            "id": record.game_id,
            "round": record.round + 1,
            "players": [display_name(name) for name in record.players],
            "engines": [
                self.names.index(name) if name in self.names else None for name in record.players
            ],
            "plies": len(record.moves),
        }

    def _running_json(self, game: RunningGame) -> dict[str, Any]:
        record = self._partial_record(game)
        data = self._header(record)
        last = record.moves[-1] if record.moves else None
        final = positions(record)[-1]
        data.update(
            {
                "position": final["position"],
                "to_move": final["to_move"],
                "last_move": None if last is None else clean_text(last.move, 40),
                "start": record.opening_position,
                "history": [clean_text(move.move, 40) for move in record.moves],
            }
        )
        return data

    def _finished_json(self, record: GameRecord) -> dict[str, Any]:
        row = self._rows.get(record.game_id)
        if row is None:
            row = self._header(record)
            row.update(result_json(record))
            row["engine_errors"] = _engine_errors(record) if self.logs else [0, 0]
            self._rows[record.game_id] = row
        return row

    def _game_json(
        self, record: GameRecord, engines: tuple[EngineSpec | None, ...]
    ) -> dict[str, Any]:
        data = self._header(record)
        data.update(
            {
                "game": record.game,
                "options": self._options(),
                "start": record.opening_position,
                "moves": [move_json(move) for move in record.moves],
                "positions": positions(record),
                "engine_errors": _engine_errors(record),
                "bots": [engine is not None and engine.name in self.logs for engine in engines],
            }
        )
        return data

"""Running a tournament in-process for the tests."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from clients.tournament.config import (
    EngineSpec,
    OpeningSource,
    TimeControl,
    Timing,
    TournamentConfig,
)
from clients.tournament.connections import Backoff
from clients.tournament.display import Progress
from clients.tournament.records import GameRecord
from clients.tournament.runner import RunSettings, TournamentRunner, create_tournament

#: Quick reconnection for the tests: two attempts 50 ms apart.
TEST_BACKOFF = Backoff(first_s=0.05, longest_s=0.1, attempts=2, open_timeout_s=2.0)


def config(
    engines: list[EngineSpec],
    *,
    game: str = "tictactoe",
    games: int = 2,
    tc: TimeControl | None = None,
    random_plies: int = 0,
    timing: Timing | None = None,
    **extra: object,
) -> TournamentConfig:
    return TournamentConfig(
        game=game,
        engines=tuple(engines),
        time_control=tc or TimeControl(movetime_ms=200),
        games_per_pair=games,
        openings=OpeningSource(random_plies=random_plies, balance_depth=2, balance_score=50),
        timing=timing or Timing(margin_ms=100, grace_ms=300, move_timeout_ms=5000),
        **extra,  # type: ignore[arg-type]
    )


async def play(
    tmp_path: Path,
    tournament: TournamentConfig,
    concurrency: int = 1,
    pgn: bool = False,
    stream: io.StringIO | None = None,
    **settings_extra: Any,
) -> tuple[str, list[GameRecord]]:
    """Create and run the tournament; the final report and the JSON Lines records.

    ``stream`` receives what the run prints as it goes; ``settings_extra``
    are more :class:`RunSettings` fields (``epd_path``, ``rating_interval``).
    """
    store = create_tournament(tmp_path / "t.db", tournament)
    jsonl = tmp_path / "t.jsonl"
    settings = RunSettings(
        concurrency=concurrency,
        backoff=TEST_BACKOFF,
        jsonl_path=jsonl,
        pgn_path=tmp_path / "t.pgn" if pgn else None,
        **settings_extra,
    )
    names = [engine.name for engine in tournament.engines]
    progress = Progress(
        names,
        len(store.schedule()),
        stream=stream or io.StringIO(),
        live=False,
        quiet=settings.quiet,
    )
    try:
        text = await TournamentRunner(store, settings, progress).run()
    finally:
        store.close()
    records = [GameRecord.from_json(json.loads(line)) for line in jsonl.read_text().splitlines()]
    return text, records

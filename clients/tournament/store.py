"""The tournament database (SQLite): its settings, its schedule and every finished game.

The whole schedule is written when the tournament is created (a
knockout's later matches when the earlier ones decide them), and each
game is marked done, with its record, in one transaction as soon as it
ends. A tournament killed at any moment (even ``kill -9``) therefore
resumes from the database: finished games are kept, unfinished ones
(those in progress at the kill) are played again from the start, and a
game can never be stored twice.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from clients.tournament.config import TournamentConfig
from clients.tournament.openings import Opening
from clients.tournament.records import GameRecord
from clients.tournament.scheduler import ScheduledGame
from clients.tournament.standings import GameResult

#: Bump when the tables change; a database of another version is refused.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE openings (id INTEGER PRIMARY KEY, position TEXT, moves TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    pair INTEGER NOT NULL,
    opening INTEGER NOT NULL REFERENCES openings(id),
    first INTEGER NOT NULL,
    second INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    first_points REAL,
    kind TEXT,
    reason TEXT,
    record TEXT,
    finished_seq INTEGER
);
"""


class StoreError(Exception):
    """The database cannot be used as asked (exists already, missing, other version)."""


class Store:
    """One tournament's database; create it with :meth:`create` or :meth:`open`."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.db = connection

    # ------------------------------------------------------------------
    # Opening and creating.

    @classmethod
    def create(
        cls,
        path: str | Path,
        config: TournamentConfig,
        openings: Sequence[Opening],
        games: Sequence[ScheduledGame],
    ) -> Store:
        """A new database holding the settings and the whole schedule."""
        if str(path) != ":memory:" and Path(path).exists():
            raise StoreError(f"{path} exists: use --resume to continue it, or another --db")
        store = cls(_connect(path))
        with _transaction(store.db):
            for statement in filter(str.strip, _SCHEMA.split(";")):
                store.db.execute(statement)
            store._set_meta("schema", str(SCHEMA_VERSION))
            store._set_meta("config", json.dumps(config.to_json()))
            store.db.executemany(
                "INSERT INTO openings (id, position, moves) VALUES (?, ?, ?)",
                [(i, o.position, json.dumps(list(o.moves))) for i, o in enumerate(openings)],
            )
            store.db.executemany(
                "INSERT INTO games (id, round, pair, opening, first, second) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(g.game_id, g.round, g.pair, g.opening_index, g.first, g.second) for g in games],
            )
        return store

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """An existing tournament database."""
        if not Path(path).exists():
            raise StoreError(f"{path} does not exist: nothing to resume")
        store = cls(_connect(path))
        try:
            version = store._meta("schema")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path} is not a tournament database: {error}") from error
        if version != str(SCHEMA_VERSION):
            raise StoreError(f"{path} has schema {version}, this version reads {SCHEMA_VERSION}")
        return store

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------
    # Reading.

    def config(self) -> TournamentConfig:
        return TournamentConfig.from_json(json.loads(self._meta("config") or "{}"))

    def openings(self) -> list[Opening]:
        rows = self.db.execute("SELECT position, moves FROM openings ORDER BY id").fetchall()
        return [Opening(position, tuple(json.loads(moves))) for position, moves in rows]

    def schedule(self) -> list[ScheduledGame]:
        rows = self.db.execute(
            "SELECT id, round, pair, opening, first, second FROM games ORDER BY id"
        ).fetchall()
        return [ScheduledGame(*row) for row in rows]

    def pending(self) -> list[ScheduledGame]:
        """Games not finished yet, in schedule order."""
        rows = self.db.execute(
            "SELECT id, round, pair, opening, first, second FROM games WHERE done = 0 ORDER BY id"
        ).fetchall()
        return [ScheduledGame(*row) for row in rows]

    def results(self) -> list[GameResult]:
        rows = self.db.execute(
            "SELECT id, pair, first, second, first_points, kind FROM games WHERE done = 1 "
            "ORDER BY finished_seq"
        ).fetchall()
        return [GameResult(*row) for row in rows]

    def records(self) -> list[GameRecord]:
        """Every finished game's record, in the order the games finished."""
        rows = self.db.execute(
            "SELECT record FROM games WHERE done = 1 ORDER BY finished_seq"
        ).fetchall()
        return [GameRecord.from_json(json.loads(record)) for (record,) in rows]

    def status(self) -> str | None:
        """Why the tournament stopped early (an SPRT decision), if it did."""
        return self._meta("stopped")

    # ------------------------------------------------------------------
    # Writing.

    def finish(self, record: GameRecord) -> bool:
        """Store a finished game; False (and nothing written) if it was already stored."""
        with _transaction(self.db):
            (seq,) = self.db.execute(
                "SELECT COALESCE(MAX(finished_seq), 0) + 1 FROM games"
            ).fetchone()
            cursor = self.db.execute(
                "UPDATE games SET done = 1, first_points = ?, kind = ?, reason = ?, record = ?, "
                "finished_seq = ? WHERE id = ? AND done = 0",
                (
                    record.points(0),
                    record.kind,
                    record.reason,
                    record.to_line(),
                    seq,
                    record.game_id,
                ),
            )
        return cursor.rowcount == 1

    def add_games(self, games: Sequence[ScheduledGame]) -> None:
        """Schedule more games (a knockout's next matches and tie-breaks)."""
        if not games:
            return
        with _transaction(self.db):
            self.db.executemany(
                "INSERT INTO games (id, round, pair, opening, first, second) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(g.game_id, g.round, g.pair, g.opening_index, g.first, g.second) for g in games],
            )

    def set_status(self, text: str) -> None:
        with _transaction(self.db):
            self._set_meta("stopped", text)

    def bot_digests(self) -> dict[str, str]:
        """Each bot's file digest as it was last played (by engine name)."""
        return self._names_map("bot_digests")

    def set_bot_digests(self, digests: dict[str, str]) -> None:
        self._set_names_map("bot_digests", digests)

    def left_out(self) -> dict[str, str]:
        """The ``--bots`` entrants left out because they could not start, and why."""
        return self._names_map("left_out")

    def set_left_out(self, reasons: dict[str, str]) -> None:
        self._set_names_map("left_out", reasons)

    def epd_path(self) -> str | None:
        """The ``--epdout`` file the tournament was given, if any (kept for ``--resume``)."""
        return self._meta("epdout")

    def set_epd_path(self, path: str) -> None:
        with _transaction(self.db):
            self._set_meta("epdout", path)

    def _names_map(self, key: str) -> dict[str, str]:
        """A meta value holding a JSON object of strings by engine name (empty if unreadable)."""
        try:
            value = json.loads(self._meta(key) or "{}")
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    def _set_names_map(self, key: str, value: dict[str, str]) -> None:
        with _transaction(self.db):
            self._set_meta(key, json.dumps(value, sort_keys=True))

    # ------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _connect(path: str | Path) -> sqlite3.Connection:
    # Autocommit; every change goes through _transaction, explicitly.
    db = sqlite3.connect(str(path), isolation_level=None)
    # WAL with synchronous=NORMAL: a committed game survives the death of
    # this process at any moment (only a power cut could lose the last
    # ones); readers, such as a second terminal watching, never block it.
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """All the statements inside, or none of them."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")

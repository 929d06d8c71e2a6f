"""bench.ladder_fit: one rating from games against anchored opponents."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest

from bench.ladder_fit import expected, fit_rating, games_from_db, main


def test_an_even_score_against_one_anchor_is_its_rating() -> None:
    fit = fit_rating([(1600.0, 1.0), (1600.0, 0.0)] * 10)
    assert fit.rating == pytest.approx(1600.0, abs=0.01)
    assert fit.low is not None and fit.high is not None
    assert fit.low < 1600.0 < fit.high


def test_three_quarters_is_the_logistic_difference() -> None:
    # 75% is 400 * log10(3) = 190.8 Elo above the opponent.
    fit = fit_rating([(1900.0, 1.0)] * 30 + [(1900.0, 0.0)] * 10)
    assert fit.rating == pytest.approx(1900.0 + 400 * math.log10(3), abs=0.01)


def test_the_fit_balances_scores_against_expectations_over_levels() -> None:
    games = [(1600.0, 1.0)] * 12 + [(1600.0, 0.0)] * 2 + [(1900.0, 0.5)] * 6 + [(2100.0, 0.0)] * 8
    fit = fit_rating(games)
    assert fit.rating is not None
    total = sum(expected(fit.rating, opponent) for opponent, _ in games)
    assert total == pytest.approx(sum(score for _, score in games), abs=1e-6)


def test_draws_narrow_the_interval() -> None:
    decisive = fit_rating([(1600.0, 1.0), (1600.0, 0.0)] * 10)
    drawn = fit_rating([(1600.0, 1.0), (1600.0, 0.0)] * 2 + [(1600.0, 0.5)] * 16)
    assert decisive.high is not None and drawn.high is not None
    assert drawn.high - 1600.0 < decisive.high - 1600.0


def test_all_wins_give_no_finite_rating() -> None:
    assert fit_rating([(1600.0, 1.0)] * 5).rating is None
    assert fit_rating([]).rating is None


def _write_db(
    path: Path, engines: list[str], games: list[tuple[int, int, int, float | None]]
) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE games (id INTEGER PRIMARY KEY, first INTEGER, second INTEGER,"
        " done INTEGER, first_points REAL);"
    )
    config = {"engines": [{"name": name} for name in engines]}
    db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config),))
    db.executemany(
        "INSERT INTO games (first, second, done, first_points) VALUES (?, ?, ?, ?)", games
    )
    db.commit()
    db.close()


def test_runs_of_one_level_each_are_pooled_into_one_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ladder played a level at a time (one database each) fits as one run would."""
    _write_db(tmp_path / "a.db", ["ours", "sf1600"], [(0, 1, 1, 1.0), (1, 0, 1, 0.0)] * 3)
    _write_db(tmp_path / "b.db", ["ours", "sf2100"], [(0, 1, 1, 0.0), (1, 0, 1, 1.0)] * 3)
    anchors = ["--anchor", "sf1600=1600", "--anchor", "sf2100=2100"]
    args = ["--db", str(tmp_path / "a.db"), "--db", str(tmp_path / "b.db"), "--player", "ours"]
    assert main([*args, *anchors]) == 0
    out = capsys.readouterr().out
    assert "against sf1600 (1600): 6/6" in out and "against sf2100 (2100): 0/12" not in out
    assert "against sf2100 (2100): 0/6" in out and "ours: 6/12, rating 1850" in out


def test_games_are_read_from_both_seats(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE games (id INTEGER PRIMARY KEY, first INTEGER, second INTEGER,"
        " done INTEGER, first_points REAL);"
    )
    config = {"engines": [{"name": "ours"}, {"name": "sf1600"}, {"name": "other"}]}
    db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config),))
    db.executemany(
        "INSERT INTO games (first, second, done, first_points) VALUES (?, ?, ?, ?)",
        [(0, 1, 1, 1.0), (1, 0, 1, 1.0), (1, 0, 1, 0.5), (0, 2, 1, 1.0), (0, 1, 0, None)],
    )
    db.commit()
    db.close()
    games = games_from_db(str(path), "ours", {"sf1600": 1600.0})
    assert sorted(games) == [(1600.0, 0.0), (1600.0, 0.5), (1600.0, 1.0)]

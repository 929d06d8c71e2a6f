"""What the tournament shows: tables (pure text functions) and the live progress line.

:func:`report` formats the standings, every pairing's Elo difference with
95% error bars and LOS (trinomial, and pentanomial once pairs of games are
complete), the crosstable, each engine's losses by fault kind and the SPRT
state. :class:`Progress` keeps one
status line up to date on a terminal (a bar, games done, the leaders and
the games in progress) and prints one line per finished game otherwise.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TextIO

from clients.tournament.records import (
    CONNECTION_FAILED,
    DISCONNECT,
    ENGINE_FAILURE,
    FAULT_KINDS,
    ILLEGAL_MOVE,
    PROTOCOL_ERROR,
    TIME_FORFEIT,
    TIMEOUT,
    GameRecord,
)
from clients.tournament.standings import (
    GameResult,
    Tally,
    crosstable,
    engine_tallies,
    fault_counts,
    pairing_results,
    ranking,
)
from clients.tournament.stats import MIN_SAMPLES, Estimate, SprtState

#: Width of the progress bar, in characters.
BAR_WIDTH = 24
#: Least time between two redraws of the live line (seconds).
REDRAW_INTERVAL_S = 0.1


#: Column headings of the fault table, by kind.
FAULT_COLUMNS = {
    TIME_FORFEIT: "time",
    TIMEOUT: "timeout",
    ILLEGAL_MOVE: "illegal",
    DISCONNECT: "disconnect",
    PROTOCOL_ERROR: "protocol",
    CONNECTION_FAILED: "unreachable",
    ENGINE_FAILURE: "failed",
}
assert set(FAULT_COLUMNS) == set(FAULT_KINDS)


def format_elo(estimate: Estimate, unit: str = "games") -> str:
    """An Elo estimate with its 95% interval, readable however small the sample.

    ``+70.4 ± 70.6`` when both ends are finite; ``+190.8 (> -12.5)`` when
    only the lower end is (``(< +40.1)`` for the upper); ``+inf (> +166.2)``
    for a sweep, whose estimate is infinite, with the finite end of its
    interval (``-inf (< -166.2)`` for all lost), as a perfect score is
    written elsewhere; ``n/a (too few games)`` below :data:`MIN_SAMPLES`
    samples.
    """
    if estimate.samples == 0:
        return f"n/a (no {unit})"
    if estimate.samples < MIN_SAMPLES:
        return f"n/a (too few {unit})"
    elo, low, high = estimate.elo, estimate.low, estimate.high
    if math.isinf(elo):
        return f"+inf (> {_signed(low)})" if elo > 0 else f"-inf (< {_signed(high)})"
    if math.isinf(low) and math.isinf(high):
        return f"{_signed(elo)} (no 95% bound)"
    if math.isinf(high):
        return f"{_signed(elo)} (> {_signed(low)})"
    if math.isinf(low):
        return f"{_signed(elo)} (< {_signed(high)})"
    return f"{_signed(elo)} ± {estimate.error:.1f}"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def percent(share: float) -> str:
    """``share`` as a percentage to a tenth, a half rounded up, as the live page rounds
    it: Python's own rounding gave 31.2% where the page said 31,3% (a teacher's
    review of 2026-12-07)."""
    tenths = Decimal(repr(share * 100)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{tenths}%"


def standings_table(names: Sequence[str], results: Sequence[GameResult]) -> str:
    """Rank, engine, games, points, score and performance Elo against the field."""
    tallies = engine_tallies(results, len(names))
    width = max(len("engine"), *(len(name) for name in names))
    lines = [
        f"{'#':>2}  {'engine':<{width}}  {'games':>5}  {'points':>6}  {'score':>6}  "
        f"{'+':>4} {'=':>4} {'-':>4}  Elo vs field"
    ]
    for rank, index in enumerate(ranking(tallies), 1):
        tally = tallies[index]
        share = tally.points / tally.games if tally.games else 0.0
        elo = format_elo(tally.estimate()) if tally.games else "-"
        lines.append(
            f"{rank:>2}  {names[index]:<{width}}  {tally.games:>5}  {tally.points:>6.1f}  "
            f"{percent(share):>6}  {tally.wins:>4} {tally.draws:>4} {tally.losses:>4}  {elo}"
        )
    return "\n".join(lines)


def pairings_table(names: Sequence[str], results: Sequence[GameResult]) -> str:
    """Each pairing from its first engine's side: W/D/L, score, Elo ± 95%, LOS."""
    lines = []
    for pairing in pairing_results(results):
        tally = pairing.tally
        tri = pairing.trinomial()
        line = (
            f"{names[pairing.a]} vs {names[pairing.b]}: {tally.games} "
            f"game{'' if tally.games == 1 else 's'}, "
            f"+{tally.wins} ={tally.draws} -{tally.losses}, score {percent(tri.score)}, "
            f"Elo {format_elo(tri)}, LOS {tri.los:.1%}"
        )
        penta = pairing.pentanomial()
        if penta is not None:
            counts = " ".join(str(count) for count in pairing.pairs)
            # No LOS where there is no Elo: with two pairs it read "LOS
            # 100.0%" beside the trinomial's 97.7% (a review, 2026-12-07).
            los = f"LOS {penta.los:.1%}" if penta.samples >= MIN_SAMPLES else "LOS n/a"
            line += (
                f"\n    pentanomial [{counts}] ({penta.samples} pairs): "
                f"Elo {format_elo(penta, 'pairs')}, {los}"
            )
        lines.append(line)
    return "\n".join(lines) or "(no games yet)"


def crosstable_text(names: Sequence[str], results: Sequence[GameResult]) -> str:
    """Points of the row engine against the column engine, out of the games played."""
    table = crosstable(results, len(names))
    width = max(len(name) for name in names)
    texts = [[_cell(cell) for cell in row] for row in table]
    # Each column as wide as its engine's full name or its widest cell: names
    # cut to a fixed width made "local d4" and "local d4 #2" the same column.
    widths = [
        max(len(name), *(len(row[column]) for row in texts)) for column, name in enumerate(names)
    ]
    header = " " * (width + 2) + "  ".join(
        f"{name:>{columns}}" for name, columns in zip(names, widths, strict=True)
    )
    lines = [header.rstrip()]
    for name, row in zip(names, texts, strict=True):
        cells = "  ".join(f"{text:>{columns}}" for text, columns in zip(row, widths, strict=True))
        lines.append(f"{name:<{width}}  {cells}")
    return "\n".join(lines)


def _cell(cell: Tally | None) -> str:
    """A crosstable cell: ``-`` on the diagonal, points/games, and blank for a
    pair that never met (a gauntlet's, a knockout's), as cutechess leaves it;
    it read "0/0" (a review, 2026-12-07)."""
    if cell is None:
        return "-"
    return "" if cell.games == 0 else f"{_points(cell.points)}/{cell.games}"


def _points(points: float) -> str:
    return f"{points:g}"


def faults_table(names: Sequence[str], results: Sequence[GameResult]) -> str:
    """Each engine's losses by fault kind (the engine at fault loses the game)."""
    counts = fault_counts(results, len(names))
    width = max(len("engine"), *(len(name) for name in names))
    headings = [FAULT_COLUMNS[kind] for kind in FAULT_KINDS] + ["total"]
    lines = [f"{'engine':<{width}}  " + "  ".join(headings)]
    for index, name in enumerate(names):
        values = [counts[index][kind] for kind in FAULT_KINDS]
        cells = [
            f"{value:>{len(heading)}}"
            for value, heading in zip([*values, sum(values)], headings, strict=True)
        ]
        lines.append(f"{name:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def sprt_text(state: SprtState, elo0: float, elo1: float) -> str:
    decision = {"H0": "H0 accepted", "H1": "H1 accepted", None: "continuing"}[state.decision]
    return (
        f"SPRT elo0={elo0:g} elo1={elo1:g}: LLR {state.llr:+.2f} "
        f"[{state.lower:+.2f}, {state.upper:+.2f}] {decision}"
    )


def report(names: Sequence[str], results: Sequence[GameResult], sprt: str | None = None) -> str:
    """Standings, pairings and crosstable (and the SPRT line) as one block of text."""
    parts = [
        "Standings",
        standings_table(names, results),
        "",
        "Pairings (Elo difference of the first engine, 95% error bars, likelihood of superiority)",
        pairings_table(names, results),
        "",
        "Crosstable (points of the row engine against the column engine / games)",
        crosstable_text(names, results),
        "",
        "Losses by fault (time: on time; timeout: no answer at all; protocol: a malformed "
        "or refused message; unreachable: could not connect; failed: its server answered "
        "engine_error)",
        faults_table(names, results),
    ]
    if sprt:
        parts += ["", sprt]
    return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class EnginePoints:
    """One engine's points in games of chance, as the games scored them."""

    engine: int
    games: int
    won: int
    lost: int
    gammons: int

    @property
    def net(self) -> int:
        return self.won - self.lost

    @property
    def per_game(self) -> float:
        return self.net / self.games if self.games else 0.0


def game_points(names: Sequence[str], records: Sequence[GameRecord]) -> list[EnginePoints]:
    """Games of chance: each engine's points with gammons counted, best net first;
    empty when no record has them (``extra.points``).

    The standings count a game one point whoever won it by how much; a
    backgammon class wants the points as the game scores them (a teacher's
    review, 2026-12-07). A draw (none in backgammon) counts nothing.
    """
    scored = [record for record in records if "points" in record.extra]
    if not scored:
        return []
    won = [0] * len(names)
    lost = [0] * len(names)
    games = [0] * len(names)
    gammons = [0] * len(names)
    index = {name: number for number, name in enumerate(names)}
    for record in scored:
        players = [index.get(name) for name in record.players]
        for player in players:
            if player is not None:
                games[player] += 1
        if record.winner is None:
            continue
        points = int(record.extra["points"])
        winner, loser = players[record.winner], players[1 - record.winner]
        if winner is not None:
            won[winner] += points
            gammons[winner] += points > 1
        if loser is not None:
            lost[loser] += points
    rows = [EnginePoints(i, games[i], won[i], lost[i], gammons[i]) for i in range(len(names))]
    rows = [row for row in rows if row.games]
    return sorted(rows, key=lambda row: (-row.net, names[row.engine]))


def game_points_table(names: Sequence[str], records: Sequence[GameRecord]) -> str:
    """:func:`game_points` as text (won, lost, net, net a game, gammons won), or ``""``."""
    rows = game_points(names, records)
    if not rows:
        return ""
    width = max(len("engine"), *(len(name) for name in names))
    lines = [
        f"{'engine':<{width}}  {'games':>5}  {'won':>5}  {'lost':>5}  {'net':>5}  "
        f"{'a game':>6}  gammons won"
    ]
    for row in rows:
        lines.append(
            f"{names[row.engine]:<{width}}  {row.games:>5}  {row.won:>5}  {row.lost:>5}  "
            f"{row.net:>+5}  {row.per_game:>+6.3f}  {row.gammons}"
        )
    return "\n".join(lines)


def interim_report(names: Sequence[str], results: Sequence[GameResult], total: int) -> str:
    """The standings after some games (``--rating-interval``); a match adds its Elo line."""
    parts = [f"Standings after {len(results)} of {total} games", standings_table(names, results)]
    if len(names) == 2:
        parts.append(pairings_table(names, results))
    return "\n".join(parts)


def describe_game(record: GameRecord) -> str:
    """One line for a finished game."""
    plies = len(record.moves)
    book = sum(1 for move in record.moves if move.book)
    count = f"{plies} plies, {book} from the opening" if book else f"{plies} plies"
    return (
        f"game {record.game_id}: {record.players[0]} - {record.players[1]} "
        f"{record.result_text} ({record.reason}; {count})"
    )


class Progress:
    """The live view: a redrawn status line on a terminal, plain lines elsewhere."""

    def __init__(
        self,
        names: Sequence[str],
        total: int,
        stream: TextIO | None = None,
        live: bool | None = None,
        quiet: bool = False,
    ) -> None:
        self.names = list(names)
        self.total = total
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.quiet = quiet
        self.results: list[GameResult] = []
        self.running: dict[int, tuple[str, int]] = {}
        self._last_draw = 0.0
        self._line_shown = False

    def started(self, game_id: int, first: str, second: str) -> None:
        self.running[game_id] = (f"{first}-{second}", 0)
        self._redraw()

    def moved(self, game_id: int, plies: int) -> None:
        label, _ = self.running.get(game_id, ("?", 0))
        self.running[game_id] = (label, plies)
        self._redraw()

    def finished(self, record: GameRecord, results: Sequence[GameResult]) -> None:
        self.running.pop(record.game_id, None)
        self.results = list(results)
        self.print(describe_game(record))

    def abandoned(self, game_id: int) -> None:
        self.running.pop(game_id, None)
        self._redraw()

    def print(self, text: str) -> None:
        """A block of text above the live line."""
        if self.quiet:
            return
        self._clear()
        self.stream.write(text + "\n")
        if not self.live:
            self.stream.write(self.status_line() + "\n")
        self.stream.flush()
        self._redraw(force=True)

    def table(self, text: str) -> None:
        """Interim tables: shown with ``quiet`` too (asked for with ``--rating-interval``)."""
        self._clear()
        self.stream.write(text + "\n")
        self.stream.flush()
        self._redraw(force=True)

    def close(self) -> None:
        self._clear()
        self.stream.flush()

    def status_line(self) -> str:
        """``[#####.......] 12/40 | A 7.5, B 4.5 | playing: A-B ply 23``."""
        done = len(self.results)
        filled = round(BAR_WIDTH * done / self.total) if self.total else BAR_WIDTH
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        tallies = engine_tallies(self.results, len(self.names))
        leaders = ", ".join(f"{self.names[i]} {tallies[i].points:g}" for i in ranking(tallies)[:4])
        playing = ", ".join(
            f"{label} ply {plies}" for label, plies in list(self.running.values())[:3]
        )
        line = f"[{bar}] {done}/{self.total} | {leaders}"
        if playing:
            line += f" | playing: {playing}"
        return line

    def _redraw(self, force: bool = False) -> None:
        if not self.live or self.quiet:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < REDRAW_INTERVAL_S:
            return
        self._last_draw = now
        self.stream.write("\r\x1b[K" + self.status_line())
        self.stream.flush()
        self._line_shown = True

    def _clear(self) -> None:
        if self._line_shown:
            self.stream.write("\r\x1b[K")
            self._line_shown = False

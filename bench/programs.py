"""The outside programs the benchmarks play against: finding them, and a GTP match with them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.mcts_bench import wilson
from server.programs.gtp_match import GameRecord, GtpProgram, play_game

#: Where Debian installs game programs (gnugo, gnubg, stockfish), which root's PATH leaves out.
GAMES_DIR = "/usr/games"


def find_program(name: str) -> str | None:
    """The path of ``name`` on PATH or in /usr/games, or None when it is not installed."""
    return shutil.which(name) or shutil.which(name, path=GAMES_DIR)


def prepare_gnubg_home() -> None:
    """Make the folder GNU Backgammon keeps its settings in, before gnubgs start side by side.

    gnubg 1.07 creates ``~/.gnubg`` (and ``backup`` inside) as it starts, and
    exits at once with "File exists" when another gnubg created it a moment
    before: on a machine where gnubg has never run, one of two gnubgs started
    together then dies (13 of 80 such starts here, 2026-11-29; a fresh CI run
    lost its labels to it). Made first, the folder is there for both.
    """
    folder = Path.home() / ".gnubg"
    for path in (folder, folder / "backup"):
        path.mkdir(mode=0o700, exist_ok=True)


@dataclass(slots=True)
class GtpGame:
    """One game of a :func:`play_gtp_match`, seen from our side (the first program)."""

    number: int  # counted from 0; printed from 1
    ours_black: bool
    record: GameRecord
    verdict: str  # "win", "draw" or "loss"


@dataclass(slots=True)
class MatchTally:
    """Our results over a match's games."""

    wins: int = 0
    draws: int = 0
    games: int = 0
    moves: int = 0  # plies of all games

    def summary(self) -> str:
        """Wins, draws, losses and the score with its 95% Wilson interval."""
        games = self.games
        score = self.wins + 0.5 * self.draws
        low, high = wilson(score / games, games)
        return (
            f"{self.wins} wins, {self.draws} draws, {games - self.wins - self.draws} losses "
            f"in {games} games; score {score / games:.0%} (95% interval {low:.0%}-{high:.0%})"
        )


def play_gtp_match(
    ours: Sequence[str],
    theirs: Sequence[str],
    names: tuple[str, str],
    first_game: int,
    games: int,
    size: int,
    komi: float,
    genmove_timeout_s: float,
    after_game: Callable[[GtpGame], str] | None = None,
) -> MatchTally:
    """Play games ``first_game`` on between two GTP programs, colours alternating.

    ``ours`` (started as ``names[0]``) is Black in the even-numbered games;
    each game starts both programs afresh and is refereed by
    :func:`~server.programs.gtp_match.play_game`. After each game
    ``after_game`` (to save the game, say) gives the text that ends its
    printed line, inside the brackets.
    """
    tally = MatchTally()
    for number in range(first_game, first_game + games):
        ours_black = number % 2 == 0
        with GtpProgram(ours, names[0]) as us, GtpProgram(theirs, names[1]) as them:
            black, white = (us, them) if ours_black else (them, us)
            record = play_game(
                black, white, size=size, komi=komi, genmove_timeout_s=genmove_timeout_s
            )
        if record.winner is None:
            tally.draws += 1
            verdict = "draw"
        elif record.winner == (0 if ours_black else 1):
            tally.wins += 1
            verdict = "win"
        else:
            verdict = "loss"
        tally.games += 1
        tally.moves += len(record.moves)
        extra = after_game(GtpGame(number, ours_black, record, verdict)) if after_game else ""
        print(
            f"game {number + 1:2d}: {names[0]} {'black' if ours_black else 'white'}: {verdict} "
            f"({record.reason}; {len(record.moves)} moves{extra})",
            flush=True,
        )
    return tally

"""Train the backgammon evaluation network by TD(λ) on self-play games.

The method is Tesauro's TD-Gammon (1992): the network plays both sides,
picking at each roll the play whose resulting position it values most (no
search, no exploration: the dice explore), and after each game every
position's outputs are moved towards its λ-return, the mix of the values
that followed it and the game's result:

    G[T-1] = result,   G[t] = (1 - λ) V(s[t+1]) + λ G[t+1]   (seen from s[t]'s side)

which is the forward view of TD(λ), applied once per game (offline TD(λ);
Sutton & Barto, section 12.1). The encoding and outputs are those of
:mod:`engine.games.backgammon_net`; the rules are the engine's own
(:func:`engine.games.backgammon.legal_plays`). numpy is used here only.

Every ``--check-every`` games the network plays ``--check-games`` games
(pairs with the same dice, sides swapped, no search) against the best
network so far, and becomes the best when it scores more than it. The run's
directory holds ``checkpoint.npz`` (everything needed to go on: weights,
the best weights, the random generator's state, the history), written at
every check, on Ctrl-C and at ``--until``; running the same command again
resumes where it stopped, and the result is the same as an uninterrupted
run (``--until`` splits a long run across sessions).

Usage (from the repository root, with ``pip install -e '.[bench]'`` for numpy)::

    python -m training.backgammon_td train --run training/runs/td80 --games 120000
    python -m training.backgammon_td export --run training/runs/td80
    python -m training.backgammon_td match --run training/runs/td80 --games 2000

``export`` writes the best network to ``engine/games/backgammon_td.json``
with its settings and the command that reproduces it.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# One thread: the matrices are small (the threads would cost more than they
# save) and a single thread gives the same sums, so the same run, every time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from engine.games.backgammon import START_BOARD, game_points, legal_plays
from engine.games.backgammon_net import (
    FEATURED_INPUTS,
    INPUTS,
    OUTPUTS,
    WEIGHTS_FILE,
    encode_many,
)

Board = tuple[int, ...]
#: Output order (see engine.games.backgammon_net.OUTPUTS): seen from the other
#: side, a win is a loss and the gammon terms change places.
FLIP = np.array([0, 3, 4, 1, 2])


@dataclass
class Settings:
    """What defines a run: the same settings give the same network."""

    games: int = 120_000
    hidden: int = 80
    lam: float = 0.7
    lr: float = 0.1
    lr_final: float = 0.02
    seed: int = 1
    check_every: int = 5_000
    check_games: int = 400
    init_scale: float = 0.1


# ----------------------------------------------------------------------
# The network (numpy).


class Net:
    """One hidden layer of sigmoids, five sigmoid outputs; weights as in backgammon_net."""

    def __init__(
        self, hidden: int, rng: np.random.Generator, scale: float, with_features: bool = False
    ) -> None:
        # With the hand-made features (engine.games.backgammon_features) after
        # the raw units; TD training here always uses the raw units alone.
        self.with_features = with_features
        inputs = FEATURED_INPUTS if with_features else INPUTS
        self.w1 = rng.normal(0.0, scale, (inputs, hidden))
        self.b1 = np.zeros(hidden)
        self.w2 = rng.normal(0.0, scale, (hidden, len(OUTPUTS)))
        self.b2 = np.zeros(len(OUTPUTS))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def load(self, arrays: dict[str, np.ndarray]) -> None:
        self.w1, self.b1, self.w2, self.b2 = (
            arrays["w1"].copy(),
            arrays["b1"].copy(),
            arrays["w2"].copy(),
            arrays["b2"].copy(),
        )

    def forward(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hidden = _sigmoid(inputs @ self.w1 + self.b1)
        return hidden, _sigmoid(hidden @ self.w2 + self.b2)

    def step(self, inputs: np.ndarray, targets: np.ndarray, lr: float) -> float:
        """One gradient step of every row's outputs towards its targets; returns the mean error."""
        hidden, outputs = self.forward(inputs)
        error = outputs - targets
        # Squared error through the output sigmoid: the TD(λ) update is the TD
        # error times the gradient of the output itself (Tesauro).
        delta_out = error * outputs * (1.0 - outputs)
        delta_hidden = (delta_out @ self.w2.T) * hidden * (1.0 - hidden)
        self.w2 -= lr * (hidden.T @ delta_out)
        self.b2 -= lr * delta_out.sum(axis=0)
        self.w1 -= lr * (inputs.T @ delta_hidden)
        self.b1 -= lr * delta_hidden.sum(axis=0)
        return float(np.abs(error).mean())


def _sigmoid(values: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(values, -40.0, 40.0)))


def equity(outputs: np.ndarray) -> np.ndarray:
    """Expected points for the player on roll, per row of outputs."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = outputs.T
    return 2.0 * win - 1.0 + win_gammon + win_backgammon - lose_gammon - lose_backgammon


# ----------------------------------------------------------------------
# Playing.


def roll(rng: np.random.Generator, opening: bool) -> tuple[int, int]:
    while True:
        first, second = (int(die) for die in rng.integers(1, 7, size=2))
        if not (opening and first == second):
            return max(first, second), min(first, second)


def choose(
    net: Net, me: Board, opp: Board, dice: tuple[int, int]
) -> tuple[Board, Board, int, np.ndarray | None, np.ndarray | None]:
    """The play ``net`` values most: (my board after, theirs, points if it wins, inputs, outputs).

    The inputs and outputs are those of the position after the play, seen by
    the opponent (who is then on roll); None when the play ends the game.
    """
    plays = legal_plays(me, opp, dice[0], dice[1])
    best_win = 0
    best_finish: tuple[Board, Board] | None = None
    for _, mine, theirs in plays:
        if not any(mine):
            won = game_points(theirs)
            if won > best_win:
                best_win, best_finish = won, (mine, theirs)
    if best_finish is not None:
        return best_finish[0], best_finish[1], best_win, None, None
    inputs = encode_many([(theirs, mine) for _, mine, theirs in plays])
    _, outputs = net.forward(inputs)
    index = int(np.argmin(equity(outputs)))  # the opponent's equity: the lowest is ours
    _, mine, theirs = plays[index]
    return mine, theirs, 0, inputs[index], outputs[index]


def self_play(net: Net, rng: np.random.Generator, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """One game of ``net`` against itself: each position's inputs and its λ-return."""
    me, opp = START_BOARD, START_BOARD
    start_inputs = encode_many([(me, opp)])
    _, start_outputs = net.forward(start_inputs)
    inputs = [start_inputs[0]]
    values = [start_outputs[0]]
    opening = True
    while True:
        mine, theirs, won, after_inputs, after_outputs = choose(net, me, opp, roll(rng, opening))
        opening = False
        if won:
            break
        assert after_inputs is not None and after_outputs is not None
        inputs.append(after_inputs)
        values.append(after_outputs)
        me, opp = theirs, mine
    result = np.array([1.0, won >= 2, won >= 3, 0.0, 0.0])
    targets = np.empty((len(values), len(OUTPUTS)))
    targets[-1] = result
    for index in range(len(values) - 2, -1, -1):
        blended = (1.0 - lam) * values[index + 1] + lam * targets[index + 1]
        targets[index] = _flip(blended)
    return np.array(inputs), targets


def _flip(outputs: np.ndarray) -> np.ndarray:
    flipped = outputs[FLIP]
    flipped[0] = 1.0 - outputs[0]
    return flipped


def match(first: Net, second: Net, games: int, seed: int) -> float:
    """Points a game of ``first`` against ``second`` (no search; pairs with the same dice)."""
    total = 0
    for pair in range(games // 2):
        for first_starts in (True, False):
            rng = np.random.default_rng([seed, pair])
            nets = (first, second) if first_starts else (second, first)
            me, opp = START_BOARD, START_BOARD
            mover = 0
            opening = True
            while True:
                mine, theirs, won, _, _ = choose(nets[mover], me, opp, roll(rng, opening))
                opening = False
                if won:
                    total += won if (mover == 0) == first_starts else -won
                    break
                me, opp = theirs, mine
                mover = 1 - mover
    return total / (2 * (games // 2))


# ----------------------------------------------------------------------
# The run: checkpoints, progress, export.


class Run:
    """A training run's directory and state."""

    def __init__(self, directory: Path, settings: Settings) -> None:
        self.directory = directory
        self.settings = settings
        self.rng = np.random.default_rng(settings.seed)
        self.net = Net(settings.hidden, self.rng, settings.init_scale)
        self.best = Net(settings.hidden, self.rng, settings.init_scale)
        self.best.load(self.net.arrays())
        self.games = 0
        self.best_games = 0
        self.history: list[dict[str, Any]] = []
        self.seconds = 0.0

    @property
    def checkpoint(self) -> Path:
        return self.directory / "checkpoint.npz"

    def save(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        state = {
            "settings": asdict(self.settings),
            "games": self.games,
            "best_games": self.best_games,
            "history": self.history,
            "seconds": self.seconds,
            "rng": self.rng.bit_generator.state,
        }
        arrays = {f"net_{k}": v for k, v in self.net.arrays().items()}
        arrays |= {f"best_{k}": v for k, v in self.best.arrays().items()}
        partial = self.directory / "checkpoint.tmp.npz"
        np.savez(partial, state=np.array(json.dumps(state)), **arrays)
        partial.replace(self.checkpoint)

    def restore(self) -> bool:
        if not self.checkpoint.exists():
            return False
        with np.load(self.checkpoint) as data:
            state = json.loads(str(data["state"]))
            saved = Settings(**state["settings"])
            if saved != self.settings:
                raise SystemExit(
                    f"{self.checkpoint} was made with other settings:\n  {saved}\n"
                    f"not\n  {self.settings}\n(use another --run directory)"
                )
            self.net.load({k: data[f"net_{k}"] for k in ("w1", "b1", "w2", "b2")})
            self.best.load({k: data[f"best_{k}"] for k in ("w1", "b1", "w2", "b2")})
        self.games = state["games"]
        self.best_games = state["best_games"]
        self.history = state["history"]
        self.seconds = state["seconds"]
        self.rng.bit_generator.state = state["rng"]
        return True

    def learning_rate(self) -> float:
        done = self.games / max(1, self.settings.games)
        return self.settings.lr + (self.settings.lr_final - self.settings.lr) * done

    def check(self) -> dict[str, Any]:
        """Play the best network so far; keep this one when it scores more."""
        score = match(self.net, self.best, self.settings.check_games, seed=self.games)
        kept = score > 0.0
        if kept:
            self.best.load(self.net.arrays())
            self.best_games = self.games
        entry = {"games": self.games, "score_vs_best": round(score, 4), "kept": kept}
        self.history.append(entry)
        return entry

    def train(self, progress: Progress, until: int | None = None) -> None:
        """Train to the run's games, or to ``until`` games for now (the run resumes later)."""
        settings = self.settings
        last = settings.games if until is None else min(until, settings.games)
        interrupted = False

        def on_signal(signum: int, frame: Any) -> None:
            nonlocal interrupted
            interrupted = True

        previous = signal.signal(signal.SIGINT, on_signal)
        errors: list[float] = []
        started = time.monotonic()
        seconds_before = self.seconds
        try:
            while self.games < last and not interrupted:
                inputs, targets = self_play(self.net, self.rng, settings.lam)
                errors.append(self.net.step(inputs, targets, self.learning_rate()))
                self.games += 1
                self.seconds = seconds_before + time.monotonic() - started
                if self.games % settings.check_every == 0 or self.games == settings.games:
                    entry = self.check()
                    entry["mean_error"] = round(sum(errors) / len(errors), 4)
                    errors.clear()
                    self.save()
                    progress.note(
                        f"{self.games:,} games: {entry['score_vs_best']:+.3f} points a game "
                        f"against the best (from {self.best_games:,} games)"
                        + (", kept" if entry["kept"] else "")
                    )
                progress.show(self.games, settings.games, self.seconds)
        finally:
            signal.signal(signal.SIGINT, previous)
            if self.games < settings.games:
                self.save()
                progress.note(f"stopped at {self.games:,} games; run the same command to go on")


class Progress:
    """A one-line progress bar on stderr (a plain line per update when not a terminal)."""

    def __init__(self, stream: Any = sys.stderr, width: int = 30, every: float = 1.0) -> None:
        self.stream = stream
        self.width = width
        self.every = every
        self.last = 0.0
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def show(self, done: int, total: int, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last < (self.every if self.tty else 30 * self.every) and done < total:
            return
        self.last = now
        filled = int(self.width * done / max(1, total))
        rate = done / seconds if seconds > 0 else 0.0
        remaining = (total - done) / rate if rate > 0 else 0.0
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{total:,} games "
            f"{rate:.1f}/s, {_clock(seconds)} spent, {_clock(remaining)} to go"
        )
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        self.stream.write(("\r\x1b[K" if self.tty else "") + text + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _pack(values: np.ndarray) -> str:
    return base64.b64encode(values.astype("<f4").tobytes()).decode("ascii")


def export(run: Run, target: Path, command: str) -> dict[str, Any]:
    """Write the run's best network for the engine (engine.games.backgammon_net.load_network)."""
    best = run.best
    data = {
        "format": "alphabeta-arena backgammon TD network 1",
        "inputs": INPUTS,
        "hidden": run.settings.hidden,
        "outputs": list(OUTPUTS),
        "settings": asdict(run.settings)
        | {
            "games_trained": run.best_games,
            "training_seconds": round(run.seconds),
            "checks": run.history,
            "reproduce": command,
        },
        "weights": {
            # Row-major: w1[i, j] at i * hidden + j, as backgammon_net reads them.
            "hidden": _pack(best.w1.reshape(-1)),
            "hidden_bias": _pack(best.b1),
            "output": _pack(best.w2.reshape(-1)),
            "output_bias": _pack(best.b2),
        },
    }
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(
        games=args.games,
        hidden=args.hidden,
        lam=args.lam,
        lr=args.lr,
        lr_final=args.lr_final,
        seed=args.seed,
        check_every=args.check_every,
        check_games=args.check_games,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("train", "export", "match"))
    parser.add_argument("--run", type=Path, required=True, help="the run's directory")
    defaults = Settings()
    parser.add_argument("--games", type=int, default=defaults.games)
    parser.add_argument("--hidden", type=int, default=defaults.hidden)
    parser.add_argument("--lam", type=float, default=defaults.lam, help="λ")
    parser.add_argument("--lr", type=float, default=defaults.lr, help="learning rate at the start")
    parser.add_argument("--lr-final", type=float, default=defaults.lr_final, help="... at the end")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--check-every", type=int, default=defaults.check_every)
    parser.add_argument("--check-games", type=int, default=defaults.check_games)
    parser.add_argument(
        "--until", type=int, help="train: stop after this many games for now (resume later)"
    )
    parser.add_argument("--to", type=Path, default=WEIGHTS_FILE, help="export: the weights file")
    args = parser.parse_args(argv)
    run = Run(args.run, _settings(args))
    resumed = run.restore()
    if args.action == "train":
        if resumed:
            print(f"resuming {args.run} at {run.games:,} games", file=sys.stderr)
        run.train(Progress(), until=args.until)
        return 0
    if not resumed:
        raise SystemExit(f"no checkpoint in {args.run}: train first")
    if args.action == "export":
        options = (
            f"--run {args.run} --games {run.settings.games} --hidden {run.settings.hidden} "
            f"--lam {run.settings.lam} --lr {run.settings.lr} --lr-final {run.settings.lr_final} "
            f"--seed {run.settings.seed} --check-every {run.settings.check_every} "
            f"--check-games {run.settings.check_games}"
        )
        command = (
            f"python -m training.backgammon_td train {options} && "
            f"python -m training.backgammon_td export {options}"
        )
        export(run, args.to, command)
        print(f"wrote {args.to}: the best network, {run.best_games:,} games", file=sys.stderr)
        return 0
    score = match(run.best, run.net, args.games, seed=10**9)
    print(
        f"best ({run.best_games:,} games) against latest ({run.games:,}):",
        f"{score:+.3f} points a game",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

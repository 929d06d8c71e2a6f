"""Train the backgammon network on GNU Backgammon's evaluations of positions (distillation).

Reading guide
-------------

:mod:`training.backgammon_td` teaches the network by TD(λ) from its own
games, as Tesauro did. This script teaches the same network (the same
inputs, hidden sigmoids and five outputs of
:mod:`engine.games.backgammon_net`) a second way: by supervised learning
from a stronger program's judgement, the way strong backgammon networks
were trained after TD-Gammon (GNU Backgammon's own networks were refined
on positions labelled by deeper evaluations and rollouts; the method is
plain regression, Hinton et al. call it "distillation"). Three steps,
each writing one file into the run's directory:

1. ``positions``: games of the current network against itself at depth 1
   (the play it values most), with a random play now and then
   (``--explore``) so that the positions are not all of one style. Every
   position where a player is about to roll is kept, and beside it the
   position after one *other* legal play, chosen at random: a search two
   moves deep judges the results of poor plays too, so the network must
   know them. Written: ``positions.npz`` (checkers per point, seen from
   the player on roll).
   ``plays`` (optional, into a second run's directory): rolls drawn in
   another run's positions (``--from``), and the results of *every* legal
   play of each, so that the network also learns the differences between
   the plays of one roll; ``fit --more`` trains on both runs.
2. ``label``: GNU Backgammon (Debian's ``gnubg`` 1.07, its embedded
   Python) evaluates each position for the player on roll at
   ``--plies`` (cubeless, as our money games are). gnubg's answer is the
   same five chances as our outputs (win, win a gammon or more, win a
   backgammon, lose a gammon or more, lose a backgammon), so it is the
   target as it is. gnubg's ``evaluate`` waits about 10 ms a call whatever
   the work (it is idle, not busy), so ``--processes`` gnubgs run side by
   side. Written: ``labels.npz``.
3. ``fit``: the network's weights by minimising the cross-entropy of its
   outputs against the labels (Adam, mini-batches), with a share of the
   positions held out to measure the equity error on positions it never
   trained on. ``export`` writes the result for the engine, with the
   settings and the commands that reproduce it.

The facts learned are GNU Backgammon's judgements of positions this
project's own games produced; no gnubg code or weights are read, only its
answers (as the Go training script reads GNU Go's moves).

Usage (from the repository root, numpy installed, ``gnubg`` on PATH or in
/usr/games)::

    python -m training.backgammon_distill positions --run training/runs/distill --games 6000
    python -m training.backgammon_distill label --run training/runs/distill --plies 1
    python -m training.backgammon_distill plays --run training/runs/plays \\
        --from training/runs/distill --decisions 40000
    python -m training.backgammon_distill label --run training/runs/plays --plies 1
    python -m training.backgammon_distill fit --run training/runs/distill --features \\
        --hidden 128 --more training/runs/plays
    python -m training.backgammon_distill export --run training/runs/distill

``--features`` gives the network the hand-made features of
:mod:`engine.games.backgammon_features` beside the raw board.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from bench.programs import find_program, prepare_gnubg_home
from engine.games.backgammon import START_BOARD, Action, legal_plays
from engine.games.backgammon_features import FEATURE_NAMES
from engine.games.backgammon_net import (
    FEATURED_INPUTS,
    INPUTS,
    OUTPUTS,
    WEIGHTS_FILE,
    encode_many,
    load_network,
)
from training.backgammon_td import Net, equity, roll

Board = tuple[int, ...]

#: Seconds between two progress lines while gnubg labels.
PROGRESS_EVERY_S = 2.0
#: Characters of a failed gnubg's output quoted in the error.
LOG_TAIL_CHARS = 400

#: Runs inside gnubg (``gnubg -t -q -p label.py``): reads boards (one JSON
#: pair of 25 counts a line: the player on roll, then the other, each from
#: its own side, bar last), writes gnubg's five chances for the player on roll.
LABEL_DRIVER = r"""
import json, os, sys
import gnubg

for setting in ("set display off", "set cube use off", "set jacoby off"):
    gnubg.command(setting)
context = gnubg.evalcontext(0, int(os.environ["DISTILL_PLIES"]), 1, 1, 0.0)
cube = gnubg.cubeinfo(1, -1, 0, 0)
with open(os.environ["DISTILL_IN"]) as source, open(os.environ["DISTILL_OUT"], "w") as sink:
    for line in source:
        me, opp = json.loads(line)
        # gnubg's board: (the player not on roll, the player on roll).
        chances = gnubg.evaluate((tuple(opp), tuple(me)), cube, context)
        sink.write(json.dumps([round(value, 6) for value in chances[:5]]) + "\n")
        sink.flush()
"""


# ----------------------------------------------------------------------
# Step 1: positions.


def _depth_one(net: Net, me: Board, opp: Board, dice: tuple[int, int]) -> list[tuple[Board, Board]]:
    """The results of every legal play of ``dice``, best first by ``net`` (seen by the mover)."""
    plays = legal_plays(me, opp, dice[0], dice[1])
    results = [(mine, theirs) for _, mine, theirs in plays]
    finished = [index for index, (mine, _) in enumerate(results) if not any(mine)]
    if finished:
        return [results[finished[0]]]
    _, outputs = net.forward(
        encode_many([(theirs, mine) for mine, theirs in results], net.with_features)
    )
    order = np.argsort(equity(outputs))  # the opponent's equity, lowest first
    return [results[int(index)] for index in order]


def play_positions(net: Net, games: int, explore: float, seed: int) -> np.ndarray:
    """Positions (on roll, other) of ``games`` self-play games, and other plays' results."""
    rng = np.random.default_rng(seed)
    kept: list[tuple[Board, Board]] = []
    for _ in range(games):
        me, opp = START_BOARD, START_BOARD
        opening = True
        while True:
            if not opening:
                kept.append((me, opp))
            results = _depth_one(net, me, opp, roll(rng, opening))
            opening = False
            mine, theirs = results[0]
            if len(results) > 1:
                if rng.random() < explore:
                    mine, theirs = results[int(rng.integers(len(results)))]
                other_mine, other_theirs = results[int(rng.integers(1, len(results)))]
                if any(other_mine):
                    kept.append((other_theirs, other_mine))
            if not any(mine):
                break
            me, opp = theirs, mine
    return np.array(kept, dtype=np.uint8)


def rolls_with_a_choice(
    source: np.ndarray, seed: int
) -> Iterator[tuple[Board, Board, tuple[int, int], list[tuple[Action, Board, Board]]]]:
    """Positions of ``source`` in a seeded random order, each with a random roll that
    leaves more than one legal play: (me, opp, (high, low), the legal plays).

    Shared by :func:`every_play` and ``bench/gnubg_moves.py``; the order of the
    draws is part of their recorded commands, so it must not change.
    """
    rng = np.random.default_rng(seed)
    for index in rng.permutation(len(source)):
        me, opp = tuple(source[index, 0].tolist()), tuple(source[index, 1].tolist())
        first, second = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        dice = (max(first, second), min(first, second))
        plays = legal_plays(me, opp, *dice)
        if len(plays) >= 2:
            yield me, opp, dice, plays


def every_play(source: np.ndarray, decisions: int, seed: int) -> np.ndarray:
    """The results of *every* legal play of ``decisions`` rolls met in ``source``'s positions.

    A position of ``source`` (boards as :func:`play_positions` writes them) is
    drawn, then a roll (:func:`rolls_with_a_choice`); each distinct result of a
    legal play (the game not over) is kept, seen by the opponent, who is then
    on roll. The network is fitted on them beside :func:`play_positions`' so
    that it learns the differences between the plays of one roll, which is
    all a search needs from it: a network judged by its error on positions
    alone can be better there and choose worse plays (docs/backgammon.md,
    "Features and every play of a roll").
    """
    kept: list[tuple[Board, Board]] = []
    for _, _, _, plays in islice(rolls_with_a_choice(source, seed), decisions):
        kept.extend((theirs, mine) for _, mine, theirs in plays if any(mine))
    return np.array(kept, dtype=np.uint8)


# ----------------------------------------------------------------------
# Step 2: gnubg's labels.


def find_gnubg() -> str:
    path = find_program("gnubg")
    if path is None:
        raise SystemExit("gnubg not found (Debian's package: apt-get install gnubg)")
    return path


def label(boards: np.ndarray, plies: int, processes: int, progress: bool = True) -> np.ndarray:
    """gnubg's five chances for each (on roll, other) board, ``processes`` gnubgs at a time."""
    binary = find_gnubg()
    prepare_gnubg_home()
    chunks = np.array_split(np.arange(len(boards)), processes)
    with tempfile.TemporaryDirectory(prefix="distill_") as directory:
        script = os.path.join(directory, "label.py")
        Path(script).write_text(LABEL_DRIVER, encoding="utf-8")
        running = []
        for number, chunk in enumerate(chunks):
            source = os.path.join(directory, f"in{number}.jsonl")
            sink = os.path.join(directory, f"out{number}.jsonl")
            with open(source, "w", encoding="utf-8") as file:
                for index in chunk:
                    file.write(json.dumps([boards[index, 0].tolist(), boards[index, 1].tolist()]))
                    file.write("\n")
            env = dict(os.environ, DISTILL_IN=source, DISTILL_OUT=sink, DISTILL_PLIES=str(plies))
            log = os.path.join(directory, f"gnubg{number}.log")
            with open(log, "wb") as output:
                process = subprocess.Popen(
                    [binary, "-t", "-q", "-p", script],
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    cwd=directory,
                    env=env,
                )
            running.append((process, sink, len(chunk), log))
        started = time.monotonic()
        while pending := [process for process, _, _, _ in running if process.poll() is None]:
            with contextlib.suppress(subprocess.TimeoutExpired):
                pending[0].wait(timeout=PROGRESS_EVERY_S)
            if progress:
                done = sum(_lines(sink) for _, sink, _, _ in running)
                rate = done / max(time.monotonic() - started, 1e-9)
                print(
                    f"\rlabelled {done:,} of {len(boards):,} ({rate:,.0f}/s)",
                    end="",
                    file=sys.stderr,
                )
        if progress:
            print(file=sys.stderr)
        labels = []
        for process, sink, count, log in running:
            rows = []
            if os.path.exists(sink):
                with open(sink, encoding="utf-8") as file:
                    rows = [json.loads(line) for line in file]
            if process.returncode != 0 or len(rows) != count:
                said = Path(log).read_text(encoding="utf-8", errors="replace").strip()
                raise SystemExit(
                    f"gnubg labelled {len(rows)} of {count} positions (exit "
                    f"{process.returncode}); its last output: {said[-LOG_TAIL_CHARS:]!r}"
                )
            labels.extend(rows)
    return np.array(labels, dtype=np.float64)


def _lines(path: str) -> int:
    try:
        with open(path, "rb") as file:
            return sum(1 for _ in file)
    except FileNotFoundError:
        return 0


# ----------------------------------------------------------------------
# Step 3: the fit.


class Adam:
    """Adam (Kingma & Ba 2015) over the network's four arrays; the paper's default betas."""

    def __init__(self, net: Net, lr: float) -> None:
        self.net = net
        self.lr = lr
        self.step_count = 0
        self.first = {name: np.zeros_like(array) for name, array in net.arrays().items()}
        self.second = {name: np.zeros_like(array) for name, array in net.arrays().items()}

    def step(self, gradients: dict[str, np.ndarray]) -> None:
        self.step_count += 1
        beta1, beta2 = 0.9, 0.999
        correction1 = 1.0 - beta1**self.step_count
        correction2 = 1.0 - beta2**self.step_count
        arrays = self.net.arrays()
        for name, gradient in gradients.items():
            self.first[name] *= beta1
            self.first[name] += (1.0 - beta1) * gradient
            self.second[name] *= beta2
            self.second[name] += (1.0 - beta2) * gradient * gradient
            update = (self.first[name] / correction1) / (
                np.sqrt(self.second[name] / correction2) + 1e-8
            )
            arrays[name] -= self.lr * update


def gradients(net: Net, inputs: np.ndarray, targets: np.ndarray) -> dict[str, np.ndarray]:
    """The cross-entropy's gradient (five independent sigmoid outputs), averaged over the rows."""
    hidden, outputs = net.forward(inputs)
    delta_out = (outputs - targets) / len(inputs)  # sigmoid with cross-entropy
    delta_hidden = (delta_out @ net.w2.T) * hidden * (1.0 - hidden)
    return {
        "w2": hidden.T @ delta_out,
        "b2": delta_out.sum(axis=0),
        "w1": inputs.T @ delta_hidden,
        "b1": delta_hidden.sum(axis=0),
    }


def equity_error(net: Net, inputs: np.ndarray, targets: np.ndarray) -> float:
    """Mean absolute difference of equities (points a game) between the net and the labels."""
    _, outputs = net.forward(inputs)
    return float(np.abs(equity(outputs) - equity(targets)).mean())


def fit(
    boards: np.ndarray,
    labels: np.ndarray,
    hidden: int,
    epochs: int,
    lr: float,
    batch: int,
    holdout: float,
    seed: int,
    start: Net | None,
    with_features: bool = False,
) -> tuple[Net, list[dict[str, float]]]:
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(boards))
    held = order[: int(len(boards) * holdout)]
    trained = order[len(held) :]
    net = start if start is not None else Net(hidden, rng, 0.1, with_features)
    inputs = encode_many(
        [(tuple(me), tuple(opp)) for me, opp in boards.tolist()], net.with_features
    )
    optimiser = Adam(net, lr)
    history = []
    best_error = equity_error(net, inputs[held], labels[held])
    best = {name: array.copy() for name, array in net.arrays().items()}
    print(f"start: held-out equity error {best_error:.4f}", file=sys.stderr)
    for epoch in range(1, epochs + 1):
        optimiser.lr = lr * (0.5 ** (epoch * 3 // epochs))  # halved twice towards the end
        shuffled = rng.permutation(trained)
        for first in range(0, len(shuffled), batch):
            rows = shuffled[first : first + batch]
            optimiser.step(gradients(net, inputs[rows], labels[rows]))
        held_error = equity_error(net, inputs[held], labels[held])
        train_error = equity_error(net, inputs[trained[:20000]], labels[trained[:20000]])
        history.append(
            {"epoch": epoch, "train": round(train_error, 5), "held_out": round(held_error, 5)}
        )
        print(
            f"epoch {epoch}: equity error {train_error:.4f} trained, {held_error:.4f} held out",
            file=sys.stderr,
        )
        if held_error < best_error:
            best_error = held_error
            best = {name: array.copy() for name, array in net.arrays().items()}
    net.load(best)
    return net, history


def shipped_net() -> Net:
    """The engine's shipped network as a trainable Net."""
    return net_from_file(WEIGHTS_FILE)


def net_from_file(path: Path) -> Net:
    """A weights file (``backgammon_td.json``'s format) as a trainable Net."""
    shipped = load_network(path)
    net = Net(shipped.hidden, np.random.default_rng(0), 0.1, shipped.with_features)
    net.load(
        {
            "w1": np.array(shipped.hidden_weights).reshape(-1, shipped.hidden),
            "b1": np.array(shipped.hidden_bias),
            "w2": np.array(shipped.output_weights).reshape(shipped.hidden, len(OUTPUTS)),
            "b2": np.array(shipped.output_bias),
        }
    )
    return net


# ----------------------------------------------------------------------
# The command.


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("positions", "plays", "label", "fit", "export"))
    parser.add_argument("--run", type=Path, required=True, help="the run's directory")
    parser.add_argument("--games", type=int, default=6000, help="positions: self-play games")
    parser.add_argument(
        "--explore", type=float, default=0.1, help="positions: share of random plays"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--from", dest="source", type=Path, help="plays: the run whose positions are drawn from"
    )
    parser.add_argument(
        "--decisions", type=int, default=40000, help="plays: rolls whose every play is kept"
    )
    parser.add_argument("--plies", type=int, default=1, help="label: gnubg's plies")
    parser.add_argument("--processes", type=int, default=16, help="label: gnubgs at a time")
    parser.add_argument("--hidden", type=int, default=80, help="fit: hidden units")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--holdout", type=float, default=0.05)
    parser.add_argument(
        "--features",
        action="store_true",
        help="fit: the network reads the hand-made features too (engine.games.backgammon_features)",
    )
    parser.add_argument(
        "--from-shipped", action="store_true", help="fit: start from the shipped network"
    )
    parser.add_argument("--to", type=Path, default=WEIGHTS_FILE, help="export: the weights file")
    parser.add_argument(
        "--network",
        type=Path,
        help="positions: play with this weights file instead of the shipped network",
    )
    parser.add_argument(
        "--more",
        type=Path,
        action="append",
        default=[],
        help="fit: another run directory whose positions and labels are trained on too",
    )
    args = parser.parse_args(argv)
    args.run.mkdir(parents=True, exist_ok=True)
    positions_file = args.run / "positions.npz"
    labels_file = args.run / "labels.npz"
    fitted_file = args.run / "fitted.npz"
    started = time.monotonic()
    if args.action != "export":
        # Each step's command, in order: export joins them into the network's
        # "reproduce" (with those of the --more runs, which come first).
        with open(args.run / "commands.txt", "a", encoding="utf-8") as file:
            file.write(
                " ".join(["python -m training.backgammon_distill", *_arguments(argv)]) + "\n"
            )
    if args.action == "positions":
        player = shipped_net() if args.network is None else net_from_file(args.network)
        boards = play_positions(player, args.games, args.explore, args.seed)
        played = {"games": args.games, "explore": args.explore, "seed": args.seed}
        np.savez_compressed(positions_file, boards=boards, played=json.dumps(played))
        print(f"wrote {positions_file}: {len(boards):,} positions", file=sys.stderr)
    elif args.action == "plays":
        if args.source is None:
            raise SystemExit("plays needs --from RUN (a run with positions.npz)")
        boards = every_play(
            np.load(args.source / "positions.npz")["boards"], args.decisions, args.seed
        )
        played = {"games": 0, "explore": 0.0, "seed": args.seed, "decisions": args.decisions}
        np.savez_compressed(positions_file, boards=boards, played=json.dumps(played))
        print(f"wrote {positions_file}: {len(boards):,} positions", file=sys.stderr)
    elif args.action == "label":
        boards = np.load(positions_file)["boards"]
        labels = label(boards, args.plies, args.processes)
        np.savez_compressed(labels_file, labels=labels, plies=args.plies)
        print(f"wrote {labels_file}: {len(labels):,} labels", file=sys.stderr)
    elif args.action == "fit":
        boards = np.load(positions_file)["boards"]
        labelled = np.load(labels_file)
        labels = labelled["labels"]
        for other in args.more:
            more_labels = np.load(other / "labels.npz")
            if int(more_labels["plies"]) != int(labelled["plies"]):
                raise SystemExit(f"{other}: labelled at another depth than {args.run}")
            boards = np.concatenate([boards, np.load(other / "positions.npz")["boards"]])
            labels = np.concatenate([labels, more_labels["labels"]])
        net, history = fit(
            boards,
            labels,
            args.hidden,
            args.epochs,
            args.lr,
            args.batch,
            args.holdout,
            args.seed,
            shipped_net() if args.from_shipped else None,
            args.features,
        )
        settings = vars(args) | {
            "run": str(args.run),
            "to": str(args.to),
            "network": None if args.network is None else str(args.network),
            "more": [str(other) for other in args.more],
        }
        settings["plies"] = int(labelled["plies"])
        # The self-play that made the positions, as the positions step recorded it.
        positions = np.load(positions_file)
        if "played" in positions:
            played = json.loads(str(positions["played"]))
            settings |= {"games": played["games"], "explore": played["explore"]}
        settings["positions"] = len(boards)
        saved: dict[str, Any] = net.arrays() | {
            "settings": json.dumps(settings),
            "history": json.dumps(history),
        }
        np.savez_compressed(fitted_file, **saved)
    else:
        export(fitted_file, args.to)
    print(f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _arguments(argv: list[str] | None) -> list[str]:
    return list(sys.argv[1:] if argv is None else argv)


def _reproduce(settings: dict[str, Any], fitted_file: Path) -> str:
    """The commands that made the fitted network: each run's steps, then the fit and export.

    The run's own positions and labels come first (a ``--more`` run's
    ``plays`` may draw from them), then each ``--more`` run's, then the
    run's last fit and the export.
    """
    runs = [settings["run"], *settings.get("more", [])]
    commands: list[str] = []
    for run in runs:
        path = Path(run) / "commands.txt"
        if not path.exists():
            commands.append(f"(the commands of {run} were not recorded)")
            continue
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
        # The last of each step is the one that counts.
        for step in ("positions", "plays", "label"):
            last = [line for line in lines if line.split()[3:4] == [step]]
            if last:
                commands.append(last[-1])
    own = Path(settings["run"]) / "commands.txt"
    if own.exists():
        fits = [
            line
            for line in own.read_text(encoding="utf-8").splitlines()
            if line.split()[3:4] == ["fit"]
        ]
        commands.extend(fits[-1:])
    commands.append(f"python -m training.backgammon_distill export --run {settings['run']}")
    return " && ".join(commands)


def export(fitted_file: Path, target: Path) -> dict[str, Any]:
    from training.backgammon_td import _pack

    fitted = np.load(fitted_file)
    settings = json.loads(str(fitted["settings"]))
    history = json.loads(str(fitted["history"]))
    command = _reproduce(settings, fitted_file)
    hidden = int(fitted["w1"].shape[1])
    with_features = int(fitted["w1"].shape[0]) == FEATURED_INPUTS
    data = {
        "format": "alphabeta-arena backgammon TD network 1",
        "inputs": FEATURED_INPUTS if with_features else INPUTS,
        "features": list(FEATURE_NAMES) if with_features else [],
        "hidden": hidden,
        "outputs": list(OUTPUTS),
        "settings": {
            "method": "distilled from GNU Backgammon 1.07's evaluations "
            f"({settings['plies']}-ply, cubeless) of {settings['positions']:,} positions "
            "of this engine's self-play"
            + (" and of every play of rolls drawn from them" if settings.get("more") else "")
            + (", with the hand-made features" if with_features else "")
            + " (training/backgammon_distill.py)",
            "games": settings["games"],
            "explore": settings["explore"],
            "plies": settings["plies"],
            "positions": settings["positions"],
            "hidden": hidden,
            "epochs": settings["epochs"],
            "lr": settings["lr"],
            "batch": settings["batch"],
            "holdout": settings["holdout"],
            "seed": settings["seed"],
            "from_shipped": settings["from_shipped"],
            "features": with_features,
            "more": settings.get("more", []),
            "history": history,
            "reproduce": command,
        },
        "weights": {
            "hidden": _pack(fitted["w1"].reshape(-1)),
            "hidden_bias": _pack(fitted["b1"]),
            "output": _pack(fitted["w2"].reshape(-1)),
            "output_bias": _pack(fitted["b2"]),
        },
    }
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return data


if __name__ == "__main__":
    raise SystemExit(main())

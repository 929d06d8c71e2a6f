"""The learned backgammon evaluation: a small neural network over the board.

The network follows Tesauro's TD-Gammon (1992-95): one hidden layer of
sigmoid units over a raw encoding of the board, outputs that estimate the
chances of each result. It was first trained only by playing against itself
(TD(λ), ``training/backgammon_td.py``; that network is kept as
``training/backgammon_td80.json``). The shipped one has the same outputs,
128 hidden units and the hand-made features below, and learned by
regression from GNU Backgammon's 1-ply evaluations of positions the TD
network played and of every play of rolls drawn from them
(``training/backgammon_distill.py``): it is markedly better against gnubg
(docs/backgammon.md). Its settings and the commands that reproduce it are
stored with the weights, in ``backgammon_td.json``.

Encoding (:data:`INPUTS` units) of a position before the roll, from the side
of the player on roll, then the same for the opponent, each board counted
from its owner's side:

* per point (24): four units for the checkers ``n`` on it: ``n >= 1``,
  ``n >= 2``, ``n >= 3`` and ``(n - 3) / 2`` above three (Tesauro's
  encoding: a blot, a made point, a spare, and how many more);
* the bar: ``n / 2``; borne off: ``n / 15``;
* the pip count / 100 (not in Tesauro's 198: it lets a small net read a race
  without adding up 96 units).

A network may also read the hand-made features of
:mod:`engine.games.backgammon_features` (shots, primes, the back checker,
contact) after these :data:`INPUTS` units: its weights file lists them
(``"features"``), and :data:`FEATURED_INPUTS` units go in. The shipped
network does; the TD network of ``training/backgammon_td.py`` does not.

There are no turn units: the position is always seen by the player on roll.

Outputs (:data:`OUTPUTS`), the chances for the player on roll: win, win a
gammon or better, win a backgammon, lose a gammon or worse, lose a
backgammon. Expected points (the equity of a cubeless game) follow:
``2 * win - 1 + win_gammon + win_backgammon - lose_gammon - lose_backgammon``.

Evaluation: :meth:`Network.outputs` is the forward pass in plain Python,
to read beside a textbook; the search uses :meth:`Network.equities`, the
same sums as numpy matrix products over a batch of positions (every play of
a roll at once). Measured on one core (compiled engine; docs/backgammon.md):
75 us a position in plain Python, 18 us alone with numpy and about 4 us each
when a roll's plays go together, so the engine evaluates with numpy (a test
holds the two to each other).
"""

from __future__ import annotations

import base64
import functools
import json
import math
from array import array
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.games.backgammon_features import FEATURE_NAMES, features

#: Checkers per player.
CHECKERS: Final = 15
#: Input units per side: 4 per point, the bar, borne off, pips.
SIDE_INPUTS: Final = 24 * 4 + 3
INPUTS: Final = 2 * SIDE_INPUTS
#: Input units of a network that reads the hand-made features too.
FEATURED_INPUTS: Final = INPUTS + len(FEATURE_NAMES)
#: Names of the outputs, in order.
OUTPUTS: Final = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
#: The weights shipped with the engine.
WEIGHTS_FILE: Final = Path(__file__).with_name("backgammon_td.json")
#: Pips are scaled by this (the start position has 167 pips a side).
PIP_SCALE: Final = 100.0
#: Sigmoid arguments are clipped here: past it the sigmoid is 0 or 1 to within
#: 5e-18, and math.exp() of a large argument would raise OverflowError.
SIGMOID_CLIP: Final = 40.0


def sigmoid(value: float) -> float:
    if value < -SIGMOID_CLIP:
        value = -SIGMOID_CLIP
    elif value > SIGMOID_CLIP:
        value = SIGMOID_CLIP
    return 1.0 / (1.0 + math.exp(-value))


def encode(
    me: tuple[int, ...], opp: tuple[int, ...], with_features: bool = False
) -> list[tuple[int, float]]:
    """The non-zero input units of a position as (index, value), the player on roll's ``me``.

    With ``with_features``, the features of
    :func:`engine.games.backgammon_features.features` follow from index :data:`INPUTS`.

    Boards are 25 counts from their owner's side, index 24 the bar (see
    :mod:`engine.games.backgammon`). ``training/backgammon_td.py`` computes the
    same units with numpy, and a test holds the two to each other.
    """
    units: list[tuple[int, float]] = []
    base = 0
    for board in (me, opp):
        pips = 0
        on_board = 0
        for point in range(24):
            count = board[point]
            if count == 0:
                continue
            on_board += count
            pips += (point + 1) * count
            index = base + 4 * point
            units.append((index, 1.0))
            if count >= 2:
                units.append((index + 1, 1.0))
                if count >= 3:
                    units.append((index + 2, 1.0))
                    if count > 3:
                        units.append((index + 3, (count - 3) / 2.0))
        bar = board[24]
        if bar:
            units.append((base + 96, bar / 2.0))
            pips += 25 * bar
        off = CHECKERS - on_board - bar
        if off:
            units.append((base + 97, off / 15.0))
        if pips:
            units.append((base + 98, pips / PIP_SCALE))
        base += SIDE_INPUTS
    if with_features:
        units.extend(
            (INPUTS + index, value) for index, value in enumerate(features(me, opp)) if value
        )
    return units


class Network:
    """A trained network: weights as flat tuples of floats, and what trained them.

    ``hidden_weights[i * hidden + j]`` joins input ``i`` to hidden unit ``j``;
    ``output_weights[j * 5 + k]`` joins hidden unit ``j`` to output ``k``.
    """

    def __init__(
        self,
        hidden: int,
        hidden_weights: tuple[float, ...],
        hidden_bias: tuple[float, ...],
        output_weights: tuple[float, ...],
        output_bias: tuple[float, ...],
        settings: dict[str, Any],
        with_features: bool = False,
    ) -> None:
        inputs = FEATURED_INPUTS if with_features else INPUTS
        if len(hidden_weights) != inputs * hidden or len(hidden_bias) != hidden:
            raise ValueError(f"hidden layer weights do not fit {inputs} inputs x {hidden} units")
        if len(output_weights) != hidden * len(OUTPUTS) or len(output_bias) != len(OUTPUTS):
            raise ValueError(f"output weights do not fit {hidden} units x {len(OUTPUTS)} outputs")
        self.hidden = hidden
        self.hidden_weights = hidden_weights
        self.hidden_bias = hidden_bias
        self.output_weights = output_weights
        self.output_bias = output_bias
        self.settings = settings
        self.with_features = with_features
        # The same network folded for equities(): sigmoid(x) = (1 + tanh(x / 2)) / 2,
        # so the halves go into the weights, and the equity, linear in the
        # outputs, becomes one dot product with EQUITY_OF_TANH.
        w1 = np.array(hidden_weights).reshape(inputs, hidden)
        w2 = np.array(output_weights).reshape(hidden, len(OUTPUTS))
        self._half_w1 = w1 * 0.5
        self._half_b1 = np.array(hidden_bias) * 0.5
        self._quarter_w2 = w2 / 4.0
        self._folded_b2 = w2.sum(axis=0) / 4.0 + np.array(output_bias) / 2.0

    def outputs(self, me: tuple[int, ...], opp: tuple[int, ...]) -> list[float]:
        """The five chances (see :data:`OUTPUTS`) for the player on roll with ``me``."""
        hidden = self.hidden
        weights = self.hidden_weights
        sums = list(self.hidden_bias)
        for index, value in encode(me, opp, self.with_features):
            row = index * hidden
            if value == 1.0:
                for unit in range(hidden):
                    sums[unit] += weights[row + unit]
            else:
                for unit in range(hidden):
                    sums[unit] += value * weights[row + unit]
        out_weights = self.output_weights
        totals = list(self.output_bias)
        for unit in range(hidden):
            activation = sigmoid(sums[unit])
            row = unit * 5
            for output in range(5):
                totals[output] += activation * out_weights[row + output]
        return [sigmoid(total) for total in totals]

    def equity(self, me: tuple[int, ...], opp: tuple[int, ...]) -> float:
        """Expected points of a cubeless game for the player on roll with ``me`` (plain Python)."""
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = self.outputs(me, opp)
        return 2.0 * win - 1.0 + win_gammon + win_backgammon - lose_gammon - lose_backgammon

    def equities(self, positions: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[float]:
        """:meth:`equity` of each (board on roll, other board), computed together with numpy."""
        inputs = encode_many(positions, self.with_features)
        hidden = inputs @ self._half_w1
        hidden += self._half_b1
        np.tanh(hidden, out=hidden)
        outputs = hidden @ self._quarter_w2
        outputs += self._folded_b2
        np.tanh(outputs, out=outputs)
        equities: list[float] = (outputs @ EQUITY_OF_TANH).tolist()
        return equities


#: Equity = 2 win - 1 + wg + wbg - lg - lbg with each output (1 + tanh) / 2:
#: the constants cancel (2/2 - 1 + 1/2 + 1/2 - 1/2 - 1/2 = 0).
EQUITY_OF_TANH: Final = np.array([1.0, 0.5, 0.5, -0.5, -0.5])
#: The four units of a point by its checker count (0-15).
POINT_UNITS: Final = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0] for n in range(CHECKERS + 1)], dtype=np.float64
)
#: Pips of each index of a board (the bar counts 25).
PIPS_PER_CHECKER: Final = np.arange(1, 26, dtype=np.int64)


def encode_many(
    positions: list[tuple[tuple[int, ...], tuple[int, ...]]], with_features: bool = False
) -> Any:
    """The input units of positions as a (count, inputs) numpy array: :func:`encode`, densely."""
    count = len(positions)
    raw = b"".join([bytes(me) + bytes(opp) for me, opp in positions])
    counts = np.frombuffer(raw, dtype=np.uint8).reshape(count, 2, 25)
    units = np.empty((count, 2, SIDE_INPUTS))
    units[:, :, :96] = POINT_UNITS[counts[:, :, :24]].reshape(count, 2, 96)
    units[:, :, 96] = counts[:, :, 24] * 0.5
    units[:, :, 97] = (CHECKERS - counts.sum(axis=2)) / 15.0
    units[:, :, 98] = (counts @ PIPS_PER_CHECKER) / PIP_SCALE
    if not with_features:
        return units.reshape(count, INPUTS)
    # The features are loops over points, cheaper per position in compiled
    # Python than as a dozen numpy passes over a small batch.
    extra = np.array([features(me, opp) for me, opp in positions], dtype=np.float64)
    return np.concatenate(
        [units.reshape(count, INPUTS), extra.reshape(count, len(FEATURE_NAMES))], axis=1
    )


def _floats(text: str) -> tuple[float, ...]:
    values = array("f")
    values.frombytes(base64.b64decode(text))
    return tuple(values.tolist())


def load_network(path: Path = WEIGHTS_FILE) -> Network:
    """Read a network written by ``training/backgammon_td.py`` (JSON: settings and float32 weights).

    Raises ``OSError`` or ``ValueError`` when the file is missing or does not fit.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    named = data.get("features", [])
    if named not in ([], list(FEATURE_NAMES)):
        raise ValueError(f"{path}: reads features {named}, not {list(FEATURE_NAMES)}")
    inputs = FEATURED_INPUTS if named else INPUTS
    if data.get("inputs") != inputs or data.get("outputs") != list(OUTPUTS):
        raise ValueError(f"{path}: not a network over this encoding ({inputs} inputs, {OUTPUTS})")
    weights = data["weights"]
    return Network(
        int(data["hidden"]),
        _floats(weights["hidden"]),
        _floats(weights["hidden_bias"]),
        _floats(weights["output"]),
        _floats(weights["output_bias"]),
        dict(data.get("settings", {})),
        with_features=bool(named),
    )


@functools.cache
def shipped_network() -> Network:
    """The network shipped with the engine, read at its first use in a process.

    Every game shares it (it is never modified): a game per session must not
    cost a file read and half a megabyte of weights. It is read on first use,
    not when this module is imported, so that importing the engine does no I/O.
    """
    return load_network()

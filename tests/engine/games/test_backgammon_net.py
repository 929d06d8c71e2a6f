"""The learned backgammon evaluation: encodings, numpy against plain Python, the game's use."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.games.backgammon import (
    POINT,
    START_BOARD,
    VALUE_BOUND,
    Backgammon,
    BgState,
    Board,
    legal_plays,
)
from engine.games.backgammon_features import FEATURE_NAMES, features
from engine.games.backgammon_net import (
    FEATURED_INPUTS,
    INPUTS,
    OUTPUTS,
    WEIGHTS_FILE,
    encode,
    encode_many,
    load_network,
)

GAME = Backgammon()


def random_positions(count: int, seed: int) -> list[tuple[Board, Board]]:
    """Positions (board on roll, other board) met along random games."""
    rng = random.Random(seed)
    positions: list[tuple[Board, Board]] = []
    me, opp = START_BOARD, START_BOARD
    while len(positions) < count:
        high, low = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)
        _, mine, theirs = rng.choice(legal_plays(me, opp, high, low))
        if not any(mine):
            me, opp = START_BOARD, START_BOARD
            continue
        me, opp = theirs, mine
        positions.append((me, opp))
    return positions


def test_encoding_units_of_the_start() -> None:
    units = dict(encode(START_BOARD, START_BOARD))
    # 24 point: 2 checkers -> the first two units; 6 point: 5 -> 1, 1, 1, (5 - 3) / 2.
    assert units[4 * 23] == 1.0 and units[4 * 23 + 1] == 1.0 and 4 * 23 + 2 not in units
    assert [units.get(4 * 5 + k) for k in range(4)] == [1.0, 1.0, 1.0, 1.0]
    assert units[98] == pytest.approx(1.67)  # 167 pips / 100
    assert 96 not in units and 97 not in units  # nobody on the bar or off
    assert units[99 + 98] == pytest.approx(1.67)


def test_the_batch_encoding_equals_the_plain_one() -> None:
    positions = random_positions(300, seed=1)
    dense = encode_many(positions)
    assert dense.shape == (300, INPUTS)
    for row, (me, opp) in enumerate(positions):
        plain = [0.0] * INPUTS
        for index, value in encode(me, opp):
            plain[index] = value
        assert dense[row].tolist() == plain


def test_the_features_follow_the_raw_units_in_both_encodings() -> None:
    positions = random_positions(200, seed=5)
    dense = encode_many(positions, with_features=True)
    assert dense.shape == (200, FEATURED_INPUTS) == (200, INPUTS + len(FEATURE_NAMES))
    assert (dense[:, :INPUTS] == encode_many(positions)).all()
    for row, (me, opp) in enumerate(positions):
        plain = [0.0] * FEATURED_INPUTS
        for index, value in encode(me, opp, with_features=True):
            plain[index] = value
        assert dense[row].tolist() == plain
        assert plain[INPUTS:] == features(me, opp)


def test_a_weights_file_must_name_the_features_this_engine_computes(tmp_path: Path) -> None:
    shipped = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert shipped["features"] == list(FEATURE_NAMES)
    assert load_network().with_features
    renamed = shipped | {"features": ["shots", *FEATURE_NAMES[1:]]}
    (tmp_path / "renamed.json").write_text(json.dumps(renamed), encoding="utf-8")
    with pytest.raises(ValueError, match="reads features"):
        load_network(tmp_path / "renamed.json")
    # Without the list the file claims the raw encoding, and its weights do not fit it.
    (tmp_path / "unnamed.json").write_text(
        json.dumps({key: value for key, value in shipped.items() if key != "features"}),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="not a network over this encoding"):
        load_network(tmp_path / "unnamed.json")


def test_numpy_equities_equal_the_plain_forward_pass() -> None:
    network = GAME.network
    positions = random_positions(200, seed=2)
    batch = network.equities(positions)
    for (me, opp), equity in zip(positions, batch, strict=True):
        assert equity == pytest.approx(network.equity(me, opp), abs=1e-9)
        assert -3.0 <= equity <= 3.0
    chances = network.outputs(*positions[0])
    assert len(chances) == len(OUTPUTS) and all(0.0 <= p <= 1.0 for p in chances)


def test_the_shipped_network_says_how_it_was_trained() -> None:
    network = load_network()
    settings = network.settings
    for name in ("method", "games", "plies", "positions", "hidden", "epochs", "seed", "reproduce"):
        assert name in settings, name
    assert settings["hidden"] == network.hidden
    # Distilled from gnubg's evaluations of positions the TD network played:
    # the commands start from that network, kept in training/.
    assert "training.backgammon_distill" in settings["reproduce"]
    assert "--network training/backgammon_td80.json" in settings["reproduce"]
    # With the hand-made features, and every play of rolls drawn from those positions.
    assert settings["features"] is True and network.with_features
    steps = [command.split()[3] for command in settings["reproduce"].split(" && ")]
    assert steps == ["positions", "label", "plays", "label", "fit", "export"]
    assert "--features" in settings["reproduce"] and "--more" in settings["reproduce"]
    assert "/work/" not in settings["reproduce"]  # the repository's own paths


def test_the_td_network_the_distillation_started_from_is_kept_with_its_training() -> None:
    td = load_network(Path(__file__).parents[3] / "training" / "backgammon_td80.json")
    assert not td.with_features  # the raw encoding alone, as TD(λ) trains it
    for name in ("games", "games_trained", "hidden", "lam", "lr", "lr_final", "seed", "reproduce"):
        assert name in td.settings, name
    assert "training.backgammon_td" in td.settings["reproduce"]


def test_evaluate_many_equals_evaluate_and_scores_finished_games() -> None:
    states = [BgState(me, opp, 0, None) for me, opp in random_positions(50, seed=3)]
    outside = (0,) * 6 + (15,) + (0,) * 18  # all 15 on the 7 point: none off, none behind
    gammoned = BgState(outside, (0,) * 25, 1, None)  # the opponent bore off all 15
    states.append(gammoned)
    values = GAME.evaluate_many(states)
    assert values == [GAME.evaluate(state) for state in states]
    assert values[-1] == -2 * POINT
    assert all(abs(value) <= VALUE_BOUND for value in values)


def test_the_network_knows_a_won_race_from_a_lost_one() -> None:
    ahead = (2, 2, 2, 0, 0, 0) + (0,) * 19  # 6 checkers on the 1-3 points, the rest off
    behind = (0,) * 18 + (3, 3, 3, 3, 3, 0) + (0,)  # 15 checkers in the opponent's home board
    assert GAME.evaluate(BgState(ahead, behind, 0, None)) > 0.9 * POINT
    assert GAME.evaluate(BgState(behind, ahead, 0, None)) < -0.9 * POINT


def test_ordered_moves_put_the_network_s_choice_first() -> None:
    for me, opp in random_positions(20, seed=4):
        state = BgState(me, opp, 0, (5, 2))
        moves = GAME.ordered_moves(state)
        assert sorted(moves) == sorted(GAME.legal_moves(state))
        values = [-GAME.evaluate(GAME.play(state, move)) for move in moves]
        assert values[0] == max(values)


def test_a_bear_off_that_wins_is_ordered_first() -> None:
    me = (1,) + (0,) * 24
    opp = (0,) * 18 + (1,) + (0,) * 6
    state = BgState(me, opp, 0, (1, 1))
    assert GAME.ordered_moves(state)[0] == ((0, -1),)


def test_an_empty_batch_is_evaluated_in_either_encoding() -> None:
    # The search may ask for no positions at all; the feature columns must not
    # need a row to know their width.
    assert encode_many([], with_features=True).shape == (0, FEATURED_INPUTS)
    assert encode_many([]).shape == (0, INPUTS)
    assert load_network().equities([]) == []

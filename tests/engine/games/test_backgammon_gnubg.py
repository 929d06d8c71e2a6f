"""Backgammon positions against GNU Backgammon itself (skipped where gnubg is not installed).

GNU Backgammon (the Debian package, 1.07) plays a few seeded cubeless games
against itself at 0-ply, both sides human-controlled so nothing plays by
itself (``gnubg_record.py``, run inside gnubg). Our engine replays them:
every gnubg move must be legal here, our position text must carry gnubg's
Position ID at every decision and between every move and the next roll,
and gnubg's ID with the player on roll and the dice, and its full
``PositionID:MatchID``, must parse to our state, and our
:meth:`~engine.games.backgammon.Backgammon.gnubg_id` must be gnubg's own
``gnubgid()`` (the recorder plays cubeless, ``set cube use off``), but for
the score: the recorded games are one gnubg session, so gnubg's score
counts the games before (ours is each game's alone). The reverse: gnubg's
``set board`` of IDs our engine wrote (for random positions of ours), and
its ``set gnubgid`` of our full IDs, give the same boards, player on roll
and dice.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench.programs import find_program
from engine.errors import BadPositionError
from engine.game import CHANCE
from engine.games.backgammon import Backgammon, BgState, decode_match_id, encode_match_id
from tests.engine.games.test_backgammon import random_states
from tests.timing import UNIT

GAME = Backgammon()
RECORDER = Path(__file__).with_name("gnubg_record.py")


def _gnubg() -> str | None:
    return find_program("gnubg")


pytestmark = pytest.mark.skipif(
    _gnubg() is None, reason="GNU Backgammon (gnubg) is not installed (apt-get install gnubg)"
)


def run_gnubg(
    tmp_path: Path, games: int, requests: list[dict[str, Any]] | None = None
) -> list[Any]:
    """Run the recorder inside gnubg; one JSON value per output line."""
    gnubg = _gnubg()
    assert gnubg is not None
    out = tmp_path / "record.jsonl"
    env = dict(os.environ, GNUBG_RECORD_OUT=str(out), GNUBG_RECORD_GAMES=str(games))
    env["GNUBG_RECORD_SEED"] = "1"
    if requests is not None:
        wanted = tmp_path / "requests.jsonl"
        wanted.write_text("".join(json.dumps(request) + "\n" for request in requests))
        env["GNUBG_RECORD_SET"] = str(wanted)
    done = subprocess.run(
        [gnubg, "-t", "-q", "-p", str(RECORDER)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120 * UNIT,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = out.read_text().splitlines() if out.exists() else []
    expected = games + (requests is not None)
    assert len(lines) == expected, done.stdout[-3000:] + done.stderr[-2000:]
    return [json.loads(line) for line in lines]


def dice_text(dice: list[int]) -> str:
    return "-" if dice[0] == 0 else f"{dice[0]}-{dice[1]}"


def check_snapshot(state: BgState, snap: dict[str, Any], start_score: tuple[int, int]) -> None:
    where = f"gnubg {snap['gnubgid']} turn {snap['turn']} dice {snap['dice']}"
    ours = GAME.format_position(state)
    position_id, turn, dice = ours.split()
    assert position_id == snap["positionid"], f"{ours} vs {where}"
    assert int(turn) == snap["turn"], f"{ours} vs {where}"
    assert dice == ("-" if snap["dice"][0] == 0 else "-".join(map(str, sorted(snap["dice"])[::-1])))
    # gnubg.board() is (the player not on roll, the player on roll).
    assert [list(state.opp), list(state.me)] == snap["board"], where
    text = f"{snap['positionid']} {snap['turn']} {dice_text(snap['dice'])}"
    assert GAME.parse_position(text) == state, where
    # Our gnubg ID is gnubg's own, the session's earlier games taken off its score.
    gnubg_position_id, _, gnubg_match_id = snap["gnubgid"].partition(":")
    fields = decode_match_id(gnubg_match_id)
    score = (fields.score[0] - start_score[0], fields.score[1] - start_score[1])
    expected = f"{gnubg_position_id}:{encode_match_id(fields._replace(score=score))}"
    assert GAME.gnubg_id(state) == expected, f"{GAME.gnubg_id(state)} vs {where}"
    if start_score == (0, 0):
        assert GAME.gnubg_id(state) == snap["gnubgid"], where
    if snap["gamestate"] == 1:
        assert GAME.parse_position(snap["gnubgid"]) == state, where
    else:
        with pytest.raises(BadPositionError, match="game is over"):
            GAME.parse_position(snap["gnubgid"])


def replay(events: list[dict[str, Any]]) -> tuple[int, int]:
    """Replay one recorded game in our engine; (moves, snapshots) checked."""
    state = GAME.initial_state()
    first = events[0]
    high, low = sorted(first["dice"], reverse=True)
    # The opening roll is (player 0's die, player 1's): the higher die moves first.
    state = GAME.play(state, (high, low) if first["turn"] == 0 else (low, high))
    moves = snapshots = 0
    start_score = decode_match_id(first["matchid"]).score
    for event in events:
        if event["kind"] == "move":
            if event.get("rolled") is False:
                # gnubg passed as it rolled: any roll that leaves no move will do.
                assert GAME.to_move(state) == CHANCE
                blocked = [
                    roll
                    for roll in GAME.legal_moves(state)
                    if GAME.legal_moves(GAME.play(state, roll)) == [()]
                ]
                assert blocked, GAME.format_position(state)
                state = GAME.play(state, blocked[0])
            text = event["move"] or "pass"
            move = GAME.parse_move(state, text)  # raises if gnubg's move is illegal here
            state = GAME.play(state, move)
            moves += 1
            continue
        if GAME.to_move(state) == CHANCE and event["dice"][0] != 0:
            dice = sorted(event["dice"], reverse=True)
            state = GAME.play(state, (dice[0], dice[1]))
        check_snapshot(state, event, start_score)
        snapshots += 1
    assert GAME.outcome(state) is not None
    return moves, snapshots


def test_gnubg_games_replay_with_the_same_position_ids(tmp_path: Path) -> None:
    games = run_gnubg(tmp_path, 6)
    totals = [replay(events) for events in games]
    # Game 1 starts the session at 0-0: there our gnubg IDs are gnubg's exactly.
    assert decode_match_id(games[0][0]["matchid"]).score == (0, 0)
    assert decode_match_id(games[-1][0]["matchid"]).score != (0, 0)
    assert sum(moves for moves, _ in totals) > 300
    assert sum(snapshots for _, snapshots in totals) > 600


def our_states(count: int, seed: int) -> list[BgState]:
    """Random positions of ours, decisions and chance states, from random games."""
    return random_states(count, seed, keep=lambda state: not state.opening)


def test_gnubg_reads_the_position_ids_we_write(tmp_path: Path) -> None:
    states = our_states(300, seed=5)
    requests = []
    for state in states:
        position_id, turn, _ = GAME.format_position(state).split()
        requests.append({"positionid": position_id, "turn": int(turn), "dice": state.dice})
    (results,) = run_gnubg(tmp_path, 0, requests)
    for state, snap in zip(states, results, strict=True):
        where = GAME.format_position(state)
        assert snap["board"] == [list(state.opp), list(state.me)], where
        assert snap["turn"] == state.turn, where
        assert snap["positionid"] == where.split()[0]
        assert snap["dice"] == list(state.dice or (0, 0)), where
        if state.dice is not None:
            assert GAME.parse_position(snap["gnubgid"]) == state, where


def test_gnubg_sets_the_gnubg_ids_we_write(tmp_path: Path) -> None:
    states = our_states(300, seed=6)
    requests = [{"gnubgid": GAME.gnubg_id(state)} for state in states]
    assert all(request["gnubgid"] for request in requests)
    (results,) = run_gnubg(tmp_path, 0, requests)
    for state, request, snap in zip(states, requests, results, strict=True):
        where = f"{GAME.format_position(state)} = {request['gnubgid']}"
        assert snap["board"] == [list(state.opp), list(state.me)], where
        assert snap["turn"] == state.turn, where
        assert snap["dice"] == list(state.dice or (0, 0)), where
        assert snap["gamestate"] == 1, where
        assert snap["gnubgid"] == request["gnubgid"], where

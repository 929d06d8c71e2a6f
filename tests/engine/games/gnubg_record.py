"""Run inside GNU Backgammon (``gnubg -t -q -p gnubg_record.py``): record seeded games.

Not a test module: tests/engine/games/test_backgammon_gnubg.py runs it. Both
players are human-controlled (nothing plays by itself) and every move is
gnubg's own 0-ply choice (cubeless). Each game is a list of events, written
as one JSON line per game to the file named by ``GNUBG_RECORD_OUT``:
``{"kind": "state", ...}`` snapshots (Position ID, Match ID, GNU Backgammon
ID, the player on roll, the dice, the board) at every decision and between
every move and the next roll, and ``{"kind": "move", "move": ...}`` with the
move string gnubg plays (``""`` when it cannot move; gnubg then passes as it
rolls, without showing the dice: ``"rolled": false``). The games are one
session: each game's score starts from the points of the games before it.
With ``GNUBG_RECORD_SET`` (a file of JSON requests, one a line), a last line
holds a snapshot after each request: ``{"gnubgid": ...}`` is set by ``set
gnubgid``, else ``{"positionid", "turn", "dice"}`` by ``set turn``, ``set
board`` and ``set dice``.
"""

import json
import os

import gnubg  # type: ignore[import-not-found]  # only inside GNU Backgammon

GAMES = int(os.environ.get("GNUBG_RECORD_GAMES", "4"))
SEED = int(os.environ.get("GNUBG_RECORD_SEED", "1"))

for setting in (
    "set player 0 human",
    "set player 1 human",
    "set automatic roll off",
    "set automatic game off",
    "set automatic move off",
    "set display off",
    "set rng mersenne",
    "set cube use off",
    "set jacoby off",
):
    gnubg.command(setting)
CONTEXT = gnubg.evalcontext(0, 0, 1, 1, 0.0)  # cubeless, 0 plies, deterministic


def snapshot() -> dict[str, object]:
    info = gnubg.posinfo()
    return {
        "kind": "state",
        "positionid": gnubg.positionid(),
        "matchid": gnubg.matchid(),
        "gnubgid": gnubg.gnubgid(),
        "turn": info["turn"],
        "dice": list(info["dice"]),
        "gamestate": info["gamestate"],
        "board": [list(half) for half in gnubg.board()],
    }


with open(os.environ["GNUBG_RECORD_OUT"], "w") as out:
    for game in range(GAMES):
        gnubg.command(f"set seed {SEED + game}")
        gnubg.command("new game")  # rolls the opening dice
        events = [snapshot()]
        while gnubg.posinfo()["gamestate"] == 1:
            info = gnubg.posinfo()
            if info["dice"][0] == 0:
                gnubg.command("roll")
                after = gnubg.posinfo()
                if after["dice"][0] == 0 or after["turn"] != info["turn"]:
                    # No legal move: gnubg passes at once (its dice are gone).
                    events.append({"kind": "move", "move": "", "rolled": False})
                    events.append(snapshot())
                    continue
                events.append(snapshot())
            board = gnubg.board()
            cube = gnubg.cubeinfo(1, -1, gnubg.posinfo()["turn"], 0)
            best = gnubg.findbestmove(board, cube, CONTEXT)
            text = gnubg.movetupletostring(best, board) if any(best) else ""
            events.append({"kind": "move", "move": text})
            gnubg.command(f"move {text}" if text else "move")
            events.append(snapshot())
        out.write(json.dumps(events) + "\n")
        out.flush()
    # The reverse direction: positions our engine wrote, read back by gnubg.
    requests = os.environ.get("GNUBG_RECORD_SET")
    if requests:
        gnubg.command("new game")
        results = []
        with open(requests) as lines:
            wanted = [json.loads(line) for line in lines]
        for request in wanted:
            if "gnubgid" in request:
                gnubg.command(f"set gnubgid {request['gnubgid']}")
            else:
                gnubg.command(f"set turn {request['turn']}")
                gnubg.command(f"set board {request['positionid']}")
                if request["dice"]:
                    gnubg.command("set dice {} {}".format(*request["dice"]))
            results.append(snapshot())
        out.write(json.dumps(results) + "\n")

#!/usr/bin/env python3
"""A Connect Four bot for arena (docs/bots.md): win if it can, else block, else near the centre."""

import json
import sys


def four(board, x, y, me):  # would a disc of `me` at (x, y) make four in a row?
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for step in (1, -1):
            k = 1
            while board.get((x + step * k * dx, y + step * k * dy)) == me:
                run, k = run + 1, k + 1
        if run >= 4:
            return True
    return False


for line in sys.stdin:  # one request per line, one answer per request
    request = json.loads(line)
    board, height = {}, {}
    for i, column in enumerate(request["position"]):  # the columns played so far
        x = int(column)
        board[x, height.get(x, 0)] = i % 2
        height[x] = height.get(x, 0) + 1
    me, centre = request["to_move"], (request["options"]["width"] + 1) / 2
    legal = sorted(request["legal"], key=lambda m: abs(int(m) - centre))
    win = [m for m in legal if four(board, int(m), height.get(int(m), 0), me)]
    block = [m for m in legal if four(board, int(m), height.get(int(m), 0), 1 - me)]
    move = (win or block or legal)[0]
    why = "win" if win else "block" if block else "centre"
    print(json.dumps({"move": move, "comment": why, "request": request["request"]}))
    sys.stdout.flush()

"""A minimal engine server for tic-tac-toe, written from protocol.md section 11 alone.

``python minimal_engine_server.py PORT`` serves on ws://127.0.0.1:PORT/ws.
Its own rules (no import from this project): it keeps the board, answers
``hello``, ``new_game``, ``move`` and ``think`` (a winning move, else a
block, else the first legal one) in msgpack, and nothing else. It is
strict where the section lets it be: a ``clock`` field other than the three
the section names is answered with an error.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, serve

CELLS = [f"{column}{row}" for row in "321" for column in "abc"]  # the position's order
#: The clock fields the section names (a referee sends no other unless told).
CLOCK_FIELDS = {"time_ms", "inc_ms", "moves_to_go"}
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board: list[str]) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def state(board: list[str], request_id: int) -> dict[str, Any]:
    to_move = 0 if board.count("X") == board.count("O") else 1
    over = winner(board) is not None or "." not in board
    legal = [] if over else [CELLS[i] for i in range(9) if board[i] == "."]
    return {
        "type": "state",
        "id": request_id,
        "game": "tictactoe",
        "position": "".join(board),
        "to_move": to_move,
        "legal_moves": legal,
        "result": None,
    }


def choose(board: list[str]) -> str:
    me = "X" if board.count("X") == board.count("O") else "O"
    empty = [i for i in range(9) if board[i] == "."]
    for mark in (me, "O" if me == "X" else "X"):  # win, else block
        for i in empty:
            trial = board.copy()
            trial[i] = mark
            if winner(trial) == mark:
                return CELLS[i]
    return CELLS[empty[0]]


async def session(ws: ServerConnection) -> None:
    board = ["."] * 9
    async for frame in ws:
        request = msgpack.unpackb(frame)
        kind, request_id = request.get("type"), request.get("id")
        if kind == "hello":
            reply: dict[str, Any] = {"type": "welcome", "id": request_id, "protocol": 1}
        elif kind == "new_game":
            board = list(request.get("position") or "." * 9)
            for move in request.get("moves") or []:
                board[CELLS.index(move)] = "X" if board.count("X") == board.count("O") else "O"
            reply = state(board, request_id)
        elif kind == "move":
            board[CELLS.index(request["move"])] = (
                "X" if board.count("X") == board.count("O") else "O"
            )
            reply = state(board, request_id)
        elif kind == "think" and set(request["limits"].get("clock") or {}) - CLOCK_FIELDS:
            reply = {"type": "error", "id": request_id, "code": "bad_message", "message": "clock"}
        elif kind == "think":
            reply = {
                "type": "bestmove",
                "id": request_id,
                "move": choose(board),
                "score": {"value": 0},
            }
        else:
            continue  # stop: the answer is always immediate
        await ws.send(msgpack.packb(reply))


async def main(port: int) -> None:
    async with serve(session, "127.0.0.1", port) as server:
        print("ready", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))

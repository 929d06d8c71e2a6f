"""A ``cmd:`` bot (docs/bots.md) that misbehaves on request: ``fake_cmd_bot.py MODE``.

Modes: ``good`` (the first legal move, with a score, a pv and a comment),
``plain`` (only the move), ``garbage`` (lines that are no answer, never a
move), ``badjson`` (a line that looks like JSON and is not), ``nothing``
(reads, never answers), ``two`` (two answers per request), ``crash`` (a
message on stderr, exit 3), ``quietexit`` (exit 3 with nothing on stderr), ``flood`` (20,000
lines that are no answer),
``fork`` (starts children that sleep, their
pids on stderr, then answers), ``alloc`` (allocates without bound),
``sleep`` (answers long after its budget), ``early`` (writes to stdout
before it is asked), ``illegal`` (answers a move that is not legal),
``nomove`` (an answer without a move), ``error`` (answers ``{"error": ...}``,
as ``clients.bot`` does when the function raises), ``slowstart`` (works
for a while before it reads its first request, then answers at once),
``poll`` (a thread that wakes every few milliseconds beside the reading one,
as a runtime's timers do; answers at once), ``inf`` (a score of Infinity,
as Python's json writes ``float("inf")``), ``nan`` (a score of NaN),
``bigcomment`` (a 20 KB comment), ``twicelate`` (answers the first legal
move naming its request, then a little later the last legal move, naming
the same request: a late second answer; ``ARENA_FAKE_DELAY_S`` sets the
delay), ``debugprints`` (prints a dict, a lone ``{`` and a JSON debug
line before each answer).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time


def answer(body: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    if mode == "slowstart":
        # A start's imports: CPU for a while, before the first read.
        until = time.monotonic() + float(sys.argv[2])
        while time.monotonic() < until:
            pass
    if mode == "poll":

        def tick() -> None:
            while True:
                time.sleep(0.003)

        threading.Thread(target=tick, daemon=True).start()
    if mode == "early":
        print("hello, I am starting", flush=True)
        print("[1, 2, 3]", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        move = request["legal"][0]
        print(f"request {request['request']}: {len(request['legal'])} moves", file=sys.stderr)
        if mode == "good":
            answer({"move": move, "score": 7, "depth": 2, "pv": [move], "comment": "first legal"})
        elif mode in ("plain", "early", "slowstart", "poll"):
            answer({"move": move})
        elif mode == "garbage":
            for _ in range(5):
                print("thinking very hard", flush=True)
        elif mode == "badjson":
            print("{move: " + move, flush=True)
        elif mode == "debugprints":
            # What students print while they debug, then the answer.
            print({"legal": request.get("legal", [])[:3]}, flush=True)  # a dict's repr
            print("{", flush=True)  # node's console.log of an object begins so
            print(json.dumps({"debug": "thinking", "n": 7}), flush=True)
            answer({"move": move})
        elif mode == "nothing":
            pass
        elif mode == "two":
            sys.stdout.write(json.dumps({"move": move}) + "\n" + json.dumps({"move": move}) + "\n")
            sys.stdout.flush()
        elif mode == "crash":
            print("Traceback: something broke", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "quietexit":
            sys.exit(3)
        elif mode == "flood":
            sys.stdout.write("debug line\n" * 20_000)
            sys.stdout.flush()
        elif mode == "fork":
            for _ in range(3):
                pid = os.fork()
                if pid == 0:
                    time.sleep(1000)
                    os._exit(0)
                print(f"child {pid}", file=sys.stderr, flush=True)
            answer({"move": move})
        elif mode == "alloc":
            hoard = []
            while True:
                hoard.append(bytes(64 * 1024 * 1024))
        elif mode == "sleep":
            time.sleep(1000)
        elif mode == "illegal":
            answer({"move": "not-a-move"})
        elif mode == "nomove":
            answer({"score": 3})
        elif mode == "error":
            answer({"error": "ValueError: a student's bug"})
        elif mode == "inf":
            answer({"move": move, "score": float("inf")})
        elif mode == "nan":
            answer({"move": move, "score": float("nan")})
        elif mode == "bigcomment":
            answer({"move": move, "comment": "c" * 20000})
        elif mode == "twicelate":
            number = request["request"]
            answer({"move": move, "request": number})
            time.sleep(float(os.environ.get("ARENA_FAKE_DELAY_S", "0.1")))
            answer({"move": request["legal"][-1], "request": number})


if __name__ == "__main__":
    main()

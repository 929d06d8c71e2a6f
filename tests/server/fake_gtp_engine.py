"""A GTP engine for the external-engine tests, hostile on purpose.

``python fake_gtp_engine.py [MODE]``:

* ``slow`` (the default): never finishes a ``genmove``, so that a think can
  only end by ``stop`` or its deadline;
* ``quick``: answers ``genmove`` at once with a legal move (``pass``);
* ``crash``: exits when asked for a move;
* ``illegal``: answers ``genmove`` with a point off the board;
* ``flood``: answers, but prints lines without end, even while idle;
* ``nohandshake``: never answers anything;
* ``clock``: answers ``pass`` when it was given absolute time (``time_settings
  S 0 0`` with the mover's ``time_left`` of as many seconds and no stones),
  ``A1`` when besides the opponent's ``time_left`` was given, else an
  illegal point: the test of how a clock is told.

Every other command is accepted.
"""

from __future__ import annotations

import sys
import threading
import time


def say(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def flood() -> None:
    lines = ("stray output " + "y" * 100 + "\n") * 100
    try:
        while True:
            say(lines)
    except (BrokenPipeError, OSError):
        return


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "slow"
    if mode == "flood":
        threading.Thread(target=flood, daemon=True).start()
    settings: list[str] = []
    left: dict[str, list[str]] = {}
    for line in sys.stdin:
        command = line.split()[0] if line.split() else ""
        if command == "time_settings":
            settings = line.split()[1:]
        if command == "time_left":
            left[line.split()[1]] = line.split()[2:]
        if command == "quit":
            return
        if mode == "nohandshake":
            continue
        if command == "genmove":
            if mode == "crash":
                sys.exit(3)
            if mode == "quick":
                say("= pass\n\n")
                continue
            if mode == "clock":
                colour = line.split()[1]
                other = "white" if colour == "black" else "black"
                own = left.get(colour, [])
                absolute = len(settings) == 3 and settings[1:] == ["0", "0"] and own[1:] == ["0"]
                same = absolute and settings[0] == own[0] and int(own[0]) >= 1
                answer = "A1" if other in left else "pass"
                say(f"= {answer}\n\n" if same else "= Z99\n\n")
                left.clear()
                continue
            if mode == "illegal":
                say("= Z99\n\n")
                continue
            while True:
                time.sleep(1)
        say("= 2\n\n" if command == "protocol_version" else "=\n\n")


if __name__ == "__main__":
    main()

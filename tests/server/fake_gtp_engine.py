"""A GTP engine for the external-engine tests, hostile on purpose.

``python fake_gtp_engine.py [MODE]``:

* ``slow`` (the default): never finishes a ``genmove``, so that a think can
  only end by ``stop`` or its deadline;
* ``quick``: answers ``genmove`` at once with a legal move (``pass``);
* ``crash``: exits when asked for a move;
* ``illegal``: answers ``genmove`` with a point off the board;
* ``flood``: answers, but prints lines without end, even while idle;
* ``nohandshake``: never answers anything.

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
    for line in sys.stdin:
        command = line.split()[0] if line.split() else ""
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
            if mode == "illegal":
                say("= Z99\n\n")
                continue
            while True:
                time.sleep(1)
        say("= 2\n\n" if command == "protocol_version" else "=\n\n")


if __name__ == "__main__":
    main()

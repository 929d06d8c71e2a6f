"""A GTP engine for the external-engine tests that never finishes a ``genmove``.

It accepts every other command, so that a think reaches ``genmove`` and can
only end by ``stop`` or its deadline.
"""

from __future__ import annotations

import sys
import time


def main() -> None:
    for line in sys.stdin:
        command = line.split()[0] if line.split() else ""
        if command == "quit":
            return
        if command == "genmove":
            while True:
                time.sleep(1)
        sys.stdout.write("= 2\n\n" if command == "protocol_version" else "=\n\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

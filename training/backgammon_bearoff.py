"""Build the one-sided bear-off tables the backgammon engine ships.

Run from the repository root (a few minutes; no other program needed)::

    python -m training.backgammon_bearoff [--out engine/games/backgammon_bearoff.npz]

The tables are computed from the rules alone by the recurrences of
:mod:`engine.games.backgammon_bearoff` (read its guide): for each of the
54,264 home boards of up to 15 checkers, the chances of needing 1, 2, ...
rolls to bear off every checker, and for boards of 15 checkers the same to
bear off the first. The run is deterministic: the same file each time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from engine.games.backgammon_bearoff import TABLES_FILE, build, quantise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=TABLES_FILE, help="(%(default)s)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    off, first = build()
    np.savez_compressed(args.out, off=quantise(off), first=quantise(first))
    seconds = time.monotonic() - started
    size = args.out.stat().st_size
    print(
        f"wrote {args.out}: {len(off):,} boards, {size:,} bytes, {seconds:.0f} s", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

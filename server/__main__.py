"""``python -m server``: the same as ``arena serve``."""

from __future__ import annotations

import argparse

from server.app import add_arguments, run_from_args


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m server", description="Run the engine server.")
    add_arguments(parser)
    return run_from_args(parser.parse_args(), prog="python -m server")


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m server``: the same as ``arena serve``."""

from __future__ import annotations

import argparse
from typing import NoReturn

from server.cli import add_arguments, run_from_args


class _Parser(argparse.ArgumentParser):
    """Errors in one line, as ``arena``'s."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main() -> int:
    parser = _Parser(prog="python -m server", description="Run the engine server.")
    add_arguments(parser)
    return run_from_args(parser.parse_args(), prog="python -m server")


if __name__ == "__main__":
    raise SystemExit(main())

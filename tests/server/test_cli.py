"""The ``arena serve`` command line builds one configuration, and its limits are the server's."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from protocol.limits import ServerLimits
from server.app import ArenaServer
from server.cli import add_arguments, config_from_args
from server.config import ServerConfig


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_options_defaults_are_the_configs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    assert config_from_args(parse()) == ServerConfig()


def test_the_limit_options_reach_the_one_limits_the_server_runs_with() -> None:
    config = config_from_args(
        parse("--max-movetime-ms", "1234", "--hello-timeout-ms", "567", "--max-queue", "3")
    )
    assert config.limits == ServerLimits(max_movetime_ms=1234, hello_timeout_ms=567, max_queue=3)
    server = ArenaServer(config)
    assert server.limits.max_movetime_ms == 1234
    assert server.limits.hello_timeout_ms == 567
    assert server.limits.max_queue == server.pool.max_queue == 3
    assert server.limits.to_wire()["max_queue"] == 3


def test_an_external_program_that_is_not_executable_is_said_so(tmp_path: Path) -> None:
    """A review of 2026-12-07: a script without its execute bit was refused
    with "cannot find the program", though the file was there."""
    from server.cli import _externals

    script = tmp_path / "bot.py"
    script.write_text("print('hello')\n")
    with pytest.raises(ValueError, match=r"is not executable \(chmod \+x .*bot\.py"):
        _externals([f"connect4:mine=cmd:{script}"])
    with pytest.raises(ValueError, match="cannot find the program"):
        _externals([f"connect4:mine=cmd:{tmp_path / 'missing.py'}"])

"""One engine on several servers: ``url=ws://a/ws|ws://b/ws`` sends its games to them in turn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clients.tournament.config import ConfigError, EngineSpec, TimeControl, parse_engine
from server.app import ArenaServer
from tests.clients.tournament.helpers import config, play
from tests.server.server_harness import running_server


def _url(server: ArenaServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


def _new_games(server: ArenaServer) -> int:
    match = re.search(
        r'^arena_messages_received_total\{type="new_game"\} (\d+)',
        server.metrics.render(),
        re.MULTILINE,
    )
    return int(match.group(1)) if match else 0


def test_an_engine_spec_takes_several_urls() -> None:
    spec = parse_engine("name=pool,url=ws://a:1/ws|wss://b:2/ws,depth=3")
    assert spec.urls == ("ws://a:1/ws", "wss://b:2/ws")
    assert spec.url == "ws://a:1/ws|wss://b:2/ws"  # stored and resumed as given
    assert parse_engine("url=ws://a:1/ws | ws://b:2/ws").name == "a:1|b:2"
    with pytest.raises(ConfigError, match="several joined by"):
        parse_engine("url=ws://a:1/ws|local")
    with pytest.raises(ConfigError):
        parse_engine("url=ws://a:1/ws|")


async def test_the_games_of_one_engine_go_round_robin_over_its_urls(tmp_path: Path) -> None:
    async with (
        running_server(workers=1) as first,
        running_server(workers=1) as second,
        running_server(workers=1) as opponent,
    ):
        spread = EngineSpec("spread", f"{_url(first)}|{_url(second)}", depth=2)
        other = EngineSpec("other", _url(opponent), depth=2)
        tournament = config([spread, other], games=4, tc=TimeControl(depth=2))
        _, records = await play(tmp_path, tournament)
        assert len(records) == 4
        # Games 1 and 3 on the first server, 2 and 4 on the second; the
        # opponent's four on its own.
        assert (_new_games(first), _new_games(second), _new_games(opponent)) == (2, 2, 4)

"""protocol.md section 11 is enough to write an engine server a tournament plays (issue 31, 5).

minimal_engine_server.py was written from that section alone; here it
plays a tournament against our engine and loses no game by a fault.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from clients.cli import main
from tests.timing import UNIT

SERVER = Path(__file__).with_name("minimal_engine_server.py")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize("control", ["movetime", "clock"])
def test_a_server_written_from_section_11_plays_a_tournament(
    control: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a clock, too: the referee tells its own server the opponent's time
    (``clock.opponent_ms``), and a server that does not list that field in
    ``welcome.clock_fields`` is not sent it (this one refuses it)."""
    port = _free_port()
    timing = (
        ["--movetime", str(int(200 * UNIT))]
        if control == "movetime"
        else ["--tc", f"{30 * UNIT:g}+0.1"]
    )
    server = subprocess.Popen(
        [sys.executable, str(SERVER), str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        status = main(
            [
                "tournament",
                "--game",
                "tictactoe",
                "--engine",
                f"name=mini,url=ws://127.0.0.1:{port}/ws",
                "--engine",
                "local:depth=1",
                *timing,
                # Two test processes on two cores: a move late by more than the
                # default 100 ms lost a game on time (what this test is not about).
                "--margin",
                str(int(5000 * UNIT)),
                "--games",
                "4",
                "--db",
                str(tmp_path / "t.db"),
                "--quiet",
            ]
        )
    finally:
        server.terminate()
        server.wait(10 * UNIT)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "4 of 4 games played" in out
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(records) == 4
    ends = [(record["kind"], record.get("reason")) for record in records]
    assert all(kind == "rules" for kind, _ in ends), ends

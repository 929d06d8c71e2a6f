"""``arena tournament ... --web`` run as a user runs it: a process, its live page's URL."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.timing import UNIT, wait_until

#: The local server (real worker processes, pure Python on a busy machine) may
#: take this long to start and a small tournament this long to be played.
START_S = 90 * UNIT
PLAY_S = 240 * UNIT
URL_LINE = re.compile(r"live page at (http://[^ /]+/)")


@dataclass
class LiveRun:
    process: subprocess.Popen[bytes]
    url: str
    out: Path
    err: Path

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes, Any]:
        """Status, body and headers of ``GET path`` (a 304 or 404 is an answer too)."""
        request = urllib.request.Request(self.url + path.lstrip("/"), headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10 * UNIT) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read(), error.headers

    def json(self, path: str) -> Any:
        status, body, _ = self.get(path)
        assert status == 200, (path, status, body[:200])
        return json.loads(body)

    def output(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")


@contextmanager
def live_tournament(tmp_path: Path, args: list[str]) -> Iterator[LiveRun]:
    """Run the tournament with ``--web 127.0.0.1:0`` until the block ends (then SIGTERM)."""
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    env = {**os.environ, "ARENA_BOT_LOGS": str(tmp_path / "bot-logs")}
    command = [sys.executable, "-m", "clients", "tournament", *args]
    command += ["--db", str(tmp_path / "t.db"), "--web", "127.0.0.1:0"]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(command, cwd=tmp_path, stdout=stdout, stderr=stderr, env=env)
    try:
        found: list[str] = []

        def url_shown() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"the tournament ended: {err.read_text()}")
            found.extend(URL_LINE.findall(err.read_text(errors="replace")))
            return bool(found)

        wait_until(url_shown, START_S, "the live page's address")
        yield LiveRun(process, found[0], out, err)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30 * UNIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def stop(run: LiveRun) -> int:
    """SIGTERM, as Ctrl-C would; the exit status."""
    run.process.send_signal(signal.SIGTERM)
    return run.process.wait(30 * UNIT)

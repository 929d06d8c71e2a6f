"""Protocol fuzzing over a real socket: random bytes, random msgpack/JSON values and
mutated valid messages, some thousands in all.

Every frame must be answered with an ``error`` (with the code the
sans-I/O decoder predicts for it) or, when it is a valid request, with
that request's normal answer; the connection is never closed on a fuzzed
frame; the server stays up, and a well-behaved session playing and thinking
alongside the whole time never sees anything wrong.

The server runs as its own process; hypothesis drives a plain synchronous
client, and the well-behaved session is a thread of the test process.
Examples are derandomized: the same frames every run, so the test cannot
be flaky.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from protocol.codec import decode
from protocol.errors import ErrorCode, ProtocolError
from protocol.records import parse_request
from tests.server.server_harness import UNIT

REPO_ROOT = Path(__file__).resolve().parents[2]


def fuzz_settings(examples: int) -> settings:
    """Derandomized (the same frames every run), no deadline, no example database."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


#: Examples per strategy: many of the cheap flat ones, fewer of the nested
#: ones (generating deep values costs hypothesis more than the server).
FLAT_EXAMPLES = 800
NESTED_EXAMPLES = 200
TOTAL_EXAMPLES = 2 * FLAT_EXAMPLES + 3 * NESTED_EXAMPLES
ERROR_CODES = {code.value for code in ErrorCode}
ANSWER_TYPES = {"error", "welcome", "state", "info", "bestmove"}


class ServerProcess:
    """``python -m server`` with one worker, in its own process (no GIL shared with the
    fuzzer), its log drained by a thread."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", "0", "--workers", "1"],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        self.log: list[str] = []
        port = None
        deadline = time.monotonic() + 30 * UNIT
        while port is None:
            line = self.process.stderr.readline()
            assert line and time.monotonic() < deadline, "the server did not start"
            self.log.append(line)
            match = re.search(r"listening on ws://[\d.]+:(\d+)/ws", line)
            port = int(match.group(1)) if match else None
        self.port = port
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if "ERROR" in line or "Traceback" in line:
                self.log.append(line)

    def close(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(20 * UNIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


class WellBehaved(threading.Thread):
    """Plays Connect Four with thinks of 100 ms for as long as the fuzzing runs."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop_event = threading.Event()
        self.problems: list[str] = []
        self.thinks = 0

    def run(self) -> None:
        try:
            # No keepalive pings from this process's clients: websockets
            # draws their payloads from the global `random` in a thread of
            # its own, which Hypothesis then blames on the strategy that
            # happened to be drawing (HypothesisDeprecationWarning).
            with connect(
                f"ws://127.0.0.1:{self.port}/ws", compression=None, ping_interval=None
            ) as ws:
                while not self.stop_event.is_set():
                    self._one_game(ws)
        except Exception as error:  # any surprise is a problem to report
            self.problems.append(f"{type(error).__name__}: {error}")

    def _ask(self, ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
        ws.send(json.dumps(message))
        reply: dict[str, Any] = json.loads(ws.recv(timeout=5 * UNIT))
        return reply

    def _one_game(self, ws: ClientConnection) -> None:
        state = self._ask(ws, {"type": "new_game", "game": "connect4", "id": "g"})
        while state.get("type") == "state" and state["result"] is None:
            if self.stop_event.is_set():
                return
            sent = time.monotonic()
            ws.send(json.dumps({"type": "think", "id": "t", "limits": {"movetime_ms": 100}}))
            while True:
                message = json.loads(ws.recv(timeout=5 * UNIT))
                if message.get("type") != "info":
                    break
            late = time.monotonic() - sent - 0.1
            self.thinks += 1
            if message.get("type") != "bestmove" or message["move"] not in state["legal_moves"]:
                self.problems.append(f"bad answer to think: {message}")
                return
            if late > 1.0 * UNIT:  # gross only: this thread shares the GIL with hypothesis
                self.problems.append(f"bestmove {late * 1000:.0f} ms late")
            state = self._ask(ws, {"type": "move", "move": message["move"], "id": "m"})
        if state.get("type") != "state":
            self.problems.append(f"unexpected reply: {state}")


class Prober:
    """Sends one fuzzed frame, then a sentinel, and collects what came back in between."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ws.send(json.dumps({"type": "hello", "client": "fuzzer"}))  # no hello timeout
        assert json.loads(self.ws.recv(timeout=5 * UNIT))["type"] == "welcome"
        self.sentinels = 0
        self.frames = 0

    def probe(self, frame: bytes | str) -> list[dict[str, Any]]:
        self.frames += 1
        self.sentinels += 1
        sentinel = f"sentinel-{self.sentinels}"
        try:
            self.ws.send(frame)
            # end whatever the frame may have started, then mark the end
            self.ws.send(json.dumps({"type": "stop"}))
            self.ws.send(json.dumps({"type": "hello", "id": sentinel}))
            replies: list[dict[str, Any]] = []
            while True:
                raw = self.ws.recv(timeout=5 * UNIT)
                message = msgpack.unpackb(raw) if isinstance(raw, bytes) else json.loads(raw)
                if message.get("id") == sentinel:
                    assert message["type"] == "welcome"
                    return replies
                replies.append(message)
        except ConnectionClosed as closed:
            pytest.fail(f"the server closed the connection on {frame!r:.200}: {closed}")


@pytest.fixture(scope="module")
def fuzz_target() -> Iterator[tuple[ServerProcess, Prober]]:
    server = ServerProcess()
    bystander = WellBehaved(server.port)
    bystander.start()
    url = f"ws://127.0.0.1:{server.port}/ws"
    try:
        with connect(url, compression=None, max_size=1 << 20, ping_interval=None) as ws:
            prober = Prober(ws)
            yield server, prober
    finally:
        bystander.stop_event.set()
        bystander.join(10 * UNIT)
        assert server.process.poll() is None, "the server stayed up"
        assert server.close() == 0
    assert not [line for line in server.log if "ERROR" in line or "Traceback" in line]
    assert not bystander.problems, bystander.problems
    assert bystander.thinks >= 3, "the well-behaved session kept thinking throughout"
    assert prober.frames >= TOTAL_EXAMPLES * 0.9, prober.frames


def check_answer(frame: bytes | str, replies: list[dict[str, Any]]) -> None:
    """The server's answer is what the sans-I/O core predicts for ``frame``."""
    for reply in replies:
        assert reply.get("type") in ANSWER_TYPES, reply
    # answers to thinks (infos, bestmoves) may arrive late: set them aside
    answers = [reply for reply in replies if reply["type"] not in ("info", "bestmove")]
    try:
        request = parse_request(decode(frame)[1])
    except ProtocolError as error:
        assert len(answers) == 1, (frame, replies)
        assert answers[0]["type"] == "error" and answers[0]["code"] == error.code.value
        return
    kind = type(request).__name__
    assert len(answers) <= 1, (frame, replies)
    if answers and answers[0]["type"] == "error":
        assert answers[0]["code"] in ERROR_CODES
    elif kind == "Stop" or kind == "Think":
        assert not answers, (frame, replies)
    else:
        assert answers, f"a valid {kind} was not answered"


# ----------------------------------------------------------------------
# Strategies.

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)  # msgpack's range
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=12,
)
msgpack_values = st.recursive(
    scalars | st.binary(max_size=30) | st.floats(),
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.text(max_size=12) | st.integers(-5, 5), children, max_size=6)
    ),
    max_leaves=12,
)
TYPES = ["hello", "new_game", "move", "think", "stop", "bogus", ""]
FIELDS = [
    "type",
    "id",
    "protocol",
    "client",
    "token",
    "game",
    "options",
    "position",
    "moves",
    "move",
    "limits",
]
VALID = [
    {"type": "hello", "protocol": 1, "client": "fuzz", "id": 1},
    {"type": "new_game", "game": "connect4", "moves": ["4", "4"], "id": "x"},
    {"type": "new_game", "game": "nim", "options": {"heaps": [1, 2, 3], "misere": True}},
    {"type": "new_game", "game": "tictactoe", "position": "X.O......"},
    {"type": "move", "move": "4", "id": 2},
    {"type": "think", "limits": {"depth": 2, "movetime_ms": 30}, "id": 3},
    {"type": "think", "limits": {"clock": {"time_ms": 500, "inc_ms": 5, "moves_to_go": 3}}},
    {"type": "stop", "id": 3},
]
limit_maps = st.dictionaries(
    st.sampled_from(["movetime_ms", "depth", "nodes", "clock", "time_ms", "bogus"]),
    st.integers(-3, 10**12) | json_values,
    max_size=3,
)


@st.composite
def mutated_messages(draw: st.DrawFn) -> dict[str, Any]:
    message = dict(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(FIELDS) | st.text(max_size=8))
        action = draw(st.sampled_from(["set", "delete", "type", "limits"]))
        if action == "delete":
            message.pop(field, None)
        elif action == "type":
            message["type"] = draw(st.sampled_from(TYPES))
        elif action == "limits":
            message["limits"] = draw(limit_maps)
        else:
            message[field] = draw(json_values)
    return message


@st.composite
def corrupted_msgpack(draw: st.DrawFn) -> bytes:
    frame = bytearray(msgpack.packb(draw(st.sampled_from(VALID)), use_bin_type=True))
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(frame) - 1))
        frame[position] = draw(st.integers(0, 255))
    return bytes(frame[: draw(st.integers(1, len(frame)))])


# ----------------------------------------------------------------------
# The tests (all on one server and one fuzzing connection).


@fuzz_settings(FLAT_EXAMPLES)
@given(frame=st.binary(max_size=300) | st.text(max_size=300))
def test_random_bytes_and_text(
    fuzz_target: tuple[ServerProcess, Prober], frame: bytes | str
) -> None:
    check_answer(frame, fuzz_target[1].probe(frame))


@fuzz_settings(NESTED_EXAMPLES)
@given(value=msgpack_values)
def test_random_msgpack_values(fuzz_target: tuple[ServerProcess, Prober], value: Any) -> None:
    frame = msgpack.packb(value, use_bin_type=True)
    check_answer(frame, fuzz_target[1].probe(frame))


@fuzz_settings(NESTED_EXAMPLES)
@given(value=json_values)
def test_random_json_values(fuzz_target: tuple[ServerProcess, Prober], value: Any) -> None:
    frame = json.dumps(value)
    check_answer(frame, fuzz_target[1].probe(frame))


@fuzz_settings(NESTED_EXAMPLES)
@given(message=mutated_messages(), binary=st.booleans())
def test_mutated_valid_messages(
    fuzz_target: tuple[ServerProcess, Prober], message: dict[str, Any], binary: bool
) -> None:
    frame: bytes | str = (
        msgpack.packb(message, use_bin_type=True) if binary else json.dumps(message)
    )
    check_answer(frame, fuzz_target[1].probe(frame))


@fuzz_settings(FLAT_EXAMPLES)
@given(frame=corrupted_msgpack())
def test_corrupted_valid_frames(fuzz_target: tuple[ServerProcess, Prober], frame: bytes) -> None:
    check_answer(frame, fuzz_target[1].probe(frame))

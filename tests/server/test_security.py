"""Unwelcome clients: token, Origin and Host rules, token guessing, connection cap,
floods, silent sockets, text that is not Unicode."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from protocol.limits import ServerLimits
from server.guard import AccessPolicy, Admission, AuthFailures
from tests.server.server_harness import UNIT, RawClient, running_server, wait_until


async def expect_close(client: RawClient, code: int, timeout: float = 5 * UNIT) -> str:
    """Read until the connection closes; check the close code, return the reason."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await client.recv(timeout)
    assert closed.value.rcvd is not None, "the server closed with a close frame"
    assert closed.value.rcvd.code == code, closed.value.rcvd
    return closed.value.rcvd.reason


def url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/ws"


# ----------------------------------------------------------------------
# Decisions, without sockets.


def test_origin_rules() -> None:
    policy = AccessPolicy.create(None, ["https://Friend.example/"])
    host = "127.0.0.1:8765"
    assert policy.admit(None, host, None) is Admission.ACCEPT
    assert policy.admit("http://127.0.0.1:8765", host, None) is Admission.ACCEPT
    assert policy.admit("https://friend.example", host, None) is Admission.ACCEPT
    for origin in ("http://evil.example", "http://127.0.0.1:9999", "null", "file://"):
        assert policy.admit(origin, host, None) is Admission.BAD_ORIGIN, origin
    assert AccessPolicy.create(None, ["*"]).admit("http://x.example", host, None) is (
        Admission.ACCEPT
    )


def test_host_must_name_this_server_for_browsers() -> None:
    """DNS rebinding: evil.example re-pointed at 127.0.0.1 is same-origin with itself."""
    policy = AccessPolicy.create(None, [], ["0.0.0.0", "arena.lan"])
    evil = "evil.example:8765"
    assert policy.admit("http://evil.example:8765", evil, None) is Admission.BAD_HOST
    assert policy.admit(None, evil, None) is Admission.ACCEPT, "bots send no Origin"
    for host in (
        "localhost:8765",
        "LOCALHOST",
        "app.localhost:1",
        "127.0.0.1:8765",
        "[::1]:8765",
        "192.168.1.20:8765",
        "arena.lan:8765",
        "[fe80::1]",
    ):
        origin = f"http://{host.lower()}"
        assert policy.admit(origin, host, None) is Admission.ACCEPT, host
    assert (
        AccessPolicy.create(None, [], ["*"]).admit("http://evil.example:8765", evil, None)
        is Admission.ACCEPT
    ), "--allow-host '*' turns the check off"
    listed = AccessPolicy.create(None, ["http://evil.example:8765"])
    assert listed.admit("http://evil.example:8765", evil, None) is Admission.ACCEPT, (
        "an origin allowed by name needs no Host check"
    )


def test_token_rules() -> None:
    policy = AccessPolicy.create("s3cret")
    host = "127.0.0.1:8765"
    assert policy.admit(None, host, "Bearer s3cret") is Admission.ACCEPT
    assert policy.admit(None, host, "bearer  s3cret ") is Admission.ACCEPT
    assert policy.admit(None, host, "Bearer wrong") is Admission.UNAUTHORIZED
    assert policy.admit(None, host, "Basic s3cret") is Admission.UNAUTHORIZED
    assert policy.admit(None, host, None) is Admission.UNAUTHORIZED
    assert policy.admit(f"http://{host}", host, None) is Admission.ACCEPT_HELLO_TOKEN
    assert policy.admit(f"http://{host}", host, "Bearer wrong") is Admission.UNAUTHORIZED
    assert not policy.token_matches(None) and policy.token_matches("s3cret")


def test_token_guessing_is_slowed_per_peer() -> None:
    failures = AuthFailures(max_peers=2)
    delays = [failures.record("10.0.0.1", now=100.0 + n) for n in range(9)]
    assert delays[:5] == [0.0] * 5, "a few mistakes are free"
    assert delays[5:] == [0.25, 0.5, 1.0, 2.0]
    assert failures.record("10.0.0.2", now=110.0) == 0.0, "counted per peer"
    assert failures.record("10.0.0.1", now=200.0) == 0.0, "old failures leave the window"
    failures.record("10.0.0.3", now=201.0)
    assert failures.count("10.0.0.2") == 0, "the oldest peer is forgotten past max_peers"


# ----------------------------------------------------------------------
# Over real sockets.


async def test_token_required_of_bots_at_the_handshake() -> None:
    async with running_server(workers=1, token="s3cret") as server:
        for headers in ({}, {"Authorization": "Bearer nope"}):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(url(server.port), additional_headers=headers):
                    pass
            assert refused.value.response.status_code == 401
            assert refused.value.response.headers["WWW-Authenticate"].startswith("Bearer")
        async with connect(
            url(server.port), additional_headers={"Authorization": "Bearer s3cret"}
        ) as ws:
            reply = await RawClient(ws, "json").request({"type": "hello", "id": 1})
            assert reply["type"] == "welcome"


async def test_token_in_hello_for_browsers() -> None:
    async with running_server(workers=1, token="s3cret") as server:
        own = Origin(f"http://127.0.0.1:{server.port}")
        async with connect(url(server.port), origin=own) as ws:
            client = RawClient(ws, "json")
            reply = await client.request({"type": "hello", "token": "s3cret", "id": 1})
            assert reply["type"] == "welcome"
            state = await client.request({"type": "new_game", "game": "nim", "id": 2})
            assert state["type"] == "state"
        for first in (
            {"type": "hello", "token": "wrong"},
            {"type": "hello"},
            {"type": "new_game", "game": "nim"},
            "garbage, not JSON",  # seen: answered bad_message instead of closing
            {"type": "no_such_type"},
        ):
            async with connect(url(server.port), origin=own) as ws:
                client = RawClient(ws, "json")
                if isinstance(first, str):
                    await ws.send(first)
                else:
                    await client.send(first)
                assert (await expect_close(client, 1008)).startswith("unauthorized")


async def test_dns_rebinding_handshake_refused() -> None:
    """Seen: Host and Origin evil.example:PORT were accepted and could think."""
    async with running_server(workers=1) as server:
        evil = f"evil.example:{server.port}"
        # The name in the URL goes into Host; the socket goes to loopback, as
        # after a rebinding.
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                f"ws://{evil}/ws",
                host="127.0.0.1",
                port=server.port,
                origin=Origin(f"http://{evil}"),
            ):
                pass
        assert refused.value.response.status_code == 403
        assert b"--allow-host" in refused.value.response.body
        assert server.metrics.refused.value("host") == 1
    async with running_server(workers=1, allowed_hosts=("evil.example",)) as server:
        evil = f"evil.example:{server.port}"
        async with connect(
            f"ws://{evil}/ws", host="127.0.0.1", port=server.port, origin=Origin(f"http://{evil}")
        ) as ws:
            assert (await RawClient(ws, "json").request({"type": "hello"}))["type"] == "welcome"


async def test_wrong_tokens_are_counted_and_slowed_per_peer() -> None:
    async with running_server(workers=1, token="s3cret") as server:
        headers = {"Authorization": "Bearer guess"}
        timings = []
        for _ in range(7):
            started = time.monotonic()
            with pytest.raises(InvalidStatus):
                async with connect(url(server.port), additional_headers=headers):
                    pass
            timings.append(time.monotonic() - started)
        assert server.metrics.refused.value("unauthorized") == 7
        assert server.auth_failures.count("127.0.0.1") == 7
        assert timings[5] >= 0.2 and timings[6] >= 0.45, timings


async def test_cross_site_origin_refused() -> None:
    async with running_server(workers=1, allowed_origins=("https://friend.example",)) as server:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url(server.port), origin=Origin("https://evil.example")):
                pass
        assert refused.value.response.status_code == 403
        for origin in (f"http://127.0.0.1:{server.port}", "https://friend.example"):
            async with connect(url(server.port), origin=Origin(origin)) as ws:
                reply = await RawClient(ws, "json").request({"type": "hello"})
                assert reply["type"] == "welcome"


async def test_connections_beyond_the_cap_are_closed_with_1013() -> None:
    async with running_server(workers=1, max_connections=2) as server:
        async with connect(url(server.port)) as first, connect(url(server.port)) as second:
            async with connect(url(server.port)) as third:
                reason = await expect_close(RawClient(third, "json"), 1013)
                assert "try again" in reason
            for ws in (first, second):
                assert (await RawClient(ws, "json").request({"type": "hello"}))["type"] == (
                    "welcome"
                )
        await wait_until(lambda: not server.connections)  # the handlers noticed the closes
        async with connect(url(server.port)) as again:
            assert (await RawClient(again, "json").request({"type": "hello"}))["type"] == (
                "welcome"
            )


async def test_a_bot_that_waits_for_each_reply_is_never_refused() -> None:
    """Seen: refused after 101 requests, and the client hung on the refused one."""
    async with running_server(workers=1) as server, connect(url(server.port)) as ws:
        client = RawClient(ws, "json")
        await client.request({"type": "new_game", "game": "tictactoe", "id": 0})
        for number in range(1, 601):  # 600 requests as fast as the replies come
            cell = ["a1", "b1", "c1"][number % 3]
            reply = await client.request(
                {"type": "new_game", "game": "tictactoe", "moves": [cell], "id": number}
            )
            assert reply["type"] == "state" and reply["id"] == number, reply
        # Its rate (a performance target) is bench/server_bench.py's (e).


async def test_a_flooding_client_is_slowed_not_refused_and_others_are_untouched() -> None:
    async with (
        running_server(workers=1) as server,
        connect(url(server.port)) as flood_ws,
        connect(url(server.port)) as polite_ws,
    ):
        flood, polite = RawClient(flood_ws, "msgpack"), RawClient(polite_ws, "json")
        count = 2000
        sender = asyncio.create_task(_send_all(flood, count))
        for number in range(20):
            sent = time.monotonic()
            assert (await polite.request({"type": "hello", "id": number}))["type"] == "welcome"
            assert time.monotonic() - sent < 0.5 * UNIT
        replies = [await flood.recv() for _ in range(count)]
        await sender
        assert [reply["type"] for reply in replies] == ["welcome"] * count, "nothing refused"
        assert [reply["id"] for reply in replies] == list(range(count)), "all, in order"


async def _send_all(client: RawClient, count: int) -> None:
    for number in range(count):
        await client.send({"type": "hello", "id": number})


async def test_a_lone_surrogate_is_refused_with_a_readable_id() -> None:
    """Seen: "\\ud83d" as an id dropped the connection without a close frame."""
    async with running_server(workers=1) as server, connect(url(server.port)) as ws:
        client = RawClient(ws, "json")
        await ws.send('{"type": "hello", "id": "\\ud83d"}')
        refused = await client.recv()
        assert refused["code"] == "bad_message" and "id" not in refused
        await ws.send('{"type": "move", "move": "\\ud83d", "id": 7}')
        refused = await client.recv()
        assert refused["code"] == "bad_message" and refused["id"] == 7
        await ws.send('{"type": "hello", "id": "\\ud83d\\ude00"}')  # a whole pair is fine
        assert (await client.recv())["id"] == "\U0001f600"
        assert (await client.request({"type": "hello", "id": 8}))["type"] == "welcome"


async def test_silent_connections_are_closed_after_the_hello_timeout() -> None:
    limits = ServerLimits(hello_timeout_ms=300)
    async with (
        running_server(workers=1, limits=limits) as server,
        connect(url(server.port)) as silent,
        connect(url(server.port)) as garbage,
        connect(url(server.port)) as talker,
    ):
        chatty = RawClient(talker, "json")
        error = await chatty.request({"type": "move", "move": "1"})
        assert error["code"] == "no_game", "a rejected request is still a valid request"
        await RawClient(garbage, "json").send("not json")  # type: ignore[arg-type]
        started = time.monotonic()
        reason = await expect_close(RawClient(silent, "json"), 1008)
        assert "no valid request" in reason
        assert 0.25 <= time.monotonic() - started <= 0.3 + 1 * UNIT
        bad: dict[str, Any] = await RawClient(garbage, "json").recv()
        assert bad["code"] == "bad_message"
        await expect_close(RawClient(garbage, "json"), 1008)
        await asyncio.sleep(0.3)  # past the talker's hello timeout: a window, not a wait
        assert (await chatty.request({"type": "hello"}))["type"] == "welcome"


async def test_the_client_library_sends_the_token() -> None:
    from clients.client import connect as engine_connect

    async with (
        running_server(workers=1, token="s3cret") as server,
        engine_connect(url(server.port), token="s3cret") as engine,
    ):
        assert engine.server is not None and engine.server.protocol == 1

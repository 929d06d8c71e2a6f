"""Unwelcome clients: token, Origin allow-list, connection cap, message rate, silent sockets."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from server.guard import AccessPolicy, Admission, RateLimiter
from server.protocol import ServerLimits
from tests.server.server_harness import UNIT, RawClient, running_server


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


def test_token_rules() -> None:
    policy = AccessPolicy.create("s3cret")
    assert policy.admit(None, "h", "Bearer s3cret") is Admission.ACCEPT
    assert policy.admit(None, "h", "bearer  s3cret ") is Admission.ACCEPT
    assert policy.admit(None, "h", "Bearer wrong") is Admission.UNAUTHORIZED
    assert policy.admit(None, "h", "Basic s3cret") is Admission.UNAUTHORIZED
    assert policy.admit(None, "h", None) is Admission.UNAUTHORIZED
    assert policy.admit("http://h", "h", None) is Admission.ACCEPT_HELLO_TOKEN
    assert policy.admit("http://h", "h", "Bearer wrong") is Admission.UNAUTHORIZED
    assert not policy.token_matches(None) and policy.token_matches("s3cret")


def test_rate_limiter_bucket_and_strikes() -> None:
    limiter = RateLimiter(rate_per_s=10, burst=3, max_strikes=2)
    assert [limiter.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert limiter.strikes == 1 and not limiter.abusive
    assert limiter.allow(0.1), "refilled at 10 per second"
    assert limiter.strikes == 0, "an accepted message forgives"
    assert not limiter.allow(0.1) and not limiter.allow(0.1)
    assert limiter.abusive


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
        ):
            async with connect(url(server.port), origin=own) as ws:
                client = RawClient(ws, "json")
                await client.send(first)
                assert (await expect_close(client, 1008)).startswith("unauthorized")


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
        await asyncio.sleep(0.1)  # the handlers notice the closes
        async with connect(url(server.port)) as again:
            assert (await RawClient(again, "json").request({"type": "hello"}))["type"] == (
                "welcome"
            )


async def test_message_rate_limit_errors_then_closes() -> None:
    limits = ServerLimits(max_messages_per_second=5, message_burst=5)
    async with running_server(workers=1, limits=limits) as server, connect(
        url(server.port)
    ) as ws:
        client = RawClient(ws, "msgpack")
        for number in range(8):
            await client.send({"type": "hello", "id": number})
        replies = [await client.recv() for _ in range(8)]
        assert [reply["type"] for reply in replies] == ["welcome"] * 5 + ["error"] * 3
        assert {reply["code"] for reply in replies[5:]} == {"rate_limited"}
        assert all("id" not in reply for reply in replies[5:]), "refused unread"
        await asyncio.sleep(0.5)  # the bucket refills: a polite client goes on
        assert (await client.request({"type": "hello", "id": 9}))["type"] == "welcome"
        for number in range(40):  # a client that ignores the errors is closed
            await client.send({"type": "hello", "id": number})
        assert "rate" in await expect_close(client, 1008)


async def test_silent_connections_are_closed_after_the_hello_timeout() -> None:
    limits = ServerLimits(hello_timeout_ms=300)
    async with running_server(workers=1, limits=limits) as server, connect(
        url(server.port)
    ) as silent, connect(url(server.port)) as garbage, connect(url(server.port)) as talker:
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
        await asyncio.sleep(0.3)
        assert (await chatty.request({"type": "hello"}))["type"] == "welcome"


async def test_the_client_library_sends_the_token() -> None:
    from clients.client import connect as engine_connect

    async with running_server(workers=1, token="s3cret") as server, engine_connect(
        url(server.port), token="s3cret"
    ) as engine:
        assert engine.server is not None and engine.server.protocol == 1

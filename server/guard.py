"""Who may connect: token, Origin and Host rules, and a brake on token guessing.

Pure decisions without I/O; :mod:`server.app` applies them at the
handshake and :mod:`server.connection` on each frame.

* **Origin and Host**: a browser always sends ``Origin`` on a WebSocket
  handshake; a page from another site could otherwise drive the engine with
  the visitor's network position (cross-site WebSocket hijacking). Allowed:
  no ``Origin`` at all (bots, command-line clients), the origins given with
  ``--allow-origin`` (``*`` allows every origin), and an ``Origin`` whose
  host and port equal the request's ``Host`` (the server's own pages) --
  but only when that ``Host`` names this server: an IP address, ``localhost``
  (or a name under ``.localhost``), the address the server is bound to, or a
  name given with ``--allow-host``. Without that last check a page on
  ``evil.example`` whose name is re-pointed at 127.0.0.1 (DNS rebinding)
  would count as the server's own.
* **Token** (``--token``): a client without ``Origin`` must send
  ``Authorization: Bearer <token>`` at the handshake (HTTP 401 otherwise);
  a browser, which cannot set that header on a WebSocket, may instead send
  ``token`` in its ``hello`` (close 1008 if it is wrong or missing).
* **Guessing**: :class:`AuthFailures` counts wrong or missing tokens per
  peer address; past a few, each further refusal is delayed, so a client
  cannot try tokens at full speed.

There is no message-rate limit: a connection is read one request at a time
and stops being read while its replies are unread (backpressure), so a
flooding client only slows itself.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit

#: Token failures a peer address may make within :data:`AUTH_WINDOW_S`
#: before its refusals are delayed: enough for a person mistyping a token.
AUTH_FREE_FAILURES = 5
AUTH_WINDOW_S = 60.0
#: The delay of the first slowed refusal, doubling with each further
#: failure up to the longest: a guesser gets about one try per 5 s.
AUTH_FIRST_DELAY_S = 0.25
AUTH_LONGEST_DELAY_S = 5.0
#: Peer addresses remembered (oldest forgotten first): bounds the memory a
#: crowd of addresses can make the server hold.
AUTH_MAX_PEERS = 4096


class Admission(Enum):
    """The handshake's verdict for a WebSocket connection."""

    ACCEPT = "accept"  # nothing more to prove
    ACCEPT_HELLO_TOKEN = "hello_token"  # a browser: must send the token in hello
    BAD_ORIGIN = "origin"  # HTTP 403
    BAD_HOST = "host"  # HTTP 403: a browser page whose Host is not a name of this server
    UNAUTHORIZED = "unauthorized"  # HTTP 401


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """The handshake rules: an optional token, extra allowed origins and host names."""

    token: str | None = None
    allowed_origins: frozenset[str] = frozenset()
    #: Names (lower case, no port) under which browsers may reach this server.
    allowed_hosts: frozenset[str] = frozenset()

    @classmethod
    def create(
        cls, token: str | None, origins: Iterable[str] = (), hosts: Iterable[str] = ()
    ) -> AccessPolicy:
        """``hosts``: the bound address and the ``--allow-host`` names."""
        return cls(
            token or None,
            frozenset(_normalize_origin(origin) for origin in origins),
            frozenset(host.strip().strip("[]").lower() for host in hosts if host.strip()),
        )

    def admit(self, origin: str | None, host: str | None, authorization: str | None) -> Admission:
        """Judge a handshake from its ``Origin``, ``Host`` and ``Authorization`` headers."""
        if origin is not None and not self.origin_listed(origin):
            if not self.same_origin(origin, host):
                return Admission.BAD_ORIGIN
            if not self.host_allowed(host):
                return Admission.BAD_HOST
        if self.token is None:
            return Admission.ACCEPT
        if authorization is not None:
            return (
                Admission.ACCEPT
                if self._bearer_matches(authorization)
                else (Admission.UNAUTHORIZED)
            )
        return Admission.UNAUTHORIZED if origin is None else Admission.ACCEPT_HELLO_TOKEN

    def origin_listed(self, origin: str) -> bool:
        """Whether ``origin`` was allowed by name (``--allow-origin``)."""
        normalized = _normalize_origin(origin)
        return "*" in self.allowed_origins or normalized in self.allowed_origins

    @staticmethod
    def same_origin(origin: str, host: str | None) -> bool:
        """Whether the page's origin is the host and port the request was sent to."""
        normalized = _normalize_origin(origin)
        if host is None or normalized == "null":
            return False
        return urlsplit(normalized).netloc == host.strip().lower()

    def host_allowed(self, host: str | None) -> bool:
        """Whether a ``Host`` header names this server (not a re-pointed foreign name)."""
        if host is None:
            return False
        name = _host_name(host)
        if name == "localhost" or name.endswith(".localhost") or name in self.allowed_hosts:
            return True
        if "*" in self.allowed_hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True  # an address literal: DNS rebinding needs a name

    def token_matches(self, candidate: str | None) -> bool:
        """Constant-time comparison with the configured token."""
        if self.token is None:
            return True
        if candidate is None:
            return False
        return hmac.compare_digest(candidate.encode(), self.token.encode())

    def _bearer_matches(self, authorization: str) -> bool:
        scheme, _, credentials = authorization.strip().partition(" ")
        return scheme.lower() == "bearer" and self.token_matches(credentials.strip())


def _normalize_origin(origin: str) -> str:
    """``HTTP://Example.org:80/`` and ``http://example.org:80`` compare equal."""
    return origin.strip().rstrip("/").lower()


def _host_name(host: str) -> str:
    """The name of a ``Host`` header, lower case, without port or brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


class AuthFailures:
    """Wrong or missing tokens per peer address, and how long to delay the next refusal.

    :meth:`record` notes a failure and returns the delay (seconds) to wait
    before refusing: zero for the first :data:`AUTH_FREE_FAILURES` within
    :data:`AUTH_WINDOW_S`, then doubling from :data:`AUTH_FIRST_DELAY_S` up
    to :data:`AUTH_LONGEST_DELAY_S`. A success does not reset the count: a
    guesser that also holds a good token gains nothing.
    """

    def __init__(self, max_peers: int = AUTH_MAX_PEERS) -> None:
        self.max_peers = max_peers
        self._failures: OrderedDict[str, list[float]] = OrderedDict()

    def record(self, peer: str, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        times = [t for t in self._failures.pop(peer, []) if now - t < AUTH_WINDOW_S]
        times.append(now)
        self._failures[peer] = times[
            -AUTH_FREE_FAILURES - 16 :
        ]  # enough to reach the longest delay
        while len(self._failures) > self.max_peers:
            self._failures.popitem(last=False)
        excess = len(times) - AUTH_FREE_FAILURES
        if excess <= 0:
            return 0.0
        return float(min(AUTH_LONGEST_DELAY_S, AUTH_FIRST_DELAY_S * 2 ** (excess - 1)))

    def count(self, peer: str) -> int:
        """Failures of ``peer`` in the current window (for logs and tests)."""
        return len(self._failures.get(peer, ()))

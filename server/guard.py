"""Who may connect and how fast they may talk: token, Origin allow-list, message rate.

Pure decisions without I/O; :mod:`server.app` applies them at the
handshake and on each frame.

* **Origin**: a browser always sends ``Origin`` on a WebSocket handshake;
  a page from another site could otherwise drive the engine with the
  visitor's network position (cross-site WebSocket hijacking). Allowed:
  no ``Origin`` at all (bots, command-line clients), an ``Origin`` whose
  host and port equal the request's ``Host`` (the server's own pages), and
  the origins given with ``--allow-origin`` (``*`` allows every origin).
* **Token** (``--token``): a client without ``Origin`` must send
  ``Authorization: Bearer <token>`` at the handshake (HTTP 401 otherwise);
  a browser, which cannot set that header on a WebSocket, may instead send
  ``token`` in its ``hello`` (close 1008 if it is wrong or missing).
* **Rate**: a token bucket per connection; see :class:`RateLimiter`.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit

#: Default message rate per connection: a steady 50 messages per second
#: with bursts of 100. A GUI or a bot sends a few messages per move; a
#: tournament client at bullet speed stays far below this.
DEFAULT_MESSAGES_PER_S = 50
DEFAULT_MESSAGE_BURST = 100
#: A connection must make its first valid request (when a token is required
#: of it in ``hello``: that ``hello``) within this long, or it is closed with
#: 1008. Ten seconds is ample for any client, and stops a crowd of silent
#: sockets from holding connection slots.
DEFAULT_HELLO_TIMEOUT_MS = 10_000
#: Refused messages in a row (no accepted one in between) after which a
#: connection that ignores its ``rate_limited`` errors is closed with 1008.
MAX_RATE_STRIKES = 20


class Admission(Enum):
    """The handshake's verdict for a WebSocket connection."""

    ACCEPT = "accept"  # nothing more to prove
    ACCEPT_HELLO_TOKEN = "hello_token"  # a browser: must send the token in hello
    BAD_ORIGIN = "origin"  # HTTP 403
    UNAUTHORIZED = "unauthorized"  # HTTP 401


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """The handshake rules: an optional shared token and the extra allowed origins."""

    token: str | None = None
    allowed_origins: frozenset[str] = frozenset()

    @classmethod
    def create(cls, token: str | None, origins: Iterable[str] = ()) -> AccessPolicy:
        return cls(token or None, frozenset(_normalize_origin(origin) for origin in origins))

    def admit(self, origin: str | None, host: str | None, authorization: str | None) -> Admission:
        """Judge a handshake from its ``Origin``, ``Host`` and ``Authorization`` headers."""
        if origin is not None and not self.origin_allowed(origin, host):
            return Admission.BAD_ORIGIN
        if self.token is None:
            return Admission.ACCEPT
        if authorization is not None:
            return Admission.ACCEPT if self._bearer_matches(authorization) else (
                Admission.UNAUTHORIZED
            )
        return Admission.UNAUTHORIZED if origin is None else Admission.ACCEPT_HELLO_TOKEN

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        normalized = _normalize_origin(origin)
        if "*" in self.allowed_origins or normalized in self.allowed_origins:
            return True
        if host is None or normalized == "null":
            return False
        return urlsplit(normalized).netloc == host.strip().lower()

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


class RateLimiter:
    """A token bucket: ``burst`` messages at once, refilled at ``rate_per_s``.

    :meth:`allow` is called with each message's arrival time; it answers
    whether to process the message. :attr:`strikes` counts refusals in a row
    and :attr:`abusive` says when to close the connection.
    """

    def __init__(self, rate_per_s: float, burst: int, max_strikes: int = MAX_RATE_STRIKES) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.max_strikes = max_strikes
        self._tokens = float(burst)
        self._updated: float | None = None
        self.strikes = 0

    def allow(self, now: float) -> bool:
        if self._updated is not None:
            self._tokens = min(
                float(self.burst), self._tokens + (now - self._updated) * self.rate_per_s
            )
        self._updated = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.strikes = 0
            return True
        self.strikes += 1
        return False

    @property
    def abusive(self) -> bool:
        return self.strikes >= self.max_strikes

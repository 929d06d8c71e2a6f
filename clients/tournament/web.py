"""``arena tournament --web PORT``: the live page, served over plain HTTP.

A small asyncio HTTP/1.1 server (GET and HEAD only, one request per
connection) in the tournament's own event loop. It serves:

* ``/``: ``clients/web/tournament.html``, with its script and style, and
  the browser GUI's own board modules (``/js/boards/*.js``) and their
  helpers, so every game is drawn as the GUI draws it;
* ``/api/snapshot``: standings, crosstable, Elo, the games in progress
  and the finished games (:meth:`.LiveTournament.snapshot`), with an ETag
  so that the page's polling costs a 304 when nothing changed;
* ``/api/game/ID``: one game in full for its replay, with the bots' log
  excerpts (:meth:`.LiveTournament.game`).

The page loads nothing from anywhere else (its Content-Security-Policy
says so too). It is read-only: nothing a visitor sends changes the
tournament, so it listens on every interface by default, for a classroom's
laptops; ``--web 127.0.0.1:PORT`` keeps it on this machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from http import HTTPStatus
from pathlib import Path
from types import TracebackType

from clients.tournament.config import ConfigError
from clients.tournament.live import LiveTournament

#: The browser GUI's files (package data of ``clients``).
WEB_DIR = Path(__file__).resolve().parent.parent / "web"
#: The page, its own files and the GUI's shared ones, by URL path.
PAGE_FILES = {
    "/": "tournament.html",
    "/tournament.html": "tournament.html",
    "/tournament.css": "tournament.css",
    "/style.css": "style.css",
    "/favicon.svg": "favicon.svg",
}
#: The scripts: ``/js/NAME.js`` and ``/js/boards/NAME.js`` (names of letters,
#: digits, ``-`` and ``_``: no way out of the directory).
SCRIPT_PATH = re.compile(r"/js/(?:boards/)?[a-z0-9_-]{1,40}\.js")
GAME_PATH = re.compile(r"/api/game/(\d{1,9})")
SNAPSHOT_PATH = "/api/snapshot"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
JSON_TYPE = "application/json"
#: Nothing but the page's own files and its own API; inline styles because
#: the SVG boards set attributes from script (as the GUI's own policy).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)
COMMON_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-cache"),
    ("Connection", "close"),
)
#: Longest request head (request line and headers) read; a browser's is about 1 KiB.
MAX_HEAD_BYTES = 8 * 1024
#: A client has this long to send its request before the connection is dropped.
REQUEST_TIMEOUT_S = 10.0
#: Connections served at once; more are closed at once (a class is some 40 laptops,
#: each polling once a second over a fresh connection).
MAX_CONNECTIONS = 256


def parse_web_address(text: str) -> tuple[str | None, int]:
    """``--web PORT`` (every interface) or ``--web HOST:PORT``; port 0 picks a free one."""
    host, _, port_text = text.strip().rpartition(":")
    if not port_text.isdigit() or int(port_text) > 65535:
        raise ConfigError(f"--web {text!r}: give a port (8080) or HOST:PORT (127.0.0.1:8080)")
    host = host.strip("[]")
    return (host or None), int(port_text)


class LivePage:
    """The live page's HTTP server, running while used as an async context."""

    def __init__(self, live: LiveTournament, host: str | None, port: int) -> None:
        self.live = live
        self.host = host
        self.requested_port = port
        self._server: asyncio.Server | None = None
        self._connections = 0
        self._files: dict[str, tuple[str, bytes]] = {}

    @property
    def port(self) -> int:
        if self._server is None or not self._server.sockets:
            raise RuntimeError("the live page is not serving")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def urls(self) -> list[str]:
        """Where to open the page: here, and from other machines when it listens for them."""
        if self.host not in (None, "", "0.0.0.0", "::"):
            host = f"[{self.host}]" if ":" in str(self.host) else self.host
            return [f"http://{host}:{self.port}/"]
        return [f"http://localhost:{self.port}/", f"http://{socket.gethostname()}:{self.port}/"]

    async def __aenter__(self) -> LivePage:
        try:
            self._server = await asyncio.start_server(
                self._serve, self.host, self.requested_port, limit=MAX_HEAD_BYTES
            )
        except OSError as error:
            where = f"{self.host or ''}:{self.requested_port}"
            raise ConfigError(f"--web {where}: cannot listen there ({error.strerror})") from None
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    # ------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        try:
            if self._connections <= MAX_CONNECTIONS:
                with contextlib.suppress(ConnectionError, TimeoutError, asyncio.LimitOverrunError):
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT_S)
                    writer.write(self.answer(head))
                    await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
        except asyncio.IncompleteReadError:
            pass
        finally:
            self._connections -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def answer(self, head: bytes) -> bytes:
        """The whole HTTP response to a request head (no body is read: GET and HEAD only)."""
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return _response(HTTPStatus.BAD_REQUEST, b"bad request\n")
        method, target, _ = parts
        if method not in ("GET", "HEAD"):
            return _response(HTTPStatus.METHOD_NOT_ALLOWED, b"GET only\n", (("Allow", "GET"),))
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        status, extra, body = self._route(target.split("?", 1)[0], headers)
        return _response(status, body, extra, head_only=method == "HEAD")

    def _route(
        self, path: str, headers: dict[str, str]
    ) -> tuple[HTTPStatus, tuple[tuple[str, str], ...], bytes]:
        if path == SNAPSHOT_PATH:
            version, body = self.live.snapshot_bytes()
            etag = f'"v{version}"'
            extra = (("Content-Type", JSON_TYPE), ("ETag", etag))
            if headers.get("if-none-match") == etag:
                return HTTPStatus.NOT_MODIFIED, extra, b""
            return HTTPStatus.OK, extra, body
        match = GAME_PATH.fullmatch(path)
        if match is not None:
            game = self.live.game_bytes(int(match.group(1)))
            if game is None:
                return HTTPStatus.NOT_FOUND, (), b"no such game\n"
            return HTTPStatus.OK, (("Content-Type", JSON_TYPE),), game
        name = PAGE_FILES.get(path)
        if name is None and SCRIPT_PATH.fullmatch(path):
            name = path.lstrip("/")
        if name is None:
            return HTTPStatus.NOT_FOUND, (), b"not found\n"
        found = self._file(name)
        if found is None:
            return HTTPStatus.NOT_FOUND, (), b"not found\n"
        content_type, body = found
        if name.endswith(".html"):
            page = (("Content-Security-Policy", CONTENT_SECURITY_POLICY),)
            return HTTPStatus.OK, (("Content-Type", content_type), *page), body
        return HTTPStatus.OK, (("Content-Type", content_type),), body

    def _file(self, name: str) -> tuple[str, bytes] | None:
        """A file of the web directory (read once: they do not change while we run)."""
        if name not in self._files:
            path = WEB_DIR / name
            try:
                body = path.read_bytes()
            except OSError:
                return None
            self._files[name] = (CONTENT_TYPES.get(path.suffix, "text/plain; charset=utf-8"), body)
        return self._files[name]


def _response(
    status: HTTPStatus,
    body: bytes,
    extra: tuple[tuple[str, str], ...] = (),
    head_only: bool = False,
) -> bytes:
    headers = list(extra)
    if not any(name == "Content-Type" for name, _ in headers):
        headers.append(("Content-Type", "text/plain; charset=utf-8"))
    if status != HTTPStatus.NOT_MODIFIED:
        headers.append(("Content-Length", str(len(body))))
    headers += COMMON_HEADERS
    head = f"HTTP/1.1 {status.value} {status.phrase}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers
    )
    send = b"" if head_only or status == HTTPStatus.NOT_MODIFIED else body
    return head.encode("latin-1") + b"\r\n" + send

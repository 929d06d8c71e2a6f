"""Serving the browser GUI's own files (``clients/web/``) over plain HTTP GET.

The core is :meth:`StaticSite.lookup`: a request path and the client's
``If-None-Match`` in, a :class:`StaticReply` (status, headers, body) out,
with no sockets involved, so it is tested directly. :func:`http_response`
adapts it to the ``websockets`` handshake hook, which is how the server
answers every path other than the WebSocket endpoint::

    def process_request(connection, request):
        if request.path == "/ws":
            return None  # go on with the WebSocket handshake
        return http_response(request)

Only regular files inside the web directory with a known content type are
served: no directory listing, no dot-files, no ``..`` or encoded
separators, no symbolic links leading out of the directory. ``/`` is
``index.html`` and ``/learn`` is ``learn.html`` (:data:`PAGES`). Everything
else is 404.
"""

from __future__ import annotations

import email.utils
import posixpath
from dataclasses import dataclass, field
from functools import cache
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: Where the GUI's files are: ``clients/web`` next to this package, both in
#: a source checkout and in an installed wheel (``pyproject.toml`` declares
#: the directory as package data of ``clients``).
WEB_DIR = Path(__file__).resolve().parent.parent / "clients" / "web"

#: The page served for ``/``.
INDEX = "index.html"

#: Pages served at a path without a file name: ``/learn`` is the Learn page
#: (search trees), linked from the main page.
PAGES: dict[str, str] = {"/": INDEX, "/learn": "learn.html"}

#: Content types by file suffix; files with any other suffix are not served.
CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
}

#: File names are unversioned, so browsers must revalidate (cheaply, with
#: the ETag) before reusing a cached copy; otherwise an upgraded server
#: could be driven by a stale script.
CACHE_CONTROL = "no-cache"

#: The page needs nothing but its own files and its own WebSocket
#: (``'self'`` covers same-origin ``ws:``/``wss:`` in CSP level 3 browsers;
#: the explicit schemes keep older ones working). Inline styles are allowed
#: because the SVG boards set attributes from script.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)

#: Longest request path considered; anything longer is not one of ours.
MAX_PATH_CHARS = 512

#: Headers sent with every answer, found or not.
COMMON_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)


@dataclass(frozen=True, slots=True)
class StaticReply:
    """An HTTP answer: status, headers (without Date and Content-Length) and body."""

    status: HTTPStatus
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    #: The file served, if any (for logging and tests).
    path: Path | None = field(default=None, compare=False)

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


class StaticSite:
    """The files of one directory, served read-only by URL path."""

    def __init__(self, root: Path = WEB_DIR) -> None:
        self.root = root.resolve()

    def lookup(self, path: str, if_none_match: str | None = None) -> StaticReply:
        """The answer to ``GET path`` (the raw request target, query string allowed)."""
        file = self.resolve(path)
        if file is None:
            return not_found()
        try:
            stat = file.stat()
            etag = f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'
            headers = (
                ("Content-Type", CONTENT_TYPES[file.suffix.lower()]),
                ("Cache-Control", CACHE_CONTROL),
                ("ETag", etag),
                ("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True)),
                *_page_headers(file),
                *COMMON_HEADERS,
            )
            if if_none_match is not None and _etag_matches(if_none_match, etag):
                return StaticReply(HTTPStatus.NOT_MODIFIED, headers, b"", file)
            body = file.read_bytes()
        except OSError:  # removed or unreadable since resolve(): not ours to serve
            return not_found()
        return StaticReply(HTTPStatus.OK, headers, body, file)

    def resolve(self, path: str) -> Path | None:
        """The file that URL path ``path`` names, or None if it names nothing servable."""
        if len(path) > MAX_PATH_CHARS:
            return None
        target = path.split("?", 1)[0].split("#", 1)[0]
        if not target.startswith("/"):
            return None
        try:
            decoded = unquote(target, errors="strict") if "%" in target else target
        except UnicodeDecodeError:
            return None
        if "\\" in decoded or "\x00" in decoded or "//" in decoded:
            return None
        parts = [PAGES[decoded]] if decoded in PAGES else decoded.split("/")[1:]
        if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
            return None  # also refuses a trailing slash: directories are never listed
        relative = posixpath.join(*parts)
        candidate = self.root / relative
        if candidate.suffix.lower() not in CONTENT_TYPES:
            return None
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if not real.is_relative_to(self.root) or not real.is_file():
            return None
        return real


def not_found() -> StaticReply:
    body = b"not found (the GUI is at /, the WebSocket endpoint at /ws)\n"
    headers = (("Content-Type", "text/plain; charset=utf-8"), *COMMON_HEADERS)
    return StaticReply(HTTPStatus.NOT_FOUND, headers, body)


def _page_headers(file: Path) -> tuple[tuple[str, str], ...]:
    if file.suffix.lower() != ".html":
        return ()
    return (("Content-Security-Policy", CONTENT_SECURITY_POLICY),)


def _etag_matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110 weak comparison against a list of tags (or ``*``)."""
    candidates = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in candidates or any(tag.removeprefix("W/") == etag for tag in candidates)


@cache
def default_site() -> StaticSite:
    """The site of the package's own web directory (created once per process)."""
    return StaticSite(WEB_DIR)


def is_websocket_upgrade(request: Request) -> bool:
    """True for a WebSocket handshake (which static files must not answer)."""
    return "websocket" in request.headers.get("Upgrade", "").lower()


def http_response(request: Request, site: StaticSite | None = None) -> Response:
    """The ``websockets`` response for a plain GET of a GUI file (404 if there is none).

    A WebSocket handshake is always 404 here: it belongs on the WebSocket
    endpoint, which the caller has already let through.
    """
    if is_websocket_upgrade(request):
        return to_response(not_found())
    reply = (site or default_site()).lookup(request.path, request.headers.get("If-None-Match"))
    return to_response(reply)


def to_response(reply: StaticReply) -> Response:
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            *reply.headers,
        ]
    )
    if reply.status != HTTPStatus.NOT_MODIFIED:
        headers["Content-Length"] = str(len(reply.body))
    return Response(reply.status.value, reply.status.phrase, headers, reply.body)

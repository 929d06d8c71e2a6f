"""Serving the web GUI's files: path safety, content types, caching, and over a real socket."""

from __future__ import annotations

import asyncio
import os
import re
from http import HTTPStatus
from http.client import HTTPConnection
from pathlib import Path

import pytest

from server.app import ArenaServer
from server.static import CONTENT_TYPES, WEB_DIR, StaticSite

INDEX_HTML = b"<!doctype html><title>t</title>"
LEARN_HTML = b"<!doctype html><title>learn</title>"


@pytest.fixture
def site(tmp_path: Path) -> StaticSite:
    root = tmp_path / "web"
    (root / "js" / "boards").mkdir(parents=True)
    (root / "index.html").write_bytes(INDEX_HTML)
    (root / "learn.html").write_bytes(LEARN_HTML)
    (root / "style.css").write_text("body {}")
    (root / "js" / "main.js").write_text("export {};")
    (root / "js" / "boards" / "chess.js").write_text("export default 1;")
    (root / "icon.svg").write_text("<svg/>")
    (root / ".hidden.js").write_text("secret")
    (root / "notes.py").write_text("print()")
    (tmp_path / "outside.js").write_text("outside")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "outside.js", root / "escape.js")
    return StaticSite(root)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/learn", "text/html; charset=utf-8"),
        ("/learn?game=tree&example=notes", "text/html; charset=utf-8"),
        ("/learn.html", "text/html; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/js/main.js", "text/javascript; charset=utf-8"),
        ("/js/boards/chess.js", "text/javascript; charset=utf-8"),
        ("/icon.svg", "image/svg+xml"),
        ("/js/main.js?v=3", "text/javascript; charset=utf-8"),
        ("/js/%6Dain.js", "text/javascript; charset=utf-8"),
    ],
)
def test_files_are_served_with_their_content_type(
    site: StaticSite, path: str, content_type: str
) -> None:
    reply = site.lookup(path)
    assert reply.status == HTTPStatus.OK
    assert reply.header("Content-Type") == content_type
    assert reply.header("X-Content-Type-Options") == "nosniff"
    assert reply.body


@pytest.mark.parametrize(
    "path",
    [
        "/missing.js",
        "/../outside.js",
        "/js/../../outside.js",
        "/%2e%2e/outside.js",
        "/%2E%2E/secret.txt",
        "/js/..%2f..%2foutside.js",
        "/js%2f..%2f..%2fsecret.txt",
        "/..\\outside.js",
        "/js\\main.js",
        "/index.html%00.js",
        "//etc/passwd",
        "/./index.html",
        "/js/",  # directories are never listed
        "/learn/",  # a page's path is exact
        "/learn/index.html",
        "/js/learn",
        "/js",
        "/.hidden.js",
        "/notes.py",  # no content type known: not ours to serve
        "/escape.js",  # a symbolic link out of the directory
        "/%ff.js",  # not UTF-8
        "/" + "a" * 600 + ".js",
        "index.html",
        "",
    ],
)
def test_everything_else_is_not_found(site: StaticSite, path: str) -> None:
    reply = site.lookup(path)
    assert reply.status == HTTPStatus.NOT_FOUND
    assert reply.path is None
    assert reply.header("Content-Type") == "text/plain; charset=utf-8"
    assert b"secret" not in reply.body and b"outside" not in reply.body


def test_learn_is_the_learn_page_with_its_policy(site: StaticSite) -> None:
    reply = site.lookup("/learn")
    assert reply.status == HTTPStatus.OK and reply.body == LEARN_HTML
    assert reply.path is not None and reply.path.name == "learn.html"
    assert reply.header("Content-Security-Policy") == site.lookup("/").header(
        "Content-Security-Policy"
    )
    assert site.lookup("/").body == INDEX_HTML


def test_caching_headers_and_revalidation(site: StaticSite) -> None:
    first = site.lookup("/js/main.js")
    etag = first.header("ETag")
    assert etag is not None and re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', etag)
    assert first.header("Cache-Control") == "no-cache"
    assert first.header("Last-Modified") is not None
    for validator in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        again = site.lookup("/js/main.js", validator)
        assert again.status == HTTPStatus.NOT_MODIFIED, validator
        assert again.body == b"" and again.header("ETag") == etag
    assert site.lookup("/js/main.js", '"other"').status == HTTPStatus.OK


def test_a_changed_file_gets_a_new_etag(site: StaticSite) -> None:
    etag = site.lookup("/style.css").header("ETag")
    (site.root / "style.css").write_text("body { color: red }")
    changed = site.lookup("/style.css", etag)
    assert changed.status == HTTPStatus.OK and changed.header("ETag") != etag


def test_only_pages_carry_the_content_security_policy(site: StaticSite) -> None:
    policy = site.lookup("/").header("Content-Security-Policy")
    assert policy is not None and "default-src 'self'" in policy and "connect-src" in policy
    assert site.lookup("/js/main.js").header("Content-Security-Policy") is None


def test_every_shipped_gui_file_is_servable() -> None:
    site = StaticSite(WEB_DIR)
    files = [path for path in WEB_DIR.rglob("*") if path.is_file() and path.suffix != ".md"]
    assert any(path.name == "index.html" for path in files)
    for path in files:
        assert path.suffix in CONTENT_TYPES, f"{path} would not be served"
        url = "/" + path.relative_to(WEB_DIR).as_posix()
        assert site.lookup(url).status == HTTPStatus.OK, url


def _get(
    port: int, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_serves_the_page_beside_the_websocket(shared_server: ArenaServer) -> None:
    port = shared_server.port
    status, headers, body = await asyncio.to_thread(_get, port, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert int(headers["Content-Length"]) == len(body)
    assert b'src="js/main.js"' in body
    status, headers, body = await asyncio.to_thread(_get, port, "/js/main.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert b'href="learn"' in (await asyncio.to_thread(_get, port, "/"))[2]
    status, headers, body = await asyncio.to_thread(_get, port, "/learn?example=notes")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b'src="js/learn.js"' in body and b'href="./"' in body
    assert "Content-Security-Policy" in headers


@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_revalidates_and_refuses(shared_server: ArenaServer) -> None:
    port = shared_server.port
    _, headers, _ = await asyncio.to_thread(_get, port, "/style.css")
    status, _, body = await asyncio.to_thread(
        _get, port, "/style.css", {"If-None-Match": headers["ETag"]}
    )
    assert status == 304 and body == b""
    for path in ("/nothing-here", "/../server/app.py", "/%2e%2e/server/app.py", "/js/"):
        status, _, body = await asyncio.to_thread(_get, port, path)
        assert status == 404, path
        assert b"import" not in body

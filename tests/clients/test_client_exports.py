"""The client library's public names: every exception it raises importable from ``clients``,
and the README's game loop runs as printed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import clients
from clients import client as client_module
from protocol.errors import ERROR_CLASSES, ProtocolError

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_exception_the_library_raises_is_exported_from_clients() -> None:
    classes = {
        value
        for value in vars(client_module).values()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__.startswith(("clients", "protocol"))  # not websockets' own
    }
    assert client_module.GameOverError in classes and client_module.EngineTimeoutError in classes
    exported = {getattr(clients, name) for name in clients.__all__}
    missing = sorted(cls.__name__ for cls in classes if cls not in exported)
    assert not missing, f"not importable from clients: {missing}"
    public = [name for name in client_module.__all__ if name.endswith("Error")]
    assert sorted(name for name in public if name not in clients.__all__) == []


def test_every_protocol_error_code_has_an_exception_in_clients() -> None:
    exported = {getattr(clients, name) for name in clients.__all__}
    for code, cls in ERROR_CLASSES.items():
        assert cls in exported, code
    assert clients.EngineError is ProtocolError


def test_game_over_error_imports_from_clients() -> None:
    from clients import GameOverError

    assert issubclass(GameOverError, clients.EngineError)


def readme_game_loop() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    loops = [block for block in blocks if "state.to_move" in block]
    assert len(loops) == 1, "the README shows one game loop"
    return loops[0]


def test_the_readme_game_loop_is_short_and_uses_the_state() -> None:
    code = readme_game_loop()
    body = [line for line in code.splitlines() if line.strip()]
    assert len(body) <= 16, len(body)
    for needle in ("state.to_move", "state.result", "new_game(", "options="):
        assert needle in code, needle


@pytest.mark.asyncio(loop_scope="module")
async def test_the_readme_game_loop_plays_a_game(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = readme_game_loop().replace("ws://127.0.0.1:8765/ws", url)
    code = code.replace("movetime=0.2", "depth=2")  # the same loop, quicker
    code = code.replace("asyncio.run(main())", "")
    namespace: dict[str, Any] = {}
    exec(compile(code, str(README), "exec"), namespace)  # our own README's code
    await namespace["main"]()
    winner, _, reason = capsys.readouterr().out.strip().partition(" ")
    assert winner in ("0", "1", "None") and reason

"""clients/ never imports the server's internals: only ``arena`` dispatches to server/."""

from __future__ import annotations

import ast
from pathlib import Path

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
#: The entry point, and the server modules it may dispatch to: the commands
#: that serve the engine (``arena serve``, ``arena uci``, ``arena gtp``) and
#: the version.
ENTRY_POINT = CLIENTS / "cli.py"
DISPATCH_TARGETS = ("server", "server.cli", "server.frontends.uci", "server.frontends.gtp")


def imported_modules(path: Path, root: Path = CLIENTS.parent) -> list[tuple[int, str]]:
    """Every module ``path`` (under ``root``) imports, relative imports resolved, with its line."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            found.append((node.lineno, module))
    return found


def is_server(module: str) -> bool:
    return module == "server" or module.startswith("server.")


def test_clients_import_no_server_module_but_the_entry_points_dispatch() -> None:
    files = sorted(CLIENTS.rglob("*.py"))
    assert ENTRY_POINT in files
    offences = [
        f"{path.relative_to(CLIENTS.parent)}:{line}: {module}"
        for path in files
        for line, module in imported_modules(path)
        if is_server(module) and not (path == ENTRY_POINT and module in DISPATCH_TARGETS)
    ]
    assert offences == [], "clients/ imports server internals:\n" + "\n".join(offences)


def test_the_walk_sees_imports_of_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "clients" / "uci" / "engine.py"
    sample.parent.mkdir(parents=True)
    sample.write_text(
        "import server.worker as worker\n"
        "from server.pool import WorkerPool\n"
        "from .protocol import UciProtocol\n"
        "from .. import cli\n"
        "def later() -> None:\n"
        "    from server import SERVER_VERSION\n"
    )
    assert [module for _, module in imported_modules(sample, tmp_path)] == [
        "server.worker",
        "server.pool",
        "clients.uci.protocol",
        "clients",
        "server",
    ]
    assert not is_server("serverless") and not is_server("clients.server")

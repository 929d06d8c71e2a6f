"""Which build of the engine runs: compiled by mypyc, or the pure-Python reference.

``pip install .`` compiles every module of :mod:`engine` with mypyc when it
can (see ``setup.py``), leaving each ``.py`` source beside its extension.
Python prefers an extension to a source of the same name, so choosing the
pure engine means loading the sources on purpose; this module decides once,
when :mod:`engine` is first imported (:func:`choose`), and the package
records the choice in ``engine.ENGINE_BUILD`` and ``engine.ENGINE_BUILD_NOTE``:

* ``ARENA_PURE_PYTHON=1`` in the environment runs the pure engine, compiled
  or not (to compare the two, or to debug with the sources);
* a compiled engine whose recorded source digest differs from the sources
  (an editable install edited since it was built) is not trusted, nor one
  whose shared library does not load: the pure engine runs and the note
  says why;
* otherwise the compiled engine runs when it is installed.

This module and the package's ``__init__`` are never compiled: they run
before the choice is made. ``setup.py`` loads this file on its own to list
and digest the sources, so it imports nothing from the engine and does
nothing when imported.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

PACKAGE_DIR: Final = Path(__file__).resolve().parent
#: Written by setup.py beside the extensions after a successful build.
DIGEST_FILE: Final = "_compiled.json"
#: Left to the interpreter (setup.py compiles :func:`compiled_sources`).
UNCOMPILED: Final = frozenset({"engine/__init__.py", "engine/build.py"})
#: A module that exists in every compiled build; its extension marks one.
MARKER_MODULE: Final = "game"
#: mypyc's ``group_name`` for the engine (setup.py), which names the library
#: holding the compiled code of every module; each module's own extension
#: is a thin shim that loads it.
GROUP_NAME: Final = "engine"
SHARED_LIBRARY: Final = f"{GROUP_NAME}__mypyc"


def pure_requested() -> bool:
    """Whether ``ARENA_PURE_PYTHON`` asks for the pure-Python engine."""
    value = os.environ.get("ARENA_PURE_PYTHON", "").strip().lower()
    return value not in ("", "0", "false", "no")


def compiled_sources() -> list[str]:
    """The sources a compiled build is made from, as setup.py lists them."""
    root = PACKAGE_DIR.parent
    paths = sorted(p.relative_to(root).as_posix() for p in PACKAGE_DIR.rglob("*.py"))
    return [p for p in paths if p not in UNCOMPILED]


def sources_digest(paths: Sequence[str]) -> str:
    """SHA-256 over the sources' names and bytes (the recipe setup.py records)."""
    root = PACKAGE_DIR.parent
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.encode())
        digest.update(b"\0")
        digest.update((root / path).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def compiled_installed() -> bool:
    """Whether a compiled extension of the engine sits beside the sources."""
    return any(
        (PACKAGE_DIR / f"{MARKER_MODULE}{suffix}").exists()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _recorded_digest() -> str | None:
    try:
        record = json.loads((PACKAGE_DIR / DIGEST_FILE).read_text())
    except (OSError, ValueError):
        return None
    sources = record.get("sources") if isinstance(record, dict) else None
    return sources if isinstance(sources, str) else None


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds ``engine.*`` modules as ``.py`` sources, passing over their extensions."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("engine.") or path is None:
            return None
        name = fullname.rpartition(".")[2]
        for directory in map(Path, path):
            package_init = directory / name / "__init__.py"
            if package_init.is_file():
                return importlib.util.spec_from_file_location(
                    fullname, package_init, submodule_search_locations=[str(directory / name)]
                )
            module = directory / f"{name}.py"
            if module.is_file():
                return importlib.util.spec_from_file_location(fullname, module)
        return None


def choose() -> tuple[str, str]:
    """The build to run, ``"compiled"`` or ``"pure"``, and why, in a few words."""
    if pure_requested():
        return "pure", "ARENA_PURE_PYTHON is set"
    if not compiled_installed():
        return "pure", "not compiled (installed without a C compiler or with ARENA_PURE_PYTHON)"
    if _recorded_digest() != sources_digest(compiled_sources()):
        return "pure", "the compiled engine is older than its sources; rebuild with pip install"
    try:
        importlib.import_module(SHARED_LIBRARY)
    except ImportError as error:  # built for another Python, or a file is missing
        return "pure", f"the compiled engine does not load ({error})"
    return "compiled", "compiled with mypyc"


def load_sources_first() -> None:
    """Make every later import of an ``engine`` module load its ``.py`` source."""
    if not any(isinstance(finder, SourceFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceFinder())

"""Build the package, compiling ``engine/`` with mypyc where a C compiler works.

The metadata lives in ``pyproject.toml``; this file only adds the compiled
engine. mypyc turns each typed module of ``engine/`` into a C extension that
sits beside its ``.py`` source. ``engine/__init__.py`` stays Python: it picks
the build at import time (see :mod:`engine.build`).

* ``ARENA_PURE_PYTHON=1`` at install time skips the compiler altogether.
* Without a working C compiler the extension build fails; the install then
  goes on with the pure-Python engine and says so in one line of its log
  (``pip install -v`` shows it).

After a successful build the source digest of the compiled modules is
written beside them (``engine/_compiled.json``), so that a compiled engine
older than its sources (an editable install after an edit) is never loaded.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _load_build_module() -> ModuleType:
    # engine/build.py lists and digests the sources exactly as the engine
    # checks them at import; it imports nothing from the engine.
    spec = importlib.util.spec_from_file_location("_arena_build", ROOT / "engine" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _load_build_module()


def _say(message: str) -> None:
    print(f"alphabeta-arena: {message}", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to the pure-Python engine when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # whatever failed, the pure engine still works
            self._remove_partial_outputs()
            _say(
                f"could not compile the engine ({type(error).__name__}; the compiler's "
                "output is above); installing the pure-Python engine"
            )
            return
        self._write_digest()
        _say("compiled engine built with mypyc")

    def _remove_partial_outputs(self) -> None:
        # A half-built engine must not be loaded: drop every output made.
        for output in self.get_outputs():
            Path(output).unlink(missing_ok=True)

    def _write_digest(self) -> None:
        record = json.dumps({"sources": COMPILED_FROM[1], "modules": len(COMPILED_FROM[0])})
        targets = [Path(self.build_lib) / "engine"]
        if self.inplace:
            targets.append(BUILD.PACKAGE_DIR)
        for target in targets:
            target.mkdir(parents=True, exist_ok=True)
            (target / BUILD.DIGEST_FILE).write_text(record + "\n")

    def get_outputs(self) -> list[str]:
        outputs = list(super().get_outputs())
        if self.extensions:
            outputs.append(str(Path(self.build_lib) / "engine" / BUILD.DIGEST_FILE))
        return outputs


#: The sources compiled and their digest, taken before mypyc reads them: a
#: source edited during the build then makes the record differ from the
#: sources, and the engine runs them instead of a build that is out of date.
COMPILED_FROM: tuple[list[str], str] = ([], "")


def _extensions() -> list[Any]:
    global COMPILED_FROM
    if BUILD.pure_requested():
        _say("ARENA_PURE_PYTHON is set; installing the pure-Python engine")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        _say(f"mypyc is not available ({error}); installing the pure-Python engine")
        return []
    sources = BUILD.compiled_sources()
    COMPILED_FROM = (sources, BUILD.sources_digest(sources))
    return list(mypycify(sources, opt_level="3", group_name=BUILD.GROUP_NAME))


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})

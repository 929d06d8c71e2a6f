"""Whether each ``--external`` engine can be used: for ``/healthz``, ``welcome`` and the log.

:class:`ProgramHealth` probes every engine once when the server starts, in
background threads (a hung engine must not delay the start): the program
is started, taken through its handshake with its options checked
(:func:`server.external.probe`) and ended. An engine that fails is logged
with the reason, reported by ``/healthz`` and listed in
``welcome.games[].unavailable``; its thinks are still answered (reason
``engine_error``), since the workers retry it with a backoff.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Final

from server.programs.engines import ExternalEngine
from server.programs.searchers import probe

logger = logging.getLogger(__name__)

#: The status of an engine whose probe has not finished.
CHECKING: Final = "checking"
#: The status of an engine that came up with its options.
OK: Final = "ok"


class ProgramHealth:
    """The probes' findings, engine by engine (thread-safe)."""

    def __init__(self, engines: Iterable[ExternalEngine]) -> None:
        self.engines = tuple(engines)
        self._lock = threading.Lock()
        self._status: dict[tuple[str, str], str] = {
            (engine.game, engine.name): CHECKING for engine in self.engines
        }
        #: Set once every probe has finished (for tests and tools).
        self.checked = threading.Event()
        if not self.engines:
            self.checked.set()

    def start(self) -> None:
        """Probe every engine in the background, each in its own thread; returns at once.

        A probe's thread lives until its program has ended (the driver ties
        the program's life to the thread that started it).
        """
        for engine in self.engines:
            threading.Thread(
                target=self._check, args=(engine,), daemon=True, name=f"probe {engine.name}"
            ).start()

    def _check(self, engine: ExternalEngine) -> None:
        why = probe(engine)
        if why is not None:
            logger.warning(
                "external engine %s for %s is unavailable: %s", engine.name, engine.game, why
            )
        with self._lock:
            self._status[engine.game, engine.name] = OK if why is None else why
            if CHECKING not in self._status.values():
                self.checked.set()

    def unavailable(self, game: str) -> dict[str, str]:
        """``game``'s engines that failed their probe, and why."""
        with self._lock:
            return {
                name: status
                for (of, name), status in self._status.items()
                if of == game and status not in (OK, CHECKING)
            }

    def to_dict(self) -> dict[str, str]:
        """``/healthz``'s ``externals``: ``game/name`` -> ``ok``, ``checking`` or why it failed."""
        with self._lock:
            return {
                f"{game}/{name}": status if status in (OK, CHECKING) else f"unavailable: {status}"
                for (game, name), status in self._status.items()
            }

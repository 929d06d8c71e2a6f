"""Whether each ``--external`` engine can be used: for ``/healthz``, ``welcome`` and the log.

:class:`ProgramHealth` probes every engine once when the server starts, in
background threads (a hung engine must not delay the start): the program
is started, taken through its handshake with its options checked
(:func:`server.external.probe`) and ended. An engine that fails is logged
with the reason, reported by ``/healthz`` and listed in
``welcome.games[].unavailable``; its thinks are still answered (reason
``engine_error``), since the workers retry it with a backoff.

An engine that passed its probe and then fails every think (it crashes on
each search, waits out its restart backoff) is reported too:
:meth:`ProgramHealth.observe` counts the ``engine_error`` answers of its
thinks in a row, and from :data:`FAILING_AFTER` of them on it is reported
as failing until a think of its own succeeds (a review, 2026-12-07:
``/healthz`` said "ok" for an engine every think of which failed).
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
#: Thinks in a row answered ``engine_error`` after which an engine that
#: passed its probe is reported failing: one or two are a crash restarted at
#: once; three in a row are an engine that does not work (as the
#: tournament's MAX_FAILURES_IN_A_ROW).
FAILING_AFTER: Final = 3


class ProgramHealth:
    """The probes' findings, engine by engine (thread-safe)."""

    def __init__(self, engines: Iterable[ExternalEngine]) -> None:
        self.engines = tuple(engines)
        self._lock = threading.Lock()
        self._status: dict[tuple[str, str], str] = {
            (engine.game, engine.name): CHECKING for engine in self.engines
        }
        #: Thinks answered engine_error in a row, per engine (:meth:`observe`).
        self._failed_in_a_row: dict[tuple[str, str], int] = {}
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

    def observe(self, game: str, name: str, failed: bool) -> None:
        """A think of engine ``name`` for ``game`` was answered: ``engine_error`` or not."""
        key = (game, name)
        with self._lock:
            if key not in self._status:
                return
            self._failed_in_a_row[key] = self._failed_in_a_row.get(key, 0) + 1 if failed else 0

    def _now(self, key: tuple[str, str]) -> str:
        """An engine's status now: its probe's, or failing when its thinks fail."""
        status = self._status[key]
        failures = self._failed_in_a_row.get(key, 0)
        if status == OK and failures >= FAILING_AFTER:
            return (
                f"its last {failures} thinks were answered engine_error (the server's log says why)"
            )
        return status

    def unavailable(self, game: str) -> dict[str, str]:
        """``game``'s engines that failed their probe or fail their thinks, and why."""
        with self._lock:
            now = {key: self._now(key) for key in self._status}
        return {
            name: status
            for (of, name), status in now.items()
            if of == game and status not in (OK, CHECKING)
        }

    def to_dict(self) -> dict[str, str]:
        """``/healthz``'s ``externals``: ``game/name`` -> ``ok``, ``checking`` or why it failed."""
        with self._lock:
            now = {key: self._now(key) for key in self._status}
        return {
            f"{game}/{name}": status if status in (OK, CHECKING) else f"unavailable: {status}"
            for (game, name), status in now.items()
        }

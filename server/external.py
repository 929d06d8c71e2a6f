"""External engines behind the server: the names the rest of the server imports.

``arena serve --external chess=uci:/usr/games/stockfish`` offers Stockfish
for chess, ``--external "go=gtp:/usr/games/gnugo --mode gtp"`` GNU Go for
Go. The parts live in :mod:`server.programs`: the specs
(:mod:`~server.programs.engines`), the searchers that run the programs in
the workers (:mod:`~server.programs.searchers`), the one line-protocol
driver under them (:mod:`~server.programs.process`), the checks on what
they report (:mod:`~server.programs.reports`) and their health
(:mod:`~server.programs.health`).
"""

from __future__ import annotations

from server.programs.engines import (
    OWN_CLOCK,
    PROTOCOL_GAMES,
    ExternalEngine,
    check_externals,
    find_external,
    offered_algorithms,
    parse_external,
)
from server.programs.searchers import (
    ENGINE_DONE,
    ENGINE_ERROR,
    HANDSHAKE_TIMEOUT_S,
    RESTART_BACKOFF_S,
    START_PATIENCE_S,
    STARTUP_WAIT_S,
    STOP_GRACE_S,
    ExternalEngineError,
    GtpSearcher,
    ProgramSearcher,
    UciSearcher,
    probe,
    program_searcher,
)
from server.programs.uci import go_command, parse_info

__all__ = [
    "ENGINE_DONE",
    "ENGINE_ERROR",
    "HANDSHAKE_TIMEOUT_S",
    "OWN_CLOCK",
    "PROTOCOL_GAMES",
    "RESTART_BACKOFF_S",
    "STARTUP_WAIT_S",
    "START_PATIENCE_S",
    "STOP_GRACE_S",
    "ExternalEngine",
    "ExternalEngineError",
    "GtpSearcher",
    "ProgramSearcher",
    "UciSearcher",
    "check_externals",
    "find_external",
    "go_command",
    "offered_algorithms",
    "parse_external",
    "parse_info",
    "probe",
    "program_searcher",
]

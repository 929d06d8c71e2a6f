"""The server's configuration: :class:`ServerConfig` and the defaults it starts from.

:mod:`server.cli` builds one from the ``arena serve`` options;
:class:`~server.app.ArenaServer` runs with one. Its ``limits``
(:class:`~protocol.limits.ServerLimits`) are the one source of every limit
the server announces and enforces.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from engine.search.tt import DEFAULT_TT_SLOTS
from protocol.limits import ServerLimits
from server.external import STARTUP_WAIT_S, ExternalEngine
from server.runtime.constants import PREEMPT_AFTER_S, WORKER_GRACE_S, WORKER_NICE
from server.runtime.memory import TreeBudget

#: Open connections beyond which new ones are closed at once with 1013
#: (try again later). Each idle connection costs some tens of kilobytes and
#: a file descriptor (docs/load.md).
DEFAULT_MAX_CONNECTIONS = 2000
#: With ``--agent-port`` (behind HAProxy), how long SIGTERM lets sessions
#: finish their thinks before the usual shutdown: long enough for the
#: thinks of a game at a few seconds a move, short enough for systemd's
#: default stop timeout of 90 s. Without an agent port a SIGTERM shuts down
#: at once, as before (no proxy is told to stop sending clients).
DEFAULT_DRAIN_GRACE_S = 30.0
#: How long a draining server keeps its idle sessions open after it starts
#: answering ``drain``: the proxy asks the agent every ``agent-inter`` (500 ms
#: in deploy/haproxy.cfg; this leaves room for a 1 s one), so after this it
#: sends no new clients here.
DEFAULT_DRAIN_NOTICE_S = 1.5


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How to run one server: where it listens, its workers, its limits and who may connect.

    ``limits`` is the one :class:`~protocol.limits.ServerLimits` the server
    runs with (:class:`~server.app.ArenaServer` fills in the queue bound the
    pool derives from ``workers`` and announces the result in ``welcome``).
    """

    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = os.cpu_count() or 1
    tt_slots: int = DEFAULT_TT_SLOTS
    worker_grace_s: float = WORKER_GRACE_S
    limits: ServerLimits = field(default_factory=ServerLimits)
    #: Shared secret clients must present (``None``: anyone may connect).
    token: str | None = None
    #: Browser origins allowed besides the server's own (``"*"``: any).
    allowed_origins: tuple[str, ...] = ()
    #: Host names browsers may use to reach this server, besides IP
    #: addresses, ``localhost`` and ``host`` (``"*"``: any; DNS rebinding).
    allowed_hosts: tuple[str, ...] = ()
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    #: Niceness added to the search processes (0: same priority as the loop).
    worker_nice: int = WORKER_NICE
    #: An untimed think that has searched this long gives way to waiting thinks.
    preempt_after_s: float = PREEMPT_AFTER_S
    #: Engine programs offered besides our own searches (``--external``).
    externals: tuple[ExternalEngine, ...] = ()
    #: How long a starting search process waits for its programs' handshakes
    #: before it serves (``--program-wait``; STARTUP_WAIT_S).
    program_wait_s: float = STARTUP_WAIT_S
    #: Each worker's bound on its Monte Carlo trees (``--worker-tree-mb``).
    tree_budget: TreeBudget = field(default_factory=TreeBudget)
    #: TCP port of HAProxy's agent check (server/agent.py); ``None``: no agent.
    agent_port: int | None = None
    #: On SIGTERM, how long sessions may finish their thinks (0: shut down at once).
    drain_grace_s: float = 0.0
    #: On SIGTERM, how long idle sessions stay open after the agent says ``drain``.
    drain_notice_s: float = DEFAULT_DRAIN_NOTICE_S

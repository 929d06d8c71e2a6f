"""HAProxy's agent check: a TCP port where the server says how much more it can take.

HAProxy (``agent-check agent-port N agent-inter T`` on a ``server`` line,
configuration manual section 5.2) connects to this port every ``T``, sends
nothing, reads one line of ASCII words and closes; the server closes after
writing it. The words used here:

* ``ready``: leave the drain or maintenance state the agent may have set
  before (HAProxy keeps that admin state across a restart of the server;
  only the agent or the runtime API can lift it);
* ``up``: the server is operational;
* ``N%``: scale the server's configured weight to N percent. With
  ``balance leastconn`` HAProxy sends a new connection to the server with
  the fewest connections per unit of weight, so a busy server gets fewer;
* ``drain``: give the server no new connections, keep the open ones
  (what a server shutting down gracefully answers).

The line is computed by a callback of the server (:meth:`ArenaServer.agent_line`),
so this module knows nothing of workers or queues.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger("server.agent")

#: The weight a server with no free capacity still reports. 0% would give
#: it no new connections at all, and with every instance at 0% HAProxy
#: would refuse every client; at 1% a saturated instance still gets its
#: share once the others are as full (leastconn divides by the weight).
MIN_WEIGHT_PERCENT = 1
#: How long a peer may take before its line is written; HAProxy reads at
#: once, so only a stray client could be slower (it then gets nothing).
WRITE_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class Capacity:
    """What the server can still take: free workers and free queue slots."""

    workers: int
    busy: int
    queued: int
    max_queue: int

    def free_percent(self) -> int:
        """Free capacity in percent of workers plus queue, at least MIN_WEIGHT_PERCENT.

        A free worker counts like a free queue slot: either takes a think
        without refusing it. Workers weigh more in practice (a queued think
        waits), so they are counted twice.
        """
        total = 2 * self.workers + self.max_queue
        if total <= 0:
            return MIN_WEIGHT_PERCENT
        free = 2 * max(0, self.workers - self.busy) + max(0, self.max_queue - self.queued)
        return max(MIN_WEIGHT_PERCENT, min(100, round(100 * free / total)))


def agent_line(capacity: Capacity, draining: bool) -> str:
    """The agent's answer: ``drain`` while shutting down, else ``up ready N%``."""
    if draining:
        return "drain\n"
    return f"up ready {capacity.free_percent()}%\n"


class AgentServer:
    """A TCP listener that writes ``line()`` to each peer and closes."""

    def __init__(self, host: str, port: int, line: Callable[[], str]) -> None:
        self.host = host
        self.requested_port = port
        self._line = line
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0)."""
        if self._server is None:
            raise RuntimeError("the agent is not started")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._answer, self.host, self.requested_port)
        logger.info("agent check on %s:%d", self.host, self.port)

    async def close(self) -> None:
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close()
        await server.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # The line is computed now, not when the peer connected to a busy
        # loop: it is the freshest state there is.
        try:
            writer.write(self._line().encode("ascii"))
            await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT_S)
        except (OSError, TimeoutError) as error:
            logger.debug("agent peer went away: %s", error)
        finally:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), WRITE_TIMEOUT_S)

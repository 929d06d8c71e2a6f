"""What a load run is asked to do (:class:`LoadConfig`), checked, with its hard bounds."""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from urllib.parse import urlsplit

from clients.load_config import (
    DEFAULT_THRESHOLDS,
    MAX_RATE,
    MODES,
    Mode,
    Stage,
    Threshold,
    check_stages,
    merge_thresholds,
)
from protocol.codec import EncodingName

#: Hard bounds on a run, whatever the options say.
MAX_CONNECTIONS = 5000


MAX_DURATION_S = 3600.0


#: The time series' default interval (``--interval``).
DEFAULT_INTERVAL_S = 1.0


@dataclass(frozen=True, slots=True)
class LoadConfig:
    """What to run, and the thresholds that fail the run or mark it degraded.

    ``mode`` is ``closed`` (``connections`` sessions, each running the
    scenario over and over) or ``arrival-rate`` (scenario runs started
    ``rate`` times a second on a pool of at most ``connections``).
    ``stages`` (:class:`~clients.load_config.Stage`) make the target move
    over the run; without them a closed run ramps up to ``connections`` over
    ``ramp_s`` and holds until ``duration_s``, and an arrival-rate run holds
    ``rate`` for ``duration_s``.

    ``thresholds`` (default :data:`~clients.load_config.DEFAULT_THRESHOLDS`)
    are checked at the end. ``max_overloaded``: the largest share (0..1) of
    answered thinks that may be answered ``overloaded``; ``max_refused``: the
    largest share of thinks sent that may be refused with an ``overloaded``
    error; ``max_late_p99_ms``: the largest allowed p99 of ``bestmove``
    lateness against the deadline, as this tester measures it. Each, when
    given, replaces every threshold on its metric.
    """

    url: str
    connections: int = 10
    ramp_s: float = 1.0
    duration_s: float = 10.0
    #: Stop once this many scenario runs have started (``None``: no count bound).
    iterations: int | None = None
    scenario: str = "mixed"
    movetime_ms: int = 100
    encoding: EncodingName = "msgpack"
    token: str | None = None
    seed: int = 1
    max_overloaded: float | None = None
    max_refused: float | None = None
    max_late_p99_ms: float | None = None
    mode: Mode = "closed"
    #: Scenario runs started per second (arrival-rate mode without stages).
    rate: float | None = None
    stages: tuple[Stage, ...] = ()
    thresholds: tuple[Threshold, ...] = DEFAULT_THRESHOLDS
    #: Seconds between two rows of the time series.
    interval_s: float = DEFAULT_INTERVAL_S

    def plan(self) -> tuple[Stage, ...]:
        """The stages the run follows (derived from the options when none are given)."""
        if self.stages:
            return self.stages
        if self.mode == "arrival-rate":
            return (Stage(0.0, self.rate or 0.0), Stage(self.duration_s, self.rate or 0.0))
        ramp = min(self.ramp_s, self.duration_s)
        return (
            Stage(ramp, float(self.connections)),
            Stage(self.duration_s - ramp, float(self.connections)),
        )

    @property
    def total_s(self) -> float:
        """How long the run starts scenario runs."""
        return sum(stage.duration_s for stage in self.plan())

    def sessions(self) -> int:
        """The most connections the run opens."""
        if self.mode == "closed":
            return math.ceil(max((stage.target for stage in self.plan()), default=0.0))
        return self.connections

    def checked_thresholds(self) -> tuple[Threshold, ...]:
        """:attr:`thresholds` with the ``max_*`` options in place of their metrics' own."""
        named: dict[str, list[Threshold]] = {}
        if self.max_overloaded is not None:
            named["overloaded_share"] = [Threshold("overloaded_share", "<=", self.max_overloaded)]
        if self.max_refused is not None:
            named["refused_share"] = [Threshold("refused_share", "<=", self.max_refused)]
        if self.max_late_p99_ms is not None:
            named["bestmove_lateness"] = [
                Threshold("bestmove_lateness", "<=", self.max_late_p99_ms, "p99")
            ]
        return merge_thresholds(self.thresholds, named)

    def check(self) -> None:
        """Raise ``ValueError`` unless the run is bounded and aimed at loopback."""
        if not 1 <= self.connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1..{MAX_CONNECTIONS}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if not self.stages:
            if not 0 < self.duration_s <= MAX_DURATION_S:
                raise ValueError(f"duration must be in (0, {MAX_DURATION_S:g}] seconds")
            if self.mode == "closed" and (self.ramp_s < 0 or self.ramp_s > self.duration_s):
                raise ValueError("ramp-up must be between 0 and the duration")
        if self.mode == "arrival-rate":
            if not self.stages and (self.rate is None or not 0 < self.rate <= MAX_RATE):
                raise ValueError(
                    f"the arrival-rate mode needs --rate (runs per second, at most {MAX_RATE:g}) "
                    "or stages"
                )
            check_stages(self.stages, MAX_RATE, "runs per second")
        else:
            check_stages(self.stages, MAX_CONNECTIONS, "connections")
        if self.stages and not 0 < self.total_s <= MAX_DURATION_S:
            raise ValueError(f"the stages must last (0, {MAX_DURATION_S:g}] seconds in all")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")
        if self.movetime_ms < 1:
            raise ValueError("movetime must be at least 1 ms")
        if not 0.05 <= self.interval_s <= 60:
            raise ValueError("the time series' interval must be 0.05..60 seconds")
        for name in ("max_overloaded", "max_refused"):
            share = getattr(self, name)
            if share is not None and not 0 <= share <= 1:
                raise ValueError(f"{name} must be a share between 0 and 1 (0% and 100%)")
        if self.max_late_p99_ms is not None and not math.isfinite(self.max_late_p99_ms):
            raise ValueError("max_late_p99_ms must be a number of milliseconds")
        require_loopback(self.url)


def parse_share(text: str) -> float:
    """A share written ``5%`` or ``0.05`` -> ``0.05``; ``ValueError`` otherwise."""
    stripped = text.strip()
    try:
        share = float(stripped[:-1]) / 100 if stripped.endswith("%") else float(stripped)
    except ValueError:
        raise ValueError(f"{text!r} is not a share: write 5% or 0.05") from None
    if not math.isfinite(share) or not 0 <= share <= 1:
        raise ValueError(f"{text!r} is not a share between 0% and 100% (write 5% or 0.05)")
    return share


def require_loopback(url: str) -> None:
    """Refuse any target but this machine (``ValueError``)."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        raise ValueError(f"{url!r} is not a ws:// or wss:// URL")
    host = parts.hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ValueError(f"the load tester only targets loopback (127.0.0.1, ::1), not {host!r}")

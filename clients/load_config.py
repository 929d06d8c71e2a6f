"""What a load run is asked to do: its stages, its thresholds, and the config file declaring them.

``arena loadtest`` runs in one of two models, as k6 does:

* ``closed`` (k6's ramping VUs): a number of connections, each running its
  scenario over and over; the number follows the :class:`Stage` list
  (``target`` = connections);
* ``arrival-rate`` (k6's ramping arrival rate, an open model): scenario runs
  start at a rate whatever the server's speed, on connections taken from a
  pool of at most ``connections``; the :class:`Stage` targets are runs per
  second, and a run due when every pooled connection is busy is *dropped*
  (counted, never queued).

Between stages the target moves linearly from the previous stage's target
(0 before the first) to the stage's own, over the stage's duration: ramp up,
hold, ramp down.

A :class:`Threshold` is one condition a run must meet, written as k6 writes
them: ``"p99 <= 50"`` on a latency summary (``bestmove_lateness``,
``think_rtt``, ...; any statistic of :data:`LATENCY_STATS`,
``p(95)`` too) or ``"<= 5%"`` on a share (:data:`SHARE_METRICS`). Its
``level`` says what crossing it means: ``fail`` (exit status 1) or
``degraded`` (exit status 3). :data:`DEFAULT_THRESHOLDS` apply unless the
run names the metric itself.

The config file (``--config FILE``, TOML or JSON, by its extension) holds the
options under their command-line names and the thresholds, once::

    scenario = "think"
    movetime = 100
    connections = 20
    stages = [
      { duration = 5, target = 20 },   # ramp up
      { duration = 20, target = 20 },  # hold
      { duration = 5, target = 0 },    # ramp down
    ]

    [thresholds]                       # crossing one fails the run (exit 1)
    overloaded_share = "<= 25%"
    bestmove_lateness = ["p99 <= 50", "max <= 200"]

    [degraded]                         # crossing one: DEGRADED (exit 3)
    overloaded_share = "<= 5%"
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["fail", "degraded"]
Mode = Literal["closed", "arrival-rate"]
MODES: tuple[Mode, ...] = ("closed", "arrival-rate")

#: Shares a threshold may name: ``thinks.overloaded_share`` (answered
#: ``overloaded``: nobody searched them), ``thinks.refused_share`` (refused at
#: once, queue full) and, in the arrival-rate model, ``arrivals.dropped_share``
#: (runs due while every pooled connection was busy).
SHARE_METRICS: Mapping[str, tuple[str, str]] = {
    "overloaded_share": ("thinks", "overloaded_share"),
    "refused_share": ("thinks", "refused_share"),
    "dropped_share": ("arrivals", "dropped_share"),
}
#: Plain names of the checks, as the report prints them.
CHECK_NAMES: Mapping[str, str] = {
    "overloaded_share": "overloaded answers",
    "refused_share": "refused thinks",
    "dropped_share": "dropped runs",
}
#: Highest arrival rate (scenario runs started per second) a run may ask for.
MAX_RATE = 10_000.0
#: Statistics of a latency summary a threshold may name.
LATENCY_STATS = ("count", "min", "avg", "med", "p50", "p90", "p95", "p99", "max", "mean")

_EXPRESSION = re.compile(
    r"\s*(?:(?P<stat>p\(\d+\)|[a-z][a-z0-9]*)\s*)?(?P<op><=|<|>=|>)\s*"
    r"(?P<value>[-+]?\d+(?:\.\d*)?|[-+]?\.\d+)\s*(?P<unit>%|ms)?\s*"
)
_OPERATORS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


@dataclass(frozen=True, slots=True)
class Stage:
    """Move the target (connections, or runs per second) to ``target`` over ``duration_s``."""

    duration_s: float
    target: float


def target_at(stages: Sequence[Stage], elapsed_s: float) -> float:
    """The target ``elapsed_s`` into the run: linear within a stage, from 0 before the first."""
    previous = 0.0
    start = 0.0
    for stage in stages:
        end = start + stage.duration_s
        if elapsed_s < end and stage.duration_s > 0:
            fraction = (elapsed_s - start) / stage.duration_s
            return previous + (stage.target - previous) * max(0.0, fraction)
        previous, start = stage.target, end
    return previous


def parse_stage(text: str) -> Stage:
    """``DURATION:TARGET`` (``5:20``, ``5s:20``, ``1m:20``) -> a :class:`Stage`."""
    duration_text, sep, target_text = text.strip().partition(":")
    try:
        if not sep:
            raise ValueError
        duration = parse_duration(duration_text)
        target = float(target_text)
    except ValueError:
        raise ValueError(f"{text!r} is not a stage: write DURATION:TARGET, like 10s:20") from None
    return Stage(duration, target)


def parse_duration(text: str | float) -> float:
    """Seconds from ``5``, ``5s``, ``500ms`` or ``2m``; ``ValueError`` otherwise."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a duration")
    stripped = text.strip().lower()
    for suffix, scale in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if stripped.endswith(suffix):
            return float(stripped[: -len(suffix)]) * scale
    return float(stripped)


def check_stages(stages: Sequence[Stage], highest: float, unit: str) -> None:
    """Raise ``ValueError`` unless every stage is finite and its target within ``0..highest``."""
    for stage in stages:
        if not math.isfinite(stage.duration_s) or stage.duration_s < 0:
            raise ValueError(
                f"a stage's duration must be 0 or more seconds, not {stage.duration_s}"
            )
        if not math.isfinite(stage.target) or not 0 <= stage.target <= highest:
            raise ValueError(f"a stage's target must be 0..{highest:g} {unit}, not {stage.target}")


@dataclass(frozen=True, slots=True)
class Threshold:
    """One condition on the run's report; crossing it fails the run or marks it degraded."""

    metric: str
    op: str
    limit: float
    stat: str | None = None
    level: Level = "fail"

    @property
    def name(self) -> str:
        """The check's name in the report: ``overloaded answers``, ``bestmove lateness p99``."""
        if self.stat is None:
            return CHECK_NAMES.get(self.metric, self.metric)
        return f"{self.metric.replace('_', ' ')} {self.stat}"

    @property
    def text(self) -> str:
        """The condition as written (``p99 <= 50 ms``, ``<= 5.00%``)."""
        if self.stat is None:
            return f"{self.op} {self.limit:.2%}"
        unit = "" if self.stat == "count" else " ms"
        return f"{self.stat} {self.op} {self.limit:g}{unit}"

    def holds(self, value: float) -> bool:
        return bool(_OPERATORS[self.op](value, self.limit))


def parse_threshold(metric: str, expression: str, level: Level = "fail") -> Threshold:
    """A threshold from its metric and k6-style expression; ``ValueError`` if it is not one."""
    if not isinstance(expression, str):
        raise ValueError(f"threshold on {metric!r}: {expression!r} is not text like 'p99 <= 50'")
    match = _EXPRESSION.fullmatch(expression)
    if match is None:
        raise ValueError(
            f"threshold on {metric!r}: {expression!r} is not a condition like "
            "'p99 <= 50' or '<= 5%'"
        )
    stat, op, unit = match.group("stat"), match.group("op"), match.group("unit")
    value = float(match.group("value"))
    if metric in SHARE_METRICS:
        if stat not in (None, "rate", "share"):
            raise ValueError(f"threshold on {metric!r}: a share takes no statistic ({stat!r})")
        if unit == "ms":
            raise ValueError(f"threshold on {metric!r}: a share is not in milliseconds")
        limit = value / 100 if unit == "%" else value
        if not 0 <= limit <= 1:
            raise ValueError(f"threshold on {metric!r}: {expression!r} is not a share 0%..100%")
        return Threshold(metric, op, limit, None, level)
    if not re.fullmatch(r"[a-z][a-z0-9_]*(\[[A-Za-z0-9_.-]+\])?", metric):
        raise ValueError(f"{metric!r} is not a metric name")
    if stat is None:
        raise ValueError(
            f"threshold on {metric!r}: name the statistic, as in 'p99 <= 50' "
            f"(one of {', '.join(LATENCY_STATS)})"
        )
    percentile = re.fullmatch(r"p\((\d+)\)", stat)
    if percentile:
        stat = f"p{percentile.group(1)}"
    if stat not in LATENCY_STATS:
        raise ValueError(
            f"threshold on {metric!r}: unknown statistic {stat!r} "
            f"(one of {', '.join(LATENCY_STATS)})"
        )
    if unit == "%":
        raise ValueError(f"threshold on {metric!r}: a latency is in milliseconds, not a share")
    return Threshold(metric, op, value, stat, level)


#: The thresholds of every run unless it names the metric itself (in the
#: config file, or ``--max-overloaded`` / ``--max-refused``). A server that
#: answers a quarter of its thinks unsearched, refuses half of them, or
#: cannot start a quarter of the runs due has not passed; one in twenty
#: unsearched (one in ten refused) already marks the run DEGRADED. Latency
#: has no default: the tester's own lateness includes its scheduling on the
#: same machine; give a limit that fits yours.
DEFAULT_THRESHOLDS: tuple[Threshold, ...] = (
    Threshold("overloaded_share", "<=", 0.25, None, "fail"),
    Threshold("overloaded_share", "<=", 0.05, None, "degraded"),
    Threshold("refused_share", "<=", 0.50, None, "fail"),
    Threshold("refused_share", "<=", 0.10, None, "degraded"),
    Threshold("dropped_share", "<=", 0.25, None, "fail"),
    Threshold("dropped_share", "<=", 0.05, None, "degraded"),
)


def thresholds_from_tables(
    fail: Mapping[str, Any] | None, degraded: Mapping[str, Any] | None
) -> dict[str, list[Threshold]]:
    """``{metric: thresholds}`` from a config file's ``[thresholds]`` and ``[degraded]`` tables.

    A metric's value is one expression or a list of them (an empty list: no
    threshold on it, not even the default).
    """
    named: dict[str, list[Threshold]] = {}
    for table, level in ((fail or {}, "fail"), (degraded or {}, "degraded")):
        if not isinstance(table, Mapping):
            raise ValueError(f"the {level} thresholds must be a table of metric = condition")
        for metric, value in table.items():
            expressions = value if isinstance(value, list) else [value]
            named.setdefault(metric, []).extend(
                parse_threshold(metric, expression, level)  # type: ignore[arg-type]
                for expression in expressions
            )
    return named


def merge_thresholds(
    base: Sequence[Threshold], named: Mapping[str, Sequence[Threshold]]
) -> tuple[Threshold, ...]:
    """``base`` without the metrics ``named`` names, then ``named``'s thresholds."""
    kept = [threshold for threshold in base if threshold.metric not in named]
    return (*kept, *(threshold for group in named.values() for threshold in group))


# ----------------------------------------------------------------------
# The config file.

#: Keys of the config file: the command line's long options (``--max-*``
#: included), plus ``stages`` and the two threshold tables.
CONFIG_KEYS = frozenset(
    {
        "url",
        "connections",
        "ramp",
        "duration",
        "iterations",
        "scenario",
        "movetime",
        "json",
        "seed",
        "mode",
        "rate",
        "stages",
        "thresholds",
        "degraded",
        "out",
        "report",
        "interval",
        "max_overloaded",
        "max_refused",
        "max_late_p99_ms",
    }
)


def read_config_file(path: str) -> dict[str, Any]:
    """The settings of a TOML (``.toml``) or JSON (``.json``) config file, checked by key.

    Keys may be written with ``-`` or ``_`` (``max-overloaded``); ``stages``
    becomes a list of :class:`Stage`. ``ValueError`` for an unreadable file
    or an unknown key.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise ValueError(f"cannot read the config file {path!r}: {error.strerror}") from None
    try:
        if path.endswith(".json"):
            settings = json.loads(data)
        elif path.endswith(".toml"):
            settings = tomllib.loads(data.decode())
        else:
            raise ValueError(f"{path!r}: a config file is .toml or .json")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path!r} is not valid: {error}") from None
    if not isinstance(settings, dict):
        raise ValueError(f"{path!r}: the config file must hold a table of settings")
    normalised = {str(key).replace("-", "_"): value for key, value in settings.items()}
    unknown = sorted(set(normalised) - CONFIG_KEYS)
    if unknown:
        raise ValueError(
            f"{path!r}: unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
            f"(known: {', '.join(sorted(CONFIG_KEYS))})"
        )
    if "stages" in normalised:
        normalised["stages"] = _stages(normalised["stages"], path)
    if normalised.get("mode", "closed") not in MODES:
        raise ValueError(f"{path!r}: mode is one of {', '.join(MODES)}")
    return normalised


def _stages(value: Any, path: str) -> list[Stage]:
    if not isinstance(value, list):
        raise ValueError(f"{path!r}: stages is a list of {{duration, target}} tables")
    stages = []
    for item in value:
        if isinstance(item, str):
            stages.append(parse_stage(item))
            continue
        if not isinstance(item, dict) or set(item) != {"duration", "target"}:
            raise ValueError(
                f"{path!r}: each stage is {{ duration = 5, target = 20 }}, not {item!r}"
            )
        target = item["target"]
        if isinstance(target, bool) or not isinstance(target, int | float):
            raise ValueError(f"{path!r}: a stage's target is a number, not {target!r}")
        stages.append(Stage(parse_duration(item["duration"]), float(target)))
    return stages

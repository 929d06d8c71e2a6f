"""Load testing: many scripted clients against one server, with latency figures and a verdict.

``arena loadtest`` runs a *scenario* on WebSocket connections in one of two
models (:mod:`clients.load_config`): *closed* (``connections`` sessions,
each running the scenario over and over, their number following stages:
by default a ramp over ``ramp_s`` and a hold until ``duration_s``) or
*arrival-rate* (scenario runs started ``rate`` times a second on a pool of
connections; a run due while every pooled connection is busy is dropped
and counted). The run stops by itself at the stages' end or once
``iterations`` runs have started. The tester then prints and (optionally)
writes a JSON report: connect time, request round trips, think -> first
``info``, ``bestmove`` lateness against the think's deadline, stop ->
``bestmove``, the time each think waited in the server's queue
(``queued_ms``), each as count/min/avg/med/p90/p95/p99/max in
milliseconds; thinks per second, answers by ``reason`` (the share answered
``overloaded``: no search process got to them), the depths reached, thinks
refused at once (``overloaded`` errors, after which the session waits the
server's ``retry_after_ms``), other errors by code, and lost answers (a
think that never got its ``bestmove``). When the server's ``/metrics`` is
reachable, the report adds the server's own view of the run (event-loop
lag, bestmove lateness and queue waits, from the histogram deltas). With
``--out`` it also writes a time series, one row per interval
(:func:`~clients.loadtest.series.series_row`).

Every run ends with its checks: no answer lost, no connection failed, no
malformed answer (each fails the run), and the thresholds
(:class:`~clients.load_config.Threshold`): by default a run with more than
25% of its answers unsearched or half its thinks refused FAILS, one with
more than 5% (10% refused) is DEGRADED; ``--max-overloaded``,
``--max-refused``, ``--max-late-p99-ms`` and a ``--config`` file set
others. ``arena loadtest`` exits with 0 (passed), 1 (failed), 3 (degraded)
(:func:`~clients.loadtest.checks.exit_status`), 2 for bad options.

A scenario is a plain async function; write your own and pass it as
``--scenario package.module:function``::

    async def my_scenario(session: LoadSession) -> None:
        await session.new_game("connect4")
        while session.running and not session.game_over:
            best = await session.think(movetime_ms=200)
            if best is None:          # lost, or the connection closed
                return
            await session.move(best.move)

A scenario may give a session a :attr:`LoadSession.group` (a name): its
round trips are then also reported under ``<name>[<group>]`` and its thinks
counted per group, to compare well-behaved clients with abusive ones in
one run (:attr:`LoadSession.index` is the connection's number).

:class:`LoadSession` speaks the protocol and times everything it does; a
scenario never needs to measure anything itself. Use ``session.rng`` (seeded
per connection) for random choices so that runs are repeatable. The built-in
scenarios are in :data:`SCENARIOS`.

Only loopback targets are accepted: this tool is for testing a server on
the same machine, and its load is bounded in connections and time.

The package, one module per part: :mod:`~clients.loadtest.config` (what to
run), :mod:`~clients.loadtest.session` (one client),
:mod:`~clients.loadtest.scenarios`, :mod:`~clients.loadtest.runner` (the run),
:mod:`~clients.loadtest.summary` (counts and latencies),
:mod:`~clients.loadtest.series` (``--out``), :mod:`~clients.loadtest.checks`
(the verdict), :mod:`~clients.loadtest.metrics` (the server's view),
:mod:`~clients.loadtest.report` (the text) and :mod:`~clients.loadtest.cli`
(``arena loadtest``). Their public names are all importable from here.
"""

from clients.loadtest.checks import (
    EXIT_CHECK_FAILED,
    EXIT_DEGRADED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    exit_status,
    run_checks,
    run_status,
    threshold_check,
)
from clients.loadtest.cli import (
    OPTION_DEFAULTS,
    config_from_args,
    config_from_settings,
    configure,
    run,
    settings_from_args,
)
from clients.loadtest.config import (
    DEFAULT_INTERVAL_S,
    MAX_CONNECTIONS,
    MAX_DURATION_S,
    LoadConfig,
    parse_share,
    require_loopback,
)
from clients.loadtest.metrics import (
    PERCENTILES,
    histogram_quantile_bound,
    histogram_share_at_most,
    metrics_url,
    parse_metrics,
    readings_differ,
    scrape_metrics,
    server_view,
)
from clients.loadtest.report import (
    CROSSED,
    TABLE_STATS,
    format_report,
)
from clients.loadtest.runner import (
    RECONNECT_PAUSE_S,
    TICK_S,
    WIND_DOWN_S,
    LoadRun,
    run_load,
)
from clients.loadtest.scenarios import (
    SCENARIOS,
    Scenario,
    idle,
    load_scenario,
    mixed,
    single,
    think,
)
from clients.loadtest.series import (
    SERIES_FORMATS,
    SERIES_LATENCIES,
    series_row,
    series_target,
    write_series,
)
from clients.loadtest.session import (
    DEFAULT_RETRY_AFTER_MS,
    LOST_AFTER_S,
    MAX_RETRY_WAIT_MS,
    REPLY_TIMEOUT_S,
    LoadSession,
    SessionClosed,
)
from clients.loadtest.summary import (
    SUMMARY_PERCENTILES,
    Recorder,
    percentiles,
    thinks_summary,
)

__all__ = [
    "CROSSED",
    "DEFAULT_INTERVAL_S",
    "DEFAULT_RETRY_AFTER_MS",
    "EXIT_CHECK_FAILED",
    "EXIT_DEGRADED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "LOST_AFTER_S",
    "MAX_CONNECTIONS",
    "MAX_DURATION_S",
    "MAX_RETRY_WAIT_MS",
    "OPTION_DEFAULTS",
    "PERCENTILES",
    "RECONNECT_PAUSE_S",
    "REPLY_TIMEOUT_S",
    "SCENARIOS",
    "SERIES_FORMATS",
    "SERIES_LATENCIES",
    "SUMMARY_PERCENTILES",
    "TABLE_STATS",
    "TICK_S",
    "WIND_DOWN_S",
    "LoadConfig",
    "LoadRun",
    "LoadSession",
    "Recorder",
    "Scenario",
    "SessionClosed",
    "config_from_args",
    "config_from_settings",
    "configure",
    "exit_status",
    "format_report",
    "histogram_quantile_bound",
    "histogram_share_at_most",
    "idle",
    "load_scenario",
    "metrics_url",
    "mixed",
    "parse_metrics",
    "parse_share",
    "percentiles",
    "readings_differ",
    "require_loopback",
    "run",
    "run_checks",
    "run_load",
    "run_status",
    "scrape_metrics",
    "series_row",
    "series_target",
    "server_view",
    "settings_from_args",
    "single",
    "think",
    "thinks_summary",
    "threshold_check",
    "write_series",
]

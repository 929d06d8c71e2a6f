"""The scheduler without processes, sockets or clocks: event sequences in, commands out.

Every test drives :class:`server.runtime.scheduler.Scheduler` with plain
calls at made-up times and checks the commands it returns, the way the
websockets library tests its sans-I/O protocol. What the real processes
add (pipes, signals, timers) is covered by test_guarantees, test_faults and
test_overload.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from engine.registry import create_game
from engine.search.limits import Deadlines, Limits
from engine.search.results import Info, SearchResult
from engine.search.score import Score
from protocol.codec import Encoding, decode
from server.jobs import SearchJob, TraceJob
from server.runtime.constants import (
    GUARD_LEAD_S,
    MAX_RETRY_AFTER_MS,
    MAX_START_FAILURES,
    MIN_RETRY_AFTER_MS,
    STOP_GRACE_S,
)
from server.runtime.scheduler import (
    ArmTimer,
    Command,
    Deliver,
    ExitWorker,
    Kill,
    QueueFull,
    ReportInfo,
    Scheduler,
    SendJob,
    SetStopFlag,
    Spawn,
    TicketState,
    WorkerState,
)
from server.runtime.worker import TraceReply

T0 = 1000.0
GAME = create_game("connect4")
FALLBACK = "1"
#: An answer without a search result: the game's quick move (the centre),
#: not the first legal move (chess answered the king's walk e1e2 so).
UNSEARCHED = GAME.format_move(GAME.initial_state(), GAME.quick_move(GAME.initial_state()))


def think(
    movetime_s: float | None = 1.0,
    received: float = T0,
    cap_s: float = 600.0,
) -> SearchJob:
    """A Connect Four think received at ``received``; ``None``: an untimed analysis."""
    budget = cap_s if movetime_s is None else movetime_s
    limits = Limits() if movetime_s is None else Limits(movetime_ms=int(movetime_s * 1000))
    return SearchJob(
        think_id=1,
        game=GAME,
        state=GAME.initial_state(),
        limits=limits,
        deadlines=Deadlines(received, received + budget, received + budget),
        fallback_move=FALLBACK,
        algorithm="alphabeta",
    )


def trace(budget_s: float = 1.0, received: float = T0) -> TraceJob:
    return TraceJob(
        trace_id=7,
        game=GAME,
        state=GAME.initial_state(),
        algorithm="alphabeta",
        depth=3,
        max_nodes=1000,
        playouts=0,
        seed=0,
        deadlines=Deadlines(received, received + budget_s, received + budget_s),
    )


def info(depth: int, move: str = "4", partial: bool = False) -> Info:
    return Info(depth, depth, Score(value=10 * depth), (move,), 100 * depth, 5, 0, 0.0, partial)


def result(move: str = "4", depth: int = 9, reason: str = "time") -> SearchResult:
    answer = SearchResult.unsearched(move, reason, 0)
    searched = dataclasses.replace(answer.info, depth=depth, nodes=1234, pv=(move,))
    return dataclasses.replace(answer, info=searched)


class Run:
    """A scheduler whose workers have started, and every command it gave, in order."""

    def __init__(self, size: int = 1, **options: Any) -> None:
        self.scheduler = Scheduler(size, **options)
        self.log: list[Command] = []
        self.take(self.scheduler.start())
        for number in range(1, size + 1):
            self.take(self.scheduler.worker_ready(number, T0))

    def take(self, commands: list[Command]) -> list[Command]:
        self.log.extend(commands)
        return commands

    def submit(self, ticket: int, job: SearchJob | TraceJob, now: float = T0) -> list[Command]:
        encoding = Encoding.JSON if isinstance(job, TraceJob) else None
        return self.take(self.scheduler.submit(ticket, job, now, encoding))

    def __getattr__(self, event: str) -> Any:
        """Any other event: call it on the scheduler and record its commands."""
        method = getattr(self.scheduler, event)
        return lambda *args, **kwargs: self.take(method(*args, **kwargs))

    def delivered(self, ticket: int) -> list[Deliver]:
        return [c for c in self.log if isinstance(c, Deliver) and c.ticket == ticket]

    def answer(self, ticket: int) -> Any:
        (delivery,) = self.delivered(ticket)
        return delivery.answer

    def sent(self) -> list[SendJob]:
        return [c for c in self.log if isinstance(c, SendJob)]

    def timer(self) -> float | None:
        """Where the one timer is armed now."""
        arms = [c for c in self.log if isinstance(c, ArmTimer)]
        return arms[-1].when if arms else None

    def worker_state(self, number: int) -> WorkerState:
        worker = self.scheduler.worker(number)
        return WorkerState.RETIRED if worker is None else worker.state


def only(commands: list[Command], kind: type[Any]) -> list[Any]:
    return [c for c in commands if isinstance(c, kind)]


# ----------------------------------------------------------------------
# Starting and dispatching.


def test_start_spawns_each_worker_and_ready_makes_it_idle() -> None:
    scheduler = Scheduler(2)
    assert scheduler.start() == [Spawn(1), Spawn(2)]
    assert scheduler.starting and scheduler.idle_workers == 0
    assert scheduler.worker_ready(1, T0) == []
    assert scheduler.worker_ready(2, T0) == [] and not scheduler.starting
    assert scheduler.idle_workers == 2


def test_a_think_goes_to_an_idle_worker_and_its_guard_is_armed() -> None:
    run = Run()
    commands = run.submit(1, think(1.0))
    assert commands == [SendJob(1, 1, 1), ArmTimer(T0 + 1.0 - GUARD_LEAD_S)]
    assert run.worker_state(1) is WorkerState.BUSY
    slot = run.scheduler.ticket(1)
    assert slot is not None and slot.state is TicketState.RUNNING


def test_the_result_before_the_deadline_is_the_answer_with_the_time_waited() -> None:
    run = Run()
    run.submit(1, think(1.0))
    run.worker_info(1, 1, info(1), T0 + 0.1)
    commands = run.worker_result(1, 1, result(depth=7), T0 + 0.985)
    (delivery,) = only(commands, Deliver)
    assert delivery.answer.move == "4" and delivery.answer.info.depth == 7
    assert 984 <= delivery.answer.info.time_ms <= 985 and delivery.answer.reason == "time"
    assert delivery.queued_ms == 0
    assert commands[-1] == ArmTimer(None), "nothing left to guard"
    assert run.worker_state(1) is WorkerState.IDLE


def test_progress_reports_reach_the_submitter_until_the_answer() -> None:
    run = Run()
    run.submit(1, think(1.0))
    assert run.worker_info(1, 1, info(1), T0 + 0.1) == [ReportInfo(1, info(1))]
    run.worker_result(1, 1, result(), T0 + 0.9)
    assert run.worker_info(1, 1, info(2), T0 + 0.95) == [], "answered: no more reports"


def test_the_queue_is_first_in_first_out() -> None:
    run = Run(size=1)
    for ticket in (1, 2, 3):
        run.submit(ticket, think(5.0))
    assert [s.ticket for s in run.sent()] == [1]
    run.worker_result(1, 1, result(), T0 + 1)
    run.worker_result(1, 2, result(), T0 + 2)
    assert [s.ticket for s in run.sent()] == [1, 2, 3]
    assert [s.seq for s in run.sent()] == [1, 2, 3], "each job of a worker has its number"


def test_a_budget_too_short_to_search_is_answered_at_once_with_reason_time() -> None:
    run = Run()
    commands = run.submit(1, think(0.010))
    (delivery,) = only(commands, Deliver)
    assert delivery.answer.move == UNSEARCHED != FALLBACK and delivery.answer.info.depth == 0
    assert delivery.answer.reason == "time" and not only(commands, SendJob)


# ----------------------------------------------------------------------
# The guard: deadline before result, result after deadline.


def test_deadline_before_result_answers_from_the_last_report_and_stops_the_worker() -> None:
    run = Run()
    run.submit(1, think(1.0))
    run.worker_info(1, 1, info(3, "5"), T0 + 0.5)
    run.worker_info(1, 1, info(4, "6", partial=True), T0 + 0.7)
    guard = T0 + 1.0 - GUARD_LEAD_S
    assert run.timer() == guard
    commands = run.timer_fired(guard)
    (delivery,) = only(commands, Deliver)
    assert delivery.answer.move == "6" and delivery.answer.info.depth == 3, "partial: depth 3 done"
    assert delivery.answer.reason == "time" and 991 <= delivery.answer.info.time_ms <= 992
    assert SetStopFlag(1) in commands and run.worker_state(1) is WorkerState.DRAINING
    assert run.timer() == guard + run.scheduler.worker_grace_s, "the frozen-worker grace"


def test_a_result_after_the_deadline_is_dropped_and_frees_the_worker() -> None:
    run = Run()
    run.submit(1, think(1.0))
    run.submit(2, think(5.0))
    run.timer_fired(T0 + 1.0 - GUARD_LEAD_S)
    commands = run.worker_result(1, 1, result("7"), T0 + 1.2)
    assert not only(commands, Deliver), "one answer per think"
    assert commands[0] == SendJob(1, 2, 2), "the worker takes the next think"
    assert run.answer(1).move == UNSEARCHED and run.answer(1).info.depth == 0


def test_a_guard_that_fires_early_is_rearmed_not_lost() -> None:
    run = Run()
    run.submit(1, think(1.0))
    guard = T0 + 1.0 - GUARD_LEAD_S
    assert run.timer_fired(guard - 1e-6) == [ArmTimer(guard)]
    assert not run.delivered(1)


def test_a_worker_frozen_after_its_deadline_is_killed_and_replaced() -> None:
    run = Run()
    run.submit(1, think(1.0))
    guard = T0 + 1.0 - GUARD_LEAD_S
    run.timer_fired(guard)
    commands = run.timer_fired(guard + run.scheduler.worker_grace_s)
    assert commands[:2] == [Kill(1), Spawn(2)]
    assert run.scheduler.replaced == 1 and run.worker_state(2) is WorkerState.STARTING
    assert len(run.delivered(1)) == 1


def test_a_think_that_waited_until_its_budget_was_gone_is_answered_overloaded() -> None:
    run = Run()
    run.submit(1, think(None))  # the analysis holds the only worker
    run.submit(2, think(0.3))
    commands = run.timer_fired(T0 + 0.3 - GUARD_LEAD_S)
    (delivery,) = only(commands, Deliver)
    assert delivery.ticket == 2 and delivery.answer.reason == "overloaded"
    assert delivery.answer.info.depth == 0 and 291 <= delivery.queued_ms <= 292
    assert run.scheduler.queued == 0


@pytest.mark.parametrize(("waited_s", "reason"), [(0.6, "overloaded"), (0.3, "time")])
def test_a_think_the_queue_left_too_little_to_search_is_answered_overloaded(
    waited_s: float, reason: str
) -> None:
    """A review of 2026-12-07: thinks of 100 ms that waited 51-76 ms in the queue
    reached a worker and completed nothing on a loaded machine; they were
    answered ``time``, as if their budget had been too short. The wait is
    named when it took half the budget or more."""
    run = Run()
    run.submit(1, think(waited_s))
    run.submit(2, think(1.0))
    run.worker_result(1, 1, result(), T0 + waited_s - 0.01)
    assert run.sent()[-1] == SendJob(1, 2, 2)
    run.worker_result(1, 2, result(UNSEARCHED, depth=0), T0 + 0.99)
    answer = run.answer(2)
    assert answer.reason == reason and answer.info.depth == 0
    # With a completed depth, time is the reason whatever the wait.
    run.submit(3, think(1.0, received=T0 + 1.0))
    run.worker_result(1, 3, result(depth=2), T0 + 1.99)
    assert run.answer(3).reason == "time"


def test_a_queued_think_whose_budget_ran_out_is_not_sent_to_the_freed_worker() -> None:
    run = Run()
    run.submit(1, think(1.0))
    run.submit(2, think(0.5, received=T0 + 0.5))
    commands = run.worker_result(1, 1, result(), T0 + 0.99)
    assert not only(commands, SendJob)
    assert run.answer(2).reason == "overloaded" and run.worker_state(1) is WorkerState.IDLE


# ----------------------------------------------------------------------
# Worker death and failures.


def test_worker_death_mid_search_answers_from_progress_and_replaces_it() -> None:
    run = Run()
    run.submit(1, think(5.0))
    run.submit(2, think(5.0))
    run.worker_info(1, 1, info(2, "3"), T0 + 0.1)
    commands = run.worker_died(1, "process exited (code -9)", T0 + 0.2)
    assert commands[:2] == [Kill(1), Deliver(1, run.answer(1), 0)]
    assert run.answer(1).reason == "worker_lost" and run.answer(1).move == "3"
    assert Spawn(2) in commands and run.scheduler.replaced == 1
    assert run.take(run.scheduler.worker_ready(2, T0 + 1))[0] == SendJob(2, 2, 1)


def test_worker_death_before_any_progress_answers_with_the_fallback() -> None:
    run = Run()
    run.submit(1, think(5.0))
    run.worker_died(1, "killed", T0 + 0.2)
    assert run.answer(1).move == UNSEARCHED and run.answer(1).info.depth == 0
    assert run.answer(1).reason == "worker_lost"


def test_a_search_that_raises_answers_worker_lost_and_the_worker_serves_on() -> None:
    run = Run()
    run.submit(1, think(5.0))
    run.submit(2, think(5.0))
    commands = run.worker_failed(1, 1, "Traceback ...", T0 + 0.1)
    assert run.answer(1).reason == "worker_lost"
    assert SendJob(1, 2, 2) in commands and not only(commands, Kill)


def test_workers_dying_as_they_start_are_replaced_only_a_few_times() -> None:
    scheduler = Scheduler(1)
    scheduler.start()
    spawns = 1
    for number in range(1, MAX_START_FAILURES + 1):
        spawns += len(only(scheduler.worker_died(number, "import error", T0), Spawn))
    assert spawns == MAX_START_FAILURES and scheduler.start_failures == MAX_START_FAILURES
    assert scheduler.replaced == MAX_START_FAILURES - 1 and not scheduler.starting


def test_a_broken_pipe_requeues_the_job_for_another_worker() -> None:
    run = Run(size=2)
    run.submit(1, think(5.0))
    commands = run.send_failed(1, T0)
    assert commands[:2] == [Kill(1), Spawn(3)]
    assert SendJob(2, 1, 1) in commands and not run.delivered(1)


def test_stale_messages_of_an_earlier_job_are_ignored() -> None:
    run = Run()
    run.submit(1, think(1.0))
    run.timer_fired(T0 + 1.0 - GUARD_LEAD_S)
    run.worker_result(1, 1, result(), T0 + 1.1)
    run.submit(2, think(1.0, received=T0 + 2))  # job number 2 of worker 1
    assert run.worker_info(1, 1, info(5), T0 + 2.1) == []
    assert run.worker_result(1, 1, result("7"), T0 + 2.2) == []
    assert not run.delivered(2) and run.worker_state(1) is WorkerState.BUSY


# ----------------------------------------------------------------------
# Stop and cancel.


def test_stop_while_queued_answers_unsearched_and_nothing_is_sent() -> None:
    run = Run()
    run.submit(1, think(None))
    run.submit(2, think(5.0))
    commands = run.stop(2, T0 + 0.1)
    assert run.answer(2).reason == "stopped" and run.answer(2).info.depth == 0
    assert not only(commands, SendJob) and run.scheduler.queued == 0
    run.stop(1, T0 + 0.2)
    assert not any(s.ticket == 2 for s in run.sent())


def test_stop_after_a_completed_depth_answers_at_once_from_it() -> None:
    run = Run()
    run.submit(1, think(None))
    run.worker_info(1, 1, info(6, "2"), T0 + 0.1)
    commands = run.stop(1, T0 + 0.2)
    assert commands[0] == SetStopFlag(1)
    assert run.answer(1).move == "2" and run.answer(1).reason == "stopped"
    assert run.worker_state(1) is WorkerState.DRAINING
    assert run.stop(1, T0 + 0.3) == [], "idempotent"


def test_stop_before_any_depth_waits_for_the_workers_own_answer() -> None:
    run = Run()
    run.submit(1, think(None))
    commands = run.stop(1, T0 + 0.1)
    assert commands == [SetStopFlag(1), ArmTimer(T0 + 0.1 + STOP_GRACE_S)]
    assert not run.delivered(1)
    run.worker_result(1, 1, result("5", depth=1, reason="time"), T0 + 0.12)
    assert run.answer(1).move == "5" and run.answer(1).reason == "stopped"


def test_stop_overdue_answers_from_what_is_known() -> None:
    run = Run()
    run.submit(1, think(None))
    run.stop(1, T0 + 0.1)
    commands = run.timer_fired(T0 + 0.1 + STOP_GRACE_S)
    assert run.answer(1).move == UNSEARCHED and run.answer(1).reason == "stopped"
    assert run.worker_state(1) is WorkerState.DRAINING and SetStopFlag(1) in commands


def test_cancel_of_a_running_think_frees_the_worker_without_an_answer() -> None:
    run = Run()
    run.submit(1, think(5.0))
    commands = run.cancel(1, T0 + 0.1)
    assert commands == [SetStopFlag(1), ArmTimer(T0 + 0.1 + run.scheduler.worker_grace_s)]
    run.worker_result(1, 1, result(), T0 + 0.2)
    assert not run.delivered(1) and run.worker_state(1) is WorkerState.IDLE


def test_cancel_of_a_queued_think_removes_it() -> None:
    run = Run()
    run.submit(1, think(5.0))
    run.submit(2, think(5.0))
    run.cancel(2, T0 + 0.1)
    run.worker_result(1, 1, result(), T0 + 0.2)
    assert run.scheduler.queued == 0 and [s.ticket for s in run.sent()] == [1]
    assert not run.delivered(2)


# ----------------------------------------------------------------------
# Preemption of untimed analyses.


def test_an_analysis_is_preempted_when_others_wait_after_the_delay() -> None:
    run = Run(preempt_after_s=10.0)
    run.submit(1, think(None))
    run.worker_info(1, 1, info(12, "4"), T0 + 3)
    run.submit(2, think(30.0, received=T0 + 5))
    assert run.timer() == T0 + 10.0, "the analysis gives way 10 s after it started"
    run.timer_fired(T0 + 10.0)
    assert run.answer(1).reason == "preempted" and run.answer(1).move == "4"
    commands = run.worker_result(1, 1, result(), T0 + 10.01)
    assert commands[0] == SendJob(1, 2, 2)


def test_an_analysis_alone_is_never_preempted() -> None:
    run = Run(preempt_after_s=10.0)
    run.submit(1, think(None))
    assert run.timer() == T0 + 600 - GUARD_LEAD_S, "only the cap's guard"
    run.timer_fired(T0 + 100)
    assert not run.delivered(1)


def test_a_timed_think_is_not_preempted() -> None:
    run = Run(preempt_after_s=1.0)
    run.submit(1, think(20.0))
    run.submit(2, think(30.0))
    run.timer_fired(T0 + 5)
    assert not run.delivered(1) and not run.delivered(2)


def test_a_preempted_analysis_without_progress_gets_the_stop_grace() -> None:
    run = Run(preempt_after_s=1.0)
    run.submit(1, think(None))
    run.submit(2, think(30.0))
    commands = run.timer_fired(T0 + 1.0)
    assert SetStopFlag(1) in commands and not run.delivered(1)
    run.worker_result(1, 1, result("3", depth=2), T0 + 1.01)
    assert run.answer(1).reason == "preempted" and run.answer(1).move == "3"


# ----------------------------------------------------------------------
# Admission control.


def test_a_full_queue_refuses_with_a_retry_hint_and_changes_nothing() -> None:
    run = Run(max_queue=2)
    for ticket in (1, 2, 3):
        run.submit(ticket, think(5.0))
    with pytest.raises(QueueFull) as refusal:
        run.submit(4, think(5.0))
    assert MIN_RETRY_AFTER_MS <= refusal.value.retry_after_ms <= MAX_RETRY_AFTER_MS
    assert run.scheduler.queued == 2 and run.scheduler.ticket(4) is None


def test_the_retry_hint_grows_with_the_queue_and_the_service_time() -> None:
    run = Run(max_queue=50)
    run.submit(1, think(600.0))
    short = run.scheduler.retry_after_ms()
    for ticket in range(2, 30):
        run.submit(ticket, think(600.0))
    assert run.scheduler.retry_after_ms() > short
    for seq in range(1, 10):
        run.worker_result(1, seq, result(), T0 + 10 * seq)  # thinks of 10 s
    assert run.scheduler.retry_after_ms() == MAX_RETRY_AFTER_MS


# ----------------------------------------------------------------------
# Traces.


def test_a_trace_that_runs_out_of_time_gets_a_limit_exceeded_error() -> None:
    run = Run()
    run.submit(1, trace(1.0))
    run.timer_fired(T0 + 1.0 - GUARD_LEAD_S)
    reply = run.answer(1)
    assert isinstance(reply, TraceReply) and reply.error_code == "limit_exceeded"
    _, message = decode(reply.frame)
    assert message["type"] == "error" and message["id"] == 7


def test_a_trace_result_is_passed_on_as_the_worker_encoded_it() -> None:
    run = Run()
    run.submit(1, trace(1.0))
    reply = TraceReply(b"...", None)
    run.worker_result(1, 1, reply, T0 + 0.5)
    assert run.answer(1) is reply


def test_a_trace_that_waited_too_long_is_refused_overloaded() -> None:
    run = Run()
    run.submit(1, think(None))
    run.submit(2, trace(0.5))
    run.timer_fired(T0 + 0.5 - GUARD_LEAD_S)
    assert run.answer(2).error_code == "overloaded"


# ----------------------------------------------------------------------
# Shutdown.


def test_close_answers_the_queue_stops_searches_and_replaces_no_one() -> None:
    run = Run(size=2)
    run.submit(1, think(None))
    run.worker_info(1, 1, info(3, "6"), T0 + 1)
    run.submit(2, think(None))
    run.submit(3, think(5.0))
    commands = run.close(T0 + 2)
    assert run.answer(3).reason == "stopped"
    assert [SetStopFlag(1), ExitWorker(1), SetStopFlag(2), ExitWorker(2)] == [
        c for c in commands if isinstance(c, SetStopFlag | ExitWorker)
    ]
    run.worker_result(2, 1, result("2"), T0 + 2.01)
    commands = run.worker_died(1, "server shutting down", T0 + 2.1)
    commands += run.worker_died(2, "server shutting down", T0 + 2.1)
    assert run.answer(1).reason == "worker_lost" and run.answer(1).move == "6"
    assert run.answer(2).move == "2"
    assert not only(commands, Spawn) and run.scheduler.replaced == 0
    late = run.submit(4, think(5.0), T0 + 3)
    assert only(late, Deliver)[0].answer.reason == "stopped"


# ----------------------------------------------------------------------
# The guarantee, over random event sequences.


@pytest.mark.parametrize("seed", range(40))
def test_every_ticket_gets_exactly_one_answer_by_its_deadline(seed: int) -> None:
    """Random submits, stops, cancels, reports, results, deaths and freezes on 2 workers."""
    rng = random.Random(seed)
    scheduler = Scheduler(2, max_queue=4, worker_grace_s=0.5, preempt_after_s=1.0)
    now = T0
    answers: dict[int, list[float]] = {}
    deadlines: dict[int, float] = {}
    cancelled: set[int] = set()
    jobs: dict[int, int] = {}  # worker -> seq of its current job
    timer: float | None = None

    def apply(commands: list[Command]) -> None:
        nonlocal timer
        for command in commands:
            if isinstance(command, Deliver):
                answers.setdefault(command.ticket, []).append(now)
            elif isinstance(command, ArmTimer):
                timer = command.when
            elif isinstance(command, SendJob):
                jobs[command.worker] = command.seq
            elif isinstance(command, Kill):
                jobs.pop(command.worker, None)

    apply(scheduler.start())
    next_ticket = 1
    for _ in range(300):
        step = rng.uniform(0.0, 0.3)
        if timer is not None and timer <= now + step:
            now = max(now, timer)
            apply(scheduler.timer_fired(now))
            continue
        now += step
        workers = list(scheduler.workers())
        action = rng.random()
        if action < 0.3:
            budget = rng.choice([None, 0.01, 0.2, 0.5, 1.5])
            job = think(budget, received=now, cap_s=3.0)
            try:
                apply(scheduler.submit(next_ticket, job, now))
                deadlines[next_ticket] = job.deadline
            except QueueFull:
                pass
            next_ticket += 1
        elif action < 0.4 and next_ticket > 1:
            apply(scheduler.stop(rng.randrange(1, next_ticket), now))
        elif action < 0.45 and next_ticket > 1:
            victim = rng.randrange(1, next_ticket)
            if scheduler.ticket(victim) is not None:
                cancelled.add(victim)
            apply(scheduler.cancel(victim, now))
        elif workers:
            worker = rng.choice(workers)
            seq = jobs.get(worker.id, 0)
            if worker.state is WorkerState.STARTING:
                apply(scheduler.worker_ready(worker.id, now))
            elif action < 0.7:
                apply(scheduler.worker_info(worker.id, seq, info(rng.randint(1, 9)), now))
            elif action < 0.9:
                apply(scheduler.worker_result(worker.id, seq, result(), now))
            elif action < 0.95:
                apply(scheduler.worker_failed(worker.id, seq, "boom", now))
            else:
                apply(scheduler.worker_died(worker.id, "killed", now))
    while timer is not None:  # let every guard fire
        now = max(now, timer)
        apply(scheduler.timer_fired(now))
    for ticket, deadline in deadlines.items():
        if ticket in cancelled:
            assert len(answers.get(ticket, [])) <= 1
            continue
        assert len(answers.get(ticket, [])) == 1, f"ticket {ticket}: {answers.get(ticket)}"
        assert answers[ticket][0] <= deadline - GUARD_LEAD_S + 1e-9, f"ticket {ticket} late"


# ----------------------------------------------------------------------
# Per-client fairness (issue 26, item 8).


def test_a_trace_gives_way_to_waiting_jobs_after_its_hold_limit() -> None:
    run = Run(trace_preempt_after_s=3.0)
    run.submit(1, trace(10.0))
    run.submit(2, think(8.0, received=T0 + 1))
    assert run.timer() == T0 + 3.0
    commands = run.timer_fired(T0 + 3.0)
    reply = run.answer(1)
    assert reply.error_code == "overloaded" and SetStopFlag(1) in commands
    _, message = decode(reply.frame)
    assert message["code"] == "overloaded" and message["id"] == 7
    assert run.worker_result(1, 1, TraceReply(b"late", "limit_exceeded"), T0 + 3.01)[0] == (
        SendJob(1, 2, 2)
    )
    assert len(run.delivered(1)) == 1


def test_a_trace_alone_runs_to_its_end() -> None:
    run = Run(trace_preempt_after_s=3.0)
    run.submit(1, trace(10.0))
    assert run.timer() == T0 + 10.0 - GUARD_LEAD_S
    run.worker_result(1, 1, TraceReply(b"trace", None), T0 + 6)
    assert run.answer(1).error_code is None


def test_a_freed_worker_goes_to_the_client_holding_the_fewest() -> None:
    run = Run(size=2)
    for ticket in (1, 2, 3):
        run.take(run.scheduler.submit(ticket, think(5.0), T0, client="greedy"))
    run.take(run.scheduler.submit(4, think(5.0, received=T0 + 0.1), T0 + 0.1, client="polite"))
    commands = run.worker_result(1, 1, result(), T0 + 1)
    assert commands[1] == SendJob(1, 4, 2), "the polite client first, though it came last"


def test_a_client_over_its_share_gives_way_at_once_to_one_below_it() -> None:
    run = Run(size=2)
    run.take(run.scheduler.submit(1, think(None), T0, client="greedy"))
    run.take(run.scheduler.submit(2, think(None), T0, client="greedy"))
    run.worker_info(1, 1, info(5, "3"), T0 + 1)
    run.take(run.scheduler.submit(3, think(5.0, received=T0 + 2), T0 + 2, client="polite"))
    assert run.timer() == T0, "due at once (already past)"
    run.timer_fired(T0 + 2)
    assert run.answer(1).reason == "preempted" and run.answer(1).move == "3"
    assert not run.delivered(2), "one preemption is enough: the greedy client is at its share"
    run.worker_result(1, 1, result(), T0 + 2.01)
    assert run.sent()[-1] == SendJob(1, 3, 2)


def test_a_client_at_its_share_is_not_preempted_early() -> None:
    run = Run(size=2, preempt_after_s=10.0)
    run.take(run.scheduler.submit(1, think(None), T0, client="a"))
    run.take(run.scheduler.submit(2, think(None), T0, client="b"))
    run.take(run.scheduler.submit(3, think(30.0), T0 + 1, client="c"))
    assert run.timer() == T0 + 10.0, "share 1 each: only the hold limit applies"


@pytest.mark.parametrize("greedy_kind", ["trace", "analysis"])
def test_greedy_clients_cannot_push_a_polite_one_below_its_service_level(
    greedy_kind: str,
) -> None:
    """Two clients repeat the longest job they may on two workers; a third thinks 5 s moves.

    The stated service level (protocol.md, section 6): a timed think waits
    for a worker at most the hold limit of the preemptible jobs ahead of it
    (3 s for a trace, 10 s for an analysis) plus one stop, so a polite think
    whose budget is longer than that is always searched, never answered
    ``overloaded``. Simulated for two minutes.
    """
    hold = {"trace": 3.0, "analysis": 10.0}[greedy_kind]
    budget = hold + 2.0
    scheduler = Scheduler(2, max_queue=8)
    now = T0
    timer: float | None = None
    finishes: list[tuple[float, int, int, Any]] = []  # when, worker, seq, what it answers
    running: dict[int, tuple[int, Any]] = {}  # worker -> (seq, answer)
    clients: dict[int, str] = {}
    submitted: dict[int, float] = {}
    waits: list[float] = []
    polite_reasons: list[str] = []
    numbers = iter(range(1, 10_000))

    def submit(client: str) -> None:
        ticket = next(numbers)
        clients[ticket] = client
        submitted[ticket] = now
        if client == "polite":
            job: SearchJob | TraceJob = think(budget, received=now)
        elif greedy_kind == "trace":
            job = trace(10.0, received=now)
        else:
            job = think(None, received=now)
        apply(scheduler.submit(ticket, job, now, Encoding.JSON, client))

    pending: list[Command] = []

    def apply(commands: list[Command]) -> None:
        """Carry out commands in order, those of events they cause after them (as the pool)."""
        nonlocal timer
        outer = not pending
        pending.extend(commands)
        while outer and pending:
            command = pending.pop(0)
            if isinstance(command, ArmTimer):
                timer = command.when
            elif isinstance(command, SendJob):
                slot = scheduler.ticket(command.ticket)
                assert slot is not None
                job = slot.job
                if clients[command.ticket] == "polite":
                    waits.append(now - submitted[command.ticket])
                if isinstance(job, TraceJob):
                    answer: Any = TraceReply(b"trace", "limit_exceeded")
                    end = job.deadline - 0.015
                else:
                    answer = result()
                    end = job.deadline - 0.015  # a timed think, or an analysis at its cap
                running[command.worker] = (command.seq, answer)
                finishes.append((end, command.worker, command.seq, answer))
            elif isinstance(command, SetStopFlag) and command.worker in running:
                seq, answer = running[command.worker]
                finishes.append((now + 0.01, command.worker, seq, answer))  # one limit check
            elif isinstance(command, Deliver):
                client = clients[command.ticket]
                if client == "polite" and isinstance(command.answer, SearchResult):
                    polite_reasons.append(command.answer.reason)
                submit(client)  # every client asks again at once

    apply(scheduler.start())
    apply(scheduler.worker_ready(1, now))
    apply(scheduler.worker_ready(2, now))
    submit("greedy-1")
    submit("greedy-2")
    now += 0.5
    submit("polite")
    while now < T0 + 120:
        finishes.sort()
        next_finish = finishes[0][0] if finishes else None
        if timer is not None and (next_finish is None or timer <= next_finish):
            now = max(now, timer)
            apply(scheduler.timer_fired(now))
            continue
        assert next_finish is not None
        when, worker, seq, answer = finishes.pop(0)
        now = max(now, when)
        if running.get(worker, (None, None))[0] == seq:
            del running[worker]
        apply(scheduler.worker_result(worker, seq, answer, now))
    assert len(polite_reasons) >= 120 / (budget + hold) - 1, "the polite client kept thinking"
    assert set(polite_reasons) == {"time"}, "every polite think was searched"
    assert max(waits) <= hold + 0.02, max(waits)
    assert scheduler.replaced == 0

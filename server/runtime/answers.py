"""The answers the scheduler gives: a worker's result, adjusted, or a fallback built without one.

Pure functions of a job and what is known about its search. A think's
answer is a :class:`~engine.search.results.SearchResult` with a legal move
whatever happened; a trace's is a :class:`~server.runtime.worker.TraceReply`
(the trace, or the error that says why there is none). Building a fallback
costs a few attribute reads: the event loop never searches.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.search.results import Info, SearchResult
from protocol.codec import Encoding, encode
from server.jobs import Job, TraceJob
from server.runtime.constants import MIN_WORKER_BUDGET_S
from server.runtime.worker import TraceReply

#: What a ticket is answered with: a think's result or a trace's reply.
Answer = SearchResult | TraceReply

#: Reasons a worker's own answer carries when it was cut short; a ticket
#: stopped or preempted says why instead.
CUT_SHORT_REASONS = ("time", "stopped")


def from_worker(
    job: Job,
    encoding: Encoding | None,
    result: Any,
    stop_reason: str | None,
    progress: Info | None,
    completed_depth: int,
    elapsed_ms: int,
) -> Answer:
    """The worker's answer, with the time the client waited and the stop's reason.

    A trace's reply is passed on as the worker encoded it.
    """
    if isinstance(job, TraceJob):
        reply: TraceReply = result
        return reply
    if result.move is None:  # cannot happen: the session never sends a finished game
        return without_worker(job, encoding, result.reason, progress, completed_depth, elapsed_ms)
    reason = result.reason
    if stop_reason is not None and reason in CUT_SHORT_REASONS:
        reason = stop_reason
    answer: SearchResult = dataclasses.replace(
        result, reason=reason, info=dataclasses.replace(result.info, time_ms=elapsed_ms)
    )
    return answer


#: A think that waited in the queue for at least this share of its budget
#: and then searched nothing is answered ``overloaded``, not ``time``: the
#: wait, not the budget, left the search no time. Such thinks reached a
#: worker with 25-50 ms of 100 and completed nothing on a loaded machine,
#: and were counted as searched too briefly (a review, 2026-12-07).
WAIT_SHARE_OVERLOADED = 0.5


def with_the_wait_named(answer: Answer, queued_ms: int, job: Job) -> Answer:
    """``answer``, its reason ``overloaded`` if the queue ate the time it had nothing for."""
    if not isinstance(answer, SearchResult) or answer.reason != "time" or answer.info.depth > 0:
        return answer
    budget_s = job.deadline - job.received_at
    if budget_s < MIN_WORKER_BUDGET_S or queued_ms < WAIT_SHARE_OVERLOADED * budget_s * 1000:
        return answer  # a budget too short to search at all says time, as it should
    return dataclasses.replace(answer, reason="overloaded")


def without_worker(
    job: Job,
    encoding: Encoding | None,
    reason: str,
    progress: Info | None,
    completed_depth: int,
    elapsed_ms: int,
) -> Answer:
    """Answer from the last progress report, or unsearched if there was none."""
    if progress is None:
        return unsearched(job, encoding, reason, elapsed_ms)
    return SearchResult.from_progress(progress, completed_depth, reason, elapsed_ms)


def unsearched(job: Job, encoding: Encoding | None, reason: str, elapsed_ms: int) -> Answer:
    """Answer with the job's fallback move, depth 0: no search result exists.

    A trace has no fallback: it is answered with the error ``reason`` calls for.
    """
    if isinstance(job, TraceJob):
        refusal = job.unanswered(reason)
        frame = encode(refusal.to_record().to_wire(), encoding or Encoding.JSON)
        return TraceReply(frame, str(refusal.code))
    return SearchResult.unsearched(job.unsearched_move(), reason, elapsed_ms)

"""The outbox without sockets: order, bounds, back-pressure for replies, drops for reports."""

from __future__ import annotations

import asyncio

from server.outbox import Outbox


async def test_frames_come_out_in_order_with_their_callbacks() -> None:
    outbox = Outbox(max_frames=8, max_bytes=1024)
    sent: list[str] = []
    await outbox.put("a")
    assert outbox.offer("b")
    await outbox.put(b"c", lambda: sent.append("c"))
    assert len(outbox) == 3 and outbox.queued_bytes == 3
    frames = [await outbox.get() for _ in range(3)]
    assert [frame for frame, _ in frames] == ["a", "b", b"c"]
    assert frames[0][1] is None and frames[1][1] is None
    callback = frames[2][1]
    assert callback is not None
    callback()
    assert sent == ["c"] and outbox.queued_bytes == 0


async def test_a_report_is_dropped_when_full_and_a_reply_waits_for_room() -> None:
    outbox = Outbox(max_frames=2, max_bytes=1024)
    await outbox.put("reply 1")
    assert outbox.offer("report 1")
    assert not outbox.offer("report 2"), "no room: a progress report is dropped"
    waiting = asyncio.create_task(outbox.put("reply 2"))
    await asyncio.sleep(0)  # one loop turn: the put has run up to its wait
    assert not waiting.done() and len(outbox) == 2, "a reply waits instead of being dropped"
    assert (await outbox.get())[0] == "reply 1"
    await asyncio.wait_for(waiting, timeout=1)
    assert [(await outbox.get())[0] for _ in range(2)] == ["report 1", "reply 2"]


async def test_bytes_bound_everything_past_the_first_frame() -> None:
    outbox = Outbox(max_frames=100, max_bytes=10)
    big = "x" * 50
    await outbox.put(big)  # the first frame is always taken, whatever its size
    assert not outbox.has_room() and not outbox.offer("y")
    await outbox.get()
    assert outbox.has_room() and outbox.offer("y")


async def test_join_waits_until_every_frame_is_written() -> None:
    outbox = Outbox(max_frames=4, max_bytes=1024)
    await outbox.join()  # nothing queued: returns at once
    await outbox.put("a")
    await outbox.put("b")
    joined = asyncio.create_task(outbox.join())
    for _ in range(2):
        await outbox.get()
        assert not joined.done()
        outbox.task_done()
    await asyncio.wait_for(joined, timeout=1)


async def test_get_waits_for_a_frame() -> None:
    outbox = Outbox(max_frames=4, max_bytes=1024)
    getting = asyncio.create_task(outbox.get())
    await asyncio.sleep(0)
    assert not getting.done()
    assert outbox.offer("late")
    frame, _ = await asyncio.wait_for(getting, timeout=1)
    assert frame == "late"

"""How a lost game's reason is quoted and which failure it names (plain functions, no server)."""

from __future__ import annotations

from clients.tournament.reasons import MAX_QUOTED_CHARS, quoted
from clients.tournament.runner import failure_cause


def test_a_quoted_text_keeps_its_end() -> None:
    """A review of 2026-12-07: a crashed bot's reason was cut before its
    traceback's last line (``KeyError: 'legal_moves'``)."""
    why = (
        "the program ended: exit status 1; stderr: " + "File x | " * 40 + "KeyError: 'legal_moves'"
    )
    text = quoted(why)
    assert len(text) <= MAX_QUOTED_CHARS
    assert text.startswith("the program ended") and text.endswith("KeyError: 'legal_moves'")


def test_a_lost_games_cause_is_the_failure_not_its_knock_on() -> None:
    whys = [
        "no answer within its budget of 264 ms",
        "debug_fn was not ready by the deadline (starting)",
    ]
    assert failure_cause(whys) == "no answer within its budget of 264 ms"
    assert failure_cause(whys[1:]) == whys[1]


def test_a_bot_that_failed_once_is_not_said_to_have_failed_1_times() -> None:
    """A known gap of 2026-12-07: a bot whose one move played for it would have
    won loses the game at once, and its reason read "1 times"."""
    from clients.tournament import reasons

    assert reasons.FAULT_BOT_FAILED.format(times=reasons.times(1)).startswith(
        "failed: it gave no move of its own once in this game,"
    )
    assert "of its own 4 times in" in reasons.FAULT_BOT_FAILED.format(times=reasons.times(4))

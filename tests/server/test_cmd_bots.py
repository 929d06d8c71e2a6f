"""``cmd:`` bots (issue 31, item 1): any program speaking docs/bots.md's JSON lines is an engine.

A bot plays every game; whatever a hostile one does (garbage, silence, two
answers, a crash, forks, unbounded memory, sleeping past its time, output
before it is asked), each think gets one legal move by its deadline, the
reason is ``engine_error`` where the bot failed, the bot is replaced, and
its log file says why.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from engine.registry import GAMES, create_game
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from server.external import ExternalEngine, parse_external, program_searcher
from server.programs import bots
from server.programs.searchers import (
    BOT_ANSWER_LEAD_S,
    MIN_BOT_BUDGET_S,
    NO_LONGER_NEEDED,
    PROBE_DONE,
    QUIT_GRACE_S,
    CmdSearcher,
    _illegal_why,
    probe,
)
from tests.server.server_harness import UNIT, raw_client, running_server
from tests.timing import wait_until

HERE = Path(__file__).parent
FAKE_BOT = HERE / "fake_cmd_bot.py"
#: The games a bot is tried on: every game but the exercise tree (a search
#: teaching aid with no players' moves to choose between... it has some,
#: but no notation a bot would learn).
BOT_GAMES = sorted(set(GAMES) - {"tree"})


def bot(mode: str, game: str, tmp_path: Path) -> ExternalEngine:
    argv = (sys.executable, str(FAKE_BOT), mode)
    log = str(tmp_path / f"{mode}.log")
    return ExternalEngine(game, mode, "cmd", argv, (), True, log)


def decision_state(game_name: str) -> tuple[Any, Any]:
    """The game and its first position where a player decides (after the opening roll)."""
    game = create_game(game_name)
    state = game.initial_state()
    outcomes = game.chance_outcomes(state)
    if outcomes is not None:
        state = game.play(state, outcomes[0][0])
    return game, state


def legal(game: Any, state: Any) -> set[str]:
    return {game.format_move(state, move) for move in game.legal_moves(state)}


def started(engine: ExternalEngine, game: Any) -> Any:
    """The bot's searcher, started and waiting for its first request (as in a tournament)."""
    searcher = program_searcher(engine, game)
    searcher.start()
    assert searcher.wait_started(time.monotonic() + 10 * UNIT)
    return searcher


def think(searcher: CmdSearcher, state: Any, movetime_ms: int) -> Any:
    return searcher.think(SearchRequest(state, Limits(movetime_ms=movetime_ms)))


def read_log(engine: ExternalEngine) -> str:
    assert engine.log_path is not None
    return Path(engine.log_path).read_text(errors="replace")


# ----------------------------------------------------------------------
# The spec.


def test_a_cmd_spec_names_a_bot_for_any_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_BOT_LOGS", "/tmp/some-logs")
    for game in BOT_GAMES:
        engine = parse_external(f"{game}:ana=cmd:python3 ana.py --fast")
        assert engine.protocol == "cmd" and engine.argv == ("python3", "ana.py", "--fast")
        assert engine.name == "ana" and not engine.default
        assert engine.log_path == "/tmp/some-logs/ana.log"
    # A bot's command is the whole rest: a ? is no option list.
    assert parse_external("nim=cmd:./bot?x").argv == ("./bot?x",)
    assert parse_external("nim=cmd:./bot").name == "bot"


# ----------------------------------------------------------------------
# Every game.


@pytest.mark.parametrize("game_name", BOT_GAMES)
def test_a_bot_plays_every_game(game_name: str, tmp_path: Path) -> None:
    engine = bot("good", game_name, tmp_path)
    game, state = decision_state(game_name)
    searcher = program_searcher(engine, game)
    assert isinstance(searcher, CmdSearcher)
    try:
        result = think(searcher, state, int(2000 * UNIT))
    finally:
        searcher.close()
    assert result.reason == "engine", result
    assert result.move in legal(game, state)
    info = result.info
    assert info.depth == 2 and info.score.value == 7 and info.pv == (result.move,)
    # Its stderr, and our notes.
    wait_until(lambda: "moves" in read_log(engine), 5 * UNIT, "the bot's stderr in its log")
    assert "comment: first legal" in read_log(engine)


def test_the_request_holds_what_docs_bots_md_promises() -> None:
    game, state = decision_state("connect4")
    line = bots.MoveLine(game)
    line.at(state)
    body = json.loads(bots.request(game, state, line, Limits(movetime_ms=500), 480, 1))
    assert body == {
        "request": 1,
        "game": "connect4",
        "options": dict(game.options),
        "position": game.format_position(state),
        "start": game.format_position(state),
        "moves": [],
        "legal": [game.format_move(state, m) for m in game.legal_moves(state)],
        "to_move": 0,
        "player": game.players[0],
        "time_left_ms": 480,
        "budget_ms": 480,
    }


@pytest.mark.parametrize("game_name", ["connect4", "othello", "chess", "backgammon"])
def test_the_moves_so_far_follow_the_bots_own_game(game_name: str) -> None:
    game, state = decision_state(game_name)
    line = bots.MoveLine(game)
    line.at(state)
    start = line.start
    mine = game.format_move(state, game.legal_moves(state)[0])
    line.answered(state, mine)
    after = game.play_text(state, mine)
    outcomes = game.chance_outcomes(after)
    if outcomes is not None:
        after = game.play(after, outcomes[0][0])
        reply = None
    else:
        reply = game.format_move(after, game.legal_moves(after)[-1])
        after = game.play_text(after, reply)
    line.at(after)
    if reply is None:  # dice between the moves: the line starts again
        assert line.moves == () and line.start == game.format_position(after)
    else:
        assert line.start == start and line.moves == (mine, reply)
    # A position from elsewhere starts the line again.
    line.at(game.initial_state())
    assert line.moves == ()


# ----------------------------------------------------------------------
# Hostile bots.

FAILING = {
    "garbage": "no answer within its budget",
    # Lines that are no answer are skipped, and the log quotes them: the bot
    # was silent (a review of 2026-12-07: debug prints were taken as answers).
    "badjson": "skipped a line that is no answer",
    "nothing": "no answer within its budget",
    "crash": "exit status 3",
    # An exit with nothing on stderr: the note of the request it was
    # answering came after the log was closed, and was lost (a review of
    # 2026-12-07: the log said only that stderr had ended).
    "quietexit": "request 1 (pid",
    # A flood is said in the log (it had only "killed by SIGKILL": a review).
    "flood": "more than 10000 lines that are no answer: ended",
    "alloc": "MemoryError",
    "sleep": "no answer within its budget",
    "illegal": "illegal",
    "nomove": "skipped a line that is no answer",
    "error": "the bot reported an error: ValueError: a student's bug",
    # The review of 2026-11-29: Infinity ended the search process (worker_lost) and
    # left the bot's log silent; a 20 KB comment was refused as "not JSON".
    "inf": '"score" must be a finite number, not inf',
    "nan": '"score" must be a finite number, not nan',
    "bigcomment": "the answer line is cut at 16 KiB",
}


@pytest.mark.parametrize("mode", sorted(FAILING))
def test_a_failing_bot_gets_engine_error_a_legal_move_and_a_log_that_says_why(
    mode: str, tmp_path: Path
) -> None:
    engine = bot(mode, "connect4", tmp_path)
    game, state = decision_state("connect4")
    # Started first: a launch not done by the deadline is another failure
    # ("not up"), which a loaded machine gave a silent bot at 300 ms.
    searcher = started(engine, game)
    assert isinstance(searcher, CmdSearcher)
    # A bot that fails on its own (crashes, answers wrongly) must be asked
    # before the deadline: its interpreter's start counts in the move's time,
    # and on a loaded machine 300 ms did not cover it (the bot was ended for
    # silence before it could fail). The silent ones are given 300 ms.
    silent = FAILING[mode] in ("no answer within its budget", "skipped a line that is no answer")
    movetime_ms = int((300 if silent else 3000) * UNIT)
    try:
        asked = time.monotonic()
        result = think(searcher, state, movetime_ms)
        took = time.monotonic() - asked
    finally:
        searcher.close()
    assert result.reason == "engine_error", result
    assert result.move in legal(game, state) and result.info.depth == 0
    # Within its time and the grace a pipe gets, whatever the bot does.
    assert took < movetime_ms / 1000 + 2 * UNIT
    wait_until(
        lambda: FAILING[mode] in read_log(engine),
        5 * UNIT,
        f"the reason in the log: {FAILING[mode]!r} (it holds {read_log(engine)!r})",
    )
    if mode == "crash":
        assert "Traceback: something broke" in read_log(engine)


def three_thinks(mode: str, tmp_path: Path, budget_ms: int, reason: str) -> str:
    """Three thinks of one bot ``mode`` on Connect Four, each answered with ``reason``
    and a legal move; the bot's log after them."""
    engine = bot(mode, "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    try:
        for _ in range(3):
            result = think(searcher, state, budget_ms)
            assert result.reason == reason and result.move in legal(game, state)
    finally:
        searcher.close()
    return read_log(engine)


def test_debug_prints_on_stdout_cost_the_bot_nothing(tmp_path: Path) -> None:
    """A review of 2026-12-07: a dict printed with print(), node's console.log of
    an object (its first line a lone "{") and a JSON debug line were each
    refused as the answer, and the bot restarted: it lost every move."""
    log = three_thinks("debugprints", tmp_path, int(1000 * UNIT), "engine")
    assert log.count("started ") == 1 and "refused" not in log
    # The first three such lines of each request are quoted, to explain a silence.
    assert "skipped a line that is no answer" in log and "{'legal'" in log


def test_a_failed_bot_is_replaced(tmp_path: Path) -> None:
    engine = bot("sleep", "connect4", tmp_path)
    game, state = decision_state("connect4")
    # Started before the first think: on a loaded machine a launch not done
    # within the 200 ms answered that think without asking the bot at all.
    searcher = started(engine, game)
    assert isinstance(searcher, CmdSearcher)
    try:
        think(searcher, state, int(200 * UNIT))
        first = searcher._launch
        assert first is None or first.process is None or not first.process.running()
        wait_until_started = time.monotonic() + 5 * UNIT
        result = think(searcher, state, int(200 * UNIT))  # a new program (after its backoff)
        assert result.reason == "engine_error" and time.monotonic() < wait_until_started
    finally:
        searcher.close()
    assert read_log(engine).count("started ") >= 2


@pytest.mark.parametrize(
    ("mode", "noted"), [("error", "reported an error"), ("illegal", "answer refused")]
)
def test_a_bot_in_step_keeps_running(mode: str, noted: str, tmp_path: Path) -> None:
    """A bot in step with its requests costs that move only, not a restart.

    ``{"error": ...}`` (clients.bot when the function raises), and, since a
    review of 2026-12-07, a JSON answer naming an illegal move: the bot was
    started again for it, and its copy, still starting at the next
    requests' deadlines, lost those moves too (three bad answers cost eight)."""
    log = three_thinks(mode, tmp_path, int(500 * UNIT), "engine_error")
    assert log.count("started ") == 1 and log.count(noted) == 3
    assert "not ready" not in log


def test_a_think_with_no_time_left_is_not_sent_and_costs_the_bot_nothing(tmp_path: Path) -> None:
    """A review of 2026-12-07, on a loaded machine: healthy bots were sent requests
    with a budget of 0 ms, ended for silence, and lost games by fault. A think that
    reaches the bot's process with less than MIN_BOT_BUDGET_S left is answered
    ``overloaded`` (the server's doing) without asking or ending the bot."""
    engine = bot("good", "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    try:
        late = searcher.think(SearchRequest(state, Limits(movetime_ms=1)))
        assert late.reason == "overloaded" and late.move in legal(game, state)
        result = think(searcher, state, int(500 * UNIT))
        assert result.reason == "engine" and result.move in legal(game, state)
    finally:
        searcher.close()
    log = read_log(engine)
    assert log.count("started ") == 1 and "not asked: the server had 0 ms" in log
    assert "request 1 " in log and "request 2 " not in log  # the late think was never sent


def test_a_bot_whose_start_takes_the_think_fails_it_not_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI run of 2026-12-07: a bot restarted after a failure was ready a
    moment before the think's time for it ran out, and the think was
    answered ``overloaded``, blaming the server for the bot's slow start.
    Here its start ends 5 ms short of the time the bot needs."""
    engine = bot("good", "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    ready = searcher._ready

    def ready_late(request: SearchRequest) -> Any:
        process = ready(request)
        hard = request.planned().hard
        assert hard is not None
        # The last moment _ready still returns the process, less a little.
        time.sleep(max(0.0, hard - BOT_ANSWER_LEAD_S - MIN_BOT_BUDGET_S / 2 - time.monotonic()))
        return process

    monkeypatch.setattr(searcher, "_ready", ready_late)
    try:
        result = think(searcher, state, int(200 * UNIT))
    finally:
        searcher.close()
    assert result.reason == "engine_error" and result.move in legal(game, state)
    assert "not asked" not in read_log(engine)


def test_a_late_bot_is_started_again_at_once_without_a_backoff(tmp_path: Path) -> None:
    """Reproduces the review of 2026-11-29: two late moves in a row put a bot out for seconds.

    A late answer restarts the bot at once, and the next request, made
    when it is ready, gets its answer: lateness is no crash loop.
    """
    engine = bot("sleep", "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = started(engine, game)  # each think below finds the bot started
    try:
        for _ in range(3):
            think(searcher, state, int(150 * UNIT))
            assert searcher.unavailable is None and searcher._failures == 0
            searcher.after_answer()  # as the worker does once the think is answered
            launch = searcher._launch
            assert launch is not None  # started again already, for the next request
            assert launch.done.wait(5 * UNIT)
    finally:
        searcher.close()
    assert read_log(engine).count("starting it again") == 3


def time_to_start(searcher: CmdSearcher) -> float:
    """Seconds from starting the bot to its being taken for started (at most 10 units)."""
    begun = time.monotonic()
    searcher.start()
    assert searcher.wait_started(begun + 10 * UNIT)
    return time.monotonic() - begun


def test_a_bot_gets_its_first_request_once_it_waits_for_it(tmp_path: Path) -> None:
    """Reproduces the review of 2026-11-29: the first request met a bot still starting.

    This bot works for a while before it reads its input (a Python bot's
    imports); its start counts as done only once it waits, so the first
    think's whole budget is left for its answer.
    """
    start_s = 0.4 * UNIT
    argv = (sys.executable, str(FAKE_BOT), "slowstart", str(start_s))
    engine = ExternalEngine("connect4", "slow", "cmd", argv, (), False, str(tmp_path / "slow.log"))
    game, state = decision_state("connect4")
    searcher = program_searcher(engine, game)
    try:
        assert time_to_start(searcher) >= start_s  # not before it waits for input
        result = think(searcher, state, int(100 * UNIT))
        assert result.reason == "engine", result
    finally:
        searcher.close()


def test_a_bot_whose_timer_thread_ticks_is_ready_all_the_same(tmp_path: Path) -> None:
    """Quiet means next to no CPU, not none: a runtime's timer thread waking every few
    milliseconds (node, the JVM) must not keep a ready bot "starting" for seconds."""
    argv = (sys.executable, str(FAKE_BOT), "poll")
    engine = ExternalEngine("connect4", "tick", "cmd", argv, (), False, str(tmp_path / "tick.log"))
    game, state = decision_state("connect4")
    searcher = program_searcher(engine, game)
    try:
        assert time_to_start(searcher) < 2 * UNIT  # well before QUIET_MAX_CPU_NS
        assert think(searcher, state, int(200 * UNIT)).reason == "engine"
    finally:
        searcher.close()


def test_a_bot_still_starting_loses_the_move_but_not_its_start(tmp_path: Path) -> None:
    """Reproduces the recheck of 2026-11-29: a request sent with a budget of 0 ms to a
    copy still starting ended that copy, and the pool answered first (reason time)."""
    argv = (sys.executable, str(FAKE_BOT), "slowstart", str(0.5 * UNIT))
    engine = ExternalEngine("connect4", "slow", "cmd", argv, (), False, str(tmp_path / "slow.log"))
    game, state = decision_state("connect4")
    searcher = program_searcher(engine, game)
    try:
        searcher.start()
        launch = searcher._launch
        result = think(searcher, state, int(100 * UNIT))
        assert result.reason == "engine_error", result
        assert searcher._launch is launch  # the start goes on
        assert launch is not None and launch.done.wait(10 * UNIT)
        result = think(searcher, state, int(100 * UNIT))
        assert result.reason == "engine", result
    finally:
        searcher.close()
    log = read_log(engine)
    assert "not ready by the deadline (starting): answered engine_error" in log
    assert log.count("started ") == 1 and "budget of 0 ms" not in log


@pytest.mark.parametrize("mode", ["two", "early"])
def test_extra_output_is_not_taken_for_a_later_answer(mode: str, tmp_path: Path) -> None:
    engine = bot(mode, "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = program_searcher(engine, game)
    try:
        for _ in range(3):
            result = think(searcher, state, int(1000 * UNIT))
            assert result.reason == "engine", result
            assert result.move in legal(game, state)
            state = game.play_text(state, result.move)
            state = game.play(state, game.legal_moves(state)[-1])
    finally:
        searcher.close()


def test_a_late_second_answer_is_not_taken_for_the_next_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review of 2026-11-29: a bot that answered, then answered the same request
    again a little later, had that second answer read as the next request's, and every
    answer after it one position behind. Naming its request tells them apart."""
    monkeypatch.setenv("ARENA_FAKE_DELAY_S", str(0.05 * UNIT))
    engine = bot("twicelate", "connect4", tmp_path)
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    try:
        for _ in range(3):
            result = think(searcher, state, int(400 * UNIT))
            # The bot's first answer, the first legal move, every time.
            first = game.format_move(state, game.legal_moves(state)[0])
            assert result.reason == "engine" and result.move == first, result
            state = game.play_text(state, result.move)
            state = game.play(state, game.legal_moves(state)[-1])
    finally:
        searcher.close()
    assert "came now: dropped (one answer per request)" in read_log(engine)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_bots_children_end_with_it(tmp_path: Path) -> None:
    engine = bot("fork", "nim", tmp_path)
    game, state = decision_state("nim")
    searcher = program_searcher(engine, game)
    try:
        result = think(searcher, state, int(1000 * UNIT))
        assert result.reason == "engine"

        def children() -> list[int]:
            lines = [line.partition("] ")[2] for line in read_log(engine).splitlines()]
            return [int(line.split()[1]) for line in lines if line.startswith("child ")]

        wait_until(lambda: len(children()) == 3, 5 * UNIT, "the children in the log")
        assert all(_alive(pid) for pid in children())
    finally:
        searcher.close()
    wait_until(lambda: not any(_alive(pid) for pid in children()), 5 * UNIT, "no child left")


def test_a_bot_the_server_is_done_with_ends_by_itself_and_its_log_says_why(
    tmp_path: Path,
) -> None:
    """Regression (a class tournament, 2026-12-06): every bot's log began and
    ended with "the program's stderr has ended (killed by SIGKILL)", once
    after the server's start-up check and once at the tournament's end,
    though nothing had gone wrong: a student reads that as their bot
    crashing. A bot the server no longer needs now gets the end of its
    input (docs/bots.md: it exits by itself), and its log says why first.
    """
    engine = bot("plain", "connect4", tmp_path)
    assert probe(engine) is None
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    try:
        assert think(searcher, state, int(1000 * UNIT)).reason == "engine"
    finally:
        searcher.close()
    wait_until(
        lambda: read_log(engine).count("stderr has ended") == 2, 5 * UNIT, "both ends logged"
    )
    log = read_log(engine)
    assert "SIGKILL" not in log, log
    assert f"): {PROBE_DONE}" in log and f"): {NO_LONGER_NEEDED}" in log
    assert log.count("ended by the server (pid ") == 2, log
    assert log.count(": exit status 0)") == 2, log


def test_a_bot_that_cannot_run_fails_its_start_up_check(tmp_path: Path) -> None:
    """The review of 2026-12-06: `arena bot` on a file with a syntax error, and a
    tournament of `cmd=python3 /nonexistent.py`, played whole matches with every
    move played for the bot and exited 0: the start-up check took a program that
    had already ended for one waiting for its first request."""
    missing = tmp_path / "nonexistent.py"
    argv = (sys.executable, str(missing))
    engine = ExternalEngine("connect4", "gone", "cmd", argv, (), False, str(tmp_path / "gone.log"))
    why = probe(engine)
    assert why is not None and "ended as soon as it started: exit status 2" in why, why
    assert "nonexistent.py" in why


def test_a_bot_seen_ending_at_its_start_check_is_not_taken_for_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A teacher's review and a flaky test (2026-12-07): a bot with a syntax
    error passed its start-up check 2 times in 15 beside a CPU hog. The check's
    last look saw it a zombie (no thread left: "not quiet"), but the kernel did
    not let it be reaped yet, and a program still running was taken for
    started. Here the look that finds it ending comes before its end: the
    check waits a moment for the end it saw coming."""
    import server.programs.searchers as searchers_module

    monkeypatch.setattr(searchers_module, "wait_until_quiet", lambda pid, deadline: False)
    # The moment, stretched to the suite's unit: a loaded machine is slow to end it.
    monkeypatch.setattr(searchers_module, "ENDING_SEEN_WITHIN_S", 5 * UNIT)
    argv = ("/bin/sh", "-c", "sleep 0.05; exit 1")
    engine = ExternalEngine("connect4", "ending", "cmd", argv, (), False, str(tmp_path / "e.log"))
    why = probe(engine)
    assert why is not None and "ended as soon as it started: exit status 1" in why, why


def test_a_bot_that_ignores_the_end_of_its_input_is_killed_after_a_grace(tmp_path: Path) -> None:
    # Sleeps whatever its input does: the server waits QUIT_GRACE_S, then kills it.
    argv = (sys.executable, "-c", "import time; time.sleep(60)")
    engine = ExternalEngine("connect4", "deaf", "cmd", argv, (), False, str(tmp_path / "deaf.log"))
    began = time.monotonic()
    assert probe(engine) is None
    assert time.monotonic() - began < QUIT_GRACE_S + 10 * UNIT
    wait_until(lambda: "stderr has ended" in read_log(engine), 5 * UNIT, "its end logged")
    log = read_log(engine)
    assert "ended by the server (pid " in log and f"): {PROBE_DONE}" in log, log
    assert ": killed by SIGKILL)" in log, log


@pytest.mark.skipif(os.getuid() == 0, reason="the kernel applies no RLIMIT_NPROC to root")
def test_a_bot_may_start_only_a_few_tasks() -> None:
    script = (
        "import os\n"
        "n = 0\n"
        "try:\n"
        "    for _ in range(500):\n"
        "        if os.fork() == 0:\n"
        "            import time; time.sleep(30); os._exit(0)\n"
        "        n += 1\n"
        "except OSError:\n"
        "    pass\n"
        "print(n)\n"
        "os.killpg(0, 9)\n"
    )
    from server.programs.process import LineProcess

    process = LineProcess([sys.executable, "-c", script], setup=bots.limit_resources())
    try:
        line = process.read_line(time.monotonic() + 10 * UNIT)
        assert line is not None and int(line) <= bots.BOT_EXTRA_TASKS
    finally:
        process.kill()


def test_a_bot_runs_under_its_resource_limits(tmp_path: Path) -> None:
    from server.programs.process import LineProcess

    script = (
        "import resource\n"
        "print([resource.getrlimit(r)[0] for r in (resource.RLIMIT_CPU, "
        "resource.RLIMIT_DATA, resource.RLIMIT_NOFILE, resource.RLIMIT_CORE)])\n"
    )
    process = LineProcess([sys.executable, "-c", script], setup=bots.limit_resources())
    try:
        line = process.read_line(time.monotonic() + 10 * UNIT)
    finally:
        process.kill()
    assert line is not None
    assert json.loads(line) == [bots.BOT_CPU_SECONDS, bots.BOT_MEMORY_BYTES, bots.BOT_OPEN_FILES, 0]


# ----------------------------------------------------------------------
# Through the server.


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["good", "crash", "nothing", "garbage"])
async def test_a_bot_behind_the_server_answers_thinks(mode: str, tmp_path: Path) -> None:
    # A silent bot's think is answered engine_error by its searcher, before
    # the pool's guard would answer it from nothing; but a search process
    # starved on a loaded machine (two test processes and a CPU hog on two
    # cores, its nice 10 beside their 0) may miss the guard's lead of 7 ms,
    # and then the guard answers, reason `time` and depth 0, as protocol.md
    # says (section 4, external engines). A bot that answers or crashes is
    # answered for by its searcher well before the deadline.
    engine = bot(mode, "connect4", tmp_path)
    silent = mode in ("nothing", "garbage")
    async with running_server(externals=(engine,)) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "connect4"})
        for think_id in (2, 3):
            _, best = await client.think(think_id, {"movetime_ms": int(500 * UNIT)})
            if silent and best["reason"] == "time":
                assert best["depth"] == 0, best
            else:
                assert best["reason"] == ("engine" if mode == "good" else "engine_error"), best
            assert best["move"] in set("1234567")


@pytest.mark.asyncio
async def test_a_workers_bots_stay_up_between_thinks(tmp_path: Path) -> None:
    """Regression: a worker started its programs under a key no think used (the game's
    options left out), and kept at most four searchers: a fifth bot ended another,
    which then started cold (node: some 200 ms) at its next think and missed its time.
    """
    argv = (sys.executable, str(FAKE_BOT), "plain")
    engines = tuple(
        ExternalEngine("connect4", f"bot{n}", "cmd", argv, (), False, str(tmp_path / f"{n}.log"))
        for n in range(6)
    )
    async with running_server(externals=engines) as server, raw_client(server.port) as client:
        await client.request({"type": "new_game", "id": 1, "game": "connect4"})
        think_id = 2
        for _ in range(2):
            for engine in engines:
                limits = {"movetime_ms": int(1000 * UNIT)}
                _, best = await client.think(think_id, limits, algorithm=engine.name)
                think_id += 1
                assert best["reason"] == "engine", best
    for engine in engines:
        # Once for the health probe, once in the worker: never again.
        assert read_log(engine).count("] started ") == 2, read_log(engine)


def test_clients_bot_checks_mate_distances_as_the_server_does() -> None:
    """clients.bot leaves out a score the server would refuse (with the move)."""
    from clients.bot import MAX_MATE_PLIES
    from server.programs.reports import MAX_REPORTED_PLIES

    assert MAX_MATE_PLIES == MAX_REPORTED_PLIES


def test_a_script_whose_interpreter_is_missing_is_said_so(tmp_path: Path) -> None:
    """A second review of 2026-12-07: a bot starting ``#!/usr/bin/python9``
    was reported as "No such file or directory: .../eve", the bot's own file,
    which was there."""
    script = tmp_path / "eve"
    script.write_text("#!/usr/bin/python9\nprint('never')\n")
    script.chmod(0o755)
    engine = ExternalEngine(
        "connect4", "eve", "cmd", (str(script),), (), False, str(tmp_path / "eve.log")
    )
    why = probe(engine)
    assert why is not None and "its #! line names '/usr/bin/python9'" in why, why


def test_a_line_meant_as_an_answer_is_told_what_is_wrong_with_it() -> None:
    """A review of 2026-12-07: a bare legal move ("1") was never shown in the log,
    and a printed Python dict was called debug output."""
    from server.programs.searchers import _answer_hint

    legal = ["1", "2", "3"]
    bare = _answer_hint("1", legal)
    assert bare is not None and "legal move written alone" in bare and '{"move": "1"}' in bare
    python = _answer_hint("{'move': '1'}", legal)
    assert python is not None and "Python dict, not JSON" in python
    assert "debug output" in (_answer_hint('{"mvoe": "1"}', legal) or "")
    assert "one of the legal moves" in (_answer_hint("99", legal) or "")
    assert _answer_hint("thinking about column 4", legal) is None


def test_a_script_with_windows_line_endings_is_said_so(tmp_path: Path) -> None:
    """A review of 2026-12-07: "#!/bin/bash\\r" was reported as "its #! line names
    '/bin/bash', which cannot be run", which looked false."""
    from server.programs.process import _start_failure

    script = tmp_path / "crlf.sh"
    script.write_bytes(b"#!/bin/bash\r\necho 1\r\n")
    said = _start_failure(str(script), FileNotFoundError(2, "No such file or directory"))
    assert "Windows line endings (CRLF)" in said and "dos2unix" in said


def test_a_script_run_by_env_with_windows_line_endings_is_said_so(tmp_path: Path) -> None:
    """A second review of 2026-12-07: with "#!/usr/bin/env python3\\r" env starts
    and fails ("env: 'python3\\r': No such file or directory"), so the hint of
    the #! check was not given."""
    script = tmp_path / "crlf"
    script.write_bytes(b"#!/usr/bin/env python3\r\nimport sys\r\nsys.stdin.read()\r\n")
    script.chmod(0o755)
    from server.programs.process import LineProcess, ProgramError

    process = LineProcess((str(script),), "crlf")
    try:
        with pytest.raises(ProgramError):
            process.read_line(time.monotonic() + 10 * UNIT)  # it ends at once
        assert "Windows line endings (CRLF)" in process.ended_because()
    finally:
        process.kill()


def test_a_slow_function_bot_is_told_its_function_took_the_time(tmp_path: Path) -> None:
    """A review of 2026-12-07: a clients.bot function that took longer than its
    budget was asked, every move, whether its output was flushed (clients.bot
    flushes every answer; each late copy, started again, had "written
    nothing yet"). It is told that choose did not return in time."""
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef choose(decision):\n    time.sleep(30)\n")
    argv = (sys.executable, "-P", "-m", "clients.bot", str(slow))
    engine = ExternalEngine("connect4", "slow", "cmd", argv, (), True, str(tmp_path / "slow.log"))
    game, state = decision_state("connect4")
    searcher = started(engine, game)
    try:
        result = think(searcher, state, int(300 * UNIT))
    finally:
        searcher.close()
    assert result.reason == "engine_error"
    log = read_log(engine)
    assert "choose did not return in time" in log and "flushed" not in log, log


def test_an_illegal_answer_is_quoted_with_the_legal_moves() -> None:
    """A review of 2026-12-07: "the engine answered 1 , illegal" (a trailing
    space) read as if the legal move 1 were refused, and "A2" gave no hint
    that tic-tac-toe writes a2."""
    legal = ["a1", "a2", "b1"]
    assert _illegal_why("1 ", ["1", "2"]) == (
        "the engine answered '1 ', illegal (the move is written '1'); legal: 1, 2"
    )
    assert _illegal_why("A2", legal).startswith(
        "the engine answered 'A2', illegal (the move is written 'a2')"
    )
    many = [str(n) for n in range(30)]
    assert _illegal_why("x", many).endswith(", 11, ... (30 in all)")
    assert _illegal_why("", []) == "the engine answered nothing, illegal"

"""What the Universal Chess Interface says over a :class:`~server.programs.process.LineProcess`.

The handshake (:func:`handshake`: ``uci`` ... ``uciok``, the options, then
``isready`` ... ``readyok``) checks every ``--external`` option against the
options the engine declares (name, type, range) before it is sent, and takes
an error line between ``setoption`` and ``readyok`` (Stockfish's ``No such
option``) as a refusal: an engine that would run with options it did not
take is not used. :func:`go_command` and :func:`parse_info` translate a
think's limits and the engine's reports; the figures pass
:mod:`server.programs.reports` first. :func:`multipv_value` is the
``MultiPV`` a think's ``multipv`` sets on an engine that declares it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from engine.search.limits import CLOCK_SAFETY_MS, Clock, Deadlines, Limits
from engine.search.results import Info
from engine.search.score import Score
from protocol.limits import MAX_MULTIPV
from server.programs.process import LineProcess, ProgramError
from server.programs.reports import checked_counters, checked_score

#: Lines an engine may write during its handshake before it is taken for
#: broken (Stockfish writes about 25: its name, authors and options).
MAX_HANDSHAKE_LINES: Final = 1000
#: Words that make a line between ``setoption`` and ``readyok`` a refusal.
#: Stockfish says ``No such option: X``; others print ``info string
#: ERROR ...``, ``Unknown option`` or ``invalid value``.
REFUSAL_WORDS: Final = ("no such option", "error", "unknown", "invalid", "illegal")
#: The option through which a UCI engine reports several lines (Stockfish,
#: Leela Chess Zero, and most engines since the UCI specification of 2004
#: named it); UCI option names ignore case.
MULTIPV_OPTION: Final = "multipv"


@dataclass(frozen=True, slots=True)
class UciOption:
    """An option as the engine declared it (``option name ... type ...``)."""

    name: str
    kind: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()


def parse_option(line: str) -> UciOption | None:
    """The option of an ``option name N type T [default D] [min a] [max b] [var v]...`` line."""
    words = line.split()
    keys = ("name", "type", "default", "min", "max", "var")
    fields: dict[str, list[str]] = {}
    choices: list[str] = []
    key: str | None = None
    for word in words[1:]:
        if word in keys and (key != "name" or word == "type"):
            key = word
            if key == "var":
                choices.append("")
            fields.setdefault(key, [])
        elif key == "var":
            choices[-1] = f"{choices[-1]} {word}".strip()
        elif key is not None:
            fields[key].append(word)
    name, kind = " ".join(fields.get("name", [])), " ".join(fields.get("type", []))
    if not name or not kind:
        return None
    try:
        low = int(fields["min"][0]) if fields.get("min") else None
        high = int(fields["max"][0]) if fields.get("max") else None
    except ValueError:
        low = high = None
    return UciOption(name, kind, low, high, tuple(choices))


def option_problem(option: UciOption, value: str) -> str | None:
    """Why ``value`` does not suit ``option`` as declared, else ``None``."""
    if option.kind == "spin":
        try:
            number = int(value)
        except ValueError:
            return f"{option.name} takes a whole number, not {value!r}"
        low = option.minimum if option.minimum is not None else number
        high = option.maximum if option.maximum is not None else number
        if not low <= number <= high:
            return f"{option.name} takes {low}..{high}, not {number}"
    elif option.kind == "check" and value.lower() not in ("true", "false"):
        return f"{option.name} takes true or false, not {value!r}"
    elif option.kind == "combo" and value.lower() not in (c.lower() for c in option.choices):
        return f"{option.name} takes one of {', '.join(option.choices)}, not {value!r}"
    return None


def handshake(
    process: LineProcess, options: Sequence[tuple[str, str]], deadline: float
) -> dict[str, UciOption]:
    """Bring the engine up with ``options``; its declared options. ProgramError says what failed."""
    process.send("uci")
    declared: dict[str, UciOption] = {}
    for _ in range(MAX_HANDSHAKE_LINES):
        line = _line_by(process, deadline, "uciok")
        if line == "uciok":
            break
        if line.startswith("option "):
            option = parse_option(line)
            if option is not None:
                declared[option.name.lower()] = option  # UCI names ignore case
    else:
        raise ProgramError(f"{process.name} wrote {MAX_HANDSHAKE_LINES} lines without uciok")
    for name, value in options:
        option = declared.get(name.lower())
        if option is None:
            known = ", ".join(sorted(o.name for o in declared.values())) or "none"
            raise ProgramError(f"{process.name} has no option {name!r} (it declares: {known})")
        problem = option_problem(option, value)
        if problem is not None:
            raise ProgramError(f"option {problem}")
        process.send(
            f"setoption name {option.name}" + ("" if option.kind == "button" else f" value {value}")
        )
    process.send("isready")
    for _ in range(MAX_HANDSHAKE_LINES):
        line = _line_by(process, deadline, "readyok")
        if line == "readyok":
            return declared
        if options and any(word in line.lower() for word in REFUSAL_WORDS):
            raise ProgramError(f"{process.name} refused its options: {line[:200]}")
    raise ProgramError(f"{process.name} wrote {MAX_HANDSHAKE_LINES} lines without readyok")


def _line_by(process: LineProcess, deadline: float, awaited: str) -> str:
    line = process.read_line(deadline)
    if line is None:
        raise ProgramError(f"{process.name} did not answer {awaited} in time")
    return line


def multipv_value(declared: Mapping[str, UciOption], wanted: int) -> int | None:
    """The ``MultiPV`` to set for a think asking ``wanted`` lines; ``None``: the engine has none.

    ``declared`` is what :func:`handshake` returned. An engine that declares
    a smaller ``max`` gets its max (and fewer lines are reported); one
    whose ``min`` is above the wanted lines gets its min, and its extra
    lines are not passed on (:func:`parse_info`'s caller drops them).
    """
    option = declared.get(MULTIPV_OPTION)
    if option is None or option.kind != "spin":
        return None
    value = wanted
    if option.maximum is not None:
        value = min(value, option.maximum)
    if option.minimum is not None:
        value = max(value, option.minimum)
    return max(1, value)


#: Kept back from the time a UCI engine is told (its ``movetime`` or
#: ``wtime``): the engine's answer still has to cross the pipe and the worker
#: before the pool's guard, a few milliseconds on a loaded machine. An engine
#: that answered 3 ms before its movetime was answered for by the guard, once
#: in 30-70 moves, two games at a time on 2 cores (a review, 2026-12-07).
#: Stockfish's own Move Overhead defaults to the same 10 ms.
PROGRAM_OVERHEAD_MS: Final = 10


#: How much sooner than the clock's end a think's deadline must come to be a
#: cap of its own (a move time beside the clock, the server's longest
#: think), told as ``movetime`` beside the clock: more than the delivery
#: margins between the two (15 ms, and scheduling).
CAPPED_BY_MS: Final = 50


def cut_before_clock(clock: Clock, deadlines: Deadlines) -> bool:
    """Whether the think's deadline comes well before its clock's end (less the clock's
    safety): a move time beside the clock, or the server's cap on a think."""
    if deadlines.hard is None:
        return False
    clock_end = deadlines.start + (clock.time_ms - CLOCK_SAFETY_MS) / 1000
    return deadlines.hard < clock_end - CAPPED_BY_MS / 1000


def go_command(limits: Limits, deadlines: Deadlines, mover: int, now: float) -> str:
    """``go`` for our limits: the clock, or the time to the hard deadline as ``movetime``;
    depth, nodes.

    The deadline was planned once, by the session. With a clock it is the
    time left (the engine keeps its own time, :data:`OWN_CLOCK`), and the
    engine is given that clock: the mover's ``wtime`` or ``btime`` (what is
    left of it now), the other side's from the clock's ``opponent_ms`` (the
    mover's again when the think does not say it), ``winc``/``binc`` and
    ``movestogo``, as cutechess gives it; ``mover`` is 0 for White. Given a
    ``movetime`` of our planning instead, an engine was told a third of
    its time and lost on time with most of its clock left (a review,
    2026-12-07). A fixed move time, or what is left of the deadline when the
    think had no clock, is ``movetime``: the engine cannot plan past the
    answer the pool owes the client.
    """
    words = ["go"]
    left_ms = None
    if deadlines.hard is not None:
        left_ms = max(1, int((deadlines.hard - now) * 1000) - PROGRAM_OVERHEAD_MS)
    clock = limits.clock
    if clock is not None and left_ms is not None:
        # The clock as it stands now, not the deadline: a move time beside
        # it, or the server's cap on a think, shortens the deadline, and
        # told that as its clock an engine searched ten times less than
        # on the clock alone (a review, 2026-12-07). Such a deadline is
        # its movetime.
        spent_ms = (now - deadlines.start) * 1000
        clock_ms = max(1, int(clock.time_ms - spent_ms) - CLOCK_SAFETY_MS - PROGRAM_OVERHEAD_MS)
        capped = cut_before_clock(clock, deadlines)
        told = clock_ms if capped else left_ms  # uncapped: the deadline is the clock's end
        # The other side's clock is not running: told as it was given.
        other = told if clock.opponent_ms is None else max(1, clock.opponent_ms)
        white, black = (told, other) if mover == 0 else (other, told)
        words += ["wtime", str(white), "btime", str(black)]
        if clock.inc_ms > 0:
            words += ["winc", str(clock.inc_ms), "binc", str(clock.inc_ms)]
        if clock.moves_to_go:
            words += ["movestogo", str(clock.moves_to_go)]
        if capped:
            words += ["movetime", str(left_ms)]
    elif left_ms is not None:
        words += ["movetime", str(left_ms)]
    if limits.depth is not None:
        words += ["depth", str(limits.depth)]
    if limits.nodes is not None:
        words += ["nodes", str(limits.nodes)]
    if len(words) == 1:
        words.append("infinite")
    return " ".join(words)


def _count(text: str) -> int:
    """A figure of an ``info`` line: an integer, or a finite number written otherwise
    (``1e9``), to be clamped like any other; ``ValueError`` for what is no number."""
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not math.isfinite(number):
            raise
        return int(number)


def parse_info(line: str, elapsed_ms: int) -> Info | None:
    """An ``info`` line with ``depth``, ``score`` and ``pv`` as our :class:`Info`, else ``None``.

    Its figures are within protocol.md's bounds (:mod:`server.programs.reports`);
    its pv is the engine's, still to be checked against the position. Its
    ``multipv`` (the line's rank; 1 without the word) is 1 to MAX_MULTIPV,
    else the line is no report: whether the think asked for that line is
    the caller's to check.
    """
    words = line.split()
    fields: dict[str, int] = {}
    score: Score | None = None
    pv: tuple[str, ...] = ()
    index = 1
    try:
        while index < len(words):
            word = words[index]
            if word == "pv":
                pv = tuple(words[index + 1 :])
                break
            if word == "score":
                score = checked_score(words[index + 1], int(words[index + 2]))
                index += 3
                # "lowerbound" / "upperbound" follow a bound, not a value.
                while index < len(words) and words[index] in ("lowerbound", "upperbound"):
                    index += 1
                continue
            if word in ("depth", "seldepth", "nodes", "nps", "time", "hashfull", "multipv"):
                fields[word] = _count(words[index + 1])
                index += 2
                continue
            if word == "string":
                return None
            index += 1
    except (IndexError, ValueError):
        return None
    if score is None or not pv or "depth" not in fields:
        return None
    multipv = fields.get("multipv", 1)
    if not 1 <= multipv <= MAX_MULTIPV:
        return None
    counters = checked_counters(
        fields["depth"],
        fields.get("seldepth", fields["depth"]),
        fields.get("nodes", 0),
        fields.get("nps", 0),
        fields.get("time", elapsed_ms),
        fields.get("hashfull", 0),
    )
    return Info(
        depth=counters["depth"],
        seldepth=counters["seldepth"],
        score=score,
        pv=pv,
        nodes=counters["nodes"],
        time_ms=counters["time_ms"],
        nps=counters["nps"],
        tt_hit_rate=0.0,
        hashfull=counters["hashfull"],
        multipv=multipv,
    )

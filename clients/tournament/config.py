"""What a tournament is: its engines, time control, openings and rules.

Everything here is plain data with parsers for the command-line forms
(``name=strong,url=ws://host:8765/ws,depth=8``, ``40/60+0.5``,
``after=80,count=4,score=10``) and a JSON round trip, so that a tournament
can be stored in its database and resumed exactly as it was started.
"""

from __future__ import annotations

import hashlib
import math
import re
import shlex
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from protocol.limits import MAX_ALGORITHM_CHARS

#: The URL that means "start a local server for the built-in engine".
LOCAL_URL = "local"
#: Separates the servers of one engine in ``url=ws://a/ws|ws://b/ws``: its
#: games go to them in turn (several instances of one deployment). ``|``
#: cannot appear in a URL unescaped (RFC 3986), nor does it split the
#: engine spec's ``key=value`` pairs.
URL_SEPARATOR = "|"

#: A move answered later than the time left plus this margin loses on time.
#: 100 ms covers the loopback round trip, the server's 10 ms delivery margin
#: and scheduling jitter on a busy machine; raise it for engines far away.
DEFAULT_MARGIN_MS = 100
#: Extra wait beyond time left + margin before the watchdog gives up on an
#: answer: the move is lost on time anyway, this only bounds the wait.
DEFAULT_GRACE_MS = 1000
#: Watchdog for moves with no time limit at all (depth or node limits only).
DEFAULT_MOVE_TIMEOUT_MS = 60_000
#: Budget for the non-thinking requests (new_game, move) of one engine.
DEFAULT_REQUEST_TIMEOUT_MS = 10_000


class ConfigError(ValueError):
    """A tournament setting is malformed; the message says which and why."""


# ----------------------------------------------------------------------
# Engines.


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """One engine: a display name, a server URL and optional caps of its own.

    The caps are combined with the tournament's time control (the tighter
    limit wins), so ``depth=4`` makes an engine weaker under any control.
    """

    name: str
    url: str = LOCAL_URL
    depth: int | None = None
    nodes: int | None = None
    movetime_ms: int | None = None
    #: The search to ask for ("alphabeta", "expectiminimax", "mcts"); None:
    #: the game's default. The server refuses one the game does not offer.
    algorithm: str | None = None
    #: The server's shared secret (``arena serve --token``); never stored or shown.
    token: str | None = field(default=None, repr=False, compare=False)
    #: A program the local server runs as this engine (``cmd="python3 ana.py"``):
    #: its command line, its protocol (``cmd`` bot, ``uci``, ``gtp``) and UCI options.
    command: str | None = None
    proto: str = "cmd"
    engine_options: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # A configuration read back from JSON has lists where tuples were.
        pairs = tuple((str(key), str(value)) for key, value in self.engine_options)
        object.__setattr__(self, "engine_options", pairs)

    @property
    def capped(self) -> bool:
        """Whether the engine limits its own moves (``depth=``, ``nodes=`` or ``movetime=``)."""
        return self.depth is not None or self.nodes is not None or self.movetime_ms is not None

    @property
    def is_local(self) -> bool:
        return self.url == LOCAL_URL

    @property
    def is_bot(self) -> bool:
        """A class bot (``cmd=`` with ``proto=cmd``): the server plays for it when it fails.

        Its moves answered ``engine_error`` are played on (docs/bots.md); any
        other engine's such answer loses it the game (the referee's
        ``ENGINE_FAILURE``), as a crash does in cutechess-cli.
        """
        return self.command is not None and self.proto == "cmd"

    def external_spec(self, game: str) -> str | None:
        """The local server's ``--external`` spec for a program engine, ``None`` for others."""
        if self.command is None:
            return None
        query = "&".join(f"{key}={value}" for key, value in self.engine_options)
        spec = f"{game}:{self.algorithm}={self.proto}:{self.command}"
        return f"{spec}?{query}" if query else spec

    @property
    def urls(self) -> tuple[str, ...]:
        """The engine's servers: one, or several that its games go to in turn."""
        return split_urls(self.url)


def split_urls(url: str) -> tuple[str, ...]:
    """``"ws://a/ws|ws://b/ws"`` -> ``("ws://a/ws", "ws://b/ws")``."""
    return tuple(part.strip() for part in url.split(URL_SEPARATOR))


_ENGINE_KEYS = (
    "name",
    "url",
    "depth",
    "nodes",
    "movetime",
    "algorithm",
    "token",
    "cmd",
    "proto",
    "game",
)
#: The protocols of a program the local server runs for the tournament.
PROGRAM_PROTOCOLS = ("cmd", "uci", "gtp")
#: What an engine's program's name becomes: the name a think asks for (ALGORITHM_NAME).
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.+-]")
#: The searches a server may offer (protocol.md, think).
ALGORITHMS = ("alphabeta", "expectiminimax", "mcts")
#: What a search's name may look like (a remote server's external engine: sf1350, lc0.v31),
#: as long as a think's ``algorithm`` may be (protocol.md).
ALGORITHM_NAME = re.compile(rf"[A-Za-z0-9_.+-]{{1,{MAX_ALGORITHM_CHARS}}}")
#: Hex digits of the name's digest that end a program's name cut to fit: two
#: long file names that begin alike stay two searches.
_CUT_NAME_DIGITS = 8


def parse_engine(text: str) -> EngineSpec:
    """An engine from ``name=N,url=U,depth=D,nodes=K,movetime=MS,algorithm=A,token=T``.

    ``url`` may list several servers of the same engine, ``ws://a/ws|ws://b/ws``:
    its games go to them in turn (round robin, one game at a time), e.g.
    the instances of a cluster reached without the proxy. They must share
    the token. ``local:depth=4`` is short for ``url=local,depth=4``; a missing name is
    made from the caps (``local d4``) or the URL. ``token`` is the server's
    shared secret; it is kept in memory only (not in the database or the
    records), so a resumed tournament takes it from ``--token`` again.
    """
    body = text.strip()
    values: dict[str, str] = {}
    if body.startswith(LOCAL_URL + ":") or body == LOCAL_URL:
        values["url"] = LOCAL_URL
        body = body[len(LOCAL_URL) + 1 :]
    # option.X=V pairs (a UCI program's options) before the known keys.
    options: list[tuple[str, str]] = []
    rest = []
    for item in body.split(","):
        key, sep, value = item.partition("=")
        if key.strip().startswith("option.") and sep:
            name = key.strip()[len("option.") :]
            if any(name == given for given, _ in options):
                raise ConfigError(f"engine {text!r}: option.{name} is given twice")
            options.append((name, value.strip()))
        else:
            rest.append(item)
    for key, value in parse_pairs(",".join(rest), _ENGINE_KEYS).items():
        if key in values:
            raise ConfigError(f"engine {text!r}: {key!r} is given twice")
        values[key] = value
    if "cmd" in values:
        return _program_engine(text, values, tuple(options))
    if options or "proto" in values or "game" in values:
        raise ConfigError(f"engine {text!r}: proto, game and option.X go with cmd=COMMAND")
    url = values.get("url", LOCAL_URL)
    parts = split_urls(url)
    if url != LOCAL_URL and not all(part.startswith(("ws://", "wss://")) for part in parts):
        raise ConfigError(
            f"engine {text!r}: url must be ws://..., wss://... (several joined by "
            f"{URL_SEPARATOR!r}) or 'local'"
        )
    url = URL_SEPARATOR.join(parts)
    algorithm = values.get("algorithm") or None
    # A remote server may offer other searches (external engines such as
    # stockfish): its welcome is checked before the first game instead.
    if algorithm is not None and url == LOCAL_URL and algorithm not in ALGORITHMS:
        raise ConfigError(f"engine {text!r}: algorithm must be one of {', '.join(ALGORITHMS)}")
    if algorithm is not None and not ALGORITHM_NAME.fullmatch(algorithm):
        raise ConfigError(f"engine {text!r}: {algorithm!r} is not a search's name")
    spec = EngineSpec(
        name=values.get("name", ""),
        url=url,
        depth=_positive(values, "depth"),
        nodes=_positive(values, "nodes"),
        movetime_ms=_positive(values, "movetime"),
        algorithm=algorithm,
        token=values.get("token") or None,
    )
    if spec.token and spec.is_local:
        raise ConfigError(f"engine {text!r}: a local engine needs no token")
    if not spec.name:
        spec = replace(spec, name=_default_name(spec))
    return spec


def _unquoted_command(text: str) -> str:
    """The command line of ``cmd=``, without the quotes that hold it together on our own line.

    ``cmd="python3 ana.py"`` arrives quoted as one word; a command that
    quotes a path with spaces (``python3 'my bot.py'``, ``'my bot.py'``, as
    ``--bots`` writes them) must keep its quotes. One quoted word that is
    not a file is a whole command; anything else is kept as written.
    """
    command = text.strip()
    try:
        words = shlex.split(command)
    except ValueError:
        return command  # unbalanced quotes: the local server says what is wrong
    if len(words) == 1 and words[0] != command and not Path(words[0]).is_file():
        return words[0].strip()
    return command


def _program_engine(
    text: str, values: dict[str, str], options: tuple[tuple[str, str], ...]
) -> EngineSpec:
    """An engine the local server runs from its command line (``cmd=``, cutechess-cli's form)."""
    command = _unquoted_command(values["cmd"])
    if not command:
        raise ConfigError(f"engine {text!r}: cmd is empty")
    if values.get("url", LOCAL_URL) != LOCAL_URL or "algorithm" in values or "token" in values:
        raise ConfigError(f"engine {text!r}: a cmd= engine runs locally: no url, algorithm, token")
    proto = values.get("proto", "cmd")
    if proto not in PROGRAM_PROTOCOLS:
        raise ConfigError(f"engine {text!r}: proto must be one of {', '.join(PROGRAM_PROTOCOLS)}")
    if options and proto != "uci":
        raise ConfigError(f"engine {text!r}: option.X=... is for proto=uci engines")
    name = values.get("name") or command.split()[-1].rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return EngineSpec(
        name=name,
        url=LOCAL_URL,
        depth=_positive(values, "depth"),
        nodes=_positive(values, "nodes"),
        movetime_ms=_positive(values, "movetime"),
        algorithm=program_algorithm(name),
        command=command,
        proto=proto,
        engine_options=options,
    )


def program_algorithm(name: str) -> str:
    """The search name a program called ``name`` is offered under by the local server.

    A name a think could not ask for is made one: unsafe characters become
    ``_``, a name of the server's own searches gets ``_bot``, and a name
    longer than protocol.md allows is cut and ends with a digest of the
    whole (a student's bot is named after its file, of any length).
    """
    algorithm = _UNSAFE_NAME.sub("_", name) or "bot"
    if algorithm in ALGORITHMS:
        algorithm += "_bot"  # the server's own searches keep their names
    if len(algorithm) > MAX_ALGORITHM_CHARS:
        digest = hashlib.sha256(name.encode()).hexdigest()[:_CUT_NAME_DIGITS]
        algorithm = f"{algorithm[: MAX_ALGORITHM_CHARS - _CUT_NAME_DIGITS - 1]}-{digest}"
    return algorithm


def program_game(text: str) -> str | None:
    """The ``game=`` an engine spec names, if any (checked against the tournament's)."""
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if key.strip() == "game" and sep:
            return value.strip()
    return None


def _default_name(spec: EngineSpec) -> str:
    caps = [
        f"{letter}{value}"
        for letter, value in (("d", spec.depth), ("n", spec.nodes), ("t", spec.movetime_ms))
        if value is not None
    ]
    base = (
        "local"
        if spec.is_local
        else URL_SEPARATOR.join(url.split("//", 1)[-1].split("/", 1)[0] for url in spec.urls)
    )
    if spec.algorithm is not None:
        caps.insert(0, spec.algorithm)
    return " ".join([base, *caps])


def unique_names(engines: list[EngineSpec]) -> list[EngineSpec]:
    """The engines with repeated names numbered (``local d4``, ``local d4 #2``)."""
    seen: dict[str, int] = {}
    result = []
    for spec in engines:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        result.append(spec if count == 1 else replace(spec, name=f"{spec.name} #{count}"))
    return result


# ----------------------------------------------------------------------
# Time control.


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Base + increment (optionally per ``moves`` moves), move time, depth, nodes.

    Any combination is allowed; the search ends at whichever limit comes
    first. Only the clock and the move time are enforced by the referee
    (loss on time); depth and nodes are passed to the engine.
    """

    base_ms: int | None = None
    inc_ms: int = 0
    moves: int | None = None
    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None

    @property
    def has_clock(self) -> bool:
        return self.base_ms is not None

    @property
    def limits(self) -> bool:
        """Whether the control limits a move at all (else each engine's own caps must)."""
        return any(
            value is not None for value in (self.base_ms, self.movetime_ms, self.depth, self.nodes)
        )

    def describe(self) -> str:
        """The control in the usual notation: ``40/60+0.5``, ``movetime=100ms``, ``depth=6``."""
        parts = []
        if self.base_ms is not None:
            text = f"{_seconds(self.base_ms)}+{_seconds(self.inc_ms)}"
            parts.append(f"{self.moves}/{text}" if self.moves else text)
        if self.movetime_ms is not None:
            parts.append(f"movetime={self.movetime_ms}ms")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        return " ".join(parts) or "the engines' own caps"


def parse_clock(text: str) -> tuple[int, int, int | None]:
    """``[moves/]base[+inc]`` in seconds -> (base_ms, inc_ms, moves)."""
    moves: int | None = None
    body = text.strip()
    if "/" in body:
        moves_text, body = body.split("/", 1)
        moves = _int(moves_text, "moves per period")
        if moves < 1:
            raise ConfigError(f"time control {text!r}: moves per period must be at least 1")
    base_text, _, inc_text = body.partition("+")
    base_ms = _milliseconds(base_text, text)
    inc_ms = _milliseconds(inc_text, text) if inc_text else 0
    if base_ms <= 0:
        raise ConfigError(f"time control {text!r}: the base time must be positive")
    return base_ms, inc_ms, moves


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def _milliseconds(text: str, whole: str) -> int:
    try:
        seconds = float(text)
    except ValueError:
        raise ConfigError(f"time control {whole!r}: {text!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"time control {whole!r}: times must be finite and not negative")
    return round(seconds * 1000)


# ----------------------------------------------------------------------
# Adjudication.


@dataclass(frozen=True, slots=True)
class Adjudication:
    """Optional early ends; scores are in the game's evaluation unit.

    * draw: from ply ``draw_after`` on, when the last ``draw_count`` moves of
      *each* engine scored within ``±draw_score``;
    * resignation: when the last ``resign_count`` moves of each engine agree
      that the same side is ahead by at least ``resign_score``;
    * ``max_plies``: a game that reaches this length is a draw.
    """

    draw_after: int | None = None
    draw_count: int = 4
    draw_score: int = 0
    resign_count: int | None = None
    resign_score: int = 1000
    max_plies: int | None = None


def parse_draw_rule(text: str) -> dict[str, int]:
    """``after=80,count=4,score=10`` -> the ``draw_*`` fields of :class:`Adjudication`."""
    values = parse_pairs(text, ("after", "count", "score"))
    result = {"draw_after": _int(values.get("after", "0"), "after")}
    result["draw_count"] = _int(values.get("count", "4"), "count")
    result["draw_score"] = _int(values.get("score", "0"), "score")
    if result["draw_count"] < 1 or result["draw_after"] < 0 or result["draw_score"] < 0:
        raise ConfigError(f"draw rule {text!r}: count must be >= 1, after and score >= 0")
    return result


def parse_resign_rule(text: str) -> dict[str, int]:
    """``count=3,score=1000`` -> the ``resign_*`` fields of :class:`Adjudication`."""
    values = parse_pairs(text, ("count", "score"))
    result = {
        "resign_count": _int(values.get("count", "3"), "count"),
        "resign_score": _int(values.get("score", "1000"), "score"),
    }
    if result["resign_count"] < 1 or result["resign_score"] < 1:
        raise ConfigError(f"resign rule {text!r}: count and score must be at least 1")
    return result


# ----------------------------------------------------------------------
# Openings and SPRT.


@dataclass(frozen=True, slots=True)
class OpeningSource:
    """Where openings come from: a file (``path``), random plies checked by a search,
    or (``random_plies`` ``None``, the default) the game's own default: chess's
    built-in named openings, Go's empty board, a few random plies elsewhere
    (:func:`clients.tournament.openings.default_openings`)."""

    path: str | None = None
    random_plies: int | None = None
    balance_depth: int = 4
    balance_score: int = 100
    shuffle: bool = False
    #: The file's format: ``auto`` (by its suffix), ``lines``, ``pgn`` or ``epd``.
    format: str = "auto"
    #: Keep at most this many moves of each opening from the file (``None``: all).
    plies: int | None = None


@dataclass(frozen=True, slots=True)
class Sprt:
    """Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05


def parse_sprt(text: str) -> Sprt:
    """``elo0=0,elo1=5,alpha=0.05,beta=0.05``; missing keys keep their defaults."""
    values = parse_pairs(text, ("elo0", "elo1", "alpha", "beta"))
    try:
        sprt = Sprt(**{key: float(value) for key, value in values.items()})
    except ValueError:
        raise ConfigError(f"sprt {text!r}: every value must be a number") from None
    if not all(math.isfinite(value) for value in (sprt.elo0, sprt.elo1)):
        # nan never decided (and went into the database as JSON's invalid
        # NaN); elo1=inf "accepted H0" after one draw.
        raise ConfigError(f"sprt {text!r}: elo0 and elo1 must be finite numbers")
    if not (0 < sprt.alpha < 1 and 0 < sprt.beta < 1) or sprt.elo1 <= sprt.elo0:
        raise ConfigError(f"sprt {text!r}: need 0 < alpha, beta < 1 and elo1 > elo0")
    return sprt


# ----------------------------------------------------------------------
# The tournament.


@dataclass(frozen=True, slots=True)
class Timing:
    """How strictly the referee keeps time (all in milliseconds)."""

    margin_ms: int = DEFAULT_MARGIN_MS
    grace_ms: int = DEFAULT_GRACE_MS
    move_timeout_ms: int = DEFAULT_MOVE_TIMEOUT_MS
    request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A whole tournament; stored as JSON in its database."""

    game: str
    engines: tuple[EngineSpec, ...]
    time_control: TimeControl
    options: dict[str, Any] = field(default_factory=dict)
    games_per_pair: int = 2
    #: Games played from each opening: 2, the second with colours swapped (a
    #: pair); 1, each opening once, colours alternating (cutechess-cli's
    #: default, without ``-repeat``).
    repeat: int = 2
    gauntlet: bool = False
    #: A knockout (clients/tournament/knockout.py): ``games_per_pair`` games a match.
    knockout: bool = False
    openings: OpeningSource = field(default_factory=OpeningSource)
    adjudication: Adjudication = field(default_factory=Adjudication)
    timing: Timing = field(default_factory=Timing)
    sprt: Sprt | None = None
    seed: int = 1
    name: str = "arena tournament"

    def validate(self) -> None:
        """Raise :class:`ConfigError` for settings that cannot make a tournament."""
        if len(self.engines) < 2:
            raise ConfigError("a tournament needs at least two engines")
        if len({engine.name for engine in self.engines}) != len(self.engines):
            raise ConfigError("engine names must be unique")
        programs = [engine.algorithm for engine in self.engines if engine.command is not None]
        if len(set(programs)) != len(programs):
            raise ConfigError("two cmd= engines would have the same name: give each a name=")
        if self.games_per_pair < 1:
            raise ConfigError("games per pairing must be at least 1")
        if self.repeat not in (1, 2):
            raise ConfigError("--repeat is 1 (each opening once) or 2 (both colours)")
        if self.repeat == 1 and self.knockout:
            raise ConfigError("a knockout plays each opening twice: not with --repeat 1")
        if not self.time_control.limits:
            # Every engine capped by its own depth, nodes or move time is a
            # control too (cutechess-cli's tc=inf with depth=N per engine).
            uncapped = [engine.name for engine in self.engines if not engine.capped]
            if uncapped:
                raise ConfigError(
                    "give a time control (a clock, a move time, a depth or nodes), or a cap"
                    f" to every engine (depth=, nodes= or movetime=): {', '.join(uncapped)}"
                    f" {'has' if len(uncapped) == 1 else 'have'} none"
                )
        if self.sprt is not None and len(self.engines) != 2:
            raise ConfigError("SPRT compares exactly two engines")
        if self.knockout and (self.gauntlet or self.sprt is not None):
            raise ConfigError("a knockout is a format of its own: not with --gauntlet or --sprt")

    def to_json(self) -> dict[str, Any]:
        """The configuration as stored: everything but the engines' tokens."""
        data = asdict(self)
        for engine in data["engines"]:
            engine.pop("token", None)
        return data

    def tokens(self) -> dict[str, str]:
        """The engines' own tokens by engine name (those given with ``token=``)."""
        return {engine.name: engine.token for engine in self.engines if engine.token}

    def externals(self) -> tuple[str, ...]:
        """The ``--external`` specs of the programs the local server runs (``cmd=`` engines)."""
        specs = (engine.external_spec(self.game) for engine in self.engines)
        return tuple(spec for spec in specs if spec is not None)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentConfig:
        sprt = data.get("sprt")
        return cls(
            game=data["game"],
            engines=tuple(EngineSpec(**engine) for engine in data["engines"]),
            time_control=TimeControl(**data["time_control"]),
            options=dict(data.get("options") or {}),
            games_per_pair=data["games_per_pair"],
            repeat=int(data.get("repeat", 2)),  # databases before --repeat: pairs
            gauntlet=data["gauntlet"],
            knockout=bool(data.get("knockout", False)),
            openings=OpeningSource(**data["openings"]),
            adjudication=Adjudication(**data["adjudication"]),
            timing=Timing(**data["timing"]),
            sprt=None if sprt is None else Sprt(**sprt),
            seed=data["seed"],
            name=data["name"],
        )


# ----------------------------------------------------------------------
# Helpers for ``key=value`` lists.


def parse_pairs(text: str, allowed: tuple[str, ...]) -> dict[str, str]:
    """``"a=1,b=2"`` -> ``{"a": "1", "b": "2"}``; unknown or repeated keys: :class:`ConfigError`."""
    values: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise ConfigError(f"{item!r} is not KEY=VALUE")
        if key not in allowed:
            raise ConfigError(f"unknown key {key!r} in {text!r} (keys: {', '.join(allowed)})")
        if key in values:
            # The last one silently won: elo0=0,elo0=5 ran an SPRT at 5.
            raise ConfigError(f"{key!r} is given twice in {text!r}")
        values[key] = value.strip()
    return values


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{what} must be an integer, got {text!r}") from None


def _positive(values: dict[str, str], key: str) -> int | None:
    if key not in values:
        return None
    number = _int(values[key], key)
    if number < 1:
        raise ConfigError(f"{key} must be at least 1, got {number}")
    return number

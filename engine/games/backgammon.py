"""Backgammon: the full rules of a single game, without the doubling cube.

Rules: each player has 15 checkers and moves them from their own 24 point
towards their 1 point and then off the board. A roll of two dice gives two
moves (a double gives four), each of one checker by one die. A checker may
land on any point that holds at most one opposing checker; landing on a
single opposing checker (a blot) hits it and puts it on the bar, from which
it must enter in the opponent's home board before any other checker of its
owner moves. Checkers are borne off once all 15 are in their home board
(points 1-6): by the exact number, or from the highest occupied point when
the die is larger than it. A player must use both dice if possible (all
four of a double, else as many as possible); when only one die can be used,
the larger one if possible. The game starts with each player throwing one
die (equal dice are thrown again): the higher die moves first and plays the
two dice thrown. The first to bear off all checkers wins 1 point, 2 (a
gammon) if the loser has borne off none, 3 (a backgammon) if the loser has
also a checker on the bar or in the winner's home board. There is no
doubling cube: every game is played for its 1, 2 or 3 points.

State: a :class:`BgState` holds the checkers of the player on roll (``me``)
and of the opponent (``opp``), each as 25 counts from its owner's side
(index ``i`` is the owner's point ``i + 1``, index 24 the bar; checkers
borne off are the ones missing from 15), the index of the player on roll,
and the dice, ``None`` while they are still to be rolled (a chance state).

Chance states: after each move the opponent rolls; ``to_move`` is then
:data:`~engine.game.CHANCE` and the legal "moves" are the 21 rolls
(doubles 1/36, others 2/36). The initial state is the opening roll, with
30 outcomes of probability 1/30: player 0's die and player 1's, unequal.

Move notation (GNU Backgammon's): one ``from/to`` per checker move with
points numbered from the mover's side (24 to 1), ``bar`` and ``off``, a
``*`` after a point where a blot is hit, a checker's consecutive moves
joined (``13/10*/8``) and equal moves counted (``8/5(2)``), e.g.
``24/18 13/11``, ``bar/22*``, ``6/off 5/off``; ``pass`` when no checker can
move. Any spelling that describes the same checker moves is accepted (order,
``13/10 10/8`` for ``13/8``, ``*`` optional); a path through an
intermediate point must name it when it hits there. Rolls: ``5-3`` (either
order); the opening roll is ``a-b`` with ``a`` player 0's die and ``b``
player 1's.

Position notation: the GNU Backgammon Position ID (14 characters; as GNU
Backgammon 1.07 writes and reads it, the checkers of the player *not* on
roll come first, then those of the player on roll; the start is
``4HPwATDgc/ABMA``), then the player on roll (``0`` or ``1``, GNU
Backgammon's player numbers), then the dice (``5-3``) or ``-`` when they
are still to be rolled: ``4HPwATDgc/ABMA 0 3-1``, ``4HPwATDgc/ABMA 1 -``;
the opening roll is ``4HPwATDgc/ABMA opening``. The player on roll is the
one gnubg's ``posinfo()["turn"]`` gives, also between a move and the next
roll (the player about to roll). A full GNU Backgammon ID
``<Position ID>:<Match ID>`` (``show gnubgid``, e.g.
``4HPwATDgc/ABMA:cAkFAAAAAAAA``) is accepted too: the Match ID gives the
player on roll and the dice (none: still to be rolled); its cube, Crawford
flag, match length and score are ignored (this is a cubeless single game),
and a Match ID that is not at a checker play (no game, the game over or
resigned, a double offered, a resignation pending) is refused.
:meth:`Backgammon.gnubg_id` writes the full ID as gnubg 1.07 does for the
same state of a cubeless money game (``4HPwATDgc/ABMA:cAkFAAAAAAAE``), or
``None`` at the opening roll.

Evaluation: an estimate of the expected points of the player on roll times
:data:`POINT`, by a learned network (see :meth:`Backgammon.evaluate`
and :mod:`engine.games.backgammon_net`); :class:`HandBackgammon` keeps the
hand-written evaluation the engine had before.

Speed: the module is compiled by mypyc (see ``setup.py``) and written so
that the compiled code stays native: module constants are ``Final`` (a
plain module global is a dictionary look-up in compiled code), and the hot
paths (move generation, evaluation) are plain module functions with typed
arguments and loops, without closures, lambdas, ``*args`` calls or
``Any``-typed containers, which mypyc would leave to the interpreter.

Why one module: one game whole: its rules, the two notations GNU Backgammon
shares with it and the hand-written evaluation are read together, like every
module of ``engine/games`` (the network is in
:mod:`engine.games.backgammon_net`); hence the length (over 600 lines).
"""

from __future__ import annotations

import base64
import itertools
import math
import re
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import CHANCE, EXPECTIMINIMAX, Game, Outcome
from engine.games.backgammon_bearoff import BearoffTables, shipped_tables
from engine.games.backgammon_net import shipped_network

#: Checkers per player.
CHECKERS: Final = 15
#: How a game was won, by the points it scores (see :func:`game_points`).
RESULT_REASONS: Final = ("", "bore off all checkers", "gammon", "backgammon")
#: The home board's points (1-6: indices 0-5).
HOME_POINTS: Final = 6
#: Index of the bar in a board; index -1 as a destination means "off".
BAR: Final = 24
OFF: Final = -1
#: Evaluation units per point of utility: a win is worth POINT, a gammon
#: 2 * POINT, a backgammon 3 * POINT, and evaluations estimate expected
#: points on the same scale.
POINT: Final = 1000
#: The largest utility (a backgammon) bounds every value.
VALUE_BOUND: Final = 3 * POINT
#: The root's move filter (:attr:`engine.game.Game.root_filter`): keep at most
#: 8 plays, those within 0.16 expected points of the best by the network
#: alone. These are GNU Backgammon's default filter from its 0-ply to its
#: 1-ply evaluation (its manual, "Move filters": 8 moves, 0.160 equity). At
#: 100 ms a move it turns a depth-2 search of every play (36 ms a move on
#: average, seconds after some doubles) into one of at most 8 (issue 29).
ROOT_FILTER_KEEP: Final = 8
ROOT_FILTER_MARGIN: Final = 160 * POINT // 1000

Board = tuple[int, ...]
Step = tuple[int, int]
#: A move: checker steps (source index, destination index) in play order.
#: A roll is a pair of dice (high, low); at the opening (player 0's die,
#: player 1's).
Action = tuple[Any, ...]


class BgState(NamedTuple):
    """A backgammon position; see the module docstring."""

    me: Board
    opp: Board
    turn: int
    dice: tuple[int, int] | None
    opening: bool = False


#: The start position from either side: 2 on the 24 point, 5 on the 13,
#: 3 on the 8 and 5 on the 6.
START_BOARD: Final[Board] = tuple({5: 5, 7: 3, 12: 5, 23: 2}.get(index, 0) for index in range(25))

#: The 21 distinct rolls, high die first, with their probabilities.
ROLLS: Final[tuple[tuple[tuple[int, int], float], ...]] = tuple(
    ((high, low), (1 if high == low else 2) / 36)
    for high in range(6, 0, -1)
    for low in range(high, 0, -1)
)
#: The opening roll: (player 0's die, player 1's), never equal.
OPENING_ROLLS: Final[tuple[tuple[tuple[int, int], float], ...]] = tuple(
    ((first, second), 1 / 30) for first in range(1, 7) for second in range(1, 7) if first != second
)

# ----------------------------------------------------------------------
# Evaluation weights. Hand-set from standard backgammon rules of thumb
# (pips as the unit: an average roll is 8.17 pips), checked only by playing
# against a random and a one-ply player (bench/backgammon_bench.py).

#: Being on roll is worth about half a roll in a race (the classic 4 pips).
ON_ROLL_PIPS: Final = 4.0
#: Race: winning chances are modelled as a normal distribution of the pip
#: lead with standard deviation RACE_SD_FACTOR * sqrt(total pips), which
#: gives the on-roll side about 60% at 100 pips each, as race tables do.
RACE_SD_FACTOR: Final = 0.85
#: Race: a checker needs at least about this many pips of dice to come off
#: (wastage): effective pips are at least this per checker on the board.
MIN_PIPS_PER_CHECKER: Final = 3.7
#: Contact: structure terms in pips.
MADE_HOME_POINT: Final = 3.0  # per point made in the home board or the bar point
ANCHOR: Final = 4.0  # per point held in the opponent's home board
PRIME_BONUS: Final = (0.0, 0.0, 1.0, 3.0, 6.0, 10.0, 16.0)  # by length of the longest run
ON_BAR_PER_CLOSED_POINT: Final = 1.5  # per checker on the bar, per point closed against it
#: Contact: a blot hit loses its pips travelled plus this tempo.
HIT_TEMPO: Final = 4.0
#: Contact: share of a blot's loss counted, for the player on roll (who
#: moves first and may tidy up) and for the opponent (who is shot at now).
OWN_BLOT_WEIGHT: Final = 0.5
OPP_BLOT_WEIGHT: Final = 1.0
#: Rolls out of 36 that contain a given number, the chance of a direct shot.
DIRECT_SHOT: Final = 11 / 36
#: Contact: pips of lead that move the winning chances from 50% to 73%
#: (the logistic's scale).
CONTACT_SCALE: Final = 20.0
#: Gammon chances: share of the losing side's checkers outside its home
#: board, times this, when it has borne off none.
GAMMON_RATE: Final = 0.5

_ROLL_TEXT: Final = re.compile(r"^\s*([1-6])\s*-\s*([1-6])\s*$")
_POINT_TEXT: Final = re.compile(r"^(bar|off|\d{1,2})(\*?)$")
_REPEAT_TEXT: Final = re.compile(r"^(.*)\((\d)\)$")


@mypyc_attr(allow_interpreted_subclasses=True)
class Backgammon(Game[BgState, Action]):
    """Backgammon without the cube; chance states for every roll."""

    name = "backgammon"
    title = "Backgammon"
    players = ("0", "1")
    eval_unit = f"expected points x {POINT} (a single game is {POINT}, a gammon {2 * POINT})"
    utility_scale = POINT
    value_bound = VALUE_BOUND
    root_filter = (ROOT_FILTER_KEEP, ROOT_FILTER_MARGIN)
    default_algorithm = EXPECTIMINIMAX
    #: Evaluation units per unit of log-odds (Monte Carlo search), fitted by ``python -m
    #: bench.mcts_bench --only scales``: evaluations of 200 random positions against the results of
    #: 16 playouts from each (fitted 923: one expected point is about e:1 odds).
    win_odds_scale = 920

    def initial_state(self) -> BgState:
        return BgState(START_BOARD, START_BOARD, 0, None, True)

    # ------------------------------------------------------------------
    # Turn order and chance.

    def to_move(self, state: BgState) -> int:
        if state.dice is None and _has_checkers(state.opp):
            return CHANCE
        return state.turn

    def roller(self, state: BgState) -> int:
        return state.turn

    def chance_outcomes(self, state: BgState) -> list[tuple[Action, float]] | None:
        if state.dice is not None or not _has_checkers(state.opp):
            return None
        return list(OPENING_ROLLS if state.opening else ROLLS)

    def legal_moves(self, state: BgState) -> list[Action]:
        if not _has_checkers(state.opp):
            return []
        if state.dice is None:
            return [roll for roll, _ in (OPENING_ROLLS if state.opening else ROLLS)]
        high, low = state.dice
        return [steps for steps, _, _ in _plays(state.me, state.opp, high, low)]

    def ordered_moves(self, state: BgState) -> list[Action]:
        """The legal moves, the best for the mover by :meth:`evaluate_many` first (a win first)."""
        if state.dice is None:
            return self.legal_moves(state)
        high, low = state.dice
        plays = _plays(state.me, state.opp, high, low)
        if len(plays) == 1:
            return [plays[0][0]]
        # After the play the opponent is on roll: their value, the lowest first
        # (a bear-off by the tables, as the search values it).
        turn = 1 - state.turn
        after = [BgState(opp_after, me_after, turn, None) for _, me_after, opp_after in plays]
        scores = [float(value) for value in self.evaluate_many(after)]
        for index, (_, me_after, _) in enumerate(plays):
            if not _has_checkers(me_after):
                scores[index] = -math.inf  # bears off the last checker: a win
        order = sorted(range(len(plays)), key=scores.__getitem__)
        return [plays[index][0] for index in order]

    def successors(self, state: BgState) -> list[tuple[Action, BgState]]:
        if state.dice is None or not _has_checkers(state.opp):
            return super().successors(state)
        turn = 1 - state.turn
        return [
            (steps, BgState(opp_after, me_after, turn, None))
            for steps, me_after, opp_after in _plays(state.me, state.opp, *state.dice)
        ]

    def play(self, state: BgState, move: Action) -> BgState:
        if state.dice is None:
            if state.opening:
                first, second = move
                dice = (max(first, second), min(first, second))
                if first > second:
                    return BgState(state.me, state.opp, 0, dice)
                return BgState(state.opp, state.me, 1, dice)
            return BgState(state.me, state.opp, state.turn, (move[0], move[1]))
        me = list(state.me)
        opp = list(state.opp)
        for source, target in move:
            _step(me, opp, source, target)
        return BgState(tuple(opp), tuple(me), 1 - state.turn, None)

    def outcome(self, state: BgState) -> Outcome | None:
        if _has_checkers(state.opp):
            return None
        points = game_points(state.me)
        return Outcome(1 - state.turn, RESULT_REASONS[points], points)

    def key(self, state: BgState) -> int:
        # Exact: the 50 counts and the dice as bytes of one int. The value is
        # for the player on roll and the rules are symmetric, so the same
        # boards merge whoever is on roll.
        dice = state.dice
        code = 99 if state.opening else 0 if dice is None else dice[0] * 8 + dice[1]
        return int.from_bytes(bytes((*state.me, *state.opp, code)), "little")

    # ------------------------------------------------------------------
    # Evaluation.

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # Both are read from the package's files at the first game a process
        # makes, then shared (functools.cache), never at import.
        self.network = shipped_network()
        #: Bear-offs (both sides with every checker home) are valued by these
        #: tables instead of the network; None values them by the network too.
        self.bearoff: BearoffTables | None = shipped_tables()

    def evaluate(self, state: BgState) -> int:
        """Expected points of the player on roll, times :data:`POINT`, by the learned network.

        The network (:mod:`engine.games.backgammon_net`, trained on GNU
        Backgammon's evaluations of self-play positions) estimates the
        chances of winning and of gammons and backgammons either way; their
        expected points are a positive linear transform of the expected
        utility (1, 2 or 3 points won or lost), as expectiminimax needs:
        chance nodes average it, which is only meaningful on the scale of
        expected points, so it is not a mere ranking. It lies within
        ``±VALUE_BOUND`` (3 points), the bound the Star1/Star2 pruning uses.
        At a decision state the dice are ignored. A finished game scores its
        exact points.
        """
        return self.evaluate_many([state])[0]

    def evaluate_many(self, states: list[BgState]) -> list[int]:
        """:meth:`evaluate` of each state, the network's positions in one batch."""
        values = [0] * len(states)
        positions: list[tuple[Board, Board]] = []
        rows: list[int] = []
        bearoff = self.bearoff
        for row, state in enumerate(states):
            if not _has_checkers(state.opp):
                values[row] = self._final_value(state)
                continue
            if bearoff is not None and _all_home(state.me) and _all_home(state.opp):
                equity = bearoff.equity(state.me[:HOME_POINTS], state.opp[:HOME_POINTS])
                values[row] = round(equity * POINT)
                continue
            positions.append((state.me, state.opp))
            rows.append(row)
        if positions:
            for row, equity in zip(rows, self.network.equities(positions), strict=True):
                values[row] = max(-VALUE_BOUND, min(VALUE_BOUND, round(equity * POINT)))
        return values

    def _final_value(self, state: BgState) -> int:
        outcome = self.outcome(state)
        assert outcome is not None  # the opponent has borne off: the game is over
        sign = 1 if outcome.winner == state.turn else -1
        return sign * outcome.points * POINT

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: BgState, move: Action) -> str:
        if state.dice is None:
            return f"{move[0]}-{move[1]}"
        return _format_steps(state.opp, move)

    def parse_move(self, state: BgState, text: str) -> Action:
        if self.outcome(state) is not None:
            raise GameOverError("the game is over: no move can be played")
        if state.dice is None:
            return self._parse_roll(state, text, self.legal_moves(state))
        plays = _plays(state.me, state.opp, *state.dice)
        try:
            target = _apply_text(state, text)
        except IllegalMoveError as error:
            raise IllegalMoveError(
                str(error), [_format_steps(state.opp, steps) for steps, _, _ in plays]
            ) from None
        for steps, me, opp in plays:
            if (me, opp) == target:
                return steps
        raise IllegalMoveError(
            f"{text!r} is not a legal move with {state.dice[0]}-{state.dice[1]}",
            [_format_steps(state.opp, steps) for steps, _, _ in plays],
        )

    def _parse_roll(self, state: BgState, text: str, legal: list[Action]) -> Action:
        hint = [self.format_move(state, m) for m in legal]
        match = _ROLL_TEXT.match(text)
        if not match:
            raise IllegalMoveError(
                f"{text!r} is not a roll: the dice are to be rolled; write e.g. 5-3", hint
            )
        first, second = int(match.group(1)), int(match.group(2))
        if state.opening:
            if first == second:
                raise IllegalMoveError(
                    "the opening roll cannot be a double (equal dice are thrown again)", hint
                )
            return (first, second)
        return (max(first, second), min(first, second))

    def format_position(self, state: BgState) -> str:
        position_id = encode_position_id(state.me, state.opp)
        if state.opening:
            return f"{position_id} opening"
        dice = "-" if state.dice is None else f"{state.dice[0]}-{state.dice[1]}"
        return f"{position_id} {state.turn} {dice}"

    def gnubg_id(self, state: BgState) -> str | None:
        """GNU Backgammon's full ID ``PositionID:MatchID`` of ``state``, as gnubg 1.07 writes it.

        A cubeless money game (``set cube use off``): cube 1 centred, no
        Crawford game, no Jacoby rule, match length 0; the player on roll is
        both gnubg's player on roll and the player to decide, the dice
        ``0 0`` until they are rolled. While the game is being played the
        score is 0-0 and the game state 1. A finished game is what gnubg
        shows after the last checker is borne off in the first game of a
        session: game state 2, the loser on roll, no dice, and the score
        the winner's points (1, 2 or 3) to 0 (gnubg cannot ``set gnubgid``
        such an ID back: it sets no board without a game in progress).
        ``None`` for the opening roll, which gnubg rolls itself in ``new
        game`` (it has no position before it).
        """
        if state.opening:
            return None
        score = (0, 0)
        game_state = 1
        outcome = self.outcome(state)
        if outcome is not None:
            game_state = 2
            score = (outcome.points, 0) if outcome.winner == 0 else (0, outcome.points)
        fields = MatchId(
            cube=1,
            cube_owner=3,
            on_roll=state.turn,
            crawford=False,
            game_state=game_state,
            turn=state.turn,
            double_offered=False,
            resignation=0,
            dice=(0, 0) if state.dice is None else state.dice,
            match_length=0,
            score=score,
            jacoby=False,
        )
        return f"{encode_position_id(state.me, state.opp)}:{encode_match_id(fields)}"

    def parse_position(self, text: str) -> BgState:
        usage = (
            "a backgammon position is a GNU Backgammon Position ID, the player on roll "
            "and the dice or '-', e.g. '4HPwATDgc/ABMA 0 3-1', or '<id> opening', "
            "or a GNU Backgammon ID '<Position ID>:<Match ID>'"
        )
        if not isinstance(text, str):
            raise BadPositionError(usage)
        if ":" in text:
            return _parse_gnubg_id(text.strip())
        parts = text.split()
        if len(parts) == 2 and parts[1] == "opening":
            me, opp = decode_position_id(parts[0])
            if me != START_BOARD or opp != START_BOARD:
                raise BadPositionError("'opening' needs the start position 4HPwATDgc/ABMA")
            return BgState(me, opp, 0, None, True)
        if len(parts) != 3 or parts[1] not in ("0", "1"):
            raise BadPositionError(usage)
        me, opp = decode_position_id(parts[0])
        turn = int(parts[1])
        dice: tuple[int, int] | None = None
        if parts[2] != "-":
            match = _ROLL_TEXT.match(parts[2])
            if not match:
                raise BadPositionError(f"dice must be like 5-3 or '-', got {parts[2]!r}")
            high, low = sorted((int(match.group(1)), int(match.group(2))), reverse=True)
            dice = (high, low)
        if not any(me):
            raise BadPositionError("the player on roll has borne off every checker already")
        if not any(opp) and dice is not None:
            raise BadPositionError("the game is over (the opponent has borne off): no dice")
        return BgState(me, opp, turn, dice)


def _parse_gnubg_id(text: str) -> BgState:
    """The state of a GNU Backgammon ID ``PositionID:MatchID``; see the module docstring."""
    position_id, _, match_id = text.partition(":")
    if not position_id or not match_id or " " in text:
        raise BadPositionError(
            f"{text!r} is not a GNU Backgammon ID: write '<Position ID>:<Match ID>', "
            "e.g. '4HPwATDgc/ABMA:cAkFAAAAAAAA'"
        )
    me, opp = decode_position_id(position_id)
    fields = decode_match_id(match_id)
    if fields.game_state == 0:
        raise BadPositionError(f"Match ID {match_id!r} says no game is being played")
    if fields.game_state != 1:
        raise BadPositionError(
            f"Match ID {match_id!r} says the game is over (game state {fields.game_state}): "
            "no checker play is left"
        )
    if fields.double_offered:
        raise BadPositionError(
            f"Match ID {match_id!r} has a double offered: this game has no cube, "
            "only checker-play positions can be set"
        )
    if fields.resignation:
        raise BadPositionError(
            f"Match ID {match_id!r} has a resignation pending: only checker-play "
            "positions can be set"
        )
    if fields.turn != fields.on_roll:
        raise BadPositionError(
            f"Match ID {match_id!r} has player {fields.turn} to decide while player "
            f"{fields.on_roll} is on roll: not a checker-play position"
        )
    first, second = fields.dice
    dice: tuple[int, int] | None = None
    if first or second:
        if not (1 <= first <= 6 and 1 <= second <= 6):
            raise BadPositionError(f"Match ID {match_id!r} has impossible dice {first}-{second}")
        dice = (max(first, second), min(first, second))
    if not any(me):
        raise BadPositionError("the player on roll has borne off every checker already")
    if not any(opp):
        raise BadPositionError("the game is over (the opponent has borne off)")
    return BgState(me, opp, fields.on_roll, dice)


# ----------------------------------------------------------------------
# Move generation.


def _step(me: list[int], opp: list[int], source: int, target: int) -> bool:
    """Move one checker in place; hit a blot on the target. Returns whether it hit."""
    me[source] -= 1
    if target < 0:
        return False
    me[target] += 1
    mirror = 23 - target
    if opp[mirror] == 1:
        opp[mirror] = 0
        opp[BAR] += 1
        return True
    return False


def _single_steps(me: list[int], opp: list[int], die: int, highest_source: int) -> list[Step]:
    """Every step of one checker by ``die``, from sources up to ``highest_source``."""
    if me[BAR]:
        target = BAR - die
        if highest_source < BAR or opp[23 - target] >= 2:
            return []
        return [(BAR, target)]
    top = 23
    while top >= 0 and me[top] == 0:
        top -= 1
    all_home = top <= 5
    steps = []
    for source in range(min(highest_source, top), -1, -1):
        if me[source] == 0:
            continue
        target = source - die
        if target >= 0:
            if opp[23 - target] < 2:
                steps.append((source, target))
        elif all_home and (target == OFF or source == top):
            steps.append((source, OFF))
    return steps


class _Found:
    """What :func:`_plays` knows of one result: the boards, the first steps
    found with the most dice, how many dice they use, and whether any way to
    it used the larger die (a plain class: mypyc compiles its attributes
    natively)."""

    def __init__(
        self, me: Board, opp: Board, steps: tuple[Step, ...], used: int, larger: bool
    ) -> None:
        self.me = me
        self.opp = opp
        self.steps = steps
        self.used = used
        self.larger = larger


def _plays(me: Board, opp: Board, high: int, low: int) -> list[tuple[Action, Board, Board]]:
    """The legal plays of a roll, one per distinct result: (steps, my board, theirs).

    A depth-first search (:func:`_search_plays`) tries the dice in both
    orders (a double: four times, moving checkers from high points to low
    ones only, which reaches every result once per multiset of steps); then
    the rules keep the plays that use the most dice, and when that is one
    die of two, the larger one if it can be used.
    """
    board = list(me)
    other = list(opp)
    double = high == low
    orders = [(high,) * 4] if double else [(high, low), (low, high)]
    found: dict[ResultKey, _Found] = {}
    for order in orders:
        _search_plays(board, other, order, 0, BAR, high, [], found, 0)
    most = 0
    for entry in found.values():
        most = max(most, entry.used)
    kept = [entry for entry in found.values() if entry.used == most]
    if most == 1 and not double:
        with_larger = [entry for entry in kept if entry.larger]
        if with_larger:
            kept = with_larger
    return [(entry.steps, entry.me, entry.opp) for entry in kept]


def game_points(loser: Board) -> int:
    """Points won when the last checker is borne off against ``loser``'s board.

    1, or 2 (a gammon) when the loser has borne off none, or 3 (a backgammon)
    when the loser also still has a checker on the bar or in the winner's
    home board (the loser's points 19-24).
    """
    if _checkers(loser) < CHECKERS:
        return 1
    if loser[BAR] or any(loser[18:24]):
        return 3
    return 2


def legal_plays(me: Board, opp: Board, high: int, low: int) -> list[tuple[Action, Board, Board]]:
    """The legal plays of the roll ``high-low`` for the player with ``me``, one per distinct result.

    Each is (steps, the mover's board after, the opponent's board after), both
    boards from their owner's side. One entry with no steps when nothing can
    move. For programs that drive the rules without states (the training script).
    """
    return _plays(me, opp, high, low)


#: A result of :func:`_search_plays`: the mover's counts as bytes and the
#: opponent's points hit (a bit mask), which fix the opponent's board. Cheaper
#: to build, hash and compare than the two boards as tuples of 25 ints.
ResultKey = tuple[bytes, int]


def _search_plays(
    board: list[int],
    other: list[int],
    order: tuple[int, ...],
    used: int,
    highest_source: int,
    high: int,
    steps: list[Step],
    found: dict[ResultKey, _Found],
    hits: int,
) -> None:
    """Play the dice ``order[used:]`` in every way from ``board`` (after
    ``steps``, which hit the opponent's points in the mask ``hits``) and
    record each result in ``found``; the boards are restored on return."""
    moved = False
    if used < len(order):
        die = order[used]
        double = len(order) == 4
        for source, target in _single_steps(board, other, die, highest_source):
            moved = True
            hit = _step(board, other, source, target)
            steps.append((source, target))
            hit_mask = 1 << (23 - target) if hit else 0
            _search_plays(
                board,
                other,
                order,
                used + 1,
                source if double else BAR,
                high,
                steps,
                found,
                hits | hit_mask,
            )
            steps.pop()
            # Undo the step.
            board[source] += 1
            if target >= 0:
                board[target] -= 1
                if hit:
                    other[23 - target] = 1
                    other[BAR] -= 1
    if not moved:
        result = (bytes(board), hits)
        larger = used > 0 and order[0] == high
        entry = found.get(result)
        if entry is None:
            found[result] = _Found(tuple(board), tuple(other), tuple(steps), used, larger)
        else:
            if used > entry.used:
                entry.steps, entry.used = tuple(steps), used
            entry.larger = entry.larger or larger


def _result(me: Board, opp: Board, move: Action) -> tuple[Board, Board]:
    board, other = list(me), list(opp)
    for source, target in move:
        _step(board, other, source, target)
    return tuple(board), tuple(other)


def _order_score(opp_before: Board, me_after: Board, opp_after: Board) -> int:
    """4 per checker hit, +1 per point made from the 1 to the 7 point, -1 per blot."""
    hits = opp_after[BAR] - opp_before[BAR]
    blots = made = 0
    for index in range(24):
        count = me_after[index]
        if count == 1:
            blots += 1
        elif count >= 2 and index < 7:
            made += 1
    return 4 * hits + made - blots


# ----------------------------------------------------------------------
# Evaluation.


def _has_checkers(board: Board) -> bool:
    """Whether any checker of ``board`` is still on the board (or the bar)."""
    # A generator inside any() is compiled to a loop by mypyc; any(board)
    # would be a call into the interpreter's builtin.
    return any(count > 0 for count in board)


def _all_home(board: Board) -> bool:
    """Whether every checker ``board`` has left is on its points 1-6."""
    return not any(board[index] > 0 for index in range(HOME_POINTS, BAR + 1))


def _checkers(board: Board) -> int:
    """The checkers of ``board`` not borne off."""
    total = 0
    for count in board:
        total += count
    return total


def _pips(board: Board) -> int:
    total = 0
    for index in range(25):
        total += (index + 1) * board[index]
    return total


def _equity(me: Board, opp: Board) -> float:
    """Expected points for the side owning ``me``, which is on roll."""
    my_pips = _pips(me)
    opp_pips = _pips(opp)
    my_back = _rearmost(me)
    opp_back = _rearmost(opp)
    if my_back + opp_back < 23:
        return _race_equity(me, opp, my_pips, opp_pips)
    score = opp_pips - my_pips + ON_ROLL_PIPS
    score += _structure(me, opp) - _structure(opp, me)
    score -= OWN_BLOT_WEIGHT * _blot_losses(me, opp)
    score += OPP_BLOT_WEIGHT * _blot_losses(opp, me)
    win = 1.0 / (1.0 + math.exp(-score / CONTACT_SCALE))
    equity = 2.0 * win - 1.0
    equity += win * _gammon_chance(opp) - (1.0 - win) * _gammon_chance(me)
    return equity


def _rearmost(board: Board) -> int:
    index = BAR
    while index >= 0 and board[index] == 0:
        index -= 1
    return index


def _race_equity(me: Board, opp: Board, my_pips: int, opp_pips: int) -> float:
    my_effective = max(my_pips, MIN_PIPS_PER_CHECKER * _checkers(me))
    opp_effective = max(opp_pips, MIN_PIPS_PER_CHECKER * _checkers(opp))
    lead = opp_effective - my_effective + ON_ROLL_PIPS
    spread = RACE_SD_FACTOR * math.sqrt(my_effective + opp_effective) + 1.0
    win = 0.5 * (1.0 + math.erf(lead / (spread * math.sqrt(2.0))))
    return 2.0 * win - 1.0


def _structure(board: Board, other: Board) -> float:
    """Made points, anchors and primes of ``board``, and its checkers stuck on the bar."""
    value = 0.0
    run = longest = 0
    for index in range(24):
        if board[index] >= 2:
            run += 1
            if run > longest:
                longest = run
            if index <= 6:
                value += MADE_HOME_POINT
            elif index >= 18:
                value += ANCHOR
        else:
            run = 0
    value += PRIME_BONUS[min(longest, 6)]
    if board[BAR]:
        closed = 0
        for index in range(18, 24):
            if other[23 - index] >= 2:
                closed += 1
        value -= board[BAR] * closed * ON_BAR_PER_CLOSED_POINT
    return value


def _blot_losses(board: Board, hitters: Board) -> float:
    """Expected pips lost by the blots of ``board`` to direct shots of ``hitters``."""
    # hitters' checkers in board's frame: index m = 23 - j, the bar at -1.
    shooters = [0] * 25  # shooters[m + 1]
    for j in range(25):
        if hitters[j]:
            shooters[24 - j if j < BAR else 0] = 1
    loss = 0.0
    for index in range(24):
        if board[index] != 1:
            continue
        distances = 0
        for distance in range(1, 7):
            m = index - distance
            if m < -1:
                break
            if shooters[m + 1]:
                distances += 1
        if distances:
            chance = min(1.0, distances * DIRECT_SHOT)
            loss += chance * (24 - index + HIT_TEMPO)
    return loss


def _gammon_chance(board: Board) -> float:
    """Rough gammon chance against ``board``'s owner if it loses."""
    if _checkers(board) < CHECKERS:
        return 0.0
    outside = 0
    for index in range(6, 25):
        outside += board[index]
    return GAMMON_RATE * outside / CHECKERS


# ----------------------------------------------------------------------
# Notation helpers.


def _point_name(index: int) -> str:
    if index == BAR:
        return "bar"
    if index == OFF:
        return "off"
    return str(index + 1)


def _format_steps(opp: Board, move: Action) -> str:
    if not move:
        return "pass"
    other = list(opp)
    # Each chain: [source, (target, hit), (target, hit), ...] of one checker.
    chains: list[list[Any]] = []
    for source, target in move:
        hit = target >= 0 and other[23 - target] == 1
        if hit:
            other[23 - target] = 0
        for chain in chains:
            if chain[-1][0] == source:
                chain.append((target, hit))
                break
        else:
            chains.append([source, (target, hit)])
    texts: list[tuple[int, str]] = []
    for chain in chains:
        parts = [_point_name(chain[0])]
        last = len(chain) - 1
        for position, (target, hit) in enumerate(chain[1:], start=1):
            if hit or position == last:
                parts.append(_point_name(target) + ("*" if hit else ""))
        texts.append((chain[0], "/".join(parts)))
    texts.sort(key=lambda item: -item[0])
    grouped: list[str] = []
    counts: dict[str, int] = {}
    for _, text in texts:
        if text in counts:
            counts[text] += 1
        else:
            counts[text] = 1
            grouped.append(text)
    return " ".join(text if counts[text] == 1 else f"{text}({counts[text]})" for text in grouped)


def _apply_text(state: BgState, text: str) -> tuple[Board, Board]:
    """The boards after the checker moves ``text`` describes (not checked against the dice)."""
    assert state.dice is not None
    board, other = list(state.me), list(state.opp)
    tokens = text.split()
    if [token.lower() for token in tokens] == ["pass"] or not tokens:
        return tuple(board), tuple(other)
    for token in tokens:
        repeat = 1
        match = _REPEAT_TEXT.match(token)
        if match:
            token, repeat = match.group(1), int(match.group(2))
        points = []
        for part in token.lower().split("/"):
            point = _POINT_TEXT.match(part)
            if not point:
                raise IllegalMoveError(f"{part!r} in {text!r} is not a point")
            name = point.group(1)
            if name == "bar":
                points.append(BAR)
            elif name == "off":
                points.append(OFF)
            elif 1 <= int(name) <= 25:
                points.append(int(name) - 1)
            else:
                raise IllegalMoveError(f"there is no point {name} (1-24, bar, off)")
        if len(points) < 2 or repeat < 1:
            raise IllegalMoveError(f"{token!r} is not a checker move like 13/8")
        for _ in range(repeat):
            for source, target in itertools.pairwise(points):
                if target >= source or board[source] == 0:
                    raise IllegalMoveError(f"{text!r} is not a legal move")
                _step(board, other, source, target)
    return tuple(board), tuple(other)


def encode_position_id(me: Board, opp: Board) -> str:
    """The GNU Backgammon Position ID of a position, the player on roll's checkers ``me``.

    As GNU Backgammon (1.07) writes it: the opponent's checkers first, then
    those of the player on roll (``gnubg.board()`` is ``(opp, me)``).
    """
    bits: list[int] = []
    for board in (opp, me):
        for count in board:
            bits.extend([1] * count)
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    key = bytearray(10)
    for index, bit in enumerate(bits):
        if bit:
            key[index >> 3] |= 1 << (index & 7)
    return base64.b64encode(bytes(key)).decode("ascii").rstrip("=")


def decode_position_id(text: str) -> tuple[Board, Board]:
    """The boards (player on roll's, opponent's) of a Position ID; raises BadPositionError.

    The ID holds the opponent's checkers first (see :func:`encode_position_id`).
    """
    if not re.fullmatch(r"[A-Za-z0-9+/]{14}", text):
        raise BadPositionError(f"{text!r} is not a Position ID (14 Base64 characters)")
    key = base64.b64decode(text + "==")
    bits = [(key[index >> 3] >> (index & 7)) & 1 for index in range(80)]
    boards: list[list[int]] = [[], []]
    position = 0
    for board in boards:
        while len(board) < 25:
            count = 0
            while position < 80 and bits[position]:
                count += 1
                position += 1
            if position >= 80:
                raise BadPositionError(f"Position ID {text!r} is truncated")
            position += 1  # the 0 that ends the point
            board.append(count)
    if any(bits[position:]):
        raise BadPositionError(f"Position ID {text!r} has bits after both boards")
    opp, me = tuple(boards[0]), tuple(boards[1])
    for counts in (me, opp):
        if sum(counts) > CHECKERS:
            raise BadPositionError(f"Position ID {text!r} gives a player over 15 checkers")
    for index in range(24):
        if me[index] and opp[23 - index]:
            raise BadPositionError(f"Position ID {text!r} puts both players on point {index + 1}")
    return me, opp


class MatchId(NamedTuple):
    """The fields of a GNU Backgammon Match ID (see :func:`decode_match_id`)."""

    cube: int
    cube_owner: int  # 0, 1, or 3 for a centred cube
    on_roll: int  # the player whose checkers are "on roll" in the Position ID
    crawford: bool
    game_state: int  # 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped
    turn: int  # the player to make the next decision (differs when a double is offered)
    double_offered: bool
    resignation: int  # 0 none, else 1-3 points offered
    dice: tuple[int, int]  # (0, 0) when not rolled yet
    match_length: int  # 0 for money play
    score: tuple[int, int]
    #: The Jacoby rule in effect (bit 66 clear). GNU Backgammon 1.07 sets the
    #: bit when it is not: with ``set jacoby off``, and with ``set cube use off``.
    jacoby: bool = True


def _bit_field(bits: list[int], start: int, width: int) -> int:
    value = 0
    for offset in range(width):
        value |= bits[start + offset] << offset
    return value


def decode_match_id(text: str) -> MatchId:
    """The fields of a GNU Backgammon Match ID (12 Base64 characters); raises BadPositionError.

    The layout, least significant bit of each byte first (checked against
    GNU Backgammon 1.07's ``gnubg.matchid()``): bits 0-3 log2 of the cube,
    4-5 its owner (3 centred), 6 the player on roll, 7 Crawford, 8-10 the
    game state, 11 the player to decide, 12 a double offered, 13-14 a
    resignation offered, 15-17 and 18-20 the dice, 21-35 the match length,
    36-50 and 51-65 the two players' scores, 66 set when the Jacoby rule is
    *not* in effect. :func:`encode_match_id` is the inverse.
    """
    if not re.fullmatch(r"[A-Za-z0-9+/]{12}", text):
        raise BadPositionError(f"{text!r} is not a Match ID (12 Base64 characters)")
    key = base64.b64decode(text)
    bits = [(key[index >> 3] >> (index & 7)) & 1 for index in range(72)]
    return MatchId(
        cube=1 << _bit_field(bits, 0, 4),
        cube_owner=_bit_field(bits, 4, 2),
        on_roll=bits[6],
        crawford=bool(bits[7]),
        game_state=_bit_field(bits, 8, 3),
        turn=bits[11],
        double_offered=bool(bits[12]),
        resignation=_bit_field(bits, 13, 2),
        dice=(_bit_field(bits, 15, 3), _bit_field(bits, 18, 3)),
        match_length=_bit_field(bits, 21, 15),
        score=(_bit_field(bits, 36, 15), _bit_field(bits, 51, 15)),
        jacoby=not bits[66],
    )


def _set_field(bits: list[int], start: int, width: int, value: int, name: str) -> None:
    if not 0 <= value < 1 << width:
        raise ValueError(f"Match ID field {name} = {value} does not fit in {width} bits")
    for offset in range(width):
        bits[start + offset] = (value >> offset) & 1


def encode_match_id(fields: MatchId) -> str:
    """The GNU Backgammon Match ID of ``fields``: the inverse of :func:`decode_match_id`.

    The dice are written as given (GNU Backgammon writes the higher die
    first); the cube must be a power of two. Raises ValueError for a value
    that does not fit its field.
    """
    cube = fields.cube
    if cube < 1 or cube & (cube - 1):
        raise ValueError(f"the cube must be a power of two, got {cube}")
    bits = [0] * 72
    _set_field(bits, 0, 4, cube.bit_length() - 1, "cube")
    _set_field(bits, 4, 2, fields.cube_owner, "cube_owner")
    _set_field(bits, 6, 1, fields.on_roll, "on_roll")
    _set_field(bits, 7, 1, int(fields.crawford), "crawford")
    _set_field(bits, 8, 3, fields.game_state, "game_state")
    _set_field(bits, 11, 1, fields.turn, "turn")
    _set_field(bits, 12, 1, int(fields.double_offered), "double_offered")
    _set_field(bits, 13, 2, fields.resignation, "resignation")
    _set_field(bits, 15, 3, fields.dice[0], "dice")
    _set_field(bits, 18, 3, fields.dice[1], "dice")
    _set_field(bits, 21, 15, fields.match_length, "match_length")
    _set_field(bits, 36, 15, fields.score[0], "score")
    _set_field(bits, 51, 15, fields.score[1], "score")
    _set_field(bits, 66, 1, int(not fields.jacoby), "jacoby")
    key = bytearray(9)
    for index, bit in enumerate(bits):
        if bit:
            key[index >> 3] |= 1 << (index & 7)
    return base64.b64encode(bytes(key)).decode("ascii")


@mypyc_attr(allow_interpreted_subclasses=True)
class HandBackgammon(Backgammon):
    """Backgammon with the hand-written evaluation (:func:`_equity`): pips, structure, blots.

    The engine's evaluation before the learned one; kept as the baseline the
    benchmarks measure the learned evaluation against
    (``python -m bench.backgammon_bench match``).
    """

    title = "Backgammon (hand-written evaluation)"

    def evaluate(self, state: BgState) -> int:
        """Estimated expected points of the player on roll, times :data:`POINT`, by hand-set rules.

        On the same scale and within the same bound as :meth:`Backgammon.evaluate`.
        A race (no contact left) uses the pip counts alone: the on-roll
        side's winning chance is a normal approximation of the pip lead
        (with half a roll for being on roll and a minimum of pips per
        checker for wastage). With contact, a score in pips adds the pip
        lead, made points in the home board, anchors, the longest prime,
        checkers on the bar against closed points and the blots exposed to
        direct shots, and a logistic turns it into winning chances; gammon
        chances grow with the checkers a side without any borne off still
        has outside its home board.
        """
        if not _has_checkers(state.opp):
            return self._final_value(state)
        equity = _equity(state.me, state.opp)
        return max(-VALUE_BOUND, min(VALUE_BOUND, round(equity * POINT)))

    def evaluate_many(self, states: list[BgState]) -> list[int]:
        return [self.evaluate(state) for state in states]

    def ordered_moves(self, state: BgState) -> list[Action]:
        """Hits first, then plays that leave fewer blots (cheap rules of thumb)."""
        if state.dice is None:
            return self.legal_moves(state)
        high, low = state.dice
        plays = _plays(state.me, state.opp, high, low)
        # The sort is stable by descending score: it sorts -score * count + index
        # (plain ints, no key function, which would be a closure mypyc leaves
        # to the interpreter) and reads the index back as the remainder.
        count = len(plays)
        ranked = [
            -_order_score(state.opp, me_after, opp_after) * count + index
            for index, (_, me_after, opp_after) in enumerate(plays)
        ]
        ranked.sort()
        return [plays[rank % count][0] for rank in ranked]

"""``arena play`` as the web GUI does it: any algorithm the server lists, the GUI's player
names, the checkers board facing the person, a marked four in a row, and Go's illegal
moves explained."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from clients.cli import configure_play
from clients.client import UnknownAlgorithmError
from clients.play import check_algorithm, explain_chess_move, explain_go_move, play
from protocol.records import Welcome
from tests.clients.test_play_terminal import scripted

#: What a server started with ``--external chess:sf5=uci:...`` says of chess.
WELCOME_WITH_SF5 = {
    "type": "welcome",
    "protocol": 1,
    "server": "test",
    "games": [
        {
            "name": "chess",
            "players": ["white", "black"],
            "algorithms": ["alphabeta", "mcts", "sf5"],
        }
    ],
}


class StubEngine:
    def __init__(self, welcome: dict[str, Any]) -> None:
        self.server = Welcome.from_wire(welcome)


def test_every_algorithm_the_welcome_lists_is_accepted() -> None:
    """Seen: ``arena play --algorithm sf5`` was refused by the option parser although
    the server (and the GUI) offered it."""
    parser = argparse.ArgumentParser()
    configure_play(parser)
    args = parser.parse_args(["--game", "chess", "--algorithm", "sf5"])
    assert args.algorithm == "sf5"
    engine: Any = StubEngine(WELCOME_WITH_SF5)
    for name in ("alphabeta", "mcts", "sf5"):
        check_algorithm(engine, "chess", name)
    with pytest.raises(UnknownAlgorithmError, match="alphabeta, mcts, sf5, not 'sf9'"):
        check_algorithm(engine, "chess", "sf9")


@pytest.mark.asyncio(loop_scope="module")
async def test_an_algorithm_the_server_lacks_is_refused_before_the_game(url: str) -> None:
    out = io.StringIO()
    with pytest.raises(UnknownAlgorithmError, match="not 'sf5'"):
        await play(url, "connect4", algorithm="sf5", out=out, read=scripted(["quit"]))
    assert out.getvalue() == "", "refused before any board was drawn"
    status = await play(
        url, "connect4", algorithm="mcts", depth=1, out=out, read=scripted(["quit"])
    )
    assert status == 0


@pytest.mark.asyncio(loop_scope="module")
async def test_connect_four_names_and_a_marked_four_in_a_row(url: str) -> None:
    out = io.StringIO()
    status = await play(
        url, "connect4", position="121212", depth=1, out=out, read=scripted(["1", "quit"])
    )
    text = out.getvalue()
    assert status == 0
    assert "X Red (you) to move" in text or "your turn" in text
    assert "|[X]O . . . . . |" in text
    assert "four in a row: Red (X), marked [ ]" in text
    assert "X Red wins" in text and "you win" in text
    assert "first" not in text and "second" not in text


@pytest.mark.asyncio(loop_scope="module")
async def test_the_checkers_board_faces_the_person(url: str) -> None:
    """Seen: the terminal drew Black, the person's side by default, at the top."""
    out = io.StringIO()
    await play(url, "checkers", depth=1, out=out, read=scripted(["quit"]))
    board = out.getvalue().splitlines()
    assert board[0] == " 1     w     w     w     w    29-32"  # White far away
    assert board[7] == " 8  b     b     b     b        1-4"  # Black, yours, in front

    out = io.StringIO()
    await play(url, "checkers", depth=1, human=1, out=out, read=scripted(["quit"]))
    boards = out.getvalue().split("b/B black")
    last = boards[-2].splitlines()  # after the engine's first move, White to play
    assert last[-9].startswith(" 8") and last[-2].startswith(" 1")  # White at the bottom
    assert last[-2] == " 1  w     w     w     w       29-32"


def test_go_illegal_moves_explained() -> None:
    nine: dict[str, Any] = {"size": 9}
    assert "no column I" in (explain_go_move(nine, None, (), "i5") or "")
    assert "off the 9x9 board" in (explain_go_move(nine, None, (), "K5") or "")
    assert "off the 9x9 board" in (explain_go_move(nine, None, (), "A10") or "")
    assert "like D4" in (explain_go_move(nine, None, (), "d") or "")
    assert explain_go_move(nine, None, ("E5",), "E5") == "E5 is occupied"
    # White on B1 and A2: A1 has no liberty for Black
    suicide = explain_go_move(nine, None, ("E5", "B1", "E6", "A2"), "A1")
    assert suicide is not None and "suicide" in suicide
    # Black takes the ko at C2; White may not retake at B2 at once
    ko = ("A2", "B2", "B3", "C3", "B1", "C1", "J9", "D2", "C2")
    retake = explain_go_move(nine, None, ko, "B2")
    assert retake is not None and "repeat an earlier whole-board position" in retake


@pytest.mark.asyncio(loop_scope="module")
async def test_go_says_why_a_move_is_illegal(url: str) -> None:
    out = io.StringIO()
    await play(
        url,
        "go",
        options={"size": 9},
        depth=1,
        out=out,
        read=scripted(["i5", "e5", "quit"]),
    )
    text = out.getvalue()
    assert "'i5' is not a legal move: there is no column I" in text


def test_chess_illegal_moves_explained() -> None:
    """The review of 2026-11-29: e7e5 on White's move, Ke3, and O-O through pieces all
    got the same "not a legal move"; a beginner is now told why."""
    from engine.registry import create_game

    game = create_game("chess")

    def legal(fen: str) -> list[str]:
        state = game.parse_position(fen)
        return [game.format_move(state, move) for move in game.legal_moves(state)]

    start = game.format_position(game.initial_state())
    moves = legal(start)
    assert explain_chess_move(start, moves, "e7e5") == (
        "the pawn on e7 is Black's: White is to move"
    )
    assert explain_chess_move(start, moves, "e3e4") == "there is no piece on e3"
    assert explain_chess_move(start, moves, "e2e5") == "the pawn on e2 can go to e3, e4, not e5"
    assert explain_chess_move(start, moves, "O-O") == "castling kingside needs f1, g1 empty"
    assert explain_chess_move(start, moves, "Ke3") == "no king of White's has a legal move here"
    assert "can go to f4 (they can go to a3, c3, f3, h3)" in str(
        explain_chess_move(start, moves, "Nf4")
    )
    # The recheck of 2026-11-29: a pawn capture and a square off the board still gave no reason.
    assert explain_chess_move(start, moves, "exd5") == (
        "no pawn of White's on the e-file can go to d5 (they can go to e3, e4)"
    )
    assert explain_chess_move(start, moves, "e5") == "no pawn of White's can go to e5"
    off = "is not a square: files run a-h and ranks 1-8"
    assert explain_chess_move(start, moves, "e9") == f"e9 {off}"
    assert explain_chess_move(start, moves, "Nj3") == f"j3 {off}"
    assert explain_chess_move(start, moves, "hello") is None  # the prompt shows how to write one
    moved = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1"
    assert "may no longer castle kingside" in str(explain_chess_move(moved, legal(moved), "O-O"))
    checked = "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1"
    assert "in check" in str(explain_chess_move(checked, legal(checked), "e1g1"))


def test_ambiguous_and_unpromoted_chess_moves_are_explained() -> None:
    """The review of 2026-12-06: "Nd2" with two knights able to go there was told
    "no knight of White's can go to d2 (they can go to ... d2 ...)", and "a8" with a
    pawn on a7 "no pawn of White's can go to a8"."""
    from engine.registry import create_game

    game = create_game("chess")

    def legal(fen: str) -> list[str]:
        state = game.parse_position(fen)
        return [game.format_move(state, move) for move in game.legal_moves(state)]

    knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"  # Nb1 and Nf1 both reach d2
    assert explain_chess_move(knights, legal(knights), "Nd2") == (
        "ambiguous: 2 knights can go to d2: Nbd2 or Nfd2"
    )
    rooks = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1"  # Ra1 and Ra5 both reach a3
    assert explain_chess_move(rooks, legal(rooks), "Ra3") == (
        "ambiguous: 2 rooks can go to a3: R1a3 or R5a3"
    )
    pawn = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    assert explain_chess_move(pawn, legal(pawn), "a8") == (
        "a pawn reaching a8 must promote: a8=Q (or =R, =B, =N)"
    )


def test_backgammon_illegal_moves_are_explained() -> None:
    """The review of 2026-12-06: with 5-2 to play, 13/11 and 13/9 got only "not a
    legal move"."""
    from clients.play import explain_backgammon_move
    from engine.registry import create_game

    game = create_game("backgammon")
    state = game.initial_state()
    outcomes = game.chance_outcomes(state)
    assert outcomes is not None
    state = game.play(state, next(o for o, _ in outcomes if o == (5, 2)))
    position = game.format_position(state)
    legal = [game.format_move(state, move) for move in game.legal_moves(state)]
    assert explain_backgammon_move(position, legal, "13/9") == (
        "13/9 moves 4 pips: the dice are 5 and 2"
    )
    half = str(explain_backgammon_move(position, legal, "13/11"))
    assert half.startswith("both dice (5 and 2) must be played when they can be, e.g. ")
    assert explain_backgammon_move(position, legal, "hello") is None
    # A review of 2026-12-07: wrong reasons where it could not tell. A checker
    # on the bar enters first; a bear-off's pips say nothing of its dice.
    # A review of 2026-12-07, later: a blocked point, a point without a
    # checker and a die used twice were told to play both dice.
    start = "4HPwATDgc/ABMA 0 6-5"
    for text, roll_position, expected in (
        ("13/9", "2zbABwDgOfgDQA 0 6-4", "a checker on the bar must enter first, e.g. bar/"),
        ("4/off 1/off", "APD/AwhLAAAAAA 0 6-5", None),
        ("6/1", start, "1 is blocked: the opponent has 2 checkers there"),
        ("24/19*", start, "19 is blocked: the opponent has 5 checkers there"),
        ("20/14", start, "you have no checker on 20"),
        ("8/3(2)", start, "the dice are 6 and 5: there is one 5 to play"),
        ("13/4(2)", "4HPwATDgc/ABMA 0 3-3", "a double moves four times: 3 pips each"),
        ("13/8", start, "both dice (6 and 5) must be played when they can be, e.g. "),
    ):
        board = game.parse_position(roll_position)
        plays = [game.format_move(board, move) for move in game.legal_moves(board)]
        why = explain_backgammon_move(roll_position, plays, text)
        assert why == expected or (expected and str(why).startswith(expected)), (text, why)


def test_checkers_and_othello_refusals_say_why() -> None:
    """A review of 2026-12-07: a quiet move when a capture was due, a jump
    stopped short, an occupied square and a move that flips nothing all got
    only "not a legal move"."""
    from clients.play import explain_checkers_move, explain_othello_move
    from engine.registry import create_game

    checkers = create_game("checkers")
    board = checkers.parse_position("B:W14,22,23:B9")  # 9x18x25 or 9x18x27
    legal = [checkers.format_move(board, move) for move in checkers.legal_moves(board)]
    assert str(explain_checkers_move(legal, "9-13")).startswith("a capture must be taken")
    assert str(explain_checkers_move(legal, "9x18")).startswith("the jump is not over")
    assert explain_checkers_move(legal, "hello") is None
    othello = create_game("othello")
    start = othello.initial_state()
    position = othello.format_position(start)
    legal = [othello.format_move(start, move) for move in othello.legal_moves(start)]
    assert explain_othello_move(position, legal, "d4") == "d4 is taken"
    assert str(explain_othello_move(position, legal, "a1")).startswith("a1 outflanks no disc")
    assert explain_othello_move(position, legal, "z9") is None
    # A pass with moves left (a review in tmux, 2026-12-07: no reason given).
    assert explain_othello_move(position, legal, "pass") == (
        "a player passes only without a move, and you have 4"
    )


def test_a_backgammon_result_gives_its_points_as_the_gui_does() -> None:
    """A review of 2026-12-07: the terminal said "X White wins (gammon): you
    win" where the GUI says "White wins — gammon (2 points)"."""
    from clients.play import _result_text
    from protocol.replies import GameResult, GameState

    def over(game: str, result: GameResult) -> GameState:
        return GameState(game, {}, "", 0, (), (), result)

    players = ["X White", "O Black"]
    gammon = over("backgammon", GameResult(0, "gammon", 2))
    assert (
        _result_text(gammon, players, 0, "backgammon") == "X White wins (gammon), 2 points: you win"
    )
    single = over("backgammon", GameResult(1, "bore off all checkers", 1))
    assert _result_text(single, players, 0, "backgammon").endswith(", 1 point: the engine wins")
    four = over("connect4", GameResult(0, "four in a row"))
    assert (
        _result_text(four, ["Red", "Yellow"], 0, "connect4") == "Red wins (four in a row): you win"
    )

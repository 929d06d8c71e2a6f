"""Replies carry every move in the game's canonical notation, whatever it was typed in."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.errors import ProtocolError
from protocol.records import Move, NewGame
from server.session import Session


def state_after(game: str, moves: list[str], position: str | None = None) -> dict[str, Any]:
    """The state reply after playing ``moves`` one ``move`` request at a time."""
    session = Session()
    reply = session.handle(NewGame(game, id=0, position=position), 0.0).replies[0].to_wire()
    for number, text in enumerate(moves, 1):
        reply = session.handle(Move(text, id=number), 0.0).replies[0].to_wire()
        assert reply["type"] == "state"
    return reply


def state_from_new_game(game: str, moves: list[str], position: str | None = None) -> dict[str, Any]:
    """The state reply to a ``new_game`` given ``moves``."""
    reply: dict[str, Any] = (
        Session()
        .handle(NewGame(game, id=0, position=position, moves=tuple(moves)), 0.0)
        .replies[0]
        .to_wire()
    )
    return reply


@pytest.mark.parametrize("play", [state_after, state_from_new_game])
def test_chess_san_is_stored_as_uci_with_a_san_history(play: Any) -> None:
    reply = play("chess", ["e4", "e7e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"])
    assert reply["history"] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1"]
    assert reply["history_san"] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]


def test_chess_history_san_is_empty_at_the_start_and_marks_checks() -> None:
    assert state_after("chess", [])["history_san"] == []
    reply = state_after("chess", ["f3", "e5", "g4", "Qh4#"])
    assert reply["history"] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert reply["history_san"] == ["f3", "e5", "g4", "Qh4#"]


def test_history_san_is_only_in_chess() -> None:
    assert "history_san" not in state_after("connect4", ["4"])


@pytest.mark.parametrize("play", [state_after, state_from_new_game])
def test_checkers_short_capture_is_stored_in_full(play: Any) -> None:
    # A white man on 22 jumps the black men on 18 and 11.
    position = "W:W22:B18,11,3"
    reply = play("checkers", ["22x8"], position)
    assert reply["history"] == ["22x15x8"]


@pytest.mark.parametrize("play", [state_after, state_from_new_game])
def test_backgammon_moves_and_rolls_are_stored_canonically(play: Any) -> None:
    # The opening roll 3-5 (player 1's die is higher), then a move spelled
    # through an intermediate point and in another order.
    reply = play("backgammon", ["3-5", "6/3 13/10 10/8"])
    assert reply["history"] == ["3-5", "13/8 6/3"]


def test_backgammon_later_roll_low_die_first_is_stored_high_first() -> None:
    session = Session()
    session.handle(NewGame("backgammon", id=0, position="4HPwATDgc/ABMA 0 -"), 0.0)
    reply = session.handle(Move("3-5", id=1), 0.0).replies[0].to_wire()
    assert reply["history"] == ["5-3"]
    reply = session.handle(Move("13/10 10/5", id=2), 0.0).replies[0].to_wire()
    assert reply["history"] == ["5-3", "13/5"]


def test_an_illegal_move_leaves_both_histories_unchanged() -> None:
    session = Session()
    session.handle(NewGame("chess", id=0, moves=("e4",)), 0.0)
    with pytest.raises(ProtocolError):
        session.handle(Move("Ke3", id=1), 0.0)
    reply = session.state_message().to_wire()
    assert reply["history"] == ["e2e4"]
    assert reply["history_san"] == ["e4"]


def test_backgammon_states_carry_gnubg_ids() -> None:
    # The opening roll has no GNU Backgammon ID: gnubg rolls it itself.
    opening = state_after("backgammon", [])
    assert "gnubg_id" in opening and opening["gnubg_id"] is None
    # Player 1 opens with 2-1 (gnubg 1.07's own ID for it, cube use off).
    reply = state_after("backgammon", ["1-2"])
    assert reply["gnubg_id"] == "4HPwATDgc/ABMA:cAkFAAAAAAAE"
    assert reply["position"] == "4HPwATDgc/ABMA 1 2-1"
    reply = state_from_new_game("backgammon", ["1-2", "13/11 6/5"])
    assert reply["to_move"] == "chance"
    assert reply["gnubg_id"].split(":")[0] == reply["position"].split()[0]
    # A gnubg ID sent as the position comes back as gnubg writes it.
    reply = state_after("backgammon", [], "4PPgASTgc+QBKA:cAkPAAAAAAAA")
    assert reply["position"] == "4PPgASTgc+QBKA 1 6-3"
    assert reply["gnubg_id"] == "4PPgASTgc+QBKA:cAkPAAAAAAAE"


@pytest.mark.parametrize(("game", "moves"), [("chess", ["e4"]), ("connect4", ["4"])])
def test_gnubg_ids_are_only_in_backgammon(game: str, moves: list[str]) -> None:
    assert "gnubg_id" not in state_after(game, moves)
    assert "gnubg_id" not in state_after(game, [])

"""Game.quick_move: the answer of a think that has no time to search.

The review of 2026-12-07: a think too short to search was answered with the
first legal move, the king's walk e1e2 in an open game of chess and the corner
A9 in Go. The quick move is one ply of the evaluation (Go: the playout
policy's move), chosen on the server's event loop only when such an answer
is given.
"""

from __future__ import annotations

from engine.game import QUICK_MOVE_MAX_MOVES
from engine.registry import create_game


def quick(game_name: str, position: str | None = None, moves: str = "") -> str:
    game = create_game(game_name)
    state = game.initial_state() if position is None else game.parse_position(position)
    for text in moves.split():
        state = game.play_text(state, text)
    move = game.quick_move(state)
    assert move in game.legal_moves(state)
    return game.format_move(state, move)


def test_chess_develops_takes_what_hangs_and_mates() -> None:
    assert quick("chess", moves="e2e4 e7e5") not in ("e1e2", "f1a6")
    hanging = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5Q2/PPPP1PPP/RNB1KBNR w KQkq - 0 3"
    assert quick("chess", hanging) == "e4d5"
    scholar = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"
    assert quick("chess", scholar) == "f3f7"
    # The opponent's captures in reply are looked at: one ply alone took the
    # pawn on e5 that the knight on c6 defends (the second review, 2026-12-07).
    assert quick("chess", moves="e2e4 e7e5 g1f3 b8c6") != "f3e5"


def test_connect_four_wins_at_once_and_takes_the_centre() -> None:
    assert quick("connect4") == "4"
    assert quick("connect4", moves="1 2 1 2 1 2") == "1"  # four in a column


def test_backgammon_and_go_answer_a_legal_move_at_once() -> None:
    game = create_game("backgammon")
    state = game.play(game.initial_state(), game.chance_outcomes(game.initial_state())[3][0])
    assert game.quick_move(state) in game.legal_moves(state)
    go = create_game("go")
    state = go.play_text(go.initial_state(), "E5")
    assert len(go.legal_moves(state)) > QUICK_MOVE_MAX_MOVES
    first = go.quick_move(state)
    assert go.format_move(state, first) != "A9" and go.quick_move(state) == first  # seeded

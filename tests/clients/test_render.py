"""The terminal boards of every game, against known positions."""

from __future__ import annotations

from clients.render import CHECKERS_SQUARES, View, go_captures, render
from engine.games.go import Go

CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
CHECKERS_START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
OTHELLO_START = "---------------------------OX------XO--------------------------- X"


def test_small_games_as_before() -> None:
    assert render("tictactoe", "X.O......") == "3 | X . O\n2 | . . .\n1 | . . .\n    a b c"
    assert render("nim", "3 0 /1").splitlines() == ["heap 1: ||| (3)", "heap 2:  (0)"]
    board = render("connect4", "4453", {"width": 7, "height": 6}).splitlines()
    assert board[-3:] == ["| . . . O . . . |", "| . . O X X . . |", "  1 2 3 4 5 6 7"]


def test_chess_start_and_last_move() -> None:
    lines = render("chess", CHESS_START).splitlines()
    assert lines[0] == " 8  r  n  b  q  k  b  n  r"
    assert lines[6] == " 2  P  P  P  P  P  P  P  P"
    assert lines[7] == " 1  R  N  B  Q  K  B  N  R"
    assert lines[8] == "    a  b  c  d  e  f  g  h"
    assert lines[9] == "White to move  (castling KQkq)"
    lines = render("chess", AFTER_E4, view=View(last_move="e2e4")).splitlines()
    assert lines[4] == " 4     .     . [P] .     ."
    assert lines[6] == " 2  P  P  P  P [ ] P  P  P"
    assert lines[9].startswith("Black to move")


def test_chess_flipped_shows_black_at_the_bottom() -> None:
    lines = render("chess", CHESS_START, view=View(flip=True)).splitlines()
    assert lines[0] == " 1  R  N  B  K  Q  B  N  R"
    assert lines[7] == " 8  r  n  b  k  q  b  n  r"
    assert lines[8] == "    h  g  f  e  d  c  b  a"


def test_checkers_start_with_square_numbers() -> None:
    # flipped: White at the bottom, as printed diagrams show it
    lines = render("checkers", CHECKERS_START, view=View(flip=True)).splitlines()
    assert lines[0] == " 8     b     b     b     b     1-4"
    assert lines[3] == " 5 13    14    15    16       13-16"
    assert lines[4] == " 4    17    18    19    20    17-20"
    assert lines[7] == " 1  w     w     w     w       29-32"
    assert lines[-1] == "Black to move"
    assert "black 12, w/W white 12" in lines[-2]
    # the standard numbering: 1 is b8, 4 is h8, 5 is a7, 29 is a1, 32 is g1
    assert CHECKERS_SQUARES[1] == (1, 0) and CHECKERS_SQUARES[4] == (7, 0)
    assert CHECKERS_SQUARES[5] == (0, 1) and CHECKERS_SQUARES[29] == (0, 7)
    assert CHECKERS_SQUARES[32] == (6, 7)


def test_checkers_kings_and_last_move() -> None:
    text = render("checkers", "W:WK1,30:B11-12,K28", view=View(last_move="15x8", flip=True))
    lines = text.splitlines()
    assert lines[0] == " 8     W     2     3     4     1-4"
    assert lines[1] == " 7  5     6     7    [ ]       5-8"
    assert lines[2] == " 6     9    10     b     b     9-12"
    assert lines[-1] == "White to move"
    assert "black 3, w/W white 2" in lines[-2]


def test_checkers_faces_black_the_first_player_as_the_gui_does() -> None:
    """Seen: the terminal drew Black (the first player, the person by default) at the
    top, while the web GUI puts Black at the bottom with square 1 at the bottom right."""
    lines = render("checkers", CHECKERS_START).splitlines()
    assert lines[0] == " 1     w     w     w     w    29-32"
    assert lines[7] == " 8  b     b     b     b        1-4"
    assert lines[8] == "    h  g  f  e  d  c  b  a"
    assert lines[7].split()[4] == "b" and lines[7].endswith("1-4")  # square 1 bottom right
    kings = render("checkers", "W:WK1,30:B11-12,K28").splitlines()
    assert kings[7] == " 8  4     3     2     W        1-4"


def test_othello_start_counts_and_last_move() -> None:
    lines = render("othello", OTHELLO_START).splitlines()
    assert lines[0] == "1  .  .  .  .  .  .  .  ."
    assert lines[3] == "4  .  .  .  O  X  .  .  ."
    assert lines[4] == "5  .  .  .  X  O  .  .  ."
    assert lines[8] == "   a  b  c  d  e  f  g  h"
    assert lines[9] == "discs: X (black) 2, O (white) 2; X (black) to move"
    after = OTHELLO_START[:19] + "X" + OTHELLO_START[20:27] + "X" + OTHELLO_START[28:-1] + "O"
    lines = render("othello", after, view=View(last_move="d3")).splitlines()
    assert lines[2] == "3  .  .  . [X] .  .  .  ."
    assert lines[9] == "discs: X (black) 4, O (white) 1; O (white) to move"
    lines = render("othello", OTHELLO_START, view=View(targets=frozenset({"d3", "c4"})))
    assert lines.splitlines()[2] == "3  .  .  .  +  .  .  .  ."
    # A finished game names no side to move (a review of 2026-12-07).
    final = render("othello", "X" * 64 + " O", view=View(final=True)).splitlines()
    assert final[9] == "discs: X (black) 64, O (white) 0; game over"
    assert lines.splitlines()[3] == "4  .  .  +  O  X  .  .  ."
    assert lines.splitlines()[9].endswith("X (black) to move  (+ legal moves)")


def test_backgammon_start() -> None:
    lines = render("backgammon", "4HPwATDgc/ABMA 0 3-1").splitlines()
    assert lines[0] == " 13 14 15 16 17 18   BAR  19 20 21 22 23 24"
    assert lines[2] == "| X  .  .  .  O  . |     | O  .  .  .  .  X |"
    assert lines[12] == "| O  .  .  .  X  . |     | X  .  .  .  .  O |"
    assert lines[14] == " 12 11 10  9  8  7   BAR   6  5  4  3  2  1"
    assert "pips 167, bar 0, off 0" in lines[15] and "pips 167, bar 0, off 0" in lines[16]
    assert lines[-1] == "X White to play 3-1"
    assert render("backgammon", "4HPwATDgc/ABMA opening").splitlines()[-1].startswith("opening")
    assert render("backgammon", "4HPwATDgc/ABMA 1 -").splitlines()[-1] == "O Black to roll"


def test_backgammon_bar_and_borne_off() -> None:
    # player 1 on roll: two checkers on its 1 point and one on the bar;
    # player 0: three on its 6 point; twelve each borne off
    lines = render("backgammon", "4AAAMAAAQAAAAA 1 3-3").splitlines()
    assert lines[2] == "| .  .  .  .  .  . |  O  | .  .  .  .  .  O |"
    assert lines[12] == "| .  .  .  .  .  . |     | X  .  .  .  .  . |"
    assert lines[15] == "O Black (home top right): pips 27, bar 1, off 12"
    assert lines[16] == "X White (home bottom right): pips 18, bar 0, off 12"
    assert lines[-1] == "O Black to play 3-3"
    # player 1 on roll with one checker left; player 0 has borne off all 15
    over = render("backgammon", "AAAAAgAAAAAAAA 1 -").splitlines()
    assert over[-1] == "X White has borne off every checker"
    flipped = render("backgammon", "4AAAMAAAQAAAAA 1 3-3", view=View(flip=True)).splitlines()
    assert flipped[12] == "| .  .  .  .  .  . |  O  | .  .  .  .  .  O |"
    assert flipped[2] == "| .  .  .  .  .  . |     | X  .  .  .  .  . |"
    assert flipped[0] == " 13 14 15 16 17 18   BAR  19 20 21 22 23 24"


def test_connect4_marks_a_finished_four_in_a_row() -> None:
    vertical = render("connect4", "1212121").splitlines()
    assert vertical[2:6] == ["|[X]. . . . . . |", "|[X]O . . . . . |"] + ["|[X]O . . . . . |"] * 2
    assert vertical[-1] == "four in a row: Red (X), marked [ ]"
    across = render("connect4", "4455667").splitlines()
    assert across[5] == "| . . .[X X X X]|" and across[4] == "| . . . O O O . |"
    diagonal = render("connect4", "12234334454").splitlines()
    assert [line.count("[") for line in diagonal[2:6]] == [1, 1, 1, 1]
    yellow = render("connect4", "1223343445").splitlines()
    assert yellow[5] == "| X[O O O O]. . |" and yellow[-1].startswith("four in a row: Yellow (O)")
    unfinished = render("connect4", "121212").splitlines()
    assert "[" not in "".join(unfinished) and not unfinished[-1].startswith("four")
    coloured = render("connect4", "1212121", view=View(color=True))
    assert coloured.count("\x1b[48;5;186") == 4  # the four highlighted
    assert "\x1b[1;33mO" in coloured  # yellow, as the GUI's second player


def test_colours_only_when_asked_and_bad_positions_fall_back() -> None:
    plain = render("chess", CHESS_START)
    assert "\x1b[" not in plain
    coloured = render("chess", CHESS_START, view=View(color=True))
    assert "\x1b[" in coloured and coloured.count("\x1b[0m") >= 64
    assert "\x1b[" in render("backgammon", "4HPwATDgc/ABMA 0 3-1", view=View(color=True))
    assert render("backgammon", "some position") == "position: some position"
    assert render("chess", "not a fen") == "position: not a fen"
    assert render("othello", "XO") == "position: XO"
    assert render("unknown", "") == "position: (start)"


GO_9X9 = (
    "/".join(
        [
            ".........",
            "..X...O..",
            "...XO....",
            "..XO.X...",
            "...XO....",
            "..O.X.O..",
            ".........",
            ".........",
            ".........",
        ]
    )
    + " O"
)


def test_go_board_coordinates_star_points_and_last_move() -> None:
    lines = render("go", GO_9X9, {"size": 9}, View(last_move="F6", captures=(1, 2))).splitlines()
    assert lines[0] == "    A B C D E F G H J"  # no I
    assert lines[1] == " 9  . . . . . . . . .  9"
    assert lines[3] == " 7  . . + X O . + . .  7"  # star points C7 and G7
    assert lines[4] == " 6  . . X O .(X). . .  6"  # the last stone in parentheses
    assert lines[7] == " 3  . . + . . . + . .  3"
    assert lines[9] == " 1  . . . . . . . . .  1"
    assert lines[10] == lines[0]
    assert lines[11] == "captures: X (black) 1, O (white) 2"
    assert lines[12] == "O (white) to move"
    # The last move on the right edge closes its parentheses there; a pass marks nothing.
    edge = render("go", "..X/.../... O", {"size": 3}, View(last_move="C3")).splitlines()
    assert edge[1] == " 3  . .(X) 3"
    passed = render("go", GO_9X9, {"size": 9}, View(last_move="pass")).splitlines()
    assert "(" not in "".join(passed[1:10])


def test_go_star_points_by_size() -> None:
    nineteen = render("go", "/".join(["." * 19] * 19) + " X").splitlines()
    assert nineteen[0].endswith("Q R S T")
    assert nineteen[4] == "16  . . . + . . . . . + . . . . . + . . .  16"
    assert nineteen[10] == "10  . . . + . . . . . + . . . . . + . . .  10"
    assert sum(line.count("+") for line in nineteen) == 9
    thirteen = render("go", "/".join(["." * 13] * 13) + " X").splitlines()
    assert sum(line.count("+") for line in thirteen) == 5
    assert thirteen[4] == "10  . . . + . . . . . + . . .  10"  # D10 and K10
    five = render("go", "/".join(["." * 5] * 5) + " X").splitlines()
    assert [line.count("+") for line in five[1:6]] == [0, 0, 1, 0, 0]


def test_go_area_at_the_end_and_colour() -> None:
    final = "..XO./..XO./.XXO./..XOO/..XO. X"
    lines = render("go", final, {"size": 5, "komi": 2.5}, View(final=True)).splitlines()
    assert lines[1] == " 5  x x X O o  5"  # territory in lower case
    assert lines[3] == " 3  x X X O o  3"
    assert lines[-1] == "area (x, o: territory): X (black) 15, O (white) 10 + komi 2.5 = 12.5"
    coloured = render("go", GO_9X9, {"size": 9}, View(last_move="F6", color=True))
    assert "\x1b[1;31mX\x1b[0m" in coloured and "\x1b[1;36mO\x1b[0m" in coloured
    assert render("go", "not a go position") == "position: not a go position"


def test_go_captures_from_the_moves() -> None:
    # Black captured the white stone at A1 with B1 (a 3x3 corner): one white
    # stone placed, none left.
    assert go_captures(".../X../.X. O", ["A2", "A1", "B1"], ".../.../... X") == (1, 0)
    # From a loaded start with stones on it, white to move first.
    assert go_captures("O.X/.../... X", ["B2", "A2", "pass", "B3"], "O../.../X.. O") == (1, 2)
    assert go_captures("/".join(["." * 9] * 9) + " X", [], None) == (0, 0)


def test_go_captures_agree_with_the_rules() -> None:
    """The count from placements and stones left equals the engine's own, move by move."""
    game = Go(size=5)
    state = game.initial_state()
    history: list[str] = []
    for ply in range(60):
        legal = game.legal_moves(state)
        if not legal:
            break
        move = legal[(ply * 7919) % len(legal)] if ply % 11 != 10 else legal[-1]
        history.append(game.format_move(state, move))
        state = game.play(state, move)
        position = game.format_position(state)
        assert go_captures(position, history, None) == (state.black_captures, state.white_captures)
    assert state.black_captures + state.white_captures > 0


def test_backgammon_turned_round_keeps_the_persons_point_numbers() -> None:
    """A review in tmux (2026-12-07): after `flip` the board was numbered for
    the player now at the bottom, and a move read off it (White's 12/7, its
    13-point labelled 12) was refused. The numbering is a player's, not a side
    of the screen's."""
    position = "4HPwATDgc/ABMA 0 6-5"
    upright = render("backgammon", position).splitlines()
    turned = render("backgammon", position, view=View(flip=True, numbering=0)).splitlines()
    assert sorted(map(int, (w for w in upright[0].split() if w.isdigit()))) == list(range(13, 25))
    labels = [int(w) for w in turned[0].split() if w.isdigit()]
    assert sorted(labels) == list(range(1, 13))  # White's own 1-12 now on top
    # The bottom player's numbering is as before without `numbering`.
    plain = render("backgammon", position, view=View(flip=True)).splitlines()
    assert sorted(int(w) for w in plain[0].split() if w.isdigit()) == list(range(13, 25))

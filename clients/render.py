"""Text pictures of positions, per game, from the position notation.

Each renderer takes the position string (the game's notation, see
``protocol.md`` section 9), the game's options and a :class:`View` (the
last move to mark, the board's orientation, colours or plain text);
:func:`render` falls back to printing the position string for games without
a renderer, so a new game shows up in the terminal client before anyone
draws it. Backgammon's Position ID is decoded by the engine's own
:func:`~engine.games.backgammon.decode_position_id`. Plain text marks
the last move with brackets, colour (ANSI) with a highlighted background.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import BadPositionError
from engine.games.backgammon import decode_position_id


@dataclass(frozen=True)
class View:
    """How to draw a board: ``flip`` turns it round (black / the second player at the bottom)."""

    last_move: str | None = None
    flip: bool = False
    color: bool = False
    #: Squares to mark as playable (Othello: the legal moves, drawn ``+``).
    targets: frozenset[str] = frozenset()
    #: Go: prisoners taken by black and by white (see :func:`go_captures`).
    captures: tuple[int, int] | None = None
    #: The game is over: Go draws and counts the Tromp-Taylor area, Othello
    #: names no side to move.
    final: bool = False
    #: Go: the game ended without a count (a resignation): no side to move is
    #: named (it said "X (black) to move" under "white wins": a review, 2026-12-07).
    ended: bool = False
    #: Backgammon: the player whose point numbers label the board (a move is
    #: written in its mover's numbers); ``None``: the player at the bottom.
    numbering: int | None = None


Renderer = Callable[[str, Mapping[str, Any], View], str]

RESET = "\x1b[0m"
#: ANSI styles (SGR parameters).
LIGHT_SQUARE = "48;5;180"
DARK_SQUARE = "48;5;137"
LAST_SQUARE = "48;5;186"
WHITE_PIECE = "1;38;5;231"
BLACK_PIECE = "1;38;5;16"
DIM = "2"
BOLD = "1"
X_STYLE = "1;31"  # red: the first player's marks and checkers
O_STYLE = "1;36"  # cyan: the second player's


def style(text: str, sgr: str, view: View) -> str:
    """``text`` in an ANSI style when the view has colours, else unchanged."""
    return f"\x1b[{sgr}m{text}{RESET}" if view.color and sgr else text


def render(
    game: str,
    position: str,
    options: Mapping[str, Any] | None = None,
    view: View | None = None,
) -> str:
    """The board as text, or the raw position for games without a renderer."""
    renderer = RENDERERS.get(game)
    if renderer is None:
        return f"position: {position or '(start)'}"
    try:
        return renderer(position, options or {}, view or View())
    except (ValueError, IndexError, KeyError, BadPositionError):
        return f"position: {position}"


# ----------------------------------------------------------------------
# Small games, drawn as before.


def render_tictactoe(position: str, options: Mapping[str, Any], view: View) -> str:
    if len(position) != 9:
        raise ValueError(position)
    rows = [position[row * 3 : row * 3 + 3] for row in range(3)]
    styles = {"X": X_STYLE, "O": O_STYLE, ".": DIM}
    lines = [
        f"{3 - index} | {' '.join(style(char, styles.get(char, ''), view) for char in row)}"
        for index, row in enumerate(rows)
    ]
    return "\n".join([*lines, "    a b c"])


def render_nim(position: str, options: Mapping[str, Any], view: View) -> str:
    heaps_text = position.rpartition("/")[0]
    heaps = [int(size) for size in heaps_text.split()]
    lines = [
        f"heap {index}: {style('|' * size, BOLD, view)} ({size})"
        for index, size in enumerate(heaps, 1)
    ]
    return "\n".join(lines)


#: Connect Four's players as the web GUI names and colours them (X red, O yellow).
C4_NAMES = ("Red", "Yellow")
C4_O_STYLE = "1;33"  # yellow
#: Cells in a row that win Connect Four.
C4_LINE = 4


def connect4_columns(position: str, width: int) -> list[list[str]]:
    """The discs of each column from the bottom, ``X`` (first player) or ``O``."""
    columns: list[list[str]] = [[] for _ in range(width)]
    for ply, char in enumerate(position):
        columns[int(char) - 1].append("X" if ply % 2 == 0 else "O")
    return columns


def connect4_winning_cells(columns: list[list[str]], height: int) -> set[tuple[int, int]]:
    """Every (column, row) in a line of four or more of one colour (empty: no line)."""
    width = len(columns)

    def at(column: int, row: int) -> str | None:
        if 0 <= column < width and 0 <= row < len(columns[column]):
            return columns[column][row]
        return None

    cells: set[tuple[int, int]] = set()
    for column in range(width):
        for row in range(len(columns[column])):
            disc = at(column, row)
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(column + dc * step, row + dr * step) for step in range(C4_LINE)]
                if all(at(c, r) == disc for c, r in line):
                    cells.update(line)
    return cells


def render_connect4(position: str, options: Mapping[str, Any], view: View) -> str:
    """The board, column numbers under it; a finished four in a row is marked
    (brackets in plain text, highlighted in colour) and named under the board."""
    width = int(options.get("width", 7))
    height = int(options.get("height", 6))
    columns = connect4_columns(position, width)
    winning = connect4_winning_cells(columns, height)
    styles = {"X": X_STYLE, "O": C4_O_STYLE, ".": DIM}
    lines = []
    for row in range(height - 1, -1, -1):
        cells = [column[row] if row < len(column) else "." for column in columns]
        won = [(column, row) in winning for column in range(width)]
        # A separator slot before each cell and one after the last: a bracket
        # where a marked run starts or ends, so the columns stay in place.
        slots = [
            "["
            if column < width and won[column] and (column == 0 or not won[column - 1])
            else "]"
            if column > 0 and won[column - 1] and (column == width or not won[column])
            else " "
            for column in range(width + 1)
        ]
        text = "|"
        for column, cell in enumerate(cells):
            sgr = f"{LAST_SQUARE};{styles[cell]}" if won[column] else styles[cell]
            text += slots[column] + style(cell, sgr, view)
        text += slots[width]
        lines.append(text + "|")
    lines.append("  " + " ".join(str(column + 1) for column in range(width)))
    if winning:
        disc = columns[min(winning)[0]][min(winning)[1]]
        name = C4_NAMES[0 if disc == "X" else 1]
        lines.append(f"four in a row: {name} ({disc}), marked [ ]")
    return "\n".join(lines)


# ----------------------------------------------------------------------
# Square boards.

FILES = "abcdefgh"
_SQUARE = re.compile(r"[a-h][1-8]")


def _cell(text: str, dark: bool, foreground: str, marked: bool, view: View) -> str:
    """One 3-character square: a piece letter or a square number, brackets for the last move."""
    if view.color:
        background = LAST_SQUARE if marked else DARK_SQUARE if dark else LIGHT_SQUARE
        sgr = f"{background};{foreground}" if text and foreground else background
        return f"\x1b[{sgr}m{text.rjust(2) if len(text) == 2 else text.center(3):3}{RESET}"
    body = text or ("." if dark else " ")
    if marked:
        return f"[{body}]" if len(body) == 1 else "[ ]"
    return f"{body:>2} " if len(body) == 2 else f" {body} "


def _grid(
    cells: Callable[[int, int], tuple[str, bool, str]],
    marked: set[tuple[int, int]],
    view: View,
    rank_label: Callable[[int], str],
    side: Callable[[int], str] = lambda row: "",
) -> list[str]:
    """An 8x8 board; ``cells(file, row)`` (row 0 at the top) gives (text, dark, foreground)."""
    rows = list(range(8))
    files = list(range(8))
    if view.flip:
        rows.reverse()
        files.reverse()
    lines = []
    for row in rows:
        text = "".join(_cell(*cells(file, row), (file, row) in marked, view) for file in files)
        lines.append(f"{rank_label(row)} {text} {side(row)}".rstrip())
    lines.append(("   " + "".join(f" {FILES[file]} " for file in files)).rstrip())
    return lines


def _squares(move: str | None) -> list[tuple[int, int]]:
    """The squares named in a move like ``e2e4`` as (file, row from the top of rank 8)."""
    if not move:
        return []
    return [(FILES.index(square[0]), 8 - int(square[1])) for square in _SQUARE.findall(move)]


def render_chess(position: str, options: Mapping[str, Any], view: View) -> str:
    fields = position.split()
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(position)
    board: list[list[str]] = []
    for rank in ranks:
        row: list[str] = []
        for char in rank:
            row.extend([""] * int(char) if char.isdigit() else [char])
        if len(row) != 8:
            raise ValueError(position)
        board.append(row)
    marked = set(_squares(view.last_move)[:2])
    lines = _grid(
        lambda file, row: (
            board[row][file],
            (file + row) % 2 == 1,
            WHITE_PIECE if board[row][file].isupper() else BLACK_PIECE,
        ),
        marked,
        view,
        lambda row: f" {8 - row}",
    )
    turn = fields[1] if len(fields) > 1 else "w"
    lines.append(
        f"{'White' if turn == 'w' else 'Black'} to move"
        + (f"  (castling {fields[2]})" if len(fields) > 2 and fields[2] != "-" else "")
    )
    return "\n".join(lines)


#: Checkers squares 1-32 as (file, row from the top): Black's back row 1-4 on
#: rank 8 (b8 d8 f8 h8), then 5-8 on rank 7 (a7 c7 e7 g7) and so on; 29 is a1.
CHECKERS_SQUARES: dict[int, tuple[int, int]] = {
    number: (2 * ((number - 1) % 4) + (1 if ((number - 1) // 4) % 2 == 0 else 0), (number - 1) // 4)
    for number in range(1, 33)
}


def _checkers_pieces(position: str) -> tuple[str, dict[int, str]]:
    """The side to move (``B``/``W``) and the piece on each occupied square of a PDN FEN."""
    fields = position.strip().rstrip(".").split(":")
    if len(fields) != 3 or fields[0] not in ("B", "W"):
        raise ValueError(position)
    pieces: dict[int, str] = {}
    for field in fields[1:]:
        colour, squares = field[:1], field[1:]
        if colour not in ("B", "W"):
            raise ValueError(position)
        for item in filter(None, squares.split(",")):
            king = item.startswith("K")
            item = item.removeprefix("K")
            low, _, high = item.partition("-")
            for number in range(int(low), int(high or low) + 1):
                if not 1 <= number <= 32:
                    raise ValueError(position)
                man = "b" if colour == "B" else "w"
                pieces[number] = man.upper() if king else man
    return fields[0], pieces


def render_checkers(position: str, options: Mapping[str, Any], view: View) -> str:
    """English checkers, Black (the first player) at the bottom, square 1 bottom right, as
    the web GUI draws it; ``view.flip``: White at the bottom (the printed diagrams' way)."""
    turn, pieces = _checkers_pieces(position)
    # CHECKERS_SQUARES puts square 1 in the top row: turned round unless flipped.
    grid_view = replace(view, flip=not view.flip)
    at = {square: number for number, square in CHECKERS_SQUARES.items()}
    last = [int(n) for n in re.findall(r"\d+", view.last_move or "") if 1 <= int(n) <= 32]
    marked = {CHECKERS_SQUARES[number] for number in last}

    def cells(file: int, row: int) -> tuple[str, bool, str]:
        number = at.get((file, row))
        if number is None:
            return "", False, ""
        if number not in pieces:
            return f"{number:>2}", True, DIM
        piece = pieces[number]
        return piece, True, BLACK_PIECE if piece in "bB" else WHITE_PIECE

    def side(row: int) -> str:
        numbers = sorted(n for n, (_, r) in CHECKERS_SQUARES.items() if r == row)
        return f"  {numbers[0]:>2}-{numbers[-1]:<2}"

    lines = _grid(cells, marked, grid_view, lambda row: f" {8 - row}", side=side)
    black = sum(1 for piece in pieces.values() if piece in "bB")
    white = len(pieces) - black
    lines.append(f"b/B black {black}, w/W white {white} (B, W kings; numbers: squares 1-32)")
    lines.append(f"{'Black' if turn == 'B' else 'White'} to move")
    return "\n".join(lines)


def render_othello(position: str, options: Mapping[str, Any], view: View) -> str:
    parts = position.split()
    if len(parts) != 2 or len(parts[0]) != 64 or parts[1] not in ("X", "O"):
        raise ValueError(position)
    cells_text = parts[0]
    marked = set(_othello_squares(view.last_move))
    rows = list(range(8))
    files = list(range(8))
    if view.flip:
        rows.reverse()
        files.reverse()
    styles = {"X": X_STYLE, "O": O_STYLE, ".": DIM, "+": "33"}
    lines = []
    for row in rows:
        cells = []
        for file in files:
            char = cells_text[file + 8 * row]
            char = "." if char == "-" else char
            if char == "." and f"{FILES[file]}{row + 1}" in view.targets:
                char = "+"
            text = style(char, styles.get(char, ""), view)
            cells.append(f"[{text}]" if (file, row) in marked else f" {text} ")
        lines.append(f"{row + 1} {''.join(cells)}".rstrip())
    lines.append(("  " + "".join(f" {FILES[file]} " for file in files)).rstrip())
    black, white = cells_text.count("X"), cells_text.count("O")
    mover = "X (black)" if parts[1] == "X" else "O (white)"
    # A finished game has no side to move (a review of 2026-12-07 read
    # "X (black) to move" under the final board).
    turn = "game over" if view.final else f"{mover} to move"
    lines.append(
        f"discs: X (black) {black}, O (white) {white}; {turn}"
        + ("  (+ legal moves)" if view.targets else "")
    )
    return "\n".join(lines)


def _othello_squares(move: str | None) -> list[tuple[int, int]]:
    if not move:
        return []
    return [(FILES.index(square[0]), int(square[1]) - 1) for square in _SQUARE.findall(move)]


# ----------------------------------------------------------------------
# Backgammon.

BG_MARKS = ("X", "O")
#: The players' names, as the web GUI shows them (clients/web/js/main.js, COLOUR_NAMES).
BG_NAMES = ("White", "Black")
BG_STACK = 5  # checkers drawn per point before a count


def _bg_boards(position: str) -> tuple[list[tuple[int, ...]], int | None, str]:
    """Both players' boards (by player index), the player on roll and the dice text."""
    parts = position.split()
    if len(parts) == 2 and parts[1] == "opening":
        me, opp = decode_position_id(parts[0])
        return [me, opp], None, "opening roll"
    if len(parts) != 3 or parts[1] not in ("0", "1"):
        raise ValueError(position)
    me, opp = decode_position_id(parts[0])
    turn = int(parts[1])
    boards = [me, opp] if turn == 0 else [opp, me]
    return boards, turn, parts[2]


def render_backgammon(position: str, options: Mapping[str, Any], view: View) -> str:
    boards, turn, dice = _bg_boards(position)
    bottom = 1 if view.flip else 0  # the player whose home board is bottom right
    top = 1 - bottom

    def point(number: int) -> tuple[int, int]:
        """(player, count) on the bottom player's point ``number`` (1-24)."""
        mine = boards[bottom][number - 1]
        if mine:
            return bottom, mine
        theirs = boards[top][24 - number]
        return (top, theirs) if theirs else (-1, 0)

    def mark(player: int) -> str:
        return style(BG_MARKS[player], X_STYLE if player == 0 else O_STYLE, view)

    def stack(number: int, level: int) -> str:
        player, count = point(number)
        if count <= level:
            return " . " if level == 0 else "   "
        if level == BG_STACK - 1 and count > BG_STACK:
            return f"{count:^3}"
        return f" {mark(player)} "

    def bar(player: int, level: int) -> str:
        count = boards[player][24]
        if count <= level:
            return "   "
        return f"{count:^3}" if level == BG_STACK - 1 and count > BG_STACK else f" {mark(player)} "

    top_points = list(range(13, 19)), list(range(19, 25))
    bottom_points = list(range(12, 6, -1)), list(range(6, 0, -1))
    rule = "+" + "-" * 18 + "+-----+" + "-" * 18 + "+"
    # The labels are the numbering's player's own points: turned round with
    # `flip`, the board kept the bottom player's numbers, and a move read off
    # it was refused (a review in tmux, 2026-12-07).
    theirs = view.numbering is not None and view.numbering != bottom

    def numbers(halves: tuple[list[int], list[int]]) -> str:
        left, right = ([25 - n if theirs else n for n in half] for half in halves)
        return (
            " " + "".join(f"{n:^3}" for n in left) + "  BAR  " + "".join(f"{n:^3}" for n in right)
        )

    lines = [numbers(top_points).rstrip(), rule]
    for level in range(BG_STACK):
        left = "".join(stack(n, level) for n in top_points[0])
        right = "".join(stack(n, level) for n in top_points[1])
        lines.append(f"|{left}| {bar(top, level)} |{right}|")
    lines.append("|" + " " * 18 + "|     |" + " " * 18 + "|")
    for level in range(BG_STACK - 1, -1, -1):
        left = "".join(stack(n, level) for n in bottom_points[0])
        right = "".join(stack(n, level) for n in bottom_points[1])
        lines.append(f"|{left}| {bar(bottom, level)} |{right}|")
    lines.extend([rule, numbers(bottom_points).rstrip()])
    for player in (top, bottom):
        board = boards[player]
        pips = sum(count * (index + 1) for index, count in enumerate(board))
        off = 15 - sum(board)
        where = "home bottom right" if player == bottom else "home top right"
        lines.append(
            f"{mark(player)} {BG_NAMES[player]} ({where}): pips {pips}, bar {board[24]}, off {off}"
        )
    done = [player for player in (0, 1) if not any(boards[player])]
    if done:
        lines.append(f"{mark(done[0])} {BG_NAMES[done[0]]} has borne off every checker")
    elif turn is None:
        lines.append("opening roll: each player throws one die")
    elif dice == "-":
        lines.append(f"{mark(turn)} {BG_NAMES[turn]} to roll")
    else:
        lines.append(f"{mark(turn)} {BG_NAMES[turn]} to play {dice}")
    return "\n".join(lines)


# ----------------------------------------------------------------------
# Go.

#: GTP's column letters: no I (it looks like J and 1).
GO_COLUMNS = "ABCDEFGHJKLMNOPQRST"
_GO_VERTEX = re.compile(r"([A-HJ-T])(\d{1,2})", re.IGNORECASE)
_GO_NAMES = {"X": "X (black)", "O": "O (white)"}


def _go_board(position: str) -> tuple[list[str], str]:
    """The rows from the top and the side to move (``X`` or ``O``)."""
    board, _, side = position.strip().partition(" ")
    rows = board.split("/")
    size = len(rows)
    if side not in ("X", "O") or not 2 <= size <= len(GO_COLUMNS):
        raise ValueError(position)
    if any(len(row) != size or set(row) - set(".XO") for row in rows):
        raise ValueError(position)
    return rows, side


def go_vertex(move: str | None, size: int) -> tuple[int, int] | None:
    """A GTP vertex as (row from the top, column), or ``None`` (pass, resign)."""
    match = _GO_VERTEX.fullmatch(move or "")
    if match is None:
        return None
    column = GO_COLUMNS.find(match.group(1).upper())
    number = int(match.group(2))
    if column >= size or not 1 <= number <= size:
        return None
    return size - number, column


def go_star_points(size: int) -> set[tuple[int, int]]:
    """The star points: 3-3 points up to 12x12, 4-4 from 13x13, the centre of
    odd boards, the side points of odd boards from 15x15 (as on 19x19)."""
    if size < 5:
        return set()
    centre = (size - 1) // 2
    if size < 7:
        return {(centre, centre)} if size % 2 else set()
    edge = 3 if size >= 13 else 2
    lines = (edge, size - 1 - edge)
    points = {(row, column) for row in lines for column in lines}
    if size % 2:
        points.add((centre, centre))
        if size >= 15:
            points |= {(line, centre) for line in lines} | {(centre, line) for line in lines}
    return points


def go_captures(
    position: str, history: tuple[str, ...] | list[str], start: str | None
) -> tuple[int, int]:
    """Prisoners taken by (black, white), worked out without replaying the game:
    every stone placed is either on the board or was captured, so white's
    prisoners are black's stones at the start plus black's placements minus
    black's stones now (and the other way round). ``start`` is the position
    the moves were played from (``None``: the empty board, black to move)."""
    rows, _ = _go_board(position)
    size = len(rows)
    placed = {"X": 0, "O": 0}
    mover = "X"
    if start:
        first, mover = _go_board(start)
        placed = {colour: sum(row.count(colour) for row in first) for colour in "XO"}
    for move in history:
        if go_vertex(move, size) is not None:
            placed[mover] += 1
        mover = "O" if mover == "X" else "X"
    now = {colour: sum(row.count(colour) for row in rows) for colour in "XO"}
    return max(0, placed["O"] - now["O"]), max(0, placed["X"] - now["X"])


def go_area(rows: list[str]) -> tuple[list[list[str | None]], dict[str, int]]:
    """Tromp-Taylor area: the owner of each point (an empty point belongs to a
    colour when its empty region reaches stones of that colour only) and
    each colour's count of stones plus owned points."""
    size = len(rows)
    owner: list[list[str | None]] = [[None if c == "." else c for c in row] for row in rows]
    seen = [[False] * size for _ in range(size)]
    score = {colour: sum(row.count(colour) for row in rows) for colour in "XO"}
    for top in range(size):
        for left in range(size):
            if rows[top][left] != "." or seen[top][left]:
                continue
            seen[top][left] = True
            region, reached, todo = [], set(), [(top, left)]
            while todo:
                row, column = todo.pop()
                region.append((row, column))
                for r, c in (
                    (row - 1, column),
                    (row + 1, column),
                    (row, column - 1),
                    (row, column + 1),
                ):
                    if 0 <= r < size and 0 <= c < size:
                        if rows[r][c] != ".":
                            reached.add(rows[r][c])
                        elif not seen[r][c]:
                            seen[r][c] = True
                            todo.append((r, c))
            colour = next(iter(reached)) if len(reached) == 1 else None
            if colour is not None:
                score[colour] += len(region)
            for row, column in region:
                owner[row][column] = colour
    return owner, score


def render_go(position: str, options: Mapping[str, Any], view: View) -> str:
    rows, side = _go_board(position)
    size = len(rows)
    last = go_vertex(view.last_move, size)
    stars = go_star_points(size)
    owner, score = go_area(rows) if view.final else ([], {})
    styles = {"X": X_STYLE, "O": O_STYLE, ".": DIM, "+": DIM, "x": X_STYLE, "o": O_STYLE}
    letters = "    " + " ".join(GO_COLUMNS[:size])
    lines = [letters]
    for row in range(size):
        number = size - row
        text = f"{number:>2} "
        for column in range(size):
            char = rows[row][column]
            if char == "." and owner and owner[row][column]:
                char = str(owner[row][column]).lower()  # territory: x or o
            elif char == "." and (row, column) in stars:
                char = "+"
            # Parentheses round the last stone played, in the gaps either side.
            if (row, column) == last:
                text += "("
            elif last is not None and (row, column - 1) == last:
                text += ")"
            else:
                text += " "
            text += style(char, styles[char], view)
        text += ")" if last is not None and last == (row, size - 1) else " "
        lines.append(f"{text} {number}")
    lines.append(letters)
    if view.captures is not None:
        black, white = view.captures
        lines.append(f"captures: X (black) {black}, O (white) {white}")
    if view.final:
        komi = float(options.get("komi", 7.5))
        white_total = score["O"] + komi
        lines.append(
            f"area (x, o: territory): X (black) {score['X']}, "
            f"O (white) {score['O']} + komi {komi:g} = {white_total:g}"
        )
    elif not view.ended:
        lines.append(f"{_GO_NAMES[side]} to move")
    return "\n".join(lines)


RENDERERS: dict[str, Renderer] = {
    "tictactoe": render_tictactoe,
    "nim": render_nim,
    "connect4": render_connect4,
    "chess": render_chess,
    "checkers": render_checkers,
    "othello": render_othello,
    "backgammon": render_backgammon,
    "go": render_go,
}

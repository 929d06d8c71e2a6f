"""Text pictures of positions, per game, from the position notation alone.

Each renderer takes the position string (the game's notation, see
``protocol.md``) and the game's options; :func:`render` falls back to
printing the position string for games without a renderer, so a new game
shows up in the terminal client before anyone draws it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Renderer = Callable[[str, Mapping[str, Any]], str]


def render(game: str, position: str, options: Mapping[str, Any] | None = None) -> str:
    """The board as text, or the raw position for games without a renderer."""
    renderer = RENDERERS.get(game)
    if renderer is None:
        return f"position: {position or '(start)'}"
    try:
        return renderer(position, options or {})
    except (ValueError, IndexError):
        return f"position: {position}"


def render_tictactoe(position: str, options: Mapping[str, Any]) -> str:
    rows = [position[row * 3:row * 3 + 3] for row in range(3)]
    lines = [f"{3 - index} | {' '.join(row)}" for index, row in enumerate(rows)]
    return "\n".join([*lines, "    a b c"])


def render_nim(position: str, options: Mapping[str, Any]) -> str:
    heaps_text = position.rpartition("/")[0]
    heaps = [int(size) for size in heaps_text.split()]
    lines = [f"heap {index}: {'|' * size} ({size})" for index, size in enumerate(heaps, 1)]
    return "\n".join(lines)


def render_connect4(position: str, options: Mapping[str, Any]) -> str:
    width = int(options.get("width", 7))
    height = int(options.get("height", 6))
    columns: list[list[str]] = [[] for _ in range(width)]
    for ply, char in enumerate(position):
        columns[int(char) - 1].append("X" if ply % 2 == 0 else "O")
    lines = []
    for row in range(height - 1, -1, -1):
        cells = [column[row] if row < len(column) else "." for column in columns]
        lines.append("| " + " ".join(cells) + " |")
    lines.append("  " + " ".join(str(column + 1) for column in range(width)))
    return "\n".join(lines)


RENDERERS: dict[str, Renderer] = {
    "tictactoe": render_tictactoe,
    "nim": render_nim,
    "connect4": render_connect4,
}

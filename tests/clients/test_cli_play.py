"""The ``arena`` command line, the terminal client and the board renderers."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from clients.cli import COMMANDS, build_parser, parse_options
from clients.play import play
from clients.render import render


def test_renderers() -> None:
    assert render("tictactoe", "X.O......") == "3 | X . O\n2 | . . .\n1 | . . .\n    a b c"
    assert render("nim", "3 0 /1").splitlines() == ["heap 1: ||| (3)", "heap 2:  (0)"]
    board = render("connect4", "4453", {"width": 7, "height": 6}).splitlines()
    assert board[-2] == "| . . O X X . . |"
    assert board[-3] == "| . . . O . . . |"
    assert board[-1] == "  1 2 3 4 5 6 7"
    assert render("backgammon", "some position") == "position: some position"


def test_command_line() -> None:
    assert {command.name for command in COMMANDS} >= {"serve", "play"}
    args = build_parser().parse_args(["play", "--game", "nim", "--option", "heaps=[1,2]"])
    assert args.game == "nim" and parse_options(args.option) == {"heaps": [1, 2]}
    args = build_parser().parse_args(["serve", "--workers", "3", "--port", "9000"])
    assert (args.workers, args.port, args.host) == (3, 9000, "127.0.0.1")
    assert parse_options(["misere=true", "name=bare"]) == {"misere": True, "name": "bare"}
    with pytest.raises(ValueError):
        parse_options(["width"])


def test_pgn_is_refused_for_a_game_other_than_chess(capsys: pytest.CaptureFixture[str]) -> None:
    """A review of 2026-12-07: `arena play --game othello --pgn f.pgn` ignored
    --pgn without a word."""
    from clients.cli import main

    assert main(["play", "--game", "othello", "--pgn", "games.pgn"]) == 2
    assert "--pgn records chess games only, not othello" in capsys.readouterr().err


def scripted(lines: list[str]) -> object:
    feed: Iterator[str] = iter(lines)

    async def read(prompt: str) -> str | None:
        return next(feed, None)

    return read


@pytest.mark.asyncio(loop_scope="module")
async def test_terminal_game_against_the_engine(url: str) -> None:
    out = io.StringIO()
    # X plays a1, repeats it (illegal), types nonsense, then input ends
    status = await play(
        url,
        "tictactoe",
        movetime_ms=100,
        read=scripted(["a1", "a1", "zz"]),  # type: ignore[arg-type]
        out=out,
    )
    text = out.getvalue()
    assert status == 0
    assert "1 | X . ." in text
    assert "engine plays" in text and "depth" in text
    assert "not a legal move" in text
    assert text.rstrip().endswith("bye")


@pytest.mark.asyncio(loop_scope="module")
async def test_engine_against_itself_to_the_end(url: str) -> None:
    out = io.StringIO()
    assert await play(url, "nim", options={"heaps": [2, 3]}, movetime_ms=50, human=2, out=out) == 0
    assert "wins (took the last object)" in out.getvalue()


@pytest.mark.asyncio(loop_scope="module")
async def test_backgammon_rolls_the_dice_and_plays_to_the_end(url: str) -> None:
    """Seen: ``arena play --game backgammon`` raised TypeError at the first roll."""
    out = io.StringIO()
    assert await play(url, "backgammon", movetime_ms=20, human=2, out=out) == 0
    text = out.getvalue()
    assert "dice: " in text and "engine plays" in text
    assert " wins (" in text

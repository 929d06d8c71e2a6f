"""The parts the searches are built from: table, move picker, threat cuts, driver."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable

import pytest

from engine.games.connect4 import ConnectFour
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.ordering import SORT_MIN_DEPTH, pick_moves, sort_rest
from engine.search.request import SearchRequest
from engine.search.score import WIN
from engine.search.threats import ThreatCuts, has_threat_hooks
from engine.search.tt import EXACT, LOWER, MISS, TranspositionTable


def test_the_table_stores_a_mate_relative_to_its_node() -> None:
    table = TranspositionTable(8)
    # A win 5 plies from the root, found at a node 3 plies down: 2 from it.
    table.store(11, 4, EXACT, WIN - 5, "m", True, ply=3)
    entry = table.probe(11)
    assert entry[3] == WIN - 2 and entry[4] == "m" and entry[5]
    table.store(11, 4, LOWER, 7 - WIN, None, False, ply=3)
    entry = table.probe(11)
    assert entry[3] == 4 - WIN
    table.store(12, 1, EXACT, 35, None, False, ply=9)  # heuristic values stay as they are
    assert table.probe(12) == (12, 1, EXACT, 35, None, False)
    assert table.probe(19) == MISS, "same slot as 11, another key: a miss"
    assert table.probe(3) == MISS and MISS[1] < 0 and MISS[4] is None


def test_the_picker_tries_the_table_move_first_and_sorts_the_rest_only_if_asked() -> None:
    game = create_game("connect4")
    state = game.parse_position("4453")
    sorts: list[int] = []

    class Counting(ConnectFour):
        def sort_moves(self, state: object, moves: list[Hashable]) -> list[Hashable]:
            sorts.append(len(moves))
            return super().sort_moves(state, moves)  # type: ignore[arg-type]

    counting = Counting()
    moves = counting.ordered_moves(state)
    tt_move = moves[-1]
    order, later = pick_moves(
        counting, state, list(moves), tt_move, SORT_MIN_DEPTH, None, None, False
    )
    assert order[0] == tt_move and later and sorts == []
    sort_rest(counting, state, order)
    rest = order[1:]
    assert sorts == [len(moves) - 1]
    assert sorted([tt_move, *rest]) == sorted(moves)
    assert rest == game.sort_moves(state, [move for move in moves if move != tt_move])


def test_the_picker_puts_killers_after_the_noisy_moves_and_history_over_the_quiet() -> None:
    game = create_game("chess")
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    state = game.parse_position(kiwipete)
    moves = game.ordered_moves(state)
    quiet = [move for move in moves if game.is_quiet(state, move)]
    noisy = [move for move in moves if not game.is_quiet(state, move)]
    killer, favourite = quiet[-1], quiet[-2]
    history: defaultdict[Hashable, int] = defaultdict(int, {favourite: 100})
    order, later = pick_moves(game, state, list(moves), None, 1, [killer], history, True)
    assert not later
    assert order[: len(noisy)] == noisy
    assert order[len(noisy)] == killer and order[len(noisy) + 1] == favourite
    assert sorted(order) == sorted(moves)


def test_threat_cuts_take_an_immediate_win_and_skip_moves_that_lose_at_once() -> None:
    game = ConnectFour()
    assert has_threat_hooks(game) and not has_threat_hooks(create_game("chess"))
    cuts = ThreatCuts(game)
    win = game.parse_position("112233")  # the first player wins in column 4
    assert cuts.cut(win, 4, -WIN, WIN, 0) == WIN - 1 and cuts.winning is not None
    must_block = game.parse_position("11223")  # the second player must block column 4
    assert cuts.cut(must_block, 4, -WIN, WIN, 0) is None
    assert cuts.safe is not None and [game.format_move(must_block, m) for m in cuts.safe] == ["4"]
    assert cuts.beta == WIN - 2 and cuts.alpha == 4 - WIN


@pytest.mark.parametrize(
    ("name", "position"),
    [
        ("connect4", "1212121"),  # four in column 1
        ("chess", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),  # mated
    ],
)
def test_every_searcher_answers_a_finished_game_through_the_one_prologue(
    name: str, position: str
) -> None:
    game = create_game(name)
    state = game.parse_position(position)
    for searcher in (Searcher(game, 1 << 8), MctsSearcher(game, seed=1)):
        result = searcher.think(SearchRequest(state, Limits(depth=2)))
        assert result.move is None and result.reason == "no_moves"
        assert result.info.depth == 0 and result.info.pv == () and result.info.time_ms == 0
        assert result.info.score.loss_in == 0


def test_a_chance_state_is_refused_by_every_searcher() -> None:
    game = create_game("backgammon")
    for searcher in (ExpectimaxSearcher(game, 1 << 8), MctsSearcher(game, seed=1)):
        with pytest.raises(ValueError, match="decision state"):
            searcher.think(SearchRequest(game.initial_state(), Limits(depth=1)))

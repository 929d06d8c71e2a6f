"""A small UCI engine for the external-engine tests: plays legal moves, or fails on purpose.

``python fake_uci_engine.py MODE``; the modes are how real engines go wrong
(the hostile-program kit of issue 26):

* ``ok``: reports one depth a millisecond and answers at ``movetime``, at
  ``stop`` or after ``depth`` reports;
* ``crash``: reports once, then exits in the middle of the search;
* ``hang``: reports once, then ignores everything, ``stop`` included;
* ``illegal``: reports a legal line, then answers a move that is not legal;
* ``garbage``: writes lines UCI does not know and broken ``info`` lines
  between good ones, then answers properly;
* ``huge``: reports numbers beyond 64 bits (nodes, depth, nps, time, score);
* ``liar``: reports out-of-range figures (``score cp 1000000000000``,
  ``nodes -7``, ``seldepth -5``) and a pv legal only in its first move;
* ``longpv``: reports a pv of 200,000 moves, the first 200 legal;
* ``flood``: prints ``info string`` lines without end, even while idle;
* ``nohandshake``: never finishes its handshake (no ``uciok``);
* ``chatty``: writes the same good ``info`` line (depth 1, its nodes
  counting up) :data:`CHATTY_REPORTS` times, then answers;
* ``history``: scores its move by the number of moves ``position`` gave it
  before the position (``position fen F moves ...``), so a test sees them;
* ``newgames``: scores its move by the number of ``ucinewgame`` it has
  read, so a test sees when it was told of a new game;
* ``otherclock``: scores its move by the clock ``go`` gave the side not to
  move (``btime`` with White to move), so a test sees it;
* ``slow``: a healthy engine that takes :data:`SLOW_START_S` to start (a
  large program loading: answers nothing before);
* ``refuse``: answers every ``setoption`` with an error line;
* ``multipv``: declares ``MultiPV`` (spin 1..5) and reports that many lines
  per depth (line ``i`` on the ``i``-th legal move in UCI order, scored
  ``cp 100*MultiPV - i``, so a test sees the setting), each depth followed
  by hostile lines: a rank beyond the setting, rank 0, a rank beyond 64
  bits, and a line 2 whose move is illegal.

It declares one option, ``Speed`` (spin 1..9).
"""

from __future__ import annotations

import random
import select
import sys
import threading
import time

import chess

HUGE = 10**30
#: How many reports the ``chatty`` engine writes in one search.
CHATTY_REPORTS = 3000
#: How long the ``slow`` engine takes to start (our own ``arena uci`` takes about 1 s).
SLOW_START_S = 1.5


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pending_line(timeout: float) -> str | None:
    ready, _, _ = select.select([sys.stdin], [], [], timeout)
    return sys.stdin.readline() if ready else None


def flood() -> None:
    line = "info string " + "x" * 100 + "\n"
    try:
        while True:
            sys.stdout.write(line * 100)
            sys.stdout.flush()
    except (BrokenPipeError, OSError):
        return


def legal_line(board: chess.Board, plies: int) -> list[str]:
    """A seeded random line of legal moves that ends no game (no repetition, no mate)."""
    chooser = random.Random(1)
    play = board.copy()
    line: list[str] = []
    while len(line) < plies:
        moves = sorted(play.legal_moves, key=lambda m: m.uci())
        chooser.shuffle(moves)
        for move in moves:
            play.push(move)
            if not play.is_game_over(claim_draw=True):
                line.append(move.uci())
                break
            play.pop()
        else:
            break
    return line


def say_lines(board: chess.Board, depth: int, lines: int) -> None:
    """One depth's ``lines`` ranked lines, then the hostile ones (the module docstring)."""
    moves = [m.uci() for m in sorted(board.legal_moves, key=lambda m: m.uci())]
    for rank in range(1, min(lines, len(moves)) + 1):
        say(
            f"info depth {depth} seldepth {depth} multipv {rank} "
            f"score cp {100 * lines - rank} nodes {depth * 100} pv {moves[rank - 1]}"
        )
    say(f"info depth {depth} multipv {lines + 1} score cp 999 pv {moves[-1]}")
    say(f"info depth {depth} multipv 0 score cp 999 pv {moves[-1]}")
    say(f"info depth {depth} multipv {HUGE} score cp 999 pv {moves[-1]}")
    say(f"info depth {depth} multipv 2 score cp 999 pv a1a1")


#: How long a "sleepy" engine takes a move, whatever it is told: a slow
#: engine well within a clock of seconds.
SLEEPY_S = 0.3


def search(board: chess.Board, words: list[str], mode: str, lines: int = 1, games: int = 0) -> None:
    move = sorted(board.legal_moves, key=lambda m: m.uci())[0].uci()
    if mode in ("newgames", "otherclock"):  # a figure it was told, as its score
        other = "btime" if board.turn == chess.WHITE else "wtime"
        told = int(words[words.index(other) + 1]) if other in words else -1
        say(f"info depth 1 score cp {games if mode == 'newgames' else told} nodes 1 pv {move}")
        say(f"bestmove {move}")
        return
    if mode == "chatty":  # the same good report thousands of times, then its move
        for count in range(1, CHATTY_REPORTS + 1):
            say(f"info depth 1 score cp 5 nodes {count} pv {move}")
        say(f"bestmove {move}")
        return
    if mode == "history":  # scores the moves it was given before the position
        say(f"info depth 1 score cp {len(board.move_stack)} nodes 1 pv {move}")
        say(f"bestmove {move}")
        return
    if mode == "noinfo":  # its move at once, no info line (as for a book move)
        say(f"bestmove {move}")
        return
    if mode == "sleepy":  # the engine's own pace, reported; told the clock, it keeps it
        say(f"info depth 1 score cp 3 nodes 10 pv {move}")
        time.sleep(SLEEPY_S)
        say(f"info string go was: {' '.join(words)}")
        say(f"bestmove {move}")
        return
    if mode == "huge":
        say(
            f"info depth {HUGE} seldepth {HUGE} score cp {HUGE} nodes {HUGE} nps {HUGE} "
            f"time {HUGE} hashfull {HUGE} pv {move}"
        )
    elif mode == "liar":
        say(f"info depth 3 seldepth -5 score cp 1000000000000 nodes -7 nps -1 pv {move} zzzz qqqq")
    elif mode == "longpv":
        line = legal_line(board, 200)
        say(f"info depth 4 score cp 5 nodes 400 pv {' '.join(line + ['a1a1'] * 199_800)}")
        move = line[0]
    elif mode == "multipv":
        say_lines(board, 1, lines)
    else:
        say(f"info depth 1 seldepth 1 score cp 12 nodes 40 nps 4000 time 1 pv {move}")
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        while True:
            time.sleep(1)
    if mode == "illegal":
        say("bestmove a1a1")
        return
    if mode in ("huge", "liar", "longpv"):
        say(f"bestmove {move}")
        return
    movetime = int(words[words.index("movetime") + 1]) / 1000 if "movetime" in words else None
    depth = int(words[words.index("depth") + 1]) if "depth" in words else None
    started = time.monotonic()
    reported = 1
    while True:
        if depth is not None and reported >= depth:
            break
        if movetime is not None and time.monotonic() - started >= movetime:
            break
        line = pending_line(0.002)
        if line is not None and line.strip() in ("stop", ""):
            break
        reported += 1
        if mode == "garbage":
            say("nonsense from a confused engine")
            say("info depth x score cp y pv")
        if mode == "multipv":
            say_lines(board, reported, lines)
            time.sleep(0.01)  # a depth every 10 ms: a few report groups per think
            continue
        say(f"info depth {reported} score mate 2 nodes {reported * 100} pv {move}")
    say(f"bestmove {move}")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    board = chess.Board()
    lines = 1
    games = 0
    if mode == "flood":
        threading.Thread(target=flood, daemon=True).start()
    if mode == "slow":
        time.sleep(SLOW_START_S)  # the engine's own start, not a test's synchronisation
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "uci":
            say("id name fake-" + mode)
            say("option name Speed type spin default 1 min 1 max 9")
            if mode == "multipv":
                say("option name MultiPV type spin default 1 min 1 max 5")
            if mode != "nohandshake":
                say("uciok")
        elif words[0] == "setoption" and mode == "refuse":
            say("info string ERROR: option refused")
        elif words[:3] == ["setoption", "name", "MultiPV"] and mode == "multipv":
            lines = int(words[4])
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "ucinewgame":
            games += 1
        elif words[0] == "position" and words[1] == "fen":
            cut = words.index("moves") if "moves" in words else len(words)
            board = chess.Board(" ".join(words[2:cut]))
            for played in words[cut + 1 :]:
                board.push_uci(played)
        elif words[0] == "go":
            search(board, words, mode, lines, games)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()

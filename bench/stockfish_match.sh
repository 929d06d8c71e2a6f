#!/usr/bin/env bash
# Our chess engine against Stockfish at limited strength (issue 29's ladder):
# arena tournament plays a gauntlet, our engine (a local server, one search
# at a time) against Stockfish at UCI_Elo 1600, 1900 and 2100 run directly as
# UCI programs (cmd=...,proto=uci), GAMES games a level (the built-in named
# openings, colours swapped), then bench.ladder_fit fits one rating on
# Stockfish's scale with its 95% interval.
#
#   bash bench/stockfish_match.sh [GAMES] [TIME_CONTROL_ARGS...]
#   bash bench/stockfish_match.sh 40 --movetime 200
#   bash bench/stockfish_match.sh 20 --tc 5+0.05
#
# Needs Debian's stockfish (15.1: UCI_Elo 1350 and up). Writes
# /tmp/stockfish-match-*.db. Timed games measure the CPU the engine gets:
# run it on a quiet machine, or with everything else under `nice -n 19`
# (and kernel.sched_autogroup_enabled=0: with autogroups, nice only orders
# the processes of one session; docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-40}"
shift || true
[ $# -gt 0 ] || set -- --movetime 200
stockfish="$(command -v stockfish || echo /usr/games/stockfish)"
levels=(${ARENA_LADDER_LEVELS:-1600 1900 2100})
engines=(--engine "name=ours,url=local")
anchors=()
for elo in "${levels[@]}"; do
    engines+=(--engine "name=sf${elo},cmd=${stockfish},proto=uci,option.UCI_LimitStrength=true,option.UCI_Elo=${elo},option.Threads=1,option.Hash=16")
    anchors+=(--anchor "sf${elo}=${elo}")
done
db="/tmp/stockfish-match-$(date +%s).db"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# One game at a time; the local server gets arena tournament's default of
# one search process per game plus a spare, which takes a think only while
# the first process finishes a search already answered at its deadline (with
# --local-workers 1 such a think waited and was answered unsearched: one
# move in 120 games on 2026-11-29). One search runs at a time either way.
.venv/bin/arena tournament --game chess "${engines[@]}" --gauntlet --games "$games" \
    --concurrency 1 --db "$db" --quiet "$@"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
.venv/bin/python -m bench.ladder_fit --db "$db" --player ours "${anchors[@]}"

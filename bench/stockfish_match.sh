#!/usr/bin/env bash
# Our chess engine against Stockfish at limited strength, over the network,
# through arena tournament: one server hosts Stockfish at several UCI_Elo
# levels (--external), a local server hosts our engine, and a gauntlet
# plays each level GAMES games (openings of 4 random plies, colours swapped).
#
#   bash bench/stockfish_match.sh [GAMES] [TIME_CONTROL_ARGS...]
#   bash bench/stockfish_match.sh 20 --movetime 200
#   bash bench/stockfish_match.sh 20 --tc 5+0.05
#
# Needs Debian's stockfish (15.1: UCI_Elo 1350 and up). Writes
# /tmp/stockfish-match-*.db and prints the tournament's tables.
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-20}"
shift || true
[ $# -gt 0 ] || set -- --movetime 200
stockfish="$(command -v stockfish || echo /usr/games/stockfish)"
port="${ARENA_BENCH_PORT:-8790}"
externals=()
engines=(--engine "local")
for elo in 1350 1600 1900; do
    externals+=(--external "chess:sf${elo}=uci:${stockfish}?UCI_LimitStrength=true&UCI_Elo=${elo}&Threads=1&Hash=16")
    engines+=(--engine "name=sf${elo},url=ws://127.0.0.1:${port}/ws,algorithm=sf${elo}")
done
.venv/bin/arena serve --port "$port" --workers 1 "${externals[@]}" --log-level warning &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
sleep 3
db="/tmp/stockfish-match-$(date +%s).db"
.venv/bin/arena tournament --game chess "${engines[@]}" --gauntlet --games "$games" \
    --concurrency 1 --local-workers 1 --db "$db" --quiet "$@"

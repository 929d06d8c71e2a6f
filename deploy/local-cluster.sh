#!/usr/bin/env sh
# A local cluster: 3 arena serve instances and HAProxy on loopback
# (docs/deploy.md). Ports and the instance count are flags; --help lists them.
# Ctrl-C stops everything.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python=python3
cd "$root"
exec "$python" -m server.cluster "$@"

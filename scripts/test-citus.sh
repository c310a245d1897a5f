#!/usr/bin/env bash
# `make test-citus` (issue 21): Engram on a 3-node Citus cluster
# (scripts/citus-env.sh builds and starts it). A fresh database on every
# node, the workers registered, Engram's migrations (which distribute the
# schema), then `engram serve` and a second `engram worker` on it and the
# walk-through in tests/citus with the Python client. Skips when
# ../shared/vendor is absent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
log() { printf '[test-citus] %s\n' "$*" >&2; }

rc=0; "$ROOT/scripts/citus-env.sh" || rc=$?
if [ "$rc" = 2 ]; then log "skipped (no ../shared/vendor)"; exit 0; fi
[ "$rc" = 0 ] || exit "$rc"
# shellcheck disable=SC1091
source "$DATA/citus-env"
DB="engram_citus_$$"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  "$ROOT/scripts/citus-db.sh" drop "$DB"
  # The cluster stops too, unless kept for the next run (ENGRAM_CITUS_KEEP=1).
  [ "${ENGRAM_CITUS_KEEP:-0}" = 1 ] || "$ROOT/scripts/citus-env.sh" stop
}
trap cleanup EXIT
cd "$ROOT"
cargo build --locked --bin engram -q
log "creating $DB on every node and migrating (distributes the schema)"
URL="$("$ROOT/scripts/citus-db.sh" create "$DB")"

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
KEY="citus-$$-key"
common=(env ENGRAM_DATABASE_URL="$URL" ENGRAM_CONSOLIDATION_SCHEDULE=off RUST_LOG=warn)
"${common[@]}" ENGRAM_API_KEY="$KEY" ENGRAM_BIND="127.0.0.1:$PORT" ENGRAM_RATE_LIMIT_PER_SECOND=0 \
  target/debug/engram serve >"$DATA/citus-server.log" 2>&1 &
PIDS+=($!)
"${common[@]}" target/debug/engram worker >"$DATA/citus-worker.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.2; done

VENV="$DATA/client-venv"
"$ROOT/scripts/client-venv.sh"
log "walk-through against http://127.0.0.1:$PORT on Citus"
ENGRAM_URL="http://127.0.0.1:$PORT" ENGRAM_API_KEY="$KEY" ENGRAM_CITUS_DB="$DB" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider -s "$ROOT/tests/citus"

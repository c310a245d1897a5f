#!/usr/bin/env bash
# A short, bounded schemathesis run (pinned, from PyPI) against openapi.yaml and
# a live `engram serve` on a scratch database: no 5xx, and every response's
# status, media type, headers and body as documented. Part of `make test`.
# ENGRAM_FUZZ_EXAMPLES sets the examples per operation (default 25).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
SCHEMATHESIS_VERSION=4.32.5
VENV="$DATA/fuzz-venv"
log() { printf '[fuzz] %s\n' "$*" >&2; }

if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  log "installing schemathesis==$SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi

cd "$ROOT"
cargo build --locked --bin engram -q
DB="engram_fuzz_$$"
PSQL="$ENGRAM_PG_BIN/psql"
"$PSQL" -q "$ENGRAM_TEST_DATABASE_URL" -c "CREATE DATABASE $DB"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
KEY="fuzz-$$-key"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  "$PSQL" -q "$ENGRAM_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" || true
}
trap cleanup EXIT

ENGRAM_DATABASE_URL="${ENGRAM_TEST_DATABASE_URL%/*}/$DB" ENGRAM_API_KEY="$KEY" \
  ENGRAM_BIND="127.0.0.1:$PORT" ENGRAM_RATE_LIMIT_PER_SECOND=0 \
  ENGRAM_CONSOLIDATION_SCHEDULE=off RUST_LOG=warn \
  target/debug/engram serve >"$DATA/fuzz-server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  if curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.2
done

log "schemathesis against 127.0.0.1:$PORT"
# Edge-of-calendar date-times and long queries (scripts/fuzz_hooks.py).
PYTHONPATH="$ROOT/scripts" SCHEMATHESIS_HOOKS=${FUZZ_HOOKS-fuzz_hooks} \
  "$VENV/bin/schemathesis" run openapi.yaml \
  --url "http://127.0.0.1:$PORT" \
  --header "Authorization: Bearer $KEY" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  --max-examples "${ENGRAM_FUZZ_EXAMPLES:-25}" \
  --seed 20261130 \
  --no-color

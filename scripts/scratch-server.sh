#!/usr/bin/env bash
# Sourced by the scripts that test against a live `engram serve`: starts the
# debug binary on a scratch database of the private Postgres and a free
# loopback port, exports SCRATCH_URL and SCRATCH_KEY, and drops both when the
# calling script exits. One server per database: nothing else claims its jobs.
# Usage: . scripts/scratch-server.sh; scratch_server NAME [ENV=VALUE ...]
# (SCRATCH_BIN: another binary, e.g. the release build for a benchmark)

scratch_server() {
  local name="$1"; shift
  SCRATCH_DB="engram_${name}_$$"
  local psql="$ENGRAM_PG_BIN/psql"
  "$psql" -q "$ENGRAM_TEST_DATABASE_URL" -c "CREATE DATABASE $SCRATCH_DB"
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  SCRATCH_KEY="${name}-$$-key"
  SCRATCH_URL="http://127.0.0.1:$port"
  env ENGRAM_DATABASE_URL="${ENGRAM_TEST_DATABASE_URL%/*}/$SCRATCH_DB" ENGRAM_API_KEY="$SCRATCH_KEY" \
    ENGRAM_BIND="127.0.0.1:$port" ENGRAM_RATE_LIMIT_PER_SECOND=0 \
    ENGRAM_CONSOLIDATION_SCHEDULE=off RUST_LOG=warn "$@" \
    "${SCRATCH_BIN:-$ROOT/target/debug/engram}" serve >"$DATA/$name-server.log" 2>&1 &
  SCRATCH_PID=$!
  trap scratch_cleanup EXIT
  for _ in $(seq 1 150); do
    if curl -fs "$SCRATCH_URL/readyz" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "[$name] the server did not become ready; see $DATA/$name-server.log" >&2
  return 1
}

scratch_cleanup() {
  if [ -n "${SCRATCH_PID:-}" ]; then kill "$SCRATCH_PID" 2>/dev/null || true; wait "$SCRATCH_PID" 2>/dev/null || true; fi
  "$ENGRAM_PG_BIN/psql" -q "$ENGRAM_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $SCRATCH_DB WITH (FORCE)" || true
}

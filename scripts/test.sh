#!/usr/bin/env bash
# `make test`: every test against the private Postgres and the local model.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"

# The deployment test validates docker-compose.yml with Debian's docker-compose (v1).
if ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[test] installing docker-compose (Debian) to validate docker-compose.yml"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
  else
    echo "[test] docker-compose is missing; install it (apt-get install docker-compose) to run the deployment test" >&2
    exit 1
  fi
fi

cd "$ROOT"
# sqlx::test makes a fresh database per test from this server.
export DATABASE_URL="$ENGRAM_TEST_DATABASE_URL"
export ENGRAM_SHARED_DIR="${ENGRAM_SHARED_DIR:-$ROOT/../shared}"
cargo test --workspace --locked "$@"
# Then a short fuzzing run against openapi.yaml, the client suites and the
# MCP suite against a live server (only for a whole-suite run).
if [ "$#" -eq 0 ]; then
  "$ROOT/scripts/fuzz.sh"
  "$ROOT/scripts/test-clients.sh"
  "$ROOT/scripts/test-mem0-clients.sh"
  "$ROOT/scripts/test-console.sh"
  "$ROOT/scripts/test-mcp.sh"
fi

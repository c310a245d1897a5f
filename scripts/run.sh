#!/usr/bin/env bash
# `make run`: serve with the private Postgres and the local model. When no
# ENGRAM_API_KEY is set, one is generated, printed once and kept in .data/api-key.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"

if [ -z "${ENGRAM_API_KEY:-}" ]; then
  KEY_FILE="$DATA/api-key"
  if [ ! -s "$KEY_FILE" ]; then
    (umask 077 && python3 -c 'import secrets; print("engram_" + secrets.token_urlsafe(32))' > "$KEY_FILE")
    echo "Generated an admin API key (shown once; kept in $KEY_FILE):"
    echo "    $(cat "$KEY_FILE")"
  else
    echo "Using the admin API key in $KEY_FILE"
  fi
  ENGRAM_API_KEY="$(cat "$KEY_FILE")"
  export ENGRAM_API_KEY
fi

cd "$ROOT"
cargo build --release --locked --bin engram
exec "$ROOT/target/release/engram" serve

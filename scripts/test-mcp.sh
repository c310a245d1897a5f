#!/usr/bin/env bash
# The MCP endpoint through the official MCP Python SDK (part of `make test`):
# a private virtualenv with the SDK pinned (tests/mcp/requirements.txt), a
# live `engram serve` on a scratch database, and pytest over streamable HTTP
# and over stdio (`engram mcp`, spawned by the SDK as a desktop client would).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
# shellcheck disable=SC1091
source "$ROOT/scripts/scratch-server.sh"
log() { printf '[mcp] %s\n' "$*" >&2; }

VENV="$DATA/mcp-venv"
REQS="$ROOT/tests/mcp/requirements.txt"
STAMP="$VENV/.requirements"
if ! cmp -s "$REQS" "$STAMP" 2>/dev/null; then
  log "creating $VENV (mcp and its dependencies, pinned)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQS"
  cp "$REQS" "$STAMP"
fi

cd "$ROOT"
cargo build --locked --bin engram -q
scratch_server mcp
log "pytest against $SCRATCH_URL/mcp and engram mcp"
ENGRAM_URL="$SCRATCH_URL" ENGRAM_API_KEY="$SCRATCH_KEY" ENGRAM_BIN="$ROOT/target/debug/engram" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider -s "$ROOT/tests/mcp"

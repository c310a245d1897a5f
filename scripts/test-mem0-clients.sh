#!/usr/bin/env bash
# Mem0's released clients against a live `engram serve` (part of `make
# test`): the Python `mem0ai` 2.2.1 and the TypeScript `mem0ai` 3.3.1, pinned
# (clients/mem0-compat/requirements.txt, ts/package-lock.json), each in a
# private folder under the data folder, with `host` set to Engram's /mem0 and
# nothing else changed; then a plain HTTP script in Mem0's OSS REST shape
# ingesting and searching a LoCoMo conversation through /mem0-oss.
# Telemetry off; the clients' config folder is a temp one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
# shellcheck disable=SC1091
source "$ROOT/scripts/scratch-server.sh"
log() { printf '[mem0-clients] %s\n' "$*" >&2; }
COMPAT="$ROOT/clients/mem0-compat"

# shellcheck disable=SC1091
source "$ROOT/scripts/pinned-venv.sh"
VENV="$DATA/mem0-venv"
pinned_venv "$VENV" "$COMPAT/requirements.txt"
TS="$DATA/mem0-ts"
if ! cmp -s "$COMPAT/ts/package-lock.json" "$TS/package-lock.json" 2>/dev/null; then
  log "npm ci in $TS (mem0ai 3.3.1; its optional peers left out)"
  rm -rf "$TS" && mkdir -p "$TS"
  cp "$COMPAT/ts/package.json" "$COMPAT/ts/package-lock.json" "$TS/"
  (cd "$TS" && npm ci --legacy-peer-deps --no-audit --no-fund --loglevel=error >/dev/null)
fi
cp "$COMPAT/ts/test.mjs" "$TS/"

cd "$ROOT"
cargo build --locked --bin engram -q
scratch_server mem0
MEM0_HOME="$(mktemp -d)"
export MEM0_TELEMETRY=false MEM0_DIR="$MEM0_HOME" ENGRAM_URL="$SCRATCH_URL" ENGRAM_API_KEY="$SCRATCH_KEY"
log "pytest (mem0ai $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mem0ai"))')) against $SCRATCH_URL/mem0"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$COMPAT/tests"
log "node --test (mem0ai $(node -p "require('$TS/node_modules/mem0ai/package.json').version")) against $SCRATCH_URL/mem0"
node --test "$TS/test.mjs"
log "a LoCoMo conversation through /mem0-oss"
ENGRAM_SHARED_DIR="${ENGRAM_SHARED_DIR:-$ROOT/../shared}" python3 "$COMPAT/locomo_oss.py" 0 0.3
rm -rf "$MEM0_HOME"

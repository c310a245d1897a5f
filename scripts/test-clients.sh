#!/usr/bin/env bash
# The client suites against a live `engram serve` (part of `make test`):
# the Python client installed, as a user would, into a private virtualenv
# under the data folder with pinned tools, then pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
# shellcheck disable=SC1091
source "$ROOT/scripts/scratch-server.sh"
log() { printf '[clients] %s\n' "$*" >&2; }

# Node 18+ and npm for the TypeScript client: Debian's when missing.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing nodejs and npm (Debian)"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    log "node and npm are missing; install Node 18+ to run the TypeScript client's tests"
    exit 1
  fi
fi

VENV="$DATA/client-venv"
"$ROOT/scripts/client-venv.sh"

cd "$ROOT"
cargo build --locked --bin engram -q
scratch_server clients
log "pytest against $SCRATCH_URL"
ENGRAM_URL="$SCRATCH_URL" ENGRAM_API_KEY="$SCRATCH_KEY" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/clients/python/tests"

# The TypeScript client: built and tested from a copy under the data folder
# (its node_modules stay out of the source tree), pinned by package-lock.json.
TS="$DATA/ts-client"
rm -rf "$TS" && mkdir -p "$TS"
cp -r "$ROOT/clients/typescript/package.json" "$ROOT/clients/typescript/package-lock.json" \
  "$ROOT/clients/typescript/tsconfig.json" "$ROOT/clients/typescript/README.md" \
  "$ROOT/clients/typescript/src" "$ROOT/clients/typescript/test" "$TS/"
log "npm ci in $TS (builds dist with tsc)"
(cd "$TS" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
log "node --test against $SCRATCH_URL"
ENGRAM_OPENAPI="$ROOT/openapi.yaml" ENGRAM_URL="$SCRATCH_URL" ENGRAM_API_KEY="$SCRATCH_KEY" \
  node --test "$TS/test/"

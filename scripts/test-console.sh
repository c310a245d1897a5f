#!/usr/bin/env bash
# The console in a real browser (part of `make test`): Debian's chromium and
# chromium-driver (installed when missing), selenium pinned in
# tests/console/requirements.txt, against a live `engram serve` on a scratch
# database. Screenshots go to $DATA/console-shots (docs/console/ keeps the
# current ones).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
# shellcheck disable=SC1091
source "$ROOT/scripts/scratch-server.sh"
log() { printf '[console] %s\n' "$*" >&2; }

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing chromium and chromium-driver (Debian)"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  else
    log "chromium and chromedriver are missing; install Debian's chromium and chromium-driver"
    exit 1
  fi
fi
# shellcheck disable=SC1091
source "$ROOT/scripts/pinned-venv.sh"
VENV="$DATA/console-venv"
pinned_venv "$VENV" "$ROOT/tests/console/requirements.txt"

cd "$ROOT"
cargo build --locked --bin engram -q
scratch_server console
log "headless $(/usr/bin/chromium --version 2>/dev/null | head -1) against $SCRATCH_URL/console"
# selenium's manager must not look for drivers on the internet.
# The seed writes one failed job straight into the scratch database (PSQL).
SE_AVOID_STATS=true CONSOLE_SHOTS="$DATA/console-shots" ENGRAM_URL="$SCRATCH_URL" ENGRAM_API_KEY="$SCRATCH_KEY" \
  PSQL="$ENGRAM_PG_BIN/psql" CONSOLE_DATABASE_URL="${ENGRAM_TEST_DATABASE_URL%/*}/$SCRATCH_DB" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/tests/console"

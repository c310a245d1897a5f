#!/usr/bin/env bash
# The Python client in its own venv, pinned (used by the client suite and
# by `make test-citus`, which must work alone on a fresh clone): creates
# $DATA/client-venv when it is missing and (re)installs clients/python.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
VENV="$DATA/client-venv"
PINS=(httpx==0.28.1 pydantic==2.10.6 pytest==8.3.4 pyyaml==6.0.2 mypy==1.14.1)
if ! "$VENV/bin/python" -c 'import httpx, pydantic, pytest, yaml, mypy' 2>/dev/null; then
  printf '[client-venv] creating %s (%s)\n' "$VENV" "${PINS[*]}" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "${PINS[@]}"
fi
printf '[client-venv] installing clients/python into %s\n' "$VENV" >&2
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$ROOT/clients/python"

#!/usr/bin/env bash
# Part of `make lint`: every console module parses as an ES module (node's
# own parser; the browser suite in `make test` runs them for real).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v node >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[lint] installing nodejs (Debian)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs >/dev/null
  else
    echo "[lint] node is missing: install Debian's nodejs to check the console's modules" >&2
    exit 1
  fi
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for f in "$ROOT"/crates/engram-console/assets/*.js; do
  # .mjs: node checks module syntax only for files it knows are modules.
  cp "$f" "$tmp/$(basename "$f" .js).mjs"
  node --check "$tmp/$(basename "$f" .js).mjs"
done

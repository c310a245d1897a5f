#!/usr/bin/env bash
# Issue 21's benchmark: engram-bench on the 3-node Citus cluster of
# scripts/citus-env.sh and on a plain database of the coordinator's server
# (the same PostgreSQL 15 and pgvector binaries, settings and machine), with
# the same data and the same arguments, one after the other in one run.
#   scripts/bench-citus.sh [engram-bench arguments]
# e.g. scripts/bench-citus.sh --memories 100000 --users 1000
# Output: .data/bench-citus-{single,citus}.md (the last run of each). Results: docs/BENCHMARKS.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
"$ROOT/scripts/dev-env.sh" >/dev/null # the model
# shellcheck disable=SC1091
source "$DATA/env"
ENGRAM_CITUS_KEEP=1 "$ROOT/scripts/citus-env.sh"
# shellcheck disable=SC1091
source "$DATA/citus-env"
cd "$ROOT"
cargo build --release --locked -p engram-server -p engram-bench -q
export ENGRAM_BIN="$ROOT/target/release/engram"
trap '"$ROOT/scripts/citus-db.sh" drop engram_bench_single; "$ROOT/scripts/citus-db.sh" drop engram_bench_citus' EXIT
# ENGRAM_BENCH_ORDER="citus single" runs them the other way round.
for kind in ${ENGRAM_BENCH_ORDER:-single citus}; do
  db="engram_bench_$kind"
  "$ROOT/scripts/citus-db.sh" drop "$db"
  if [ "$kind" = citus ]; then url="$("$ROOT/scripts/citus-db.sh" create "$db")"; else url="$("$ROOT/scripts/citus-db.sh" plain "$db")"; fi
  echo "== $kind ==" >&2
  ENGRAM_BENCH_DATABASE_URL="$url" target/release/engram-bench "$@" | tee "$DATA/bench-citus-$kind.md"
done

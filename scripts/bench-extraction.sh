#!/usr/bin/env bash
# `make bench-extraction`: extraction quality on the scenario set
# (crates/engram-bench/data/extraction-scenarios.json), side by side:
# Engram with Qwen2.5-Coder 1.5B and 0.5B Instruct, Engram's rules, and Mem0
# (mem0ai 2.2.1, `infer=True`) on the same llama.cpp server and the same
# embedder (Engram's MiniLM behind engram-bench-embed-server). Not in CI: on
# two cores it takes about an hour and a half. Writes .data/bench-extraction/
# and prints the table docs/BENCHMARKS.md holds.
#   BENCH_SYSTEMS="engram-0.5b mem0-0.5b engram-1.5b mem0-1.5b rules" (default: all)
#   BENCH_ARGS="--half dev" (passed to run.py); BENCH_OUT: another results directory
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
OUT="${BENCH_OUT:-$DATA/bench-extraction}"
LLM_PORT=8433
EMBED_PORT=8434
SYSTEMS="${BENCH_SYSTEMS:-engram-0.5b mem0-0.5b engram-1.5b mem0-1.5b rules}"
mkdir -p "$OUT"
# shellcheck source=scripts/llm-models.sh
source "$ROOT/scripts/llm-models.sh"
ensure_llama_server

MEM0="$DATA/bench-mem0"
if ! "$MEM0/bin/python" -c "import mem0" 2>/dev/null; then
  echo "[bench] installing mem0ai 2.2.1"
  python3 -m venv "$MEM0"
  "$MEM0/bin/pip" install --quiet "mem0ai==2.2.1"
fi

cd "$ROOT"
cargo build --release --locked -p engram-server -p engram-bench
SCRATCH_BIN="$ROOT/target/release/engram"
# shellcheck source=scripts/scratch-server.sh
source "$ROOT/scripts/scratch-server.sh"

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${SCRATCH_DB:-}" ]; then scratch_cleanup; fi
}
trap cleanup EXIT

wait_for() {
  for _ in $(seq 1 300); do curl -sf "$1" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "[bench] $1 did not answer" >&2; return 1
}

target/release/engram-bench-embed-server "127.0.0.1:$EMBED_PORT" >"$OUT/embed.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
  curl -sf -H 'content-type: application/json' -d '{"input": "x"}' \
    "http://127.0.0.1:$EMBED_PORT/v1/embeddings" >/dev/null 2>&1 && break
  sleep 0.2
done

LLAMA=""
# serve_model SIZE LOG: the log is per system, so each run's timings stay.
serve_model() {
  [ -n "$LLAMA" ] && { kill "$LLAMA"; wait "$LLAMA" 2>/dev/null || true; }
  local model
  model="$(fetch_model "$1")"
  "$VENV/bin/python" -m llama_cpp.server --model "$model" --model_alias "qwen2.5-coder-$1-instruct" \
    --host 127.0.0.1 --port "$LLM_PORT" --n_ctx 8192 --n_threads "$(nproc)" >"$OUT/llama-$2.log" 2>&1 &
  LLAMA=$!
  PIDS+=("$LLAMA")
  wait_for "http://127.0.0.1:$LLM_PORT/v1/models"
}

RUN="crates/engram-bench/extraction/run.py"
for system in $SYSTEMS; do
  size="${system#*-}"
  echo "[bench] $system"
  case "$system" in
    engram-*)
      serve_model "$size" "$system"
      scratch_server bench ENGRAM_LLM_BASE_URL="http://127.0.0.1:$LLM_PORT/v1" \
        ENGRAM_LLM_MODEL="qwen2.5-coder-$size-instruct" ENGRAM_LLM_TIMEOUT_SECS=300
      trap cleanup EXIT  # scratch_server set its own
      # shellcheck disable=SC2086
      python3 "$RUN" engram --url "$SCRATCH_URL" --key "$SCRATCH_KEY" \
        --label "Engram + Qwen2.5-Coder $size" --model "qwen2.5-coder-$size-instruct" \
        --out "$OUT/$system.json" ${BENCH_ARGS:-}
      scratch_cleanup; SCRATCH_PID=""; SCRATCH_DB=""
      ;;
    mem0-*)
      serve_model "$size" "$system"
      rm -rf "$OUT/mem0-state" && mkdir -p "$OUT/mem0-state"
      # shellcheck disable=SC2086
      "$MEM0/bin/python" "$RUN" mem0 --llm-url "http://127.0.0.1:$LLM_PORT/v1" \
        --model "qwen2.5-coder-$size-instruct" --embed-url "http://127.0.0.1:$EMBED_PORT/v1" \
        --dir "$OUT/mem0-state" --label "Mem0 2.2.1 + Qwen2.5-Coder $size" \
        --out "$OUT/$system.json" ${BENCH_ARGS:-}
      ;;
    rules)
      scratch_server bench
      trap cleanup EXIT
      # shellcheck disable=SC2086
      python3 "$RUN" engram --url "$SCRATCH_URL" --key "$SCRATCH_KEY" \
        --label "Engram, rules (no LLM)" --out "$OUT/rules.json" ${BENCH_ARGS:-}
      scratch_cleanup; SCRATCH_PID=""; SCRATCH_DB=""
      ;;
    *) echo "[bench] unknown system $system" >&2; exit 2 ;;
  esac
done
results=()
for system in engram-1.5b mem0-1.5b engram-0.5b mem0-0.5b rules; do
  [ -s "$OUT/$system.json" ] && results+=("$OUT/$system.json")
done
python3 crates/engram-bench/extraction/report.py "${results[@]}"

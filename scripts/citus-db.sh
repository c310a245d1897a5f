#!/usr/bin/env bash
# A database on the Citus cluster of scripts/citus-env.sh (which must be
# running; .data/citus-env sourced):
#   citus-db.sh create DB   the database on every node with citus and vector,
#                           the workers registered, Engram's migrations run
#                           (they distribute the schema), engram_app able to
#                           log in on the workers; prints its URL
#   citus-db.sh plain DB    the database on the coordinator's server only,
#                           with vector and without citus: plain PostgreSQL on
#                           the same binaries and settings; migrated; prints
#                           its URL
#   citus-db.sh drop DB     drops it on every node
# Needs target/debug/engram or ENGRAM_BIN.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd="$1" DB="$2"
[[ "$DB" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "citus-db.sh: bad database name: $DB" >&2; exit 2; }
read -r P0 P1 P2 <<<"$ENGRAM_CITUS_PORTS"
psql_at() { PGPASSWORD="$ENGRAM_CITUS_PASSWORD" "$ENGRAM_CITUS_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U engram -p "$1" -d "$2" "${@:3}"; }
URL="postgres://engram:$ENGRAM_CITUS_PASSWORD@127.0.0.1:$P0/$DB"
migrate() {
  ENGRAM_DATABASE_URL="$URL" RUST_LOG=error "${ENGRAM_BIN:-$ROOT/target/debug/engram}" migrate >&2
  # The workers accept engram_app with the cluster's password (docs/SCALING.md).
  psql_at "$P0" "$DB" -c "ALTER ROLE engram_app PASSWORD '$ENGRAM_CITUS_PASSWORD'" >/dev/null
  echo "$URL"
}
case "$cmd" in
  create)
    for port in $P0 $P1 $P2; do
      psql_at "$port" postgres -c "CREATE DATABASE $DB" >&2
      psql_at "$port" "$DB" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION vector" >&2
    done
    psql_at "$P0" "$DB" -c "SELECT citus_set_coordinator_host('127.0.0.1', $P0)" \
      -c "SELECT citus_add_node('127.0.0.1', $P1)" -c "SELECT citus_add_node('127.0.0.1', $P2)" >/dev/null
    migrate ;;
  plain)
    psql_at "$P0" postgres -c "CREATE DATABASE $DB" >&2
    psql_at "$P0" "$DB" -c "CREATE EXTENSION vector" >&2
    migrate ;;
  drop)
    for port in $P0 $P1 $P2; do psql_at "$port" postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true; done ;;
  *) echo "usage: citus-db.sh create|plain|drop DB" >&2; exit 2 ;;
esac

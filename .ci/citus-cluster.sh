#!/usr/bin/env bash
# A local Citus cluster for tests and benchmarks: a coordinator and two workers as
# three Postgres clusters of this machine's Postgres (ports 5440, 5441, 5442), each
# with the `citus` extension in database `so`, the workers registered. Idempotent:
# what exists is kept, what is stopped is started.
#
#   .ci/citus-cluster.sh [up|down|stop-worker N|start-worker N|status]
#
# `CITUS_DURABILITY=off .ci/citus-cluster.sh up` runs the nodes without waiting
# for the disk (fsync and synchronous_commit off): for tests only, where each
# test's schema is laid out over the nodes in a two-phase commit and the
# flushes are half the suite's time. Any other `up` makes them durable again,
# as the benchmarks need.
#
# Needs root (pg_createcluster, pg_ctlcluster) and Citus installed for the local
# Postgres (../shared/citus/install.sh builds it once per machine).
set -euo pipefail
ver=$(ls /etc/postgresql | sort -V | tail -n1)
DB=${CITUS_DB:-so}
declare -A PORT=([citus_coord]=5440 [citus_w1]=5441 [citus_w2]=5442)
NODES=(citus_coord citus_w1 citus_w2)

psql_on() { # PORT SQL [DB]
  psql -h 127.0.0.1 -p "$1" -U postgres -d "${3:-$DB}" -v ON_ERROR_STOP=1 -Atqc "$2"
}

make_node() { # NAME
  local name=$1 port=${PORT[$1]} conf=/etc/postgresql/$ver/$1
  if [ ! -d "$conf" ]; then
    pg_createcluster -q "$ver" "$name" -p "$port" >/dev/null
    cat >>"$conf/postgresql.conf" <<CONF
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
max_connections = 300
shared_buffers = 128MB
citus.max_client_connections = 250
# A worker that cannot be reached fails a request in seconds, not half a minute.
citus.node_connection_timeout = 5000
CONF
    # Trust on loopback and the socket, as the machine's main cluster.
    sed -i -E 's/^(local|host)(\s+all\s+all\s+.*)\s(peer|md5|scram-sha-256)$/\1\2 trust/' "$conf/pg_hba.conf"
  fi
  pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start 2>/dev/null || true
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 0.2; done
  psql_on "$port" "SELECT 1 FROM pg_database WHERE datname = '$DB'" postgres | grep -q 1 ||
    psql_on "$port" "CREATE DATABASE $DB" postgres
  psql_on "$port" "CREATE EXTENSION IF NOT EXISTS citus"
}

case "${1:-up}" in
  up)
    for n in "${NODES[@]}"; do make_node "$n"; done
    c=${PORT[citus_coord]}
    psql_on "$c" "SELECT citus_set_coordinator_host('127.0.0.1', $c)" >/dev/null
    for w in citus_w1 citus_w2; do
      psql_on "$c" "SELECT 1 FROM pg_dist_node WHERE nodeport = ${PORT[$w]}" | grep -q 1 ||
        psql_on "$c" "SELECT citus_add_node('127.0.0.1', ${PORT[$w]})" >/dev/null
    done
    for n in "${NODES[@]}"; do
      if [ "${CITUS_DURABILITY:-}" = off ]; then
        psql_on "${PORT[$n]}" "ALTER SYSTEM SET fsync = off"
        psql_on "${PORT[$n]}" "ALTER SYSTEM SET synchronous_commit = off"
      else
        psql_on "${PORT[$n]}" "ALTER SYSTEM RESET fsync"
        psql_on "${PORT[$n]}" "ALTER SYSTEM RESET synchronous_commit"
      fi
      psql_on "${PORT[$n]}" "SELECT pg_reload_conf()" >/dev/null
    done
    echo "citus: coordinator postgres://postgres@127.0.0.1:$c/$DB, workers on ${PORT[citus_w1]}, ${PORT[citus_w2]}${CITUS_DURABILITY:+ (durability: $CITUS_DURABILITY)}"
    ;;
  down)
    for n in "${NODES[@]}"; do pg_ctlcluster --skip-systemctl-redirect "$ver" "$n" stop 2>/dev/null || true; done
    ;;
  stop-worker) pg_ctlcluster --skip-systemctl-redirect "$ver" "citus_w$2" stop -m fast ;;
  start-worker)
    pg_ctlcluster --skip-systemctl-redirect "$ver" "citus_w$2" start
    for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p "${PORT[citus_w$2]}" && break; sleep 0.2; done
    ;;
  status) psql_on "${PORT[citus_coord]}" "SELECT nodename, nodeport, isactive FROM pg_dist_node ORDER BY nodeport" ;;
  *) echo "usage: $0 [up|down|stop-worker N|start-worker N|status]" >&2; exit 2 ;;
esac

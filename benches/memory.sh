#!/usr/bin/env bash
# Server memory (issue 16): the release server on a fresh database of the local
# Postgres; its RSS at start, after bursts of concurrent failed logins, and after
# setting up many active matches (1,000, then 10,000 more), with the growth per
# active match; then with event streams held open, with the growth per stream. Prints a table ready for docs/benchmarks.md ("Memory").
#
#   benches/memory.sh
#
# Environment (defaults in brackets):
#   PG_URL        server URL without a database [postgres://postgres@127.0.0.1:5432]
#   LOGINS        concurrent failed logins per burst [256]
#   BURSTS        bursts of them [2]
#   MATCHES       the larger number of active matches [10000]
#   STREAMS       match streams held open at the end, anonymous, spread over 100
#                 waiting matches of their own (benches/streams_hold.py) [5000];
#                 0 skips them
#   SLOW          of those, streams that never read past their response head [500]
#   SERVER_BIN    measure this server binary instead of the one just built
#   PORT          the server's port [a free one between 20000 and 39999]
#
# Needs: psql, curl, python3, createdb rights (trust auth here). Drops its database at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
LOGINS=${LOGINS:-256}
BURSTS=${BURSTS:-2}
MATCHES=${MATCHES:-10000}
STREAMS=${STREAMS:-5000}
SLOW=${SLOW:-500}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
STAMP=$(date +%Y%m%d%H%M%S)
DB=so_mem_$STAMP
WORK=${CARGO_TARGET_DIR:-target}/memory-bench-$STAMP
SERVER_PID=
mkdir -p "$WORK"
# A socket per stream, on both sides.
ulimit -n $(( $(ulimit -Hn) < 65536 ? $(ulimit -Hn) : 65536 ))

psql_admin() { psql "$PG_URL/postgres" -v ON_ERROR_STOP=1 -Atq "$@"; }
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  psql_admin -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" 2>/dev/null || true
}
trap cleanup EXIT
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$SERVER_PID/status"; }
hwm() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$SERVER_PID/status"; }

BUILT=$(cargo build -q --release --bin sealed-orders --bench load --message-format=json)
executable() { grep "\"name\":\"$1\"" <<<"$BUILT" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1; }
cp "${SERVER_BIN:-$(executable sealed-orders)}" "$WORK/sealed-orders"
cp "$(executable load)" "$WORK/load"

echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
psql_admin -c "CREATE DATABASE $DB"
DATABASE_URL="$PG_URL/$DB" JWT_SECRET=memory-bench-secret-memory-bench-secret-01 \
  RATE_LIMIT_AUTH_PER_MIN=0 RATE_LIMIT_MOVES_PER_MIN=0 \
  RATE_LIMIT_MATCHES_PER_MIN=0 MAX_WAITING_MATCHES=0 PORT=$PORT LOG_FORMAT=json RUST_LOG=warn \
  "$WORK/sealed-orders" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
BASE=http://127.0.0.1:$PORT
curl -sf -X POST "$BASE/api/v1/players" -H 'content-type: application/json' \
  -d '{"name":"victim","password":"password1"}' >/dev/null
START=$(rss)
echo "| moment | server RSS (MiB) | answers |"
echo "|---|---|---|"
echo "| started, one player registered | $START | |"
for b in $(seq 1 "$BURSTS"); do
  seq 1 "$LOGINS" | xargs -P "$LOGINS" -I{} curl -s -o /dev/null -w '%{http_code}\n' \
    -X POST "$BASE/api/v1/auth/token" -H 'content-type: application/json' \
    -d '{"name":"victim","password":"wrong-password"}' >"$WORK/burst-$b.txt"
  codes=$(sort "$WORK/burst-$b.txt" | uniq -c | awk '{printf "%s x %s; ", $1, $2}')
  echo "| after burst $b of $LOGINS concurrent failed logins | $(rss) (peak so far $(hwm)) | $codes |"
done
load() { "$WORK/load" --base-url "$BASE" --server-pid "$SERVER_PID" "$@"; }
R1=$(load --matches 1000 --rounds 1 --clients 8 --run-id m1k | grep '^RESULT')
A1=$(sed -n 's/.* server_setup_peak_rss_mib=\([^ ]*\).*/\1/p' <<<"$R1")
echo "| 1,000 matches set up and started (peak while setting up) | $A1 | |"
R2=$(load --matches "$MATCHES" --rounds 1 --clients 8 --run-id m10k | grep '^RESULT')
A2=$(sed -n 's/.* server_setup_peak_rss_mib=\([^ ]*\).*/\1/p' <<<"$R2")
echo "| $MATCHES more matches set up and started (peak while setting up) | $A2 | |"
if [ "$STREAMS" -gt 0 ]; then
  S0=$(rss)
  coproc HOLD { python3 benches/streams_hold.py "$BASE" "$STREAMS" "$SLOW"; }
  read -r HELD <&"${HOLD[0]}"
  S1=$(rss)
  echo "| $STREAMS match streams open ($SLOW never reading), before: $S0 | $S1 | $HELD |"
  echo done >&"${HOLD[1]}"
  wait "$HOLD_PID" 2>/dev/null || true
  sleep 1
  echo "| streams closed | $(rss) | |"
fi
echo "| end of run | $(rss) (VmHWM $(hwm)) | |"
awk -v a="$A1" -v b="$A2" -v n="$MATCHES" 'BEGIN {
  printf "\nGrowth per active match between 1,000 and %d more: %.2f KiB.\n", n, (b - a) * 1024 / (n - 1000)
}'
if [ "$STREAMS" -gt 0 ]; then
  awk -v a="$S0" -v b="$S1" -v n="$STREAMS" 'BEGIN {
    printf "Growth per open stream: %.2f KiB.\n", (b - a) * 1024 / n
  }'
fi

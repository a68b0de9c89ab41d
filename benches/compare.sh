#!/usr/bin/env bash
# Same-run comparison (issue 8): pgbench's TPC-B-like transaction against the local
# Postgres, then the release server on a fresh database of that same Postgres driven
# by the load generator (benches/load) at the same client count, and the ratio
# accepted moves/s ÷ pgbench tps. Then the hot-match figures (all clients in one
# 8-seat match, sealed and open betting), and the subscriber pair: the same drive
# without and with live event streams open. At the end, a table ready to paste into
# docs/benchmarks.md ("API load").
#
#   benches/compare.sh
#
# Environment (defaults in brackets):
#   PG_URL            server URL without a database [postgres://postgres@127.0.0.1:5432]
#   CLIENTS           pgbench clients and load-generator clients [8]
#   PGBENCH_SECONDS   pgbench duration [30]
#   PGBENCH_SCALE     pgbench -i -s [10]
#   MATCHES, SEATS, ROUNDS   main mode: matches active at once, seats, ships [1000, 4, 6]
#   HOT_ROUNDS        ships of each hot match [50]
#   HOT=0             skip the hot-match runs
#   SUB_MATCHES       subscriber pair: matches of each of its drives [200]
#   SUBSCRIBE         subscriber kinds to run beside the plain drive [player match]
#                     (player: one /players/me/events stream per player; match: one
#                     /matches/{id}/events stream per match); SUBSCRIBE= skips the pair
#   SUB_ROUNDS        how many times the pair's drives run, interleaved (none, then
#                     each kind, then none again...), so that a change of the machine's
#                     speed falls on every kind alike; each kind's ratio to the drive
#                     without is pooled over the rounds (its moves over its seconds) [3]
#   PREFER_PROMPT     on: main-mode moves ask for the mover's next prompt in their
#                     answer (`Prefer: return=representation`) and play from it without
#                     a read; off: read before every move, as clients did before [on]
#   DRIVE             main drive: tables (each client plays the awaited seat of one
#                     match at a time, reading when the last answer did not carry
#                     that seat's prompt) or seats (the players' prompt streams and
#                     the moves' answers say what to play: one request per move) [tables]
#   REPLICAS          1, or 2: a second replica of the server on the same database,
#                     the main drive's clients spread over both (reads then ask the
#                     database for the version, as they must with another replica
#                     about); the CPU of both counts as the server's [1]
#   PORT              the server's port [a free one between 20000 and 39999]
#   KEEP_DB=1         keep the server's database afterwards (dropped by default)
#   COUNT_QUERIES=N   afterwards, a separate small run (N matches, 1 client) on its own
#                     database with log_statement=all, and statements per accepted move
#                     counted from the Postgres log (needs the log file readable) [0: off]
#   OUT               also append everything printed to this file
#   SERVER_BIN        measure this server binary instead of the one just built
#                     (an older build, for a before/after pair)
#   CITUS=1           after the main drive on plain Postgres, the same drive on a
#                     Citus cluster (its coordinator at CITUS_URL [postgres://postgres@
#                     127.0.0.1:5440], database CITUS_DB [so], a schema of its own,
#                     CITUS_SHARDS shards [32]; `.ci/citus-cluster.sh up` makes one),
#                     with the two-phase commits the cluster made meanwhile
#
# Logs and the copied server binary go to $CARGO_TARGET_DIR (or target)/load-bench-<time>/.
#
# Needs: psql, pgbench, createdb/dropdb rights for the user in PG_URL (trust auth here).
# Changes nothing but the databases pgbench_so, so_load_<time> (and so_queries_<time>).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
CLIENTS=${CLIENTS:-8}
PGBENCH_SECONDS=${PGBENCH_SECONDS:-30}
PGBENCH_SCALE=${PGBENCH_SCALE:-10}
MATCHES=${MATCHES:-1000}
SEATS=${SEATS:-4}
ROUNDS=${ROUNDS:-6}
HOT_ROUNDS=${HOT_ROUNDS:-50}
HOT=${HOT:-1}
SUB_MATCHES=${SUB_MATCHES:-200}
SUBSCRIBE=${SUBSCRIBE-player match}
SUB_ROUNDS=${SUB_ROUNDS:-3}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
COUNT_QUERIES=${COUNT_QUERIES:-0}
CITUS=${CITUS:-0}
REPLICAS=${REPLICAS:-1}
PORT2=$((PORT + 1))
SECOND_PID=
CITUS_URL=${CITUS_URL:-postgres://postgres@127.0.0.1:5440}
CITUS_DB=${CITUS_DB:-so}
CITUS_SHARDS=${CITUS_SHARDS:-32}
CITUS_SCHEMA=
STAMP=$(date +%Y%m%d%H%M%S)
DB=so_load_$STAMP
WORK=${CARGO_TARGET_DIR:-target}/load-bench-$STAMP
SERVER_PID=
mkdir -p "$WORK"

if [ -n "${OUT:-}" ]; then
  exec > >(tee -a "$OUT") 2>&1
fi

say() { printf '\n== %s\n' "$*"; }
psql_admin() { psql "$PG_URL/postgres" -v ON_ERROR_STOP=1 -Atq "$@"; }
psql_citus() { psql "$CITUS_URL/$CITUS_DB" -v ON_ERROR_STOP=1 -Atq "$@"; }
# Passes a run's lines on to stderr and its RESULT line to stdout. Not
# `tee /dev/stderr`: that opens stderr's file anew, and when it is a file
# redirected with `>` the reopening truncates what was written before.
# Fails, as grep did, when no RESULT line came.
results() {
  local line found=1
  while IFS= read -r line; do
    printf '%s\n' "$line" >&2
    case $line in RESULT*) printf '%s\n' "$line"; found=0 ;; esac
  done
  return "$found"
}

cleanup() {
  if [ -n "$SECOND_PID" ]; then kill "$SECOND_PID" 2>/dev/null || true; fi
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [ "${KEEP_DB:-0}" != 1 ]; then
    psql_admin -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" 2>/dev/null || true
    if [ -n "$CITUS_SCHEMA" ]; then
      psql_citus -c "DROP SCHEMA IF EXISTS $CITUS_SCHEMA CASCADE" 2>/dev/null || true
    fi
  fi
  if [ "$CITUS" = 1 ]; then
    psql_citus -c "ALTER SYSTEM RESET citus.recover_2pc_interval" -c "SELECT pg_reload_conf()" \
      >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

# Starts the release server on database $1 (a URL: as it is); sets SERVER_PID.
# SERVER_ENV: more settings, as `NAME=value` words.
start_server() {
  local db=$1 log=$2 url
  case $db in *://*) url=$db ;; *) url=$PG_URL/$db ;; esac
  # RATE_LIMIT_MOVES_PER_MIN=0: the load generator plays every seat from one
  # address, far past the move limits meant for real clients; for the same
  # reason it creates matches past the creation rate and the waiting cap, and
  # registers and logs in its players (hundreds a drive) past the logins a
  # minute one address may make: its setup is not what the limits are for.
  # shellcheck disable=SC2086
  env ${SERVER_ENV:-} DATABASE_URL="$url" \
    JWT_SECRET=load-bench-secret-load-bench-secret-0123 RATE_LIMIT_MOVES_PER_MIN=0 \
    RATE_LIMIT_MATCHES_PER_MIN=0 MAX_WAITING_MATCHES=0 RATE_LIMIT_AUTH_PER_MIN=0 \
    HOST=127.0.0.1 PORT=$PORT LOG_FORMAT=json RUST_LOG=warn \
    "$WORK/sealed-orders" >"$log" 2>&1 &
  SERVER_PID=$!
  local ready=
  for _ in $(seq 1 200); do
    curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && { ready=1; break; }
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$ready" ]; then
    echo "the server did not become ready; its log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  wait_for_snapshot_reads "$url"
}

# A lone replica answers match reads from what it keeps once it has heard from
# no other for REPLICA_SILENCE_MS (30 s by default): the state a deployment of
# one replica runs in. The drive starts in it, not in the first half minute.
wait_for_snapshot_reads() { # URL
  if [ "$REPLICAS" != 1 ]; then
    echo "reads: $REPLICAS replicas, so every read asks the database for the version"
    return 0
  fi
  case "$1 ${SERVER_ENV:-}" in
    *CITUS_SHARD_COUNT*|*5440*|*MATCH_READS=checked*)
      echo "reads: every read asks the database for the version (Citus, or MATCH_READS=checked)"
      return 0 ;;
  esac
  local t0=$SECONDS
  for _ in $(seq 1 600); do
    if curl -sf "http://127.0.0.1:$PORT/metrics" | grep -q '^sealed_orders_reads_from_snapshots 1'; then
      echo "reads: answered from the replica's snapshots after $((SECONDS - t0)) s of waiting"
      return 0
    fi
    sleep 0.1
  done
  echo "reads: still asking the database after $((SECONDS - t0)) s (another replica is heard of?)"
}

# The server's counters of how moves were written: alone, in batches.
move_writes() {
  curl -sf "http://127.0.0.1:$PORT/metrics" |
    sed -n 's/^sealed_orders_move_writes_total{how="\([a-z_]*\)"} \([0-9]*\)/\1=\2/p;s/^sealed_orders_move_batches_total \([0-9]*\)/batches=\1/p' |
    tr '\n' ' '
}

# How each replica knew its match reads current: kept (alone), home, checked
# (asked the database), read (read whole).
match_reads() {
  local port out=""
  for port in $PORT ${SECOND_PID:+$PORT2}; do
    out="$out$(curl -sf "http://127.0.0.1:$port/metrics" |
      sed -n 's/^sealed_orders_match_reads_total{how="\([a-z]*\)"} \([0-9]*\)/\1=\2/p' |
      tr '\n' ' '); "
  done
  echo "$out"
}

stop_server() {
  if [ -n "$SECOND_PID" ]; then
    kill "$SECOND_PID" 2>/dev/null || true
    wait "$SECOND_PID" 2>/dev/null || true
    SECOND_PID=
  fi
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

# A second replica beside the running server, on the same database.
start_second() { # DB LOG
  local first=$SERVER_PID
  PORT=$PORT2 start_server "$1" "$2"
  SECOND_PID=$SERVER_PID
  SERVER_PID=$first
  echo "second replica: pid $SECOND_PID, port $PORT2"
}

load() { # ARGS… : the load generator against the running server (and its second replica)
  local bases="http://127.0.0.1:$PORT" pids=$SERVER_PID
  if [ -n "$SECOND_PID" ]; then
    bases="$bases,http://127.0.0.1:$PORT2"
    pids="$pids,$SECOND_PID"
  fi
  "$LOADER" --base-url "$bases" --server-pid "$pids" \
    --prefer-prompt "${PREFER_PROMPT:-on}" --route "${ROUTE:-clients}" "$@"
}

field() { # NAME LINE
  sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}

say "machine"
echo "nproc: $(nproc)"
echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | sort | uniq -c | sed 's/^ *//')"
echo "postgres: $(psql_admin -c 'SHOW server_version')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain -- src migrations Cargo.toml 2>/dev/null | grep -q . && echo ' (working tree differs from it)')"

say "building (release server, load generator)"
# Both are copied/located once, so that a rebuild in the same tree during the run
# changes nothing measured here.
# One cargo invocation for both: built apart, the dev-dependencies' features
# would make cargo compile the library twice.
# The executables are located from cargo's own report, so a CARGO_TARGET_DIR
# elsewhere works as well as ./target.
BUILT=$(cargo build -q --release --bin sealed-orders --bench load --message-format=json)
executable() { # TARGET-NAME
  grep "\"name\":\"$1\"" <<<"$BUILT" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1
}
SERVER_BUILT=$(executable sealed-orders)
[ -x "$SERVER_BUILT" ] || { echo "cannot find the server's executable" >&2; exit 1; }
cp "${SERVER_BIN:-$SERVER_BUILT}" "$WORK/sealed-orders"
LOADER=$(executable load)
[ -x "$LOADER" ] || { echo "cannot find the load generator's executable" >&2; exit 1; }
cp "$LOADER" "$WORK/load"
LOADER=$WORK/load
echo "server: $WORK/sealed-orders; load generator (benches/load): $LOADER"

say "pgbench: TPC-B-like, scale $PGBENCH_SCALE, $CLIENTS clients, ${PGBENCH_SECONDS} s"
psql_admin -c "DROP DATABASE IF EXISTS pgbench_so WITH (FORCE)"
psql_admin -c "CREATE DATABASE pgbench_so"
pgbench -q -i -s "$PGBENCH_SCALE" "$PG_URL/pgbench_so" 2>&1 | tail -n 1
PGB=$(pgbench -c "$CLIENTS" -j "$(nproc)" -T "$PGBENCH_SECONDS" "$PG_URL/pgbench_so" 2>&1)
echo "$PGB" | grep -E 'latency|tps|transactions actually'
TPS=$(echo "$PGB" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -n 1)

say "server: release build on a fresh database $DB, port $PORT"
psql_admin -c "CREATE DATABASE $DB"
start_server "$DB" "$WORK/server.log"
echo "server pid $SERVER_PID, log $WORK/server.log"
[ "$REPLICAS" = 2 ] && start_second "$DB" "$WORK/server-b.log"

say "load: $CLIENTS clients, $MATCHES matches active at once ($SEATS seats, $ROUNDS rounds, open and sealed)"
MAIN=$(load --drive "${DRIVE:-tables}" --clients "$CLIENTS" --matches "$MATCHES" --seats "$SEATS" --rounds "$ROUNDS" | results)
echo "move writes: $(move_writes)"
echo "match reads, by replica: $(match_reads)"

if [ "$CITUS" = 1 ]; then
  stop_server
  CITUS_SCHEMA=so_load_$STAMP
  say "citus: the same drive on the cluster ($CITUS_URL/$CITUS_DB, schema $CITUS_SCHEMA, $CITUS_SHARDS shards)"
  psql_citus -c "SELECT nodename || ':' || nodeport FROM pg_dist_node ORDER BY nodeport" | tr '\n' ' '
  echo
  psql_citus -c "CREATE SCHEMA $CITUS_SCHEMA"
  # Two-phase commits leave a row per participating node in pg_dist_transaction
  # until the coordinator's recovery clears it: paused for the drive, so what the
  # drive made can be counted.
  psql_citus -c "ALTER SYSTEM SET citus.recover_2pc_interval = -1" -c "SELECT pg_reload_conf()" >/dev/null
  sleep 1
  TWO_PC_BEFORE=$(psql_citus -c "SELECT count(DISTINCT gid) FROM pg_dist_transaction")
  SERVER_ENV="DATABASE_SCHEMA=$CITUS_SCHEMA CITUS_SHARD_COUNT=$CITUS_SHARDS" \
    start_server "$CITUS_URL/$CITUS_DB" "$WORK/server-citus.log"
  CITUS_MAIN=$(load --clients "$CLIENTS" --matches "$MATCHES" --seats "$SEATS" --rounds "$ROUNDS" | results)
  stop_server
  TWO_PC=$(( $(psql_citus -c "SELECT count(DISTINCT gid) FROM pg_dist_transaction") - TWO_PC_BEFORE ))
  psql_citus -c "ALTER SYSTEM RESET citus.recover_2pc_interval" -c "SELECT pg_reload_conf()" >/dev/null
  # The deadline poll's query (store::due_matches), as every replica sends it
  # each DEADLINE_POLL_MS: a read of every shard, timed alone for 10 s.
  printf 'SELECT match_id FROM match_deadlines WHERE due_at <= now() ORDER BY due_at LIMIT 50;\n' >"$WORK/due.sql"
  DUE=$(PGOPTIONS="-c search_path=$CITUS_SCHEMA" pgbench -n -c 1 -T 10 -f "$WORK/due.sql" "$CITUS_URL/$CITUS_DB" 2>&1)
  DUE_MS=$(echo "$DUE" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
  DUE_ROWS=$(psql_citus -c "SELECT count(*) FROM $CITUS_SCHEMA.match_deadlines")
  echo "deadline poll query on $CITUS_SHARDS shards ($DUE_ROWS deadline rows): $DUE_MS ms a poll"
  CITUS_FINISHED=$(psql_citus -c "SELECT count(*) FROM $CITUS_SCHEMA.matches WHERE status = 'finished'")
  CITUS_PLAYERS=$(psql_citus -c "SELECT count(*) FROM $CITUS_SCHEMA.players")
  echo "two-phase commits during setup and drive: $TWO_PC ($CITUS_PLAYERS players registered, $CITUS_FINISHED matches finished, $(field moves "$CITUS_MAIN") moves accepted)"
  start_server "$DB" "$WORK/server-2.log"
fi

HOT_RESULTS=()
if [ "$HOT" = 1 ]; then
  for stakes in sealed open; do
    say "hot match: $CLIENTS clients in one 8-seat match, $stakes betting, $HOT_ROUNDS rounds"
    R=$(load --mode hot --clients "$CLIENTS" --seats 8 --rounds "$HOT_ROUNDS" --stakes "$stakes" | grep -v '^load:' | results)
    HOT_RESULTS+=("$stakes|$R")
  done
  # What one row allows at all: every client locking, updating and committing
  # the same row, as the hot match's moves must (one match, one row), with
  # nothing else around it.
  say "hot row: $CLIENTS clients locking, updating and committing one row, 10 s"
  printf 'BEGIN;\nSELECT abalance FROM pgbench_accounts WHERE aid = 1 FOR UPDATE;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nCOMMIT;\n' >"$WORK/hot-row.sql"
  HOT_ROW=$(pgbench -n -c "$CLIENTS" -j "$(nproc)" -T 10 -f "$WORK/hot-row.sql" "$PG_URL/pgbench_so" 2>&1 |
    sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -n 1)
  echo "one row, lock/update/commit: $HOT_ROW tps"
fi

SUB_RESULTS=()
if [ -n "$SUBSCRIBE" ]; then
  for round in $(seq 1 "$SUB_ROUNDS"); do
    for sub in none $SUBSCRIBE; do
      say "subscriber pair, round $round of $SUB_ROUNDS: $CLIENTS clients, $SUB_MATCHES matches, subscribers: $sub"
      R=$(load --clients "$CLIENTS" --matches "$SUB_MATCHES" --seats "$SEATS" --rounds "$ROUNDS" --subscribe "$sub" | results)
      SUB_RESULTS+=("$sub|$R")
      # A player stream whose client went away lives on in the server until a
      # write to it fails: the next event of its player (there is none: each
      # drive registers players of its own) or its keep-alive, at most 15 s on.
      # Until then it hears every batch of the feed, and the next drive would
      # pay for the streams of this one. A match stream ends with its match.
      if [ "$sub" = player ]; then sleep 17; fi
    done
  done
fi
stop_server

MOVES=$(field moves_per_s "$MAIN")
ACTIVE=$(field active_moves_per_s "$MAIN")
P99=$(field submit_p99_ms "$MAIN")
say "ratio"
awk -v c="$CLIENTS" -v m="$MOVES" -v a="$ACTIVE" -v t="$TPS" -v p="$P99" 'BEGIN {
  printf "pgbench TPC-B-like tps (%s clients): %.1f\n", c, t
  printf "accepted moves/s, whole drive:      %.1f  ->  ratio %.3f\n", m, m / t
  printf "accepted moves/s, all active:       %.1f  ->  ratio %.3f\n", a, a / t
  printf "submit p99 with all matches active: %.2f ms (target < 25 ms)\n", p
  printf "target moves/s >= tps: %s; p99 < 25 ms: %s\n", (m >= t ? "met" : "NOT met"), (p < 25 ? "met" : "NOT met")
}'

if [ "$COUNT_QUERIES" -gt 0 ]; then
  QDB=so_queries_$STAMP
  say "statements per move: $COUNT_QUERIES matches, 1 client, every statement of $QDB logged"
  LOGFILE=$(ls -t /var/log/postgresql/postgresql-*-main.log 2>/dev/null | head -n 1 || true)
  if [ -z "$LOGFILE" ] || [ ! -r "$LOGFILE" ]; then
    echo "no readable Postgres log under /var/log/postgresql: skipped"
  else
    psql_admin -c "CREATE DATABASE $QDB"
    # Only this database's sessions log (with their durations); the figures of this
    # run are slowed by the logging and are not benchmark figures.
    psql_admin -c "ALTER DATABASE $QDB SET log_min_duration_statement = 0"
    start_server "$QDB" "$WORK/server-queries.log"
    OFFSET=$(stat -c %s "$LOGFILE")
    QRES=$(load --clients 1 --matches "$COUNT_QUERIES" --seats "$SEATS" --rounds "$ROUNDS" | grep '^RESULT')
    echo "$QRES"
    stop_server
    sleep 1
    tail -c +"$((OFFSET + 1))" "$LOGFILE" >"$WORK/postgres-queries.log"
    python3 benches/load/querylog.py "$WORK/postgres-queries.log" "$QDB" "$(field reads "$QRES")"
    psql_admin -c "DROP DATABASE IF EXISTS $QDB WITH (FORCE)"
  fi
fi

say "table (for docs/benchmarks.md)"
LOAD_NOW=$(cut -d' ' -f1-3 /proc/loadavg)
echo "Run $STAMP, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, load average at the end $LOAD_NOW."
echo
echo "| run | moves/s | submit p50 / p95 / p99 / max (ms) | read p99 (ms) | errors | server peak RSS (MiB) |"
echo "|---|---|---|---|---|---|"
row() { # LABEL RESULT-LINE [RATE-FIELD]
  local r=$2 rate
  rate=$(field "${3:-moves_per_s}" "$r")
  printf '| %s | %s | %s / %s / %s / %s | %s | %s | %s |\n' "$1" "$rate" \
    "$(field submit_p50_ms "$r")" "$(field submit_p95_ms "$r")" "$(field submit_p99_ms "$r")" \
    "$(field submit_max_ms "$r")" "$(field read_p99_ms "$r")" "$(field errors "$r")" \
    "$(field server_drive_peak_rss_mib "$r")"
}
printf '| pgbench TPC-B-like, %s clients, %s s | %s tps | | | | |\n' "$CLIENTS" "$PGBENCH_SECONDS" "$TPS"
# Main mode's latencies are those of the window in which every match was active.
row "$CLIENTS clients, $MATCHES matches active (whole drive: $(field moves_per_s "$MAIN") moves/s)" "$MAIN" active_moves_per_s
[ -n "${HOT_ROW:-}" ] && echo "| one row locked, updated and committed by $CLIENTS clients (pgbench, 10 s) | $HOT_ROW tps | | | | |"
for h in "${HOT_RESULTS[@]}"; do
  row "hot: one 8-seat match, ${h%%|*} betting, $HOT_ROUNDS rounds" "${h#*|}"
done
if [ "$CITUS" = 1 ]; then
  row "Citus, 2 workers, $CITUS_SHARDS shards: $CLIENTS clients, $MATCHES matches active (whole drive: $(field moves_per_s "$CITUS_MAIN") moves/s)" "$CITUS_MAIN" active_moves_per_s
fi
for x in "${SUB_RESULTS[@]}"; do
  r=${x#*|}
  extra=""
  [ "${x%%|*}" != none ] && extra=" ($(field streams "$r") streams, $(field events "$r") events)"
  row "$SUB_MATCHES matches, subscribers: ${x%%|*}$extra" "$r"
done
echo
awk -v m="$(field moves_per_s "$MAIN")" -v a="$(field active_moves_per_s "$MAIN")" -v t="$TPS" 'BEGIN {
  printf "Ratio accepted moves/s : pgbench tps = %.2f (whole drive), %.2f (all active).\n", m / t, a / t
}'
if [ "${#SUB_RESULTS[@]}" -gt 0 ]; then
  # The subscriber pair over its rounds: each kind's moves over its seconds, its
  # ratio to the drives without, and its CPU per move (averaged over its moves).
  echo
  echo "Subscriber pair, $SUB_MATCHES matches, $SUB_ROUNDS rounds interleaved:"
  echo
  echo "| subscribers | moves/s of each round | pooled moves/s | × without | server CPU / move | load generator / move | Postgres and the rest / move |"
  echo "|---|---|---|---|---|---|---|"
  for x in "${SUB_RESULTS[@]}"; do
    r=${x#*|}
    echo "${x%%|*} $(field moves "$r") $(field seconds "$r") $(field moves_per_s "$r") $(field server_cpu_ms_per_move "$r") $(field generator_cpu_ms_per_move "$r") $(field rest_cpu_ms_per_move "$r")"
  done | awk '{
    k = $1; if (!(k in moves)) order[n++] = k
    moves[k] += $2; secs[k] += $3; each[k] = each[k] (each[k] == "" ? "" : ", ") $4
    server[k] += $5 * $2; gen[k] += $6 * $2; rest[k] += $7 * $2
  }
  END {
    base = moves["none"] / secs["none"]
    for (i = 0; i < n; i++) {
      k = order[i]; rate = moves[k] / secs[k]
      printf "| %s | %s | %.1f | %s | %.2f ms | %.2f ms | %.2f ms |\n", k, each[k], rate,
        (k == "none" ? "" : sprintf("%.2f", rate / base)), server[k] / moves[k], gen[k] / moves[k], rest[k] / moves[k]
    }
  }'
fi
if [ "$CITUS" = 1 ]; then
  echo "Citus: $TWO_PC two-phase commits in setup and drive, for $CITUS_PLAYERS registrations, $CITUS_FINISHED finished matches and $(field moves "$CITUS_MAIN") moves."
  echo "Citus: the deadline poll's query takes $DUE_MS ms on $CITUS_SHARDS shards ($DUE_ROWS deadline rows)."
fi

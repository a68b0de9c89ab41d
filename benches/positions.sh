#!/usr/bin/env bash
# Positions at any step (the "record" issue): latency of
# `GET /api/v1/matches/{id}/positions/{step}` for the longest finished match of
# each game, at an early, a middle and a late step, against the release server on
# the given database (filled beforehand by `sealed-orders simulate`, see
# docs/benchmarks.md, "Positions at any step").
#
#   benches/positions.sh so_scale_100k
#
# Two figures per step:
#   warm  wrk on that one position for DURATION seconds (the steady state: the
#         positions the replay passed are kept in the server);
#   first the first request of the step (one, the late steps first, each step kind
#         on a fresh server): with positions kept with the match
#         (`match_checkpoints`), the late one is the read that replays from the
#         start and keeps them, the others read what it kept (the count is shown);
#   cold  the first request for the match after a server restart, COLD_RUNS times
#         (nothing of the match is kept in the server yet; the database's own
#         caches are warm). After each restart the server first answers the last
#         position of another finished match of every game (no replay), so its
#         connections and the games' data are loaded as in a running server; then
#         one step of every game is asked, so a cold request never finds positions
#         another request of the same run left behind.
#
# Environment (defaults in brackets):
#   PG_URL        server URL without a database [postgres://postgres@127.0.0.1:5432]
#   DURATION      wrk seconds per position [10]
#   CONNECTIONS   wrk connections [4]
#   THREADS       wrk threads [2]
#   COLD_RUNS     server restarts per step for the cold figures [20]
#   GAMES         the games measured [malacca heretics kontor cairo]
#   PORT          the server's port [a free one between 20000 and 39999]
#   BIN           the server binary [target/release/sealed-orders, built if missing]
#
# Needs wrk, curl, psql. Changes nothing: every request is a GET.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-4}
THREADS=${THREADS:-2}
COLD_RUNS=${COLD_RUNS:-20}
GAMES=${GAMES:-malacca heretics kontor cairo}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
BIN=${BIN:-target/release/sealed-orders}
[ $# -eq 1 ] || { echo "usage: $0 DATABASE" >&2; exit 2; }
DB=$1
for tool in wrk curl psql:postgresql-client; do
  pkg=${tool#*:} tool=${tool%%:*}
  command -v "$tool" >/dev/null && continue
  echo "$tool is missing; installing $pkg with apt-get" >&2
  apt-get install -y -qq "$pkg" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$pkg" >/dev/null; }
done
[ -x "$BIN" ] || cargo build --release
WORK=${CARGO_TARGET_DIR:-target}/positions-bench-$(date +%Y%m%d-%H%M%S)
mkdir -p "$WORK"
BASE="http://127.0.0.1:$PORT"

SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  SERVER_PID=
}
trap stop_server EXIT

start_server() {
  DATABASE_URL="$PG_URL/$DB" JWT_SECRET=positions-bench-secret-positions-bench-01 \
    HOST=127.0.0.1 PORT=$PORT LOG_FORMAT=json RUST_LOG=warn \
    "$BIN" serve >>"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    curl -sf "$BASE/readyz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "the server did not become ready; its log:" >&2
  cat "$WORK/server.log" >&2
  exit 1
}

# p50 p95 p99 max of the numbers on stdin (nearest rank).
percentiles() {
  sort -g | awk '{ v[NR] = $1 }
    function at(p,  k) { k = int(p * NR + 0.999999); if (k < 1) k = 1; return v[k] }
    END { printf "%.2f\t%.2f\t%.2f\t%.2f\n", at(0.50), at(0.95), at(0.99), v[NR] }'
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uptime)"
echo "database $DB: $(psql -qAt "$PG_URL/$DB" -c "SELECT count(*) FROM matches WHERE status = 'finished'") finished matches"
echo "warm: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s on one position; cold: $COLD_RUNS restarts per step"

# The longest finished match of each game (the most steps, then the most moves),
# and its early, middle and late steps: 1, half-way, and the last before the end
# (the last position itself is the match's current state, answered without replay).
: >"$WORK/targets"
: >"$WORK/warmup"
for game in $GAMES; do
  row=$(psql -qAt -F' ' "$PG_URL/$DB" -c "SELECT m.id, m.step,
        (SELECT count(*) FROM moves mv WHERE mv.match_id = m.id)
      FROM matches m WHERE m.game = '$game' AND m.status = 'finished'
      ORDER BY m.step DESC, (SELECT count(*) FROM moves mv WHERE mv.match_id = m.id) DESC, m.id
      LIMIT 1")
  [ -n "$row" ] || { echo "no finished $game match in $DB" >&2; exit 1; }
  read -r id last moves <<<"$row"
  echo "$game: match $id, $last steps, $moves moves"
  psql -qAt "$PG_URL/$DB" -c "SELECT '/api/v1/matches/' || id || '/positions/' || step FROM matches
      WHERE game = '$game' AND status = 'finished' AND id <> '$id' ORDER BY md5(id::text) LIMIT 1" \
    >>"$WORK/warmup"
  for point in early middle late; do
    case $point in
      early) step=1 ;;
      middle) step=$((last / 2)) ;;
      late) step=$((last - 1)) ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$game" "$point" "$step" "$id" "$last" >>"$WORK/targets"
  done
done

# Every position must answer 200 before it is timed. This first read is timed
# too: on a match none of whose positions are kept with it yet (a server with
# `match_checkpoints`), it is the one read that replays from the start ("first").
# The late steps first, each step kind on a server of its own: the late read is
# the first of its match, the others find what it kept.
for point in late middle early; do
  start_server
  # (after the start: the server migrates the database first)
  KEPT_TABLE=$(psql -qAt "$PG_URL/$DB" -c "SELECT to_regclass('match_checkpoints') IS NOT NULL")
  while read -r path; do
    curl -sf -o /dev/null "$BASE$path" || { echo "warm-up $path failed" >&2; exit 1; }
  done <"$WORK/warmup"
  while IFS=$'\t' read -r game p step id last; do
    [ "$p" = "$point" ] || continue
    kept=-
    if [ "$KEPT_TABLE" = t ]; then
      kept=$(psql -qAt "$PG_URL/$DB" -c "SELECT count(*) FROM match_checkpoints WHERE match_id = '$id'")
    fi
    t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$BASE/api/v1/matches/$id/positions/$step")
    [ "${t%% *}" = 200 ] || { echo "$game $point ($id, step $step) answered ${t%% *}" >&2; exit 1; }
    printf '%s\t%s\n' "$(awk -v t="${t#* }" 'BEGIN { printf "%.2f", t * 1000 }')" "$kept" >"$WORK/first-$game-$point"
  done <"$WORK/targets"
  stop_server
done

# Cold: one restart per step kind, that step of every game asked once.
for point in early middle late; do
  for run in $(seq 1 "$COLD_RUNS"); do
    start_server
    while read -r path; do
      curl -sf -o /dev/null "$BASE$path" || { echo "warm-up $path failed" >&2; exit 1; }
    done <"$WORK/warmup"
    while IFS=$'\t' read -r game p step id last; do
      [ "$p" = "$point" ] || continue
      t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$BASE/api/v1/matches/$id/positions/$step")
      [ "${t%% *}" = 200 ] || { echo "cold $game $point answered ${t%% *}" >&2; exit 1; }
      echo "${t#* }" >>"$WORK/cold-$game-$point"
    done <"$WORK/targets"
    stop_server
  done
done

# Warm: one server, each position first asked once, then driven by wrk.
start_server
printf '%-8s %-6s %6s %6s  %-4s %9s %8s %8s %8s %8s %8s %6s\n' \
  game point step last kind requests req/s p50_ms p95_ms p99_ms max_ms errors
while IFS=$'\t' read -r game point step id last; do
  path="/api/v1/matches/$id/positions/$step"
  IFS=$'\t' read -r first kept <"$WORK/first-$game-$point"
  printf '%-8s %-6s %6s %6s  %-4s %9s %8s %8s %8s %8s %8s %6s  (positions kept with the match before: %s)\n' \
    "$game" "$point" "$step" "$last" first 1 - "$first" "$first" "$first" "$first" 0 "$kept"
  IFS=$'\t' read -r p50 p95 p99 max < <(awk '{ print $1 * 1000 }' "$WORK/cold-$game-$point" | percentiles)
  printf '%-8s %-6s %6s %6s  %-4s %9s %8s %8s %8s %8s %8s %6s\n' \
    "$game" "$point" "$step" "$last" cold "$COLD_RUNS" - "$p50" "$p95" "$p99" "$max" 0
  echo "$path" >"$WORK/path-$game-$point"
  curl -sf -o /dev/null "$BASE$path"
  line=$(PATHS="$WORK/path-$game-$point" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency \
    -s benches/stats/rotate.lua "$BASE" | tee "$WORK/warm-$game-$point.wrk" | grep '^RESULT' || true)
  IFS=$'\t' read -r _ n rps p50 p95 p99 max bad <<<"$line"
  printf '%-8s %-6s %6s %6s  %-4s %9s %8s %8s %8s %8s %8s %6s\n' \
    "$game" "$point" "$step" "$last" warm "$n" "$rps" "$p50" "$p95" "$p99" "$max" "$bad"
done <"$WORK/targets"
stop_server
echo "$(uptime)"
echo "raw output: $WORK"

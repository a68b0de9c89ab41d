#!/usr/bin/env bash
# Statistics at scale (issue 6, item 6): latency of every statistics, leaderboard
# and history endpoint, measured with wrk against the release server on each of
# the given databases in turn (filled beforehand by `sealed-orders simulate`).
# Results: docs/benchmarks.md, "Statistics at scale".
#
#   benches/stats.sh so_scale_10k so_scale_100k
#
# Environment (defaults in brackets):
#   PG_URL        server URL without a database [postgres://postgres@127.0.0.1:5432]
#   DURATION      wrk seconds per endpoint [20]
#   CONNECTIONS   wrk connections [4]
#   THREADS       wrk threads [2]
#   PLAYERS       the most active players whose names are rotated [200]
#   PORT          the server's port [a free one between 20000 and 39999]
#   BIN           the server binary [target/release/sealed-orders, built if missing]
#
# Needs wrk, curl, jq, psql. Changes nothing: every request is a GET.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-4}
THREADS=${THREADS:-2}
PLAYERS=${PLAYERS:-200}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
BIN=${BIN:-target/release/sealed-orders}
[ $# -gt 0 ] || { echo "usage: $0 DATABASE…" >&2; exit 2; }
for tool in wrk curl jq psql:postgresql-client; do
  pkg=${tool#*:} tool=${tool%%:*}
  command -v "$tool" >/dev/null && continue
  echo "$tool is missing; installing $pkg with apt-get" >&2
  apt-get install -y -qq "$pkg" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$pkg" >/dev/null; }
done
[ -x "$BIN" ] || cargo build --release
WORK=target/stats-bench-$(date +%Y%m%d-%H%M%S)
mkdir -p "$WORK"
BASE="http://127.0.0.1:$PORT"
API="$BASE/api/v1"

SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  SERVER_PID=
}
trap stop_server EXIT

start_server() { # DB
  DATABASE_URL="$PG_URL/$1" JWT_SECRET=stats-bench-secret-stats-bench-secret-01 \
    HOST=127.0.0.1 PORT=$PORT LOG_FORMAT=json RUST_LOG=warn \
    "$BIN" serve >"$WORK/server-$1.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    curl -sf "$BASE/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "the server did not become ready; its log:" >&2
  cat "$WORK/server-$1.log" >&2
  exit 1
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uptime)"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, names rotated over the $PLAYERS most active players"
printf '%-8s %-22s %9s %8s %8s %8s %8s %8s %6s\n' db endpoint requests req/s p50_ms p95_ms p99_ms max_ms errors

for DB in "$@"; do
  psql -qAt "$PG_URL/$DB" -c "ANALYZE" >/dev/null
  FINISHED=$(psql -qAt "$PG_URL/$DB" -c "SELECT count(*) FROM matches WHERE status = 'finished'")
  start_server "$DB"
  D="$WORK/$DB"
  mkdir -p "$D"
  psql -qAt "$PG_URL/$DB" -c "SELECT p.name FROM match_seats s JOIN players p ON p.id = s.player_id
      GROUP BY p.name ORDER BY count(*) DESC, p.name LIMIT $PLAYERS" >"$D/names"
  # A ragged window (not on whole hours) inside the simulated months, and a seat count.
  read -r FIRST LAST < <(psql -qAt -F' ' "$PG_URL/$DB" -c "SELECT
      extract(epoch FROM min(finished_at))::bigint, extract(epoch FROM max(finished_at))::bigint
      FROM matches WHERE status = 'finished'")
  : >"$D/game_filtered"
  for k in $(seq 0 19); do
    s=$((FIRST + (LAST - FIRST) * k / 40 + 1237 * k + 611))
    u=$((s + (LAST - FIRST) / 3 + 977 * k))
    echo "/api/v1/games/malacca/stats?since=$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%SZ)&until=$(date -u -d "@$u" +%Y-%m-%dT%H:%M:%SZ)&players=$((2 + k % 7))" >>"$D/game_filtered"
  done
  echo "/api/v1/games/malacca/stats" >"$D/game"
  echo "/api/v1/leaderboards/malacca" >"$D/leaderboard"
  # Later pages of the leaderboard with a minimum of games: pages 2 to 6.
  : >"$D/leaderboard_later"
  url="$API/leaderboards/malacca?min_games=20&limit=50"
  for _ in 1 2 3 4 5; do
    c=$(curl -sf "$url" | jq -r '.next_cursor // empty')
    [ -n "$c" ] || break
    url="$API/leaderboards/malacca?min_games=20&limit=50&cursor=$c"
    echo "${url#$BASE}" >>"$D/leaderboard_later"
  done
  [ -s "$D/leaderboard_later" ] || echo "/api/v1/leaderboards/malacca?min_games=20" >"$D/leaderboard_later"
  # Replay bundles of 200 finished matches drawn at random (a history viewer's read),
  # among those with their moves (replicate.sql's moves_copies leaves some without).
  psql -qAt "$PG_URL/$DB" -c "SELECT '/api/v1/matches/' || id || '/export' FROM matches m
      WHERE status = 'finished' AND EXISTS (SELECT 1 FROM moves mv WHERE mv.match_id = m.id)
      ORDER BY md5(id::text) LIMIT 200" >"$D/export"
  sed 's|.*|/api/v1/players/&/stats|' "$D/names" >"$D/player"
  sed 's|.*|/api/v1/players/&/stats?game=malacca|' "$D/names" >"$D/player_game"
  sed 's|.*|/api/v1/players/&/ratings?game=malacca|' "$D/names" >"$D/ratings"
  sed 's|.*|/api/v1/matches?player=&\&status=finished|' "$D/names" >"$D/match_list"
  # Every path must answer 200 before it is timed.
  for f in player player_game game game_filtered leaderboard leaderboard_later ratings match_list export; do
    p=$(head -1 "$D/$f")
    code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE$p")
    [ "$code" = 200 ] || { echo "$p answered $code" >&2; exit 1; }
  done
  for f in player player_game game game_filtered leaderboard leaderboard_later ratings match_list export; do
    line=$(PATHS="$D/$f" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency \
      -s benches/stats/rotate.lua "$BASE" | tee "$D/$f.wrk" | grep '^RESULT' || true)
    IFS=$'\t' read -r _ n rps p50 p95 p99 max bad <<<"$line"
    printf '%-8s %-22s %9s %8s %8s %8s %8s %8s %6s\n' "$FINISHED" "$f" "$n" "$rps" "$p50" "$p95" "$p99" "$max" "$bad"
  done
  stop_server
done
echo "raw wrk output: $WORK"

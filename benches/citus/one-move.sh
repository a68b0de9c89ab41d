#!/usr/bin/env bash
# One move on the local Citus cluster (.ci/citus-cluster.sh up), and how many
# prepared (two-phase) transactions each request leaves in pg_dist_transaction:
# creating a match, joining it, reading it, one move, and the moves that
# finish the first round (its records written with the last of them). Needs a release build
# (cargo build --release) or SERVER_BIN, curl and jq.
#
#   benches/citus/one-move.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
C="postgres://postgres@127.0.0.1:5440/so"
S=so_onemove
psql "$C" -qc "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S"
psql "$C" -qc "ALTER SYSTEM SET citus.recover_2pc_interval = -1" -c "SELECT pg_reload_conf()" >/dev/null
PORT=18777
DATABASE_URL=$C DATABASE_SCHEMA=$S CITUS_SHARD_COUNT=32 PORT=$PORT JWT_SECRET=x-secret-x-secret-x-secret-x-secret-xx \
  RATE_LIMIT_AUTH_PER_MIN=0 LOG_FORMAT=json RUST_LOG=warn ${SERVER_BIN:-target/release/sealed-orders} >${TMPDIR:-/tmp}/one-move-server.log 2>&1 &
SP=$!
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
A=http://127.0.0.1:$PORT/api/v1
for n in ann ben; do curl -sf -X POST $A/players -H 'content-type: application/json' -d "{\"name\":\"$n\",\"password\":\"password1\"}" >/dev/null; done
T1=$(curl -sf -X POST $A/auth/token -H 'content-type: application/json' -d '{"name":"ann","password":"password1"}' | jq -r .access_token)
T2=$(curl -sf -X POST $A/auth/token -H 'content-type: application/json' -d '{"name":"ben","password":"password1"}' | jq -r .access_token)
count() { psql "$C" -Atqc "SELECT count(DISTINCT gid) FROM pg_dist_transaction"; }
c0=$(count)
ID=$(curl -sf -X POST $A/matches -H "authorization: Bearer $T1" -H 'content-type: application/json' -d '{"game":"malacca","seats":2}' | jq -r .id)
c1=$(count)
curl -sf -X POST $A/matches/$ID/join -H "authorization: Bearer $T2" -H 'content-type: application/json' -d '{}' >/dev/null
c2=$(count)
M=$(curl -sf $A/matches/$ID -H "authorization: Bearer $T1")
SEAT=$(jq -r '.prompt.awaiting[0]' <<<"$M"); STEP=$(jq -r .prompt.step <<<"$M")
TOK=$([ "$SEAT" = 0 ] && echo $T1 || echo $T2)
c3=$(count)
curl -sf -X POST $A/matches/$ID/moves -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d "{\"step\":$STEP,\"action\":{\"type\":\"play\",\"card\":\"attack\",\"stake\":0}}" >/dev/null || echo "move refused"
c4=$(count)
curl -sf $A/matches/$ID -H "authorization: Bearer $TOK" >/dev/null
c5=$(count)
# Then the moves up to the end of the first round, which write the round's
# records (rounds, round seats, ledger lines) with the move that resolves it.
moves=1
while [ "$(curl -sf "$A/matches/$ID/rounds" -H "authorization: Bearer $T1" | jq '.items | length')" = 0 ] && [ $moves -lt 40 ]; do
  SEAT=$(curl -sf $A/matches/$ID | jq -r '.prompt.awaiting[0]')
  TOK=$([ "$SEAT" = 0 ] && echo $T1 || echo $T2)
  M=$(curl -sf $A/matches/$ID -H "authorization: Bearer $TOK")
  STEP=$(jq -r .prompt.step <<<"$M")
  ACT=$(jq -c '.prompt.legal[0] | if .template then {type: "play", card: .cards[0], stake: .stake.min} else . end' <<<"$M")
  curl -sf -X POST $A/matches/$ID/moves -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d "{\"step\":$STEP,\"action\":$ACT}" >/dev/null || { echo "move refused: $ACT"; break; }
  moves=$((moves + 1))
done
c6=$(count)
echo "prepared transactions: create match $((c1-c0)), join+start $((c2-c1)), read $((c3-c2)), one move $((c4-c3)), read $((c5-c4)), $((moves - 1)) more moves to the end of the first round $((c6-c5))"
psql "$C" -Atqc "SELECT gid FROM pg_dist_transaction ORDER BY gid" | tail -4
kill $SP
psql "$C" -qc "ALTER SYSTEM RESET citus.recover_2pc_interval" -c "SELECT pg_reload_conf()" >/dev/null
psql "$C" -qc "DROP SCHEMA IF EXISTS $S CASCADE"

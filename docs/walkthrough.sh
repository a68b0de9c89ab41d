#!/usr/bin/env bash
# The README's walk-through as a script: three players, one Malacca match, one
# round played over the HTTP API. Needs curl and jq and a running server:
#   BASE=http://127.0.0.1:8080 docs/walkthrough.sh
set -euo pipefail
BASE="${BASE:-http://127.0.0.1:8080}"
API="$BASE/api/v1"
suffix="${RANDOM}"

# 1. Register three players and get a token for each.
for name in alice bob carol; do
  curl -sf -X POST "$API/players" -H 'content-type: application/json' \
    -d "{\"name\":\"${name}${suffix}\",\"password\":\"correct horse\"}" >/dev/null
done
token() {
  curl -sf -X POST "$API/auth/token" -H 'content-type: application/json' \
    -d "{\"name\":\"$1${suffix}\",\"password\":\"correct horse\"}" | jq -r .access_token
}
ALICE=$(token alice); BOB=$(token bob); CAROL=$(token carol)

# 2. Alice creates a 3-seat Malacca match (ships given, so the round is known);
#    Bob and Carol join, and the match starts when the last seat is taken.
MATCH=$(curl -sf -X POST "$API/matches" -H "authorization: Bearer $ALICE" \
  -H 'content-type: application/json' \
  -d '{"game":"malacca","seats":3,"options":{"ships":[9,6,11]}}' | jq -r .id)
curl -sf -X POST "$API/matches/$MATCH/join" -H "authorization: Bearer $BOB" >/dev/null
curl -sf -X POST "$API/matches/$MATCH/join" -H "authorization: Bearer $CAROL" \
  | jq '{status, seats: [.seats[].player.name], round: .view.round, ship: .view.ship_value}'

# 3. Play one round: each seat bets in turn, from the captain. The prompt says
#    whose turn it is and which step to submit; `legal` lists what they may do.
TOKENS=("$ALICE" "$BOB" "$CAROL")
for _ in 1 2 3; do
  PROMPT=$(curl -sf "$API/matches/$MATCH" | jq .prompt)
  SEAT=$(echo "$PROMPT" | jq '.awaiting[0]')
  STEP=$(echo "$PROMPT" | jq .step)
  curl -sf "$API/matches/$MATCH" -H "authorization: Bearer ${TOKENS[$SEAT]}" | jq -c .prompt.legal
  curl -sf -X POST "$API/matches/$MATCH/moves" -H "authorization: Bearer ${TOKENS[$SEAT]}" \
    -H 'content-type: application/json' \
    -d "{\"step\":$STEP,\"action\":{\"type\":\"play\",\"card\":\"trade\",\"stake\":1}}" | jq -c '{step, seat, completes_step}'
done

# 4. The round is resolved: read its history (cards, stakes, outcome, every coin change).
curl -sf "$API/matches/$MATCH/rounds" | jq -c '.items[0] | {round, value, outcome, seats: [.seats[] | {seat, card, stake, delta}]}'
echo "walk-through done: match $MATCH"

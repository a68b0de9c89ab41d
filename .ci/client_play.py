"""Plays a complete Malacca match through a client generated from openapi/openapi.json,
and checks that a Kontor match's prompt parses as Kontor's (a match's document is
its game's, told apart by `game`).

Usage: python3 client_play.py BASE_URL DIR_WITH_sealed_orders_client
"""

import random
import sys
import uuid

sys.path.insert(0, sys.argv[2])

from sealed_orders_client import AuthenticatedClient, Client  # noqa: E402
from sealed_orders_client.api.auth import create_token  # noqa: E402
from sealed_orders_client.api.matches import create_match, get_match, join_match  # noqa: E402
from sealed_orders_client.api.moves import list_rounds, submit_move  # noqa: E402
from sealed_orders_client.api.players import create_player  # noqa: E402
from sealed_orders_client.models import (  # noqa: E402
    CreateMatchRequest,
    JoinMatchRequest,
    CreatePlayerRequest,
    KontorActionType1,
    KontorMatch,
    MalaccaMatch,
    SubmitMoveRequest,
    TokenRequest,
)

BASE = sys.argv[1]
rng = random.Random(7)
anonymous = Client(base_url=BASE)


def choose(legal):
    """A uniform legal action from the prompt's list (complete actions or templates)."""
    entry = rng.choice(legal)
    if not entry.get("template"):
        return entry
    action = {"type": entry["type"]}
    for key, value in entry.items():
        if key in ("type", "template"):
            continue
        if isinstance(value, list):
            action[key[:-1]] = rng.choice(value)
        elif isinstance(value, dict) and "subset_of" in value:
            k = rng.randint(value["min"], min(value["max"], len(value["subset_of"])))
            action[key] = rng.sample(value["subset_of"], k)
        elif isinstance(value, dict) and "min" in value:
            action[key] = rng.randint(value["min"], value["max"])
        else:
            action[key] = value
    return action


players = []
for i in range(3):
    name = f"gen{i}_{uuid.uuid4().hex[:8]}"
    made = create_player.sync_detailed(client=anonymous, body=CreatePlayerRequest(name=name, password="password1"))
    assert made.status_code == 201, made.content
    token = create_token.sync(client=anonymous, body=TokenRequest(name=name, password="password1"))
    players.append(AuthenticatedClient(base_url=BASE, token=token.access_token))

request = CreateMatchRequest.from_dict({"game": "malacca", "seats": 3, "options": {"ships": [9, 4, 12]}})
created = create_match.sync_detailed(client=players[0], body=request)
assert created.status_code == 201, created.content
match_id = created.parsed.id
for p in players[1:]:
    joined = join_match.sync_detailed(match_id, client=p, body=JoinMatchRequest())
    assert joined.status_code == 200, joined.content

moves = 0
while True:
    m = get_match.sync_detailed(match_id, client=anonymous)
    assert m.status_code == 200, m.content
    assert isinstance(m.parsed, MalaccaMatch), type(m.parsed)
    if m.parsed.status != "active":
        break
    seat = m.parsed.prompt.awaiting[0]
    mine = get_match.sync_detailed(match_id, client=players[seat]).parsed
    prompt = mine.prompt.to_dict()
    action = choose(prompt["legal"])
    body = SubmitMoveRequest.from_dict({"step": prompt["step"], "action": action})
    sent = submit_move.sync_detailed(match_id, client=players[seat], body=body)
    assert sent.status_code == 200, sent.content
    moves += 1
    assert moves < 500, "the match does not end"

assert m.parsed.status == "finished", m.parsed.status
rounds = list_rounds.sync_detailed(match_id, client=anonymous)
assert rounds.status_code == 200
assert len(rounds.parsed.items) == 3
# Kontor's `{"type":"pass"}` has the shape of Malacca's: it parses as Kontor's
# because the match document is Kontor's.
request = CreateMatchRequest.from_dict({"game": "kontor", "seats": 2})
kontor = create_match.sync_detailed(client=players[0], body=request)
assert kontor.status_code == 201, kontor.content
joined = join_match.sync_detailed(kontor.parsed.id, client=players[1], body=JoinMatchRequest()).parsed
assert isinstance(joined, KontorMatch), type(joined)
seat = joined.prompt.awaiting[0]
mine = get_match.sync_detailed(kontor.parsed.id, client=players[seat]).parsed
assert isinstance(mine, KontorMatch), type(mine)
passes = [entry for entry in mine.prompt.legal if entry.to_dict() == {"type": "pass"}]
assert passes and all(isinstance(p, KontorActionType1) for p in passes), mine.prompt.legal

print(f"generated client: played match {match_id} to the end in {moves} moves; "
      f"ranking {[(p.seat, p.score, p.rank) for p in m.parsed.result]}")

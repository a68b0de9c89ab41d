"""Plays a match of every game over HTTP and checks every document against the
OpenAPI document with a strict JSON Schema validator (draft 2020-12): every legal
move listed, every action submitted (as the game's action and as the request's
`GameAction`), every match, receipt, page of moves, events and rounds.

Usage: python3 validate.py BASE_URL [SPEC.json]
(the spec defaults to the one the server serves). Needs `jsonschema`.
"""

import json
import random
import sys
import urllib.error
import urllib.request
import uuid

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE = sys.argv[1].rstrip("/")
API = f"{BASE}/api/v1"
rng = random.Random(11)


def http(method, path, body=None, token=None, expect=(200,)):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(API + path, data=data, method=method)
    if body is not None:
        req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read()
    doc = json.loads(text) if text else None
    if status not in expect:
        raise SystemExit(f"{method} {path}: {status} {doc}")
    return status, doc


if len(sys.argv) > 2:
    with open(sys.argv[2]) as f:
        spec = json.load(f)
else:
    spec = http("GET", "/openapi.json")[1]

# The document's components, addressable by the `$ref`s inside it.
registry = Registry().with_resource("urn:spec", Resource(spec, specification=DRAFT202012))
checked = {}


def check(schema_name, doc):
    """Validates `doc` against components/schemas/<schema_name>, strictly."""
    schema = {"$ref": f"urn:spec#/components/schemas/{schema_name}"}
    e = best_match(Draft202012Validator(schema, registry=registry).iter_errors(doc))
    if e is not None:
        raise SystemExit(
            f"not a valid {schema_name} at {list(e.absolute_path)}: {e.message[:500]}\n"
            f"(schema {list(e.absolute_schema_path)})"
        )
    checked[schema_name] = checked.get(schema_name, 0) + 1


def pascal(game):
    return game[0].upper() + game[1:]


def fill(entry):
    """A uniform legal action from a legal entry (complete, or a template)."""
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
        elif isinstance(value, dict) and set(value) == {"min", "max"}:
            action[key] = rng.randint(value["min"], value["max"])
        else:
            action[key] = value
    return action


def player():
    name = f"v{uuid.uuid4().hex[:12]}"
    http("POST", "/players", {"name": name, "password": "password1"}, expect=(201,))
    _, token = http("POST", "/auth/token", {"name": name, "password": "password1"})
    return token["access_token"]


def play(game, seats, options):
    tokens = [player() for _ in range(seats)]
    _, m = http(
        "POST",
        "/matches",
        {"game": game, "seats": seats, "options": options},
        tokens[0],
        expect=(201,),
    )
    check("MatchResponse", m)
    for t in tokens[1:]:
        _, m = http("POST", f"/matches/{m['id']}/join", token=t)
        check("MatchResponse", m)
    match_id, kind = m["id"], f"{pascal(game)}"
    moves = 0
    while True:
        _, m = http("GET", f"/matches/{match_id}")
        check(f"{kind}Match", m)
        check("MatchResponse", m)
        if m["status"] != "active":
            break
        seat = m["prompt"]["awaiting"][0]
        _, mine = http("GET", f"/matches/{match_id}", token=tokens[seat])
        check(f"{kind}Match", mine)
        legal = mine["prompt"]["legal"]
        for entry in legal:
            check(f"{kind}LegalMove", entry)
            # A complete action listed is an action of its game, and a request's action.
            if not entry.get("template"):
                check(f"{kind}Action", entry)
                check("GameAction", entry)
        action = fill(rng.choice(legal))
        check(f"{kind}Action", action)
        body = {"step": mine["prompt"]["step"], "action": action}
        check("SubmitMoveRequest", body)
        _, receipt = http("POST", f"/matches/{match_id}/moves", body, tokens[seat])
        check("MoveReceipt", receipt)
        moves += 1
        if moves > 5000:
            raise SystemExit(f"{game}: the match does not end")
    if m["status"] != "finished":
        raise SystemExit(f"{game}: ended {m['status']}")
    _, rounds = http("GET", f"/matches/{match_id}/rounds")
    check("RoundPage", rounds)
    if not rounds["items"]:
        raise SystemExit(f"{game}: no rounds recorded")
    for r in rounds["items"]:
        if r.get("subject") is None:
            raise SystemExit(f"{game}: round {r['round']} does not say what it was about")
    for what, schema in (("moves", "MovePage"), ("events", "EventPage")):
        cursor = None
        while True:
            q = f"?limit=200&cursor={cursor}" if cursor else "?limit=200"
            _, page = http("GET", f"/matches/{match_id}/{what}{q}")
            check(schema, page)
            cursor = page["next_cursor"]
            if not cursor:
                break
    for step in sorted({0, m["step"] // 2, m["step"]}):
        _, pos = http("GET", f"/matches/{match_id}/positions/{step}", token=tokens[0])
        check("PositionResponse", pos)
    _, feed = http("GET", "/players/me/events?limit=200", token=tokens[0])
    check("PlayerEventPage", feed)
    print(f"{game} {options or ''}: {moves} moves, every document valid")


def options_schemas():
    """Each game's `options_schema` holds what `POST /matches` takes and refuses
    what it refuses."""
    _, games = http("GET", "/games")
    for g in games:
        token = player()
        _, game = http("GET", f"/games/{g['id']}")
        check("GameResponse", game)
        v = Draft202012Validator(game["options_schema"])
        Draft202012Validator.check_schema(game["options_schema"])
        seats = game["seats"][0]
        for options, ok in (
            ({}, True),
            (dict(game["options"]), True),
            ({"move_time_limit": 3600, "timeout_policy": "forfeit"}, True),
            ({"rated": False}, True),
            ({"no_such_option": 1}, False),
            ({"move_time_limit": 0}, False),
        ):
            valid = not list(v.iter_errors(options))
            if valid != ok:
                raise SystemExit(f"{g['id']}: the schema {'refuses' if ok else 'takes'} {options}")
            status, _ = http(
                "POST",
                "/matches",
                {"game": g["id"], "seats": seats, "options": options},
                token,
                expect=(201, 422),
            )
            if (status == 201) != ok:
                raise SystemExit(f"{g['id']}: POST /matches answered {status} to {options}")
        print(f"{g['id']}: options_schema agrees with POST /matches")


def lobby_and_export():
    """The lobby's page, and the bulk export's lines with their positions."""
    _, lobby = http("GET", "/lobby/events?limit=200")
    check("LobbyEventPage", lobby)
    if not lobby["items"]:
        raise SystemExit("the lobby told of no match")
    with urllib.request.urlopen(API + "/exports/matches?limit=4&positions=true") as r:
        lines = r.read().decode().splitlines()
    if not lines:
        raise SystemExit("the export has no finished match")
    for line in lines:
        bundle = json.loads(line)
        positions = bundle.pop("positions")
        check("ReplayBundle", bundle)
        for p in positions:
            check("PositionResponse", p)
    print(f"lobby page and {len(lines)} exported matches with their positions: valid")


options_schemas()
play("malacca", 3, {})
play("malacca", 4, {"stakes": "sealed"})
play("heretics", 3, {})
play("kontor", 2, {})
play("kontor", 2, {"variant": "duel"})
play("cairo", 2, {})
play("cairo", 3, {"mode": "simulated"})
lobby_and_export()
print("validated: " + ", ".join(f"{k} {v}" for k, v in sorted(checked.items())))

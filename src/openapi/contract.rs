//! The parts of the document that make it a contract generated clients can type
//! precisely: each game's legal moves and prompts, per-game match documents told
//! apart by `game`, closed value sets (enums), ranges, examples and servers.

use serde_json::{Map, Value, json};

use super::{GameDocs, SCHEMA_REF, pascal};

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("{SCHEMA_REF}{name}") })
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix(SCHEMA_REF)
}

fn nullable(v: Value) -> Value {
    json!({ "oneOf": [v, {"type": "null"}] })
}

/// Replaces a property's schema, keeping its description.
fn set_property(schema: &mut Value, prop: &str, mut new: Value) {
    let Some(p) = schema.get_mut("properties").and_then(|p| p.get_mut(prop)) else {
        return;
    };
    if let (Some(d), Some(o)) = (p.get("description").cloned(), new.as_object_mut()) {
        o.entry("description").or_insert(d);
    }
    *p = new;
}

fn string_enum<S: AsRef<str>>(values: &[S]) -> Value {
    let values: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
    json!({ "type": "string", "enum": values })
}

/// Marks every object variant of an action or template union closed, as the
/// server reads them (`deny_unknown_fields`): a strict validator then never takes
/// one game's action for another game's shape with extra fields.
fn close_variants(schema: &mut Value) {
    match schema.get_mut("oneOf").and_then(Value::as_array_mut) {
        Some(variants) => {
            for v in variants {
                if let Some(o) = v.as_object_mut()
                    && o.get("type") == Some(&Value::from("object"))
                {
                    o.insert("additionalProperties".into(), false.into());
                }
            }
        }
        None => {
            if let Some(o) = schema.as_object_mut() {
                o.insert("additionalProperties".into(), false.into());
            }
        }
    }
}

/// The match states, as `status` says them.
pub const MATCH_STATUSES: [&str; 4] = ["waiting", "active", "finished", "aborted"];

/// Every problem `code` the server answers with. A test checks the source for
/// codes missing here.
pub const ERROR_CODES: &[&str] = &[
    "account_disabled",
    "already_entered",
    "already_member",
    "already_moved",
    "already_requested",
    "already_seated",
    "already_withdrawn",
    "bundle_too_large",
    "busy",
    "cannot_mute_yourself",
    "chat_message_not_found",
    "chat_off",
    "chat_players_only",
    "club_name_taken",
    "club_not_found",
    "database_unavailable",
    "duplicate_authorization",
    "game_not_found",
    "idempotency_key_reused",
    "illegal_move",
    "insufficient_scope",
    "internal",
    "invalid_action",
    "invalid_authorization_request",
    "invalid_body",
    "invalid_characters",
    "invalid_chat",
    "invalid_chat_message",
    "invalid_client_id",
    "invalid_club_name",
    "invalid_count",
    "invalid_credentials",
    "invalid_cursor",
    "invalid_description",
    "invalid_email",
    "invalid_events",
    "invalid_expiry",
    "invalid_extension",
    "invalid_format",
    "invalid_idempotency_key",
    "invalid_include",
    "invalid_invite",
    "invalid_join_code",
    "invalid_join_policy",
    "invalid_last_event_id",
    "invalid_limit",
    "invalid_locale",
    "invalid_mail_token",
    "invalid_max_players",
    "invalid_name",
    "invalid_notification_settings",
    "invalid_options",
    "invalid_path",
    "invalid_position",
    "invalid_query",
    "invalid_reason",
    "invalid_redirect_uri",
    "invalid_role",
    "invalid_round_interval",
    "invalid_rounds",
    "invalid_scopes",
    "invalid_seat",
    "invalid_seats",
    "invalid_starts_at",
    "invalid_status",
    "invalid_table_size",
    "invalid_ticket",
    "invalid_time_zone",
    "invalid_token",
    "invalid_token_name",
    "invalid_vacation",
    "invalid_visibility",
    "invalid_wait",
    "invalid_webhook_url",
    "invitation_answered",
    "invitation_declined",
    "invitation_expired",
    "invitation_not_found",
    "invitation_required",
    "join_code_not_found",
    "malformed_json",
    "match_full",
    "match_not_active",
    "match_not_finished",
    "match_not_found",
    "match_not_waiting",
    "match_over",
    "member_not_found",
    "method_not_allowed",
    "name_taken",
    "no_clock",
    "not_admin",
    "not_chat_moderator",
    "not_club_admin",
    "not_club_member",
    "not_club_owner",
    "not_enough_players",
    "not_entered",
    "not_found",
    "not_on_vacation",
    "not_owner",
    "not_seated",
    "not_your_turn",
    "on_vacation",
    "own_account",
    "own_admin_role",
    "own_role",
    "own_seat",
    "owner_must_hand_over",
    "password_changed_concurrently",
    "password_session_required",
    "payload_too_large",
    "player_not_found",
    "position_not_found",
    "rate_limited",
    "reliability_too_low",
    "request_not_found",
    "seat_forfeited",
    "seat_not_awaited",
    "seat_taken",
    "spectators_not_allowed",
    "stale_step",
    "token_not_found",
    "too_many_clubs",
    "too_many_confirmations",
    "too_many_invitations",
    "too_many_tokens",
    "too_many_tournaments",
    "too_many_waiting_matches",
    "too_many_webhooks",
    "tournament_full",
    "tournament_not_found",
    "tournament_over",
    "tournament_started",
    "unauthorized",
    "unknown_bot",
    "unknown_game",
    "unknown_invitee",
    "unsubscribe_link_invalid",
    "unsupported_media_type",
    "vacations_off",
    "weak_password",
    "webhook_not_found",
    "wrong_password",
];

/// Each game's legal moves, prompt and match document, and the unions over them.
pub(super) fn per_game(schemas: &mut Map<String, Value>, games: &[GameDocs]) {
    for g in games {
        for r in std::iter::once(&g.action).chain(&g.template) {
            if let Some(s) = ref_name(r).and_then(|n| schemas.get_mut(n)) {
                close_variants(s);
            }
        }
    }
    let prompt = schemas
        .get("PromptResponse")
        .cloned()
        .unwrap_or(Value::Null);
    let base = schemas.get("MatchResponse").cloned().unwrap_or(Value::Null);
    let ids: Vec<&str> = games.iter().map(|g| g.id).collect();
    let mut all_kinds: Vec<&str> = Vec::new();
    let mut matches = Vec::new();
    let mut legal_moves = Vec::new();
    let mut mapping = Map::new();
    for g in games {
        let p = pascal(g.id);
        let mut legal = vec![g.action.clone()];
        legal.extend(g.template.clone());
        schemas.insert(
            format!("{p}LegalMove"),
            json!({
                "description": format!("A legal move of {p}: a complete action, or a template \
                    (`\"template\": true`) whose plural lists, `{{min,max}}` ranges and \
                    `{{subset_of,min,max}}` subsets are to be filled in."),
                "oneOf": legal,
            }),
        );
        legal_moves.push(reference(&format!("{p}LegalMove")));

        let mut pr = prompt.clone();
        let mut kind = string_enum(g.prompt_kinds);
        kind["description"] = "The kind of decision.".into();
        set_property(&mut pr, "kind", kind);
        set_property(
            &mut pr,
            "legal",
            nullable(json!({"type": "array", "items": reference(&format!("{p}LegalMove"))})),
        );
        if let Some(o) = pr.as_object_mut() {
            o.insert(
                "description".into(),
                format!("Who must act now in a {p} match, and what the caller may do.").into(),
            );
        }
        schemas.insert(format!("{p}Prompt"), pr);
        for k in g.prompt_kinds {
            if !all_kinds.contains(k) {
                all_kinds.push(k);
            }
        }

        let mut m = base.clone();
        set_property(&mut m, "game", string_enum(&[g.id]));
        set_property(&mut m, "view", nullable(g.view.clone()));
        set_property(&mut m, "prompt", nullable(reference(&format!("{p}Prompt"))));
        if let Some(options) = schemas
            .get("MatchOptions")
            .and_then(|o| o.get("oneOf"))
            .and_then(Value::as_array)
            .and_then(|refs| {
                refs.iter()
                    .find(|r| ref_name(r).is_some_and(|n| n.starts_with(&p)))
            })
            .cloned()
        {
            set_property(&mut m, "options", options);
        }
        if let Some(o) = m.as_object_mut() {
            o.insert(
                "description".into(),
                format!("A {p} match, as one caller may see it.").into(),
            );
        }
        schemas.insert(format!("{p}Match"), m);
        matches.push(reference(&format!("{p}Match")));
        mapping.insert(g.id.into(), format!("{SCHEMA_REF}{p}Match").into());
    }
    schemas.insert(
        "MatchResponse".into(),
        json!({
            "description": "A match, as one caller may see it: the document of its game, told \
                apart by `game`.",
            "oneOf": matches,
            "discriminator": {"propertyName": "game", "mapping": mapping},
        }),
    );
    schemas.insert(
        "GameLegalMove".into(),
        json!({"description": "A legal move of the match's game.", "anyOf": legal_moves}),
    );
    if let Some(pr) = schemas.get_mut("PromptResponse") {
        set_property(pr, "kind", string_enum(&all_kinds));
        set_property(
            pr,
            "legal",
            nullable(json!({"type": "array", "items": reference("GameLegalMove")})),
        );
    }
    schemas.insert(
        "GameId".into(),
        json!({"type": "string", "enum": ids, "description": "A game of the catalogue."}),
    );
    schemas.insert(
        "MatchStatus".into(),
        json!({"type": "string", "enum": MATCH_STATUSES,
            "description": "`waiting` for players, `active`, `finished`, or `aborted` (cancelled)."}),
    );
    for name in ids.iter().map(|id| format!("{}Match", pascal(id))) {
        if let Some(m) = schemas.get_mut(&name) {
            set_property(m, "status", reference("MatchStatus"));
        }
    }
    if let Some(m) = schemas.get_mut("MatchSummary") {
        set_property(m, "status", reference("MatchStatus"));
    }
    for (schema, prop) in [
        ("MatchSummary", "game"),
        ("TurnResponse", "game"),
        ("RatingResponse", "game"),
        ("RatingChange", "game"),
        ("PlayerGameStats", "game"),
        ("GameStatsResponse", "game"),
        ("CreateMatchRequest", "game"),
        ("GameResponse", "id"),
    ] {
        if let Some(s) = schemas.get_mut(schema) {
            set_property(s, prop, reference("GameId"));
        }
    }
    if let Some(t) = schemas.get_mut("TurnResponse") {
        set_property(t, "kind", string_enum(&all_kinds));
    }
    if let Some(d) = schemas.get_mut("DeliveryResponse") {
        set_property(
            d,
            "status",
            string_enum(&["pending", "delivered", "failed"]),
        );
    }
    if let Some(s) = schemas.get_mut("SeatResponse") {
        set_property(
            s,
            "presence",
            nullable(string_enum(&["present", "absent", "forfeited"])),
        );
    }
    if let Some(p) = schemas.get_mut("Problem") {
        set_property(p, "code", string_enum(ERROR_CODES));
    }
    typed_events(schemas, games);
}

/// The server's own lifecycle events (besides the games' own), with the
/// schema of their `data`. `round_resolved` is left to the games: some write
/// their own, with more in it.
fn lifecycle_events() -> Vec<(&'static str, &'static str, Value)> {
    let seat = json!({"type": "integer", "minimum": 0});
    let player = json!({"type": "string", "format": "uuid"});
    let object = |props: Value, required: &[&str]| {
        json!({"type": "object", "properties": props, "required": required,
            "additionalProperties": false})
    };
    vec![
        (
            "player_joined",
            "A seat was taken (by a bot account when `bot` is given).",
            object(
                json!({"seat": seat, "player": player, "bot": {"type": "string"}}),
                &["seat", "player"],
            ),
        ),
        (
            "player_left",
            "A player left a waiting match.",
            object(json!({"seat": seat, "player": player}), &["seat", "player"]),
        ),
        (
            "match_started",
            "Every seat was taken; seats are as they play.",
            object(
                json!({
                    "seats": {"type": "array", "items": object(json!({
                        "seat": seat,
                        "player": {"oneOf": [player, {"type": "null"}]},
                        "bot": {"type": ["string", "null"]},
                    }), &["seat", "player", "bot"])},
                    "rated": {"type": "boolean"},
                }),
                &["seats", "rated"],
            ),
        ),
        (
            "seat_submitted",
            "A seat moved in this step (never what).",
            object(
                json!({"seat": seat, "step": {"type": "integer"}}),
                &["seat", "step"],
            ),
        ),
        (
            "move_replaced",
            "A seat replaced its sealed move in this step before the reveal (never what; \
             `commitment` is the replaced move's). A `seat_submitted` for the new move follows.",
            object(
                json!({"seat": seat, "step": {"type": "integer"}, "commitment": {"type": ["string", "null"]}}),
                &["seat", "step", "commitment"],
            ),
        ),
        (
            "step_resolved",
            "The step is complete; the match is at `next_step`.",
            object(
                json!({"step": {"type": "integer"}, "next_step": {"type": "integer"}}),
                &["step", "next_step"],
            ),
        ),
        (
            "match_finished",
            "The match is over: its placings, best first, and the seats that forfeited.",
            object(
                json!({
                    "placings": {"type": "array", "items": object(json!({
                        "seat": seat, "score": {"type": "integer"},
                        "rank": {"type": "integer", "minimum": 1},
                    }), &["seat", "score", "rank"])},
                    "forfeited": {"type": "array", "items": seat},
                }),
                &["placings", "forfeited"],
            ),
        ),
        (
            "match_aborted",
            "The match was cancelled before it started: by its owner (`cancelled`), \
             because its last player left (`abandoned`), or by the server after nobody \
             joined or left for `STALE_LOBBY_DAYS` (`stale`). Events recorded before \
             the reason was given have none.",
            object(
                json!({"reason": {"type": "string", "enum": ["cancelled", "abandoned", "stale"]}}),
                &[],
            ),
        ),
        (
            "seat_timed_out",
            "A seat's time ran out; the match's policy applies.",
            object(
                json!({"seat": seat, "policy": {"type": "string", "enum": ["bot", "forfeit"]}}),
                &["seat", "policy"],
            ),
        ),
        (
            "seat_extended",
            "A seat owing a move was given more time: by another seat (`by` is its \
             number) or by one of the match's grace extensions when its time ran out \
             (`by` is null; `graces_left` says how many it has left). `deadline` is its \
             new deadline.",
            object(
                json!({
                    "seat": seat,
                    "seconds": {"type": "integer", "minimum": 1},
                    "by": {"oneOf": [seat, {"type": "null"}]},
                    "graces_left": {"type": ["integer", "null"], "minimum": 0},
                    "deadline": {"type": ["string", "null"], "format": "date-time"},
                }),
                &["seat", "seconds", "by", "graces_left", "deadline"],
            ),
        ),
        (
            "seat_on_vacation",
            "The seat's player went on vacation until `until`: the seat's clock stands \
             until then, or until `seat_back_from_vacation`.",
            object(
                json!({"seat": seat, "until": {"type": "string", "format": "date-time"}}),
                &["seat", "until"],
            ),
        ),
        (
            "seat_back_from_vacation",
            "The seat's player came back from vacation early: its clock runs again.",
            object(json!({"seat": seat}), &["seat"]),
        ),
        (
            "seat_returned",
            "An absent seat's player is back, by moving or by `POST /matches/{id}/return`.",
            object(
                json!({"seat": seat, "by": {"type": "string", "enum": ["move", "return"]}}),
                &["seat", "by"],
            ),
        ),
        (
            "seat_forfeited",
            "A seat forfeited: it resigned, or its time ran out under `forfeit`.",
            object(
                json!({"seat": seat, "reason": {"type": "string", "enum": ["resigned", "timeout"]}}),
                &["seat", "reason"],
            ),
        ),
        (
            "invitation_sent",
            "The match's owner invited `player` until `expires_at`; the invitee's feed, \
             stream and webhooks carry the match's public events while it is invited.",
            object(
                json!({"player": player, "invited_by": player,
                       "expires_at": {"type": "string", "format": "date-time"}}),
                &["player", "invited_by", "expires_at"],
            ),
        ),
        (
            "invitation_accepted",
            "An invitee accepted (its `player_joined` comes with it).",
            object(json!({"player": player}), &["player"]),
        ),
        (
            "invitation_declined",
            "An invitee declined.",
            object(json!({"player": player}), &["player"]),
        ),
        (
            "tournament_round_started",
            "The server created this match for `round` of `tournament`, at `table`; \
             its players' feeds, streams and webhooks carry it, as its other events.",
            object(
                json!({"tournament": player,
                       "round": {"type": "integer", "minimum": 1},
                       "table": {"type": "integer", "minimum": 1}}),
                &["tournament", "round", "table"],
            ),
        ),
    ]
}

/// `EventResponse` and `PlayerEventResponse` as unions told apart by `kind`:
/// one document per lifecycle event with its `data` typed, and one for the
/// games' own events (their kinds listed; their data described on each game's
/// rules page).
fn typed_events(schemas: &mut Map<String, Value>, games: &[GameDocs]) {
    let lifecycle = lifecycle_events();
    let mut game_kinds: Vec<&str> = vec!["round_resolved"];
    for g in games {
        for k in g.event_kinds {
            if !game_kinds.contains(k) && !lifecycle.iter().any(|(l, _, _)| l == k) {
                game_kinds.push(k);
            }
        }
    }
    for (base, prefix) in [("EventResponse", ""), ("PlayerEventResponse", "Feed")] {
        let Some(template) = schemas.get(base).cloned() else {
            continue;
        };
        let mut variants = Vec::new();
        let mut mapping = Map::new();
        for (kind, description, data) in &lifecycle {
            let name = format!("{prefix}{}Event", pascal(kind));
            let mut v = template.clone();
            set_property(&mut v, "kind", string_enum(&[kind]));
            set_property(&mut v, "data", data.clone());
            v["description"] = Value::from(*description);
            schemas.insert(name.clone(), v);
            variants.push(reference(&name));
            mapping.insert((*kind).into(), format!("{SCHEMA_REF}{name}").into());
        }
        let name = format!("{prefix}GameEvent");
        let mut v = template.clone();
        set_property(&mut v, "kind", string_enum(&game_kinds));
        v["description"] = "One of the games' own events; what its `data` holds is \
            described on the game's rules page."
            .into();
        schemas.insert(name.clone(), v);
        variants.push(reference(&name));
        for kind in &game_kinds {
            mapping.insert((*kind).into(), format!("{SCHEMA_REF}{name}").into());
        }
        let description = template.get("description").cloned().unwrap_or(Value::Null);
        schemas.insert(
            base.into(),
            json!({"description": description, "oneOf": variants,
                "discriminator": {"propertyName": "kind", "mapping": mapping}}),
        );
    }
}

/// Says of every free-form object (a game's final state, a catalogue's options)
/// that it may hold any member: without it, generators type `{"type": "object"}`
/// as an object that holds nothing (`Record<string, never>`). And types the keys
/// of maps keyed by numbers as what JSON makes them, strings of digits.
fn open_objects(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let is_object = match o.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            // JSON object keys are strings: a map keyed by numbers has keys of digits.
            if let Some(names) = o.get_mut("propertyNames")
                && names.get("type") == Some(&Value::from("integer"))
            {
                *names = json!({"type": "string", "pattern": "^[0-9]+$"});
            }
            if is_object
                && !o.contains_key("properties")
                && !o.contains_key("additionalProperties")
                && !o.contains_key("oneOf")
            {
                o.insert("additionalProperties".into(), true.into());
            }
            o.values_mut().for_each(open_objects);
        }
        Value::Array(a) => a.iter_mut().for_each(open_objects),
        _ => {}
    }
}

/// Where a created resource is (`Location` on a 201, except a stream ticket,
/// which is no resource of its own), and the rate-limit headers in their
/// current form beside the older draft's, which are marked deprecated.
fn response_headers(responses: &mut Map<String, Value>) {
    if let Some(created) = responses.get_mut("201")
        && !created
            .pointer("/content/application~1json/schema/$ref")
            .is_some_and(|r| {
                r.as_str()
                    .is_some_and(|r| r.ends_with("/StreamTicketResponse"))
            })
        && let Some(o) = created.as_object_mut()
    {
        let headers = o.entry("headers").or_insert_with(|| json!({}));
        if let Some(h) = headers.as_object_mut() {
            h.insert(
                "Location".into(),
                json!({"description": "The path of what was created.",
                    "schema": {"type": "string"}}),
            );
        }
    }
    for response in responses.values_mut() {
        let Some(headers) = response.get_mut("headers").and_then(Value::as_object_mut) else {
            continue;
        };
        if !headers.contains_key("RateLimit-Limit") {
            continue;
        }
        headers.entry("RateLimit").or_insert_with(|| {
            json!({"description": "The limit as it stands (IETF RateLimit header fields):                 `\"<policy>\";r=<requests left>;t=<seconds until the allowance is whole again>`.",
                "schema": {"type": "string"}})
        });
        headers.entry("RateLimit-Policy").or_insert_with(|| {
            json!({"description": "The limit's policy: `\"<policy>\";q=<requests a minute,                 and in a burst>;w=60`; policies are `auth`, `moves` and `verify`.",
                "schema": {"type": "string"}})
        });
        for old in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
            if let Some(h) = headers.get_mut(old).and_then(Value::as_object_mut) {
                h.insert("deprecated".into(), true.into());
                if let Some(Value::String(d)) = h.get_mut("description") {
                    d.push_str(" Deprecated: read `RateLimit` and `RateLimit-Policy`.");
                }
            }
        }
    }
}

/// Document-wide parts: servers, a move of each game as an example, and the
/// value sets of query parameters.
pub(super) fn finish(doc: &mut Value, games: &[GameDocs]) {
    open_objects(doc);
    if let Some(o) = doc.as_object_mut() {
        o.insert(
            "servers".into(),
            json!([
                {"url": "/", "description": "The server that serves this document."},
                {"url": "http://127.0.0.1:8080", "description": "A local server with the default settings (`cargo run`)."},
            ]),
        );
    }
    let examples: Map<String, Value> = games
        .iter()
        .map(|g| {
            (
                g.id.to_owned(),
                json!({
                    "summary": format!("A move of {}", pascal(g.id)),
                    "value": {"step": 0, "action": g.example_action},
                }),
            )
        })
        .collect();
    if let Some(content) = doc.pointer_mut(
        "/paths/~1api~1v1~1matches~1{id}~1moves/post/requestBody/content/application~1json",
    ) && let Some(o) = content.as_object_mut()
    {
        o.insert("examples".into(), Value::Object(examples));
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut() {
            if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
                response_headers(responses);
            }
            let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
                continue;
            };
            for param in params {
                if param.get("in") != Some(&Value::from("query")) {
                    continue;
                }
                let name = param.get("name").and_then(Value::as_str).unwrap_or("");
                let schema = match name {
                    "status" => Some(nullable(reference("MatchStatus"))),
                    "game" => Some(nullable(reference("GameId"))),
                    _ => None,
                };
                if let (Some(schema), Some(p)) = (schema, param.as_object_mut()) {
                    p.insert("schema".into(), schema);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ERROR_CODES;

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The string literal right after `marker` (skipping a `StatusCode::X,`).
    fn code_after(text: &str, marker: &str) -> Vec<String> {
        let mut found = Vec::new();
        for (i, _) in text.match_indices(marker) {
            let rest = text[i + marker.len()..].trim_start();
            let rest = match rest.strip_prefix("StatusCode::") {
                Some(r) => r.split_once(',').map_or("", |(_, r)| r).trim_start(),
                None => rest,
            };
            if let Some(lit) = rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
                let code = lit.0;
                if !code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    found.push(code.to_owned());
                }
            }
        }
        found
    }

    #[test]
    fn every_error_code_in_the_source_is_in_the_documented_set() {
        let mut files = Vec::new();
        rust_files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut missing = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable");
            for marker in [
                // The API's error and the service's (`service::error::Error`).
                "Error::new(",
                "Error::bad_request(",
                "Error::unauthorized(",
                "Error::forbidden(",
                "Error::not_found(",
                "Error::conflict(",
                "Error::unprocessable(",
                "code: ",
            ] {
                for code in code_after(&text, marker) {
                    seen.insert(code.clone());
                    if !ERROR_CODES.contains(&code.as_str()) {
                        missing.push(format!("{code} ({})", f.display()));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "undocumented codes: {missing:?}");
        // The scan finds the codes (it would pass vacuously if it found none).
        assert!(seen.len() > 40, "only {} codes found", seen.len());
    }
}

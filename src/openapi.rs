//! The OpenAPI document: generated from the handlers' annotations, then completed
//! with every registered game's typed documents (`oneOf` per game).

use std::collections::HashMap;

use actix_web::App;
use serde_json::{Value, json};
use utoipa::openapi::security::{
    AuthorizationCode, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::games::DynGame;

mod contract;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Sealed Orders",
        description = "A play-by-API server for board games played with sealed moves. \
            Seats are 0-based. Errors are application/problem+json with a stable `code`. \
            A problem's `title` and `detail` are in the language `Accept-Language` asks \
            for among English (the default), Czech (`cs`) and Estonian (`et`), said by \
            `Content-Language` (with `Vary: Accept-Language`); where a detail cannot yet \
            be given whole in that language the problem is English. `code`, `type` and \
            every other member never change with the language: match on `code`. \
            Legal moves (`prompt.legal`) are complete actions or templates marked \
            `\"template\": true` whose parameters are value lists (plural name), integer \
            ranges `{min,max}` or subset choices `{subset_of,min,max}`; each game's are typed \
            (`<Game>LegalMove`), and a match's document is its game's (`<Game>Match`, told \
            apart by `game`). `HEAD` is answered wherever `GET` is. A `201 Created` answer \
            gives the new resource's path in `Location`. \
            Event streams (`Accept: text/event-stream` on `/matches/{id}/events`, \
            `/players/me/events` and `/lobby/events`) name each frame by its kind; with \
            `event_names=message` every frame is `event: message` with data \
            `{\"event\": <kind>, \"data\": <data>}`, for a client that listens to one name.",
        license(name = "MIT", identifier = "MIT"),
    ),
    tags(
        (name = "health", description = "Liveness and readiness."),
        (name = "players", description = "Accounts."),
        (name = "auth", description = "Access tokens."),
        (name = "games", description = "The game catalogue."),
        (name = "matches", description = "Creating, joining and reading matches."),
        (name = "invitations", description = "Inviting players to a match, and answering invitations."),
        (name = "tournaments", description = "Round robin and Swiss tournaments over any game: entries, standings with tie-breaks, rounds started by the server."),
        (name = "chat", description = "A match's chat, and the players you muted."),
        (name = "clubs", description = "Clubs: their members, matches and leaderboards."),
        (name = "moves", description = "Moves, a match's events and the history of rounds."),
        (name = "events", description = "What happens in your matches: event pages, Server-Sent Events streams and stream tickets."),
        (name = "ratings", description = "Per-game ratings and leaderboards."),
        (name = "stats", description = "Statistics over finished matches."),
        (name = "replays", description = "Replay bundles and their verification."),
        (name = "webhooks", description = "Your events posted to a URL of yours, signed and retried."),
        (name = "notifications", description = "Your address and what you are told by mail: turns, digests, reminders, invitations; one-click unsubscribe."),
        (name = "admin", description = "Moderation, for admins: disabled accounts, cancelled matches, the audit log."),
    ),
    components(schemas(crate::service::options::TimeControl)),
    modifiers(&Security),
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT or API token")
                    .description(Some(
                        "Either a JWT from `POST /auth/token` (a password session: lives `JWT_TTL`, \
                        refused after a password change) or an API token (`sot_…`) from \
                        `POST /players/me/tokens`. An API token with the `read` scope may make GET \
                        requests only; every other request needs `play`, which implies `read`; a \
                        token without the scope a request needs is refused with 403 \
                        `insufficient_scope`. Managing API tokens and changing the password need a \
                        password session (403 `password_session_required` for an API token). A \
                        revoked or expired API token is refused with 401 `invalid_token`.",
                    ))
                    .build(),
            ),
        );
        let mut oauth2 = OAuth2::new([Flow::AuthorizationCode(AuthorizationCode::new(
            "/oauth/authorize",
            "/oauth/token",
            Scopes::from_iter([
                (
                    "read",
                    "Read your matches, turns, invitations and profile (GET requests).",
                ),
                (
                    "play",
                    "Play for you: create, join and leave matches, move, resign, answer invitations, and everything `read` may.",
                ),
                (
                    "chat",
                    "Write in your matches' chats as you, and mute or unmute players.",
                ),
            ]),
        ))]);
        oauth2.description = Some(
            "OAuth 2 authorization code with PKCE (S256 only) for third-party front ends, with no \
            client registration: `client_id` is your app's name, shown to the person on the consent \
            page. The token is an API token with the scopes granted, living a year; revoke it at \
            `/oauth/revoke` (RFC 7009). Metadata: `/.well-known/oauth-authorization-server`."
                .into(),
        );
        components.add_security_scheme("oauth2", SecurityScheme::OAuth2(oauth2));
    }
}

/// The document as generated from the routes alone.
fn base() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(crate::api::routes)
        .split_for_parts();
    api
}

/// `malacca` → `Malacca`, `usize` → `Usize`.
fn pascal(id: &str) -> String {
    id.split(['_', '-'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

const SCHEMA_REF: &str = "#/components/schemas/";

/// Points every `$ref` inside `v` at the renamed schemas.
fn rename_refs(v: &mut Value, renames: &HashMap<String, String>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get_mut("$ref")
                && let Some(new) = r
                    .strip_prefix(SCHEMA_REF)
                    .and_then(|name| renames.get(name))
            {
                *r = format!("{SCHEMA_REF}{new}");
            }
            o.values_mut().for_each(|x| rename_refs(x, renames));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rename_refs(x, renames)),
        _ => {}
    }
}

fn one_of(refs: &[Value], nullable: bool) -> Value {
    let mut items = refs.to_vec();
    if nullable {
        items.push(json!({"type": "null"}));
    }
    json!({ "oneOf": items })
}

/// Points `schema.properties.prop` at `target` (keeping its description).
fn retarget(schemas: &mut serde_json::Map<String, Value>, schema: &str, prop: &str, target: Value) {
    if let Some(p) = schemas
        .get_mut(schema)
        .and_then(|s| s.get_mut("properties"))
        .and_then(|p| p.get_mut(prop))
    {
        let description = p.get("description").cloned();
        *p = target;
        if let (Some(d), Some(obj)) = (description, p.as_object_mut()) {
            obj.insert("description".into(), d);
        }
    }
}

/// Documents the answers every operation of a kind can give, whichever handler it
/// is: any request can carry a control character or two Authorization headers
/// (400) or an invalid token (401); a JSON body can be too large (413) or not
/// JSON (415); a write can meet a busy database (503).
fn common_responses(doc: &mut Value) {
    let problem = |description: &str| {
        json!({"description": description, "content": {"application/problem+json":
            {"schema": {"$ref": "#/components/schemas/Problem"}}}})
    };
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            let has_body = op.get("requestBody").is_some();
            let has_security = op.get("security").is_some();
            let needs = oauth_scope(op, method);
            if let Some(scope) = needs
                && let Some(security) = op.get_mut("security").and_then(Value::as_array_mut)
            {
                security.push(json!({ "oauth2": [scope] }));
            }
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            let mut add = |status: &str, description: &str| {
                responses
                    .entry(status)
                    .or_insert_with(|| problem(description));
            };
            // The gate before every handler (`api::gate`).
            add(
                "400",
                "A control character in the path, the query or a JSON string \
                 (`invalid_characters`), or two Authorization headers \
                 (`duplicate_authorization`).",
            );
            add(
                "401",
                "A token was sent but is not valid (`invalid_token`): refused on every \
                 endpoint, never served as anonymous.",
            );
            if has_body {
                add("400", "The body is not valid JSON.");
                add("413", "The body is too large.");
                add(
                    "415",
                    "The body is not JSON (Content-Type: application/json).",
                );
                add(
                    "422",
                    "The body lacks a field or has one of the wrong type.",
                );
            }
            if method == "post" {
                add(
                    "503",
                    "The database is busy; retry after the Retry-After header.",
                );
            }
            // The extractor refuses an API token without the scope a write needs.
            if has_security && method != "get" {
                let scope = if needs == Some("chat") {
                    "the API token lacks the `chat` scope (`insufficient_scope`)."
                } else {
                    "the API token lacks the `play` scope (`insufficient_scope`)."
                };
                match responses
                    .get_mut("403")
                    .and_then(|r| r.get_mut("description"))
                {
                    Some(Value::String(d))
                        if !d.contains("insufficient_scope")
                            && !d.contains("password_session_required") =>
                    {
                        d.push_str(" Or ");
                        d.push_str(scope);
                    }
                    Some(_) => {}
                    None => {
                        responses.insert("403".into(), problem(&format!("Forbidden: {scope}")));
                    }
                }
            }
        }
    }
}

/// The OAuth scope an operation needs, when a token from OAuth may call it at
/// all: not where a password session is required (tokens, webhooks, the
/// password, mail settings, the OAuth consent itself).
fn oauth_scope(op: &Value, method: &str) -> Option<&'static str> {
    let security = op.get("security")?.as_array()?;
    if !security.iter().any(|s| s.get("bearer").is_some()) {
        return None;
    }
    if op.to_string().contains("password_session_required") {
        return None;
    }
    let id = op.get("operationId").and_then(Value::as_str).unwrap_or("");
    Some(match method {
        "get" | "head" => "read",
        _ if CHAT_OPERATIONS.contains(&id) => "chat",
        _ => "play",
    })
}

/// The writes that need the `chat` scope (`auth::ChatAuthor`).
const CHAT_OPERATIONS: &[&str] = &[
    "post_chat_message",
    "delete_chat_message",
    "mute_player",
    "unmute_player",
];

/// Rewrites `allOf: [{$ref}, {object}]` (serde's internally tagged newtype
/// variants) as one object with the union of properties and required fields: the
/// same documents, in a form every client generator reads.
fn flatten_all_of(v: &mut Value, components: &serde_json::Map<String, Value>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(parts)) = o.get("allOf") {
                let resolved: Option<Vec<Value>> = parts
                    .iter()
                    .map(|p| match p.get("$ref").and_then(Value::as_str) {
                        Some(r) => r
                            .strip_prefix(SCHEMA_REF)
                            .and_then(|n| components.get(n))
                            .cloned(),
                        None => Some(p.clone()),
                    })
                    .collect();
                if let Some(parts) =
                    resolved.filter(|ps| ps.iter().all(|p| p.get("properties").is_some()))
                {
                    let mut properties = serde_json::Map::new();
                    let mut required: Vec<Value> = Vec::new();
                    let closed = parts
                        .iter()
                        .all(|p| p.get("additionalProperties") == Some(&Value::Bool(false)));
                    for p in &parts {
                        if let Some(props) = p.get("properties").and_then(Value::as_object) {
                            properties.extend(props.clone());
                        }
                        for r in p
                            .get("required")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            if !required.contains(r) {
                                required.push(r.clone());
                            }
                        }
                    }
                    o.remove("allOf");
                    o.insert("type".into(), "object".into());
                    o.insert("properties".into(), Value::Object(properties));
                    o.insert("required".into(), Value::Array(required));
                    if closed {
                        o.insert("additionalProperties".into(), false.into());
                    }
                }
            }
            o.values_mut().for_each(|x| flatten_all_of(x, components));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| flatten_all_of(x, components)),
        _ => {}
    }
}

/// The complete document, as JSON.
pub fn spec_json(games: &[Box<dyn DynGame>]) -> Value {
    let mut doc = serde_json::to_value(base()).unwrap_or(Value::Null);
    common_responses(&mut doc);
    let mut actions = Vec::new();
    let mut views = Vec::new();
    let mut options = Vec::new();
    let mut positions = Vec::new();
    let mut per_game = Vec::new();
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for game in games {
            let s = game.schemas();
            // Games name their types freely; in the document every game's schemas
            // carry the game's name, so two games' `Card`s never collide.
            let prefix = pascal(game.info().id);
            let renames: HashMap<String, String> = s
                .components
                .iter()
                .map(|(name, _)| {
                    let new = if name.starts_with(&prefix)
                        || crate::games::legal::SHARED_SCHEMAS.contains(&name.as_str())
                    {
                        name.clone()
                    } else {
                        format!("{prefix}{}", pascal(name))
                    };
                    (name.clone(), new)
                })
                .collect();
            for (name, schema) in &s.components {
                let mut v = serde_json::to_value(schema).unwrap_or(Value::Null);
                rename_refs(&mut v, &renames);
                schemas.insert(renames[name].clone(), v);
            }
            let r = |x: &utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>| {
                let mut v = serde_json::to_value(x).unwrap_or(Value::Null);
                rename_refs(&mut v, &renames);
                v
            };
            per_game.push(GameDocs {
                id: game.info().id,
                action: r(&s.action),
                view: r(&s.view),
                template: s.template.as_ref().map(r),
                prompt_kinds: s.prompt_kinds,
                event_kinds: s.event_kinds,
                example_action: s.example_action.clone(),
            });
            actions.push(r(&s.action));
            views.push(r(&s.view));
            options.push(r(&s.options));
            positions.push(r(&s.position));
        }
        // Games share action shapes (Malacca's and Kontor's `{"type":"pass"}`), so
        // an action is valid when it is any game's: `anyOf`, not `oneOf`. Which
        // game's it is follows from the match.
        schemas.insert(
            "GameAction".into(),
            json!({"anyOf": actions, "description": "An action of the match's game (each game's actions are listed under its name)."}),
        );
        schemas.insert("GameView".into(), one_of(&views, false));
        // Each game's options as `POST /matches` takes them: with the service
        // options `rated` and `position` beside the game's own.
        let mut match_options = Vec::new();
        for (opts, position) in options.iter().zip(&positions) {
            let Some(name) = opts
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.rsplit('/').next())
                .map(str::to_owned)
            else {
                continue;
            };
            let Some(mut merged) = schemas.get(&name).cloned() else {
                continue;
            };
            if let Some(props) = merged
                .as_object_mut()
                .map(|o| o.entry("properties").or_insert_with(|| json!({})))
                .and_then(Value::as_object_mut)
            {
                props.insert(
                    "rated".into(),
                    json!({"type": "boolean", "default": true,
                        "description": "Whether the match counts for ratings (a position match never does)."}),
                );
                let seconds = |what: &str| {
                    json!({"oneOf": [{"type": "integer", "minimum": 1, "maximum": 30 * 24 * 3600}, {"type": "null"}],
                        "default": null, "description": what})
                };
                props.insert(
                    "move_time_limit".into(),
                    seconds("Seconds each awaited seat has for a move; none by default."),
                );
                props.insert(
                    "time_control".into(),
                    json!({"oneOf": [{"$ref": "#/components/schemas/TimeControl"}, {"type": "null"}],
                        "default": null,
                        "description": "The match's clock: a bank of thinking time per seat, or seconds per move (the same as move_time_limit; give one of the two). None by default."}),
                );
                props.insert(
                    "timeout_policy".into(),
                    json!({"oneOf": [{"type": "string", "enum": ["bot", "forfeit"]}, {"type": "null"}],
                        "default": null,
                        "description": "With a move_time_limit or a time_control: `bot` (the default: a bot moves for a seat whose time ran out, which is then absent) or `forfeit`."}),
                );
                props.insert(
                    "absent_move_time_limit".into(),
                    seconds(
                        "With timeout_policy `bot`: seconds an absent seat gets (10 by default).",
                    ),
                );
                props.insert(
                    "grace_extensions".into(),
                    json!({"type": "integer", "minimum": 0, "maximum": 10, "default": 0,
                        "description": "With a move_time_limit or a time_control: how many times a seat whose time runs out is given grace_seconds more (a `seat_extended` event) before the timeout policy applies."}),
                );
                props.insert(
                    "grace_seconds".into(),
                    seconds(
                        "With grace_extensions: the length of each grace; the per-move limit, or a bank's initial allowance, by default.",
                    ),
                );
                props.insert(
                    "min_reliability".into(),
                    json!({"oneOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}],
                        "default": null,
                        "description": "The least share of deadlines met (a player's `reliability.ratio`) a player needs to join; a player with fewer deadlines owed than `reliability.provisional_below` may always join. None by default."}),
                );
                props.insert(
                    "position".into(),
                    json!({"oneOf": [position, {"$ref": "#/components/schemas/Redacted"}, {"type": "null"}],
                        "description": "Start from this situation instead of a setup; shown as {\"redacted\": true} until the match is over."}),
                );
            }
            let merged_name = format!("{name}ForMatch");
            schemas.insert(merged_name.clone(), merged);
            match_options.push(json!({"$ref": format!("#/components/schemas/{merged_name}")}));
        }
        schemas.insert(
            "Redacted".into(),
            json!({"type": "object", "description": "Hidden until the match is over.",
                "properties": {"redacted": {"type": "boolean", "const": true}},
                "required": ["redacted"], "additionalProperties": false}),
        );
        schemas.insert("GameOptions".into(), one_of(&options, false));
        schemas.insert("MatchOptions".into(), one_of(&match_options, false));
        schemas.insert("GamePosition".into(), one_of(&positions, false));
        let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
        retarget(schemas, "SubmitMoveRequest", "action", r("GameAction"));
        retarget(schemas, "MoveReceipt", "action", r("GameAction"));
        retarget(
            schemas,
            "CreateMatchRequest",
            "options",
            one_of(&[r("MatchOptions")], true),
        );
        retarget(schemas, "MatchResponse", "options", r("MatchOptions"));
        let components = schemas.clone();
        for schema in schemas.values_mut() {
            flatten_all_of(schema, &components);
        }
        retarget(
            schemas,
            "MatchResponse",
            "view",
            one_of(&[r("GameView")], true),
        );
        contract::per_game(schemas, &per_game);
    }
    contract::finish(&mut doc, &per_game);
    doc
}

/// Each game's options as `POST /matches` takes them (the game's own and the
/// service's), as a self-contained JSON Schema: the document's
/// `<Game>OptionsForMatch` with every schema it refers to under `$defs`.
pub fn options_schemas(games: &[Box<dyn DynGame>]) -> Vec<(String, Value)> {
    let spec = spec_json(games);
    let schemas = &spec["components"]["schemas"];
    games
        .iter()
        .filter_map(|g| {
            let options = serde_json::to_value(g.schemas().options).ok()?;
            let name = options["$ref"].as_str()?.rsplit('/').next()?;
            // Named in the document as `spec_json` names every game's schemas.
            let prefix = pascal(g.info().id);
            let root = if name.starts_with(&prefix) {
                format!("{name}ForMatch")
            } else {
                format!("{prefix}{}ForMatch", pascal(name))
            };
            let mut defs = serde_json::Map::new();
            collect_defs(schemas, &root, &mut defs);
            let text = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": format!("#/$defs/{root}"),
                "$defs": defs,
            })
            .to_string()
            .replace("#/components/schemas/", "#/$defs/");
            Some((g.info().id.to_owned(), serde_json::from_str(&text).ok()?))
        })
        .collect()
}

fn collect_defs(schemas: &Value, name: &str, defs: &mut serde_json::Map<String, Value>) {
    if defs.contains_key(name) {
        return;
    }
    let Some(schema) = schemas.get(name) else {
        return;
    };
    defs.insert(name.to_owned(), schema.clone());
    let mut refs = Vec::new();
    refs_in(schema, &mut refs);
    for r in refs {
        collect_defs(schemas, &r, defs);
    }
}

fn refs_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let Some(r) = o.get("$ref").and_then(Value::as_str)
                && let Some(name) = r.strip_prefix("#/components/schemas/")
            {
                out.push(name.to_owned());
            }
            o.values().for_each(|x| refs_in(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, out)),
        _ => {}
    }
}

/// What the document says of one game, gathered from its registry entry.
pub(crate) struct GameDocs {
    pub id: &'static str,
    pub action: Value,
    pub view: Value,
    pub template: Option<Value>,
    pub prompt_kinds: &'static [&'static str],
    pub event_kinds: &'static [&'static str],
    pub example_action: Value,
}

/// The document, pretty-printed as committed in `openapi/openapi.json`.
pub fn spec_pretty(games: &[Box<dyn DynGame>]) -> String {
    let mut s = serde_json::to_string_pretty(&spec_json(games)).unwrap_or_default();
    s.push('\n');
    s
}

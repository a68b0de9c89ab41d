//! The OpenAPI document: generated from the handlers' annotations, then completed
//! with every registered game's typed documents (`oneOf` per game).

use actix_web::App;
use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::games::DynGame;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Sealed Orders",
        description = "A play-by-API server for board games played with sealed moves. \
            Seats are 0-based. Errors are application/problem+json with a stable `code`. \
            Legal moves (`prompt.legal`) are complete actions or templates marked \
            `\"template\": true` whose parameters are value lists (plural name), integer \
            ranges `{min,max}` or subset choices `{subset_of,min,max}`.",
        license(name = "MIT", identifier = "MIT"),
    ),
    tags(
        (name = "health", description = "Liveness and readiness."),
        (name = "players", description = "Accounts."),
        (name = "auth", description = "Access tokens."),
        (name = "games", description = "The game catalogue."),
        (name = "matches", description = "Creating, joining and reading matches."),
        (name = "moves", description = "Moves, events and the history of rounds."),
    ),
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
                    .bearer_format("JWT")
                    .build(),
            ),
        );
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

/// The complete document, as JSON.
pub fn spec_json(games: &[Box<dyn DynGame>]) -> Value {
    let mut doc = serde_json::to_value(base()).unwrap_or(Value::Null);
    let mut actions = Vec::new();
    let mut views = Vec::new();
    let mut options = Vec::new();
    let mut positions = Vec::new();
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for game in games {
            let s = game.schemas();
            for (name, schema) in s.components {
                schemas.insert(name, serde_json::to_value(schema).unwrap_or(Value::Null));
            }
            let r = |x: &utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>| {
                serde_json::to_value(x).unwrap_or(Value::Null)
            };
            actions.push(r(&s.action));
            views.push(r(&s.view));
            options.push(r(&s.options));
            positions.push(r(&s.position));
        }
        schemas.insert("GameAction".into(), one_of(&actions, false));
        schemas.insert("GameView".into(), one_of(&views, false));
        schemas.insert("GameOptions".into(), one_of(&options, false));
        schemas.insert("GamePosition".into(), one_of(&positions, false));
        let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
        retarget(schemas, "SubmitMoveRequest", "action", r("GameAction"));
        retarget(schemas, "MoveReceipt", "action", r("GameAction"));
        retarget(
            schemas,
            "CreateMatchRequest",
            "options",
            json!({"oneOf": [{"type": "object"}, {"type": "null"}]}),
        );
        retarget(
            schemas,
            "MatchResponse",
            "view",
            one_of(&[r("GameView")], true),
        );
    }
    doc
}

/// The document, pretty-printed as committed in `openapi/openapi.json`.
pub fn spec_pretty(games: &[Box<dyn DynGame>]) -> String {
    let mut s = serde_json::to_string_pretty(&spec_json(games)).unwrap_or_default();
    s.push('\n');
    s
}

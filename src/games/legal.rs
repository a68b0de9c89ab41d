//! The one format of legal moves (API contract §3): complete actions, or templates
//! marked `"template": true` whose parameters are a fixed value, a list of allowed
//! values under the plural name, an integer range `{"min","max"}`, or a subset
//! choice `{"subset_of", "min", "max"}`. These helpers match an action against
//! such a list and draw a uniform legal action from it (bots, property tests).

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use super::rng::GameRng;

/// The `"template": true` mark of a template: only `true` is accepted, and the
/// schema says so, so a client tells a template from a complete action by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateMark;

impl<'de> Deserialize<'de> for TemplateMark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match bool::deserialize(d)? {
            true => Ok(Self),
            false => Err(serde::de::Error::custom("a template is marked `true`")),
        }
    }
}

impl PartialSchema for TemplateMark {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .enum_values(Some([true]))
            .description(Some(
                "Always `true`: this entry is a template whose parameters are to be filled in.",
            ))
            .into()
    }
}

impl ToSchema for TemplateMark {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TemplateMark")
    }
}

/// An integer parameter of a template: any value from `min` to `max`, both included.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntRange {
    pub min: i64,
    pub max: i64,
}

/// A subset parameter of a template: an array of distinct items of `subset_of`,
/// at least `min` and at most `max` of them (the order may matter to the game,
/// e.g. a pyramid's cubes bottom floor first).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Subset {
    pub subset_of: Vec<String>,
    #[schema(minimum = 0)]
    pub min: u64,
    #[schema(minimum = 0)]
    pub max: u64,
}

/// The templates of a game that lists complete actions only: none can exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum NoTemplates {}

impl PartialSchema for NoTemplates {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().into()
    }
}

impl ToSchema for NoTemplates {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed(NO_TEMPLATES)
    }
}

/// The schema name of [`NoTemplates`], which the API document leaves out.
pub const NO_TEMPLATES: &str = "NoTemplates";

/// The schemas shared by every game's templates: named once in the document.
pub const SHARED_SCHEMAS: [&str; 3] = ["TemplateMark", "IntRange", "Subset"];

enum Param<'a> {
    Fixed(&'a Value),
    OneOf(&'a [Value]),
    Range(i64, i64),
    Subset(&'a [Value], usize, usize),
}

fn params(template: &Map<String, Value>) -> Vec<(String, Param<'_>)> {
    let mut out = Vec::new();
    for (key, value) in template {
        if key == "template" || key == "type" {
            continue;
        }
        let param = match value {
            Value::Array(items) => {
                let name = key.strip_suffix('s').unwrap_or(key).to_owned();
                out.push((name, Param::OneOf(items)));
                continue;
            }
            Value::Object(o) => match (o.get("subset_of"), o.get("min"), o.get("max")) {
                (Some(Value::Array(items)), Some(min), Some(max)) => Param::Subset(
                    items,
                    min.as_u64().unwrap_or(0) as usize,
                    max.as_u64().unwrap_or(0) as usize,
                ),
                (None, Some(min), Some(max)) if o.len() == 2 => {
                    match (min.as_i64(), max.as_i64()) {
                        (Some(a), Some(b)) => Param::Range(a, b),
                        _ => Param::Fixed(value),
                    }
                }
                _ => Param::Fixed(value),
            },
            _ => Param::Fixed(value),
        };
        out.push((key.clone(), param));
    }
    out
}

fn is_template(v: &Value) -> bool {
    v.get("template").and_then(Value::as_bool) == Some(true)
}

fn matches_template(template: &Map<String, Value>, action: &Map<String, Value>) -> bool {
    if template.get("type") != action.get("type") {
        return false;
    }
    let params = params(template);
    if action.len() != params.len() + 1 {
        return false;
    }
    params.iter().all(|(name, param)| {
        let Some(given) = action.get(name) else {
            return false;
        };
        match param {
            Param::Fixed(v) => *v == given,
            Param::OneOf(items) => items.contains(given),
            Param::Range(a, b) => given.as_i64().is_some_and(|x| *a <= x && x <= *b),
            Param::Subset(items, min, max) => given.as_array().is_some_and(|chosen| {
                let distinct = chosen
                    .iter()
                    .enumerate()
                    .all(|(i, c)| !chosen[..i].contains(c));
                distinct
                    && (*min..=*max).contains(&chosen.len())
                    && chosen.iter().all(|c| items.contains(c))
            }),
        }
    })
}

/// Whether `action` is one of the legal moves listed in `legal`.
pub fn is_listed(legal: &[Value], action: &Value) -> bool {
    let Some(action_map) = action.as_object() else {
        return false;
    };
    legal.iter().any(|entry| {
        if is_template(entry) {
            entry
                .as_object()
                .is_some_and(|t| matches_template(t, action_map))
        } else {
            entry == action
        }
    })
}

/// A legal action drawn from `legal`: a uniform entry, then uniform parameters.
pub fn sample(legal: &[Value], rng: &mut GameRng) -> Option<Value> {
    if legal.is_empty() {
        return None;
    }
    let entry = &legal[rng.index(legal.len())];
    if !is_template(entry) {
        return Some(entry.clone());
    }
    let template = entry.as_object()?;
    let mut action = Map::new();
    action.insert("type".into(), template.get("type")?.clone());
    for (name, param) in params(template) {
        let value = match param {
            Param::Fixed(v) => v.clone(),
            Param::OneOf(items) => {
                if items.is_empty() {
                    return None;
                }
                items[rng.index(items.len())].clone()
            }
            Param::Range(a, b) => {
                if b < a {
                    return None;
                }
                Value::from(a + rng.below((b - a) as u64 + 1) as i64)
            }
            Param::Subset(items, min, max) => {
                let max = max.min(items.len());
                if max < min {
                    return None;
                }
                let count = min + rng.index(max - min + 1);
                let mut pool: Vec<Value> = items.to_vec();
                rng.shuffle(&mut pool);
                pool.truncate(count);
                Value::Array(pool)
            }
        };
        action.insert(name, value);
    }
    Some(Value::Object(action))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_template_matches_choices_within_it_and_nothing_else() {
        let legal = vec![json!({"type":"play","template":true,
            "cards":["attack","defense"],"stake":{"min":0,"max":5}})];
        assert!(is_listed(
            &legal,
            &json!({"type":"play","card":"attack","stake":5})
        ));
        assert!(!is_listed(
            &legal,
            &json!({"type":"play","card":"trade","stake":1})
        ));
        assert!(!is_listed(
            &legal,
            &json!({"type":"play","card":"attack","stake":6})
        ));
        assert!(!is_listed(&legal, &json!({"type":"play","card":"attack"})));
        assert!(!is_listed(
            &legal,
            &json!({"type":"play","card":"attack","stake":1,"x":1})
        ));
    }

    #[test]
    fn complete_actions_and_subsets_match_exactly() {
        let legal = vec![
            json!({"type":"choose","kind":"attack"}),
            json!({"type":"discard","template":true,"cards":{"subset_of":[1,2,3],"min":1,"max":2}}),
        ];
        assert!(is_listed(&legal, &json!({"type":"choose","kind":"attack"})));
        assert!(!is_listed(&legal, &json!({"type":"choose","kind":"trade"})));
        assert!(is_listed(&legal, &json!({"type":"discard","cards":[3,1]})));
        assert!(!is_listed(&legal, &json!({"type":"discard","cards":[1,1]})));
        assert!(!is_listed(
            &legal,
            &json!({"type":"discard","cards":[1,2,3]})
        ));
    }

    #[test]
    fn samples_are_always_listed() {
        let legal = vec![
            json!({"type":"play","template":true,"cards":["a","b"],"stake":{"min":0,"max":3}}),
            json!({"type":"discard","template":true,"cards":{"subset_of":[1,2,3],"min":0,"max":2}}),
            json!({"type":"pass"}),
        ];
        let mut rng = GameRng::from_key([3; 32]);
        for _ in 0..200 {
            let a = sample(&legal, &mut rng).expect("non-empty");
            assert!(is_listed(&legal, &a), "{a}");
        }
    }
}

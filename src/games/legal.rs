//! The one format of legal moves (API contract §3): complete actions, or templates
//! marked `"template": true` whose parameters are a fixed value, a list of allowed
//! values under the plural name, an integer range `{"min","max"}`, or a subset
//! choice `{"subset_of", "min", "max"}`. These helpers match an action against
//! such a list and draw a uniform legal action from it (bots, property tests).

use serde_json::{Map, Value};

use super::rng::GameRng;

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

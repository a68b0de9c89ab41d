//! Draws a legal action from a prompt's `legal` list, as any client of the API would:
//! a complete action as it is, or a template filled in — a value list under the
//! plural name (`"cards": [...]` gives `"card"`), an integer range `{min, max}`, or a
//! subset `{subset_of, min, max}` (kept under its own name). Any other parameter is
//! copied as a fixed value.

use serde_json::{Map, Value};

/// A small deterministic generator (SplitMix64): the load generator needs
/// reproducible, uniform-enough choices, nothing cryptographic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

fn is_template(v: &Value) -> bool {
    v.get("template").and_then(Value::as_bool) == Some(true)
}

/// One uniform entry of `legal`, then uniform parameters; `None` when the list is
/// empty or a template cannot be filled.
pub fn sample(legal: &[Value], rng: &mut Rng) -> Option<Value> {
    if legal.is_empty() {
        return None;
    }
    let entry = &legal[rng.index(legal.len())];
    if !is_template(entry) {
        return Some(entry.clone());
    }
    let template = entry.as_object()?;
    let mut action = Map::new();
    for (key, value) in template {
        if key == "template" {
            continue;
        }
        if key == "type" {
            action.insert(key.clone(), value.clone());
            continue;
        }
        match value {
            Value::Array(items) => {
                if items.is_empty() {
                    return None;
                }
                let name = key.strip_suffix('s').unwrap_or(key).to_owned();
                action.insert(name, items[rng.index(items.len())].clone());
            }
            Value::Object(o) => {
                let chosen = match (o.get("subset_of"), o.get("min"), o.get("max")) {
                    (Some(Value::Array(items)), Some(min), Some(max)) => {
                        let min = min.as_u64().unwrap_or(0) as usize;
                        let max = (max.as_u64().unwrap_or(0) as usize).min(items.len());
                        if max < min {
                            return None;
                        }
                        let count = min + rng.index(max - min + 1);
                        let mut pool = items.clone();
                        // Partial Fisher-Yates: the first `count` are a uniform subset.
                        for i in 0..count {
                            let j = i + rng.index(pool.len() - i);
                            pool.swap(i, j);
                        }
                        pool.truncate(count);
                        Value::Array(pool)
                    }
                    (None, Some(min), Some(max)) if o.len() == 2 => {
                        match (min.as_i64(), max.as_i64()) {
                            (Some(a), Some(b)) if a <= b => {
                                Value::from(a + rng.below((b - a) as u64 + 1) as i64)
                            }
                            (Some(_), Some(_)) => return None,
                            _ => value.clone(),
                        }
                    }
                    _ => value.clone(),
                };
                action.insert(key.clone(), chosen);
            }
            _ => {
                action.insert(key.clone(), value.clone());
            }
        }
    }
    Some(Value::Object(action))
}

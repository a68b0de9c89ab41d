//! The typed state of each match, parsed once and kept per process.
//!
//! A move or a read used to turn the stored text into a JSON tree and that tree
//! into the game's types once per rule call (seven times for one move). Now a
//! state is parsed once and kept under its match, with the text it was parsed
//! from: an entry is used only for exactly that text, so a stale or missing
//! entry costs one parse and never a wrong answer, whichever replica or
//! uncommitted transaction wrote it (parsing is a pure function of the text).
//! The cache is bounded by the stored size of its states (least recently used
//! leave first): memory does not grow with the matches that merely exist.

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use uuid::Uuid;

use crate::games::AnyState;

#[derive(Clone)]
struct Entry {
    text: Arc<str>,
    state: AnyState,
}

#[derive(Clone)]
struct ByStoredSize;

impl Weighter<Uuid, Entry> for ByStoredSize {
    /// The text and the typed form, which is of the same order (mostly small
    /// integers and short strings).
    fn weight(&self, _: &Uuid, e: &Entry) -> u64 {
        2 * e.text.len() as u64 + 64
    }
}

pub struct StateCache {
    entries: Option<Cache<Uuid, Entry, ByStoredSize>>,
}

/// A Malacca state is about 2 KiB stored; the estimate only sizes the table.
const TYPICAL_ENTRY_BYTES: u64 = 4096;

impl StateCache {
    /// A cache of at most `bytes`; 0 keeps nothing.
    pub fn new(bytes: u64) -> Self {
        let entries = (bytes > 0).then(|| {
            let items = (bytes / TYPICAL_ENTRY_BYTES).clamp(16, 1 << 20) as usize;
            Cache::with_weighter(items, bytes, ByStoredSize)
        });
        Self { entries }
    }

    /// The state parsed from `text`, if match `id`'s entry was made from it.
    pub fn get(&self, id: Uuid, text: &str) -> Option<AnyState> {
        let e = self.entries.as_ref()?.get(&id)?;
        (*e.text == *text).then_some(e.state)
    }

    /// Keeps `state` as what `text` parses to for match `id`.
    pub fn put(&self, id: Uuid, text: &str, state: AnyState) {
        if let Some(entries) = &self.entries {
            entries.insert(
                id,
                Entry {
                    text: Arc::from(text),
                    state,
                },
            );
        }
    }

    /// Entries kept and their weight in bytes (for /metrics).
    pub fn usage(&self) -> (u64, u64) {
        self.entries
            .as_ref()
            .map_or((0, 0), |c| (c.len() as u64, c.weight()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{DynGame, Erased, malacca::Malacca};

    fn state_of(text: &str) -> AnyState {
        Erased::<Malacca>::new()
            .parse_state(text)
            .unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn an_entry_answers_only_for_the_text_it_was_parsed_from() {
        let g = Erased::<Malacca>::new();
        let files: Vec<(&str, &str)> = g
            .data_files()
            .iter()
            .map(|f| (f.name, f.embedded))
            .collect();
        let data = g.load_data(&files).expect("data");
        let seed = [7u8; 32];
        let s = g
            .setup(
                &data,
                3,
                &serde_json::json!({}),
                &mut crate::games::rng::GameRng::for_setup(&seed),
            )
            .expect("setup");
        let text = g.state_text(&s).expect("text");
        let cache = StateCache::new(1 << 20);
        let id = Uuid::now_v7();
        assert!(cache.get(id, &text).is_none());
        cache.put(id, &text, state_of(&text));
        let kept = cache.get(id, &text).expect("kept");
        assert_eq!(g.state_text(&kept).expect("text"), text);
        assert!(cache.get(id, &format!("{text} ")).is_none());
        assert!(cache.get(Uuid::now_v7(), &text).is_none());
    }

    #[test]
    fn the_cache_stays_within_its_bytes() {
        let cache = StateCache::new(64 * 1024);
        let g = Erased::<Malacca>::new();
        let files: Vec<(&str, &str)> = g
            .data_files()
            .iter()
            .map(|f| (f.name, f.embedded))
            .collect();
        let data = g.load_data(&files).expect("data");
        let s = g
            .setup(
                &data,
                4,
                &serde_json::json!({}),
                &mut crate::games::rng::GameRng::for_setup(&[1; 32]),
            )
            .expect("setup");
        let text = g.state_text(&s).expect("text");
        for _ in 0..1000 {
            cache.put(Uuid::now_v7(), &text, s.clone());
        }
        let (n, bytes) = cache.usage();
        assert!(bytes <= 64 * 1024, "{bytes}");
        assert!((1..1000).contains(&n), "{n}");
    }
}

//! Component data: embedded in the binary, overridable file by file from
//! `DATA_DIR/<game>/<file>`, identified by the SHA-256 of its contents. A match
//! records the hash it was created with and keeps playing with that data.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, RwLock};

use sea_orm::ConnectionTrait;

use crate::games::rng::sha256_hex;
use crate::games::{AnyData, DynGame};
use crate::service::error::Result;
use crate::store;

/// One game's data set.
pub struct DataSet {
    pub sha256: String,
    /// `{file name: contents}` as JSON, stored in the database under the hash.
    pub files_json: String,
    pub parsed: AnyData,
    /// Whether any file is marked `"placeholder": true`.
    pub placeholder: bool,
}

pub(crate) fn digest(files: &BTreeMap<String, String>) -> (String, String) {
    let json = serde_json::to_string(files).unwrap_or_default();
    (sha256_hex(json.as_bytes()), json)
}

/// Parses a data set given as `{file name: contents}`; its hash is over exactly that map.
pub fn build(game: &dyn DynGame, files: BTreeMap<String, String>) -> anyhow::Result<DataSet> {
    let ordered: Vec<(&str, &str)> = game
        .data_files()
        .iter()
        .filter_map(|f| files.get(f.name).map(|c| (f.name, c.as_str())))
        .collect();
    let parsed = game
        .load_data(&ordered)
        .map_err(|e| anyhow::anyhow!("component data of {}: {e}", game.info().id))?;
    let placeholder = files.values().any(|c| {
        serde_json::from_str::<serde_json::Value>(c)
            .ok()
            .and_then(|v| v.get("placeholder").and_then(|p| p.as_bool()))
            .unwrap_or(false)
    });
    let (sha256, files_json) = digest(&files);
    Ok(DataSet {
        sha256,
        files_json,
        parsed,
        placeholder,
    })
}

/// The current data of every game, and a cache of older sets by hash.
pub struct DataStore {
    current: HashMap<String, Arc<DataSet>>,
    older: RwLock<HashMap<String, AnyData>>,
}

impl DataStore {
    /// Reads every game's files (embedded, or overridden from `data_dir`).
    pub fn load(games: &[Box<dyn DynGame>], data_dir: Option<&Path>) -> anyhow::Result<Self> {
        let mut current = HashMap::new();
        for game in games {
            let id = game.info().id;
            let mut files = BTreeMap::new();
            for f in game.data_files() {
                let contents = match data_dir.map(|d| d.join(id).join(f.name)) {
                    Some(path) if path.exists() => std::fs::read_to_string(&path)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
                    _ => f.embedded.to_owned(),
                };
                files.insert(f.name.to_owned(), contents);
            }
            current.insert(id.to_owned(), Arc::new(build(game.as_ref(), files)?));
        }
        Ok(Self {
            current,
            older: RwLock::new(HashMap::new()),
        })
    }

    /// The stored `{file name: contents}` of a data set, by hash.
    pub async fn files_by_sha(
        &self,
        db: &impl ConnectionTrait,
        sha256: &str,
    ) -> anyhow::Result<BTreeMap<String, String>> {
        if let Some(set) = self.current.values().find(|s| s.sha256 == sha256) {
            return Ok(serde_json::from_str(&set.files_json)?);
        }
        let row = store::settings::game_data_by_sha(db, sha256)
            .await?
            .ok_or_else(|| anyhow::anyhow!("component data {sha256} is not stored"))?;
        Ok(serde_json::from_str(&row.files)?)
    }

    pub fn current(&self, game: &str) -> Option<Arc<DataSet>> {
        self.current.get(game).cloned()
    }

    /// Records every current set in the database, so matches can always find theirs.
    pub async fn persist(
        &self,
        db: &impl ConnectionTrait,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), sea_orm::DbErr> {
        for (game, set) in &self.current {
            store::settings::ensure_game_data(db, &set.sha256, game, &set.files_json, now).await?;
        }
        Ok(())
    }

    /// The parsed data with this hash: the current set, a cached one, or the one
    /// stored in the database.
    pub async fn by_sha(
        &self,
        db: &impl ConnectionTrait,
        game: &dyn DynGame,
        sha256: &str,
    ) -> anyhow::Result<AnyData> {
        if let Some(set) = self.current.get(game.info().id)
            && set.sha256 == sha256
        {
            return Ok(set.parsed.clone());
        }
        if let Some(d) = self.older.read().ok().and_then(|m| m.get(sha256).cloned()) {
            return Ok(d);
        }
        let row = store::settings::game_data_by_sha(db, sha256)
            .await?
            .ok_or_else(|| anyhow::anyhow!("component data {sha256} is not stored"))?;
        let files: BTreeMap<String, String> = serde_json::from_str(&row.files)?;
        let set = build(game, files)?;
        if let Ok(mut m) = self.older.write() {
            m.insert(sha256.to_owned(), set.parsed.clone());
        }
        Ok(set.parsed)
    }
}

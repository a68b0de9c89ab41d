//! A player's public reliability record: deadlines met against deadlines owed,
//! per game and overall, over a recent window; and the minimum a match may ask
//! of a joiner. What counts is written in docs/decisions.md ("Reliability").

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use serde_json::Value;
use uuid::Uuid;

use crate::service::accounts::player_not_found;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::models::{GameReliability, PlayerProfileResponse, ReliabilityResponse};
use crate::store;

/// The days a record looks back: half a year holds a few long correspondence
/// games, and a player who mended its ways is not held to old lapses for ever.
pub const WINDOW_DAYS: i64 = 180;

/// A record with fewer deadlines owed is too short to judge: a minimum never
/// refuses it, so a league can take newcomers (and one early lapse of theirs
/// does not shut them out).
pub const PROVISIONAL_BELOW: i64 = 10;

/// The match option naming the least reliability a joiner needs.
pub const MIN_RELIABILITY: &str = "min_reliability";

/// Players' records of deadlines.
pub struct Reliability {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
}

fn ratio(met: i64, owed: i64) -> Option<f64> {
    (owed > 0).then(|| met as f64 / owed as f64)
}

impl Reliability {
    pub fn new(db: DatabaseConnection, clock: Arc<dyn Clock>) -> Self {
        Self { db, clock }
    }

    /// The player's record, as of now.
    pub async fn record(&self, player: Uuid) -> Result<ReliabilityResponse, Error> {
        let since = self.clock.now() - chrono::Duration::days(WINDOW_DAYS);
        let games = store::reliability::deadlines_of(&self.db, player, since).await?;
        let by_game: Vec<GameReliability> = games
            .into_iter()
            .map(|g| {
                let owed = g.met + g.missed;
                GameReliability {
                    ratio: ratio(g.met, owed),
                    game: g.game,
                    met: g.met,
                    owed,
                }
            })
            .collect();
        let met = by_game.iter().map(|g| g.met).sum();
        let owed = by_game.iter().map(|g| g.owed).sum();
        Ok(ReliabilityResponse {
            met,
            owed,
            ratio: ratio(met, owed),
            window_days: WINDOW_DAYS,
            provisional_below: PROVISIONAL_BELOW,
            by_game,
        })
    }

    /// A player's public profile with its record.
    pub async fn profile(&self, name: &str) -> Result<PlayerProfileResponse, Error> {
        // Bot accounts (`bot.random.1`) have names no person may take.
        if name.is_empty() || name.len() > 64 {
            return Err(player_not_found());
        }
        let p = store::players::player_by_name(&self.db, name)
            .await?
            .ok_or_else(player_not_found)?;
        Ok(PlayerProfileResponse {
            reliability: self.record(p.id).await?,
            id: p.id,
            name: p.name,
            is_bot: p.is_bot,
            created_at: p.created_at,
        })
    }

    /// The player's record when `options` (a match's, as stored) ask for a
    /// minimum; read before the joining transaction, which then holds the
    /// joiner to it ([`admits`]) once it knows the joiner may see the match.
    pub async fn record_for(
        &self,
        options: &str,
        player: Uuid,
    ) -> Result<Option<ReliabilityResponse>, Error> {
        match minimum_of(options) {
            Some(_) => Ok(Some(self.record(player).await?)),
            None => Ok(None),
        }
    }
}

/// The minimum a match's stored options ask for, if any.
pub fn minimum_of(options: &str) -> Option<f64> {
    serde_json::from_str::<Value>(options)
        .ok()?
        .get(MIN_RELIABILITY)?
        .as_f64()
}

/// Refuses a joiner whose record is below the minimum of `options` (a match's,
/// as stored); a record shorter than [`PROVISIONAL_BELOW`] passes.
pub fn admits(options: &str, record: Option<&ReliabilityResponse>) -> Result<(), Error> {
    let (Some(minimum), Some(r)) = (minimum_of(options), record) else {
        return Ok(());
    };
    if r.owed < PROVISIONAL_BELOW {
        return Ok(());
    }
    let ratio = r.ratio.unwrap_or(0.0);
    if ratio >= minimum {
        return Ok(());
    }
    Err(Error::conflict(
        "reliability_too_low",
        format!(
            "This match asks for a reliability of at least {minimum}; yours is {:.3} ({} of {} deadlines met in the last {WINDOW_DAYS} days).",
            ratio, r.met, r.owed
        ),
    )
    .with("ratio", ratio)
    .with("minimum", minimum)
    .with("met", r.met)
    .with("owed", r.owed)
    .arg("ratio", ratio)
    .arg("minimum", minimum)
    .arg("met", r.met)
    .arg("owed", r.owed))
}

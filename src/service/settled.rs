//! The settle watermark of the event log, read once for every reader of this
//! process.

use sea_orm::DatabaseConnection;

use crate::service::error::{Error, Result};

/// The settle watermark of the event log (`store::streams::settled_tx`), read at
/// most once per [`SETTLED_MAX_AGE`] by this process however many streams and
/// webhook workers ask: each read scans `pg_stat_activity`, and every subscriber
/// used to make two per wake-up. A cached value is older, hence lower, so it can
/// only hold an event back a moment longer, never let an unsettled one through.
pub struct Settled {
    db: DatabaseConnection,
    last: tokio::sync::Mutex<Option<(std::time::Instant, Option<i64>)>>,
}

const SETTLED_MAX_AGE: std::time::Duration = std::time::Duration::from_millis(15);

impl Settled {
    pub fn new(db: DatabaseConnection) -> Self {
        Self {
            db,
            last: tokio::sync::Mutex::new(None),
        }
    }

    /// The settle watermark. The lock is held across the read, so subscribers
    /// woken together wait for one read instead of making their own.
    pub async fn settled_tx(&self) -> Result<Option<i64>, Error> {
        let mut last = self.last.lock().await;
        if let Some((at, value)) = *last
            && at.elapsed() < SETTLED_MAX_AGE
        {
            return Ok(value);
        }
        let read_at = std::time::Instant::now();
        let value = crate::store::streams::settled_tx(&self.db).await?;
        *last = Some((read_at, value));
        Ok(value)
    }
}

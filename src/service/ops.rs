//! What operators ask of a replica: its metrics and whether it is ready.

use std::sync::Arc;

use sea_orm::DatabaseConnection;

use crate::metrics::Metrics;
use crate::service::accounts::Accounts;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::records::Records;
use crate::service::snapshots::SnapshotCache;

/// Metrics and readiness.
pub struct Ops {
    db: DatabaseConnection,
    hub: Arc<Hub>,
    metrics: Arc<Metrics>,
    snapshots: SnapshotCache,
    accounts: Arc<Accounts>,
    records: Arc<Records>,
}

impl Ops {
    pub fn new(
        db: DatabaseConnection,
        hub: Arc<Hub>,
        metrics: Arc<Metrics>,
        snapshots: SnapshotCache,
        accounts: Arc<Accounts>,
        records: Arc<Records>,
    ) -> Self {
        Self {
            db,
            hub,
            metrics,
            snapshots,
            accounts,
            records,
        }
    }

    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Refreshes the gauges read from the database, then renders every metric.
    pub async fn render_metrics(&self) -> Result<String, Error> {
        for (status, n) in crate::store::matches::count_matches_by_status(&self.db).await? {
            self.metrics
                .matches
                .with_label_values(&[status.as_str()])
                .set(n);
        }
        let (size, idle) = crate::store::pool_usage(&self.db);
        self.metrics.pool.with_label_values(&["open"]).set(size);
        self.metrics.pool.with_label_values(&["idle"]).set(idle);
        self.metrics
            .pool
            .with_label_values(&["in_use"])
            .set(size - idle);
        let hashes = &self.metrics.password_hashes;
        hashes
            .with_label_values(&["running"])
            .set(self.accounts.passwords.running() as i64);
        hashes
            .with_label_values(&["peak"])
            .set(self.accounts.passwords.peak() as i64);
        let (entries, bytes) = self.snapshots.usage();
        let cache = &self.metrics.match_cache;
        cache.with_label_values(&["entries"]).set(entries as i64);
        cache.with_label_values(&["bytes"]).set(bytes as i64);
        self.metrics
            .reads_from_snapshots
            .set(i64::from(self.records.reads_from_snapshots()));
        Ok(self.metrics.render())
    }

    pub fn db(&self) -> &DatabaseConnection {
        &self.db
    }

    /// Readiness: the database answers.
    pub async fn ready(&self) -> bool {
        crate::store::ping(&self.db).await.is_ok()
    }
}

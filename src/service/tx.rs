//! Write transactions, in one place: begin, work, commit, and the whole again
//! when the database reports contention.

use std::time::Duration;

use super::error::Error;

/// How many times a transaction is tried again after contention.
pub const RETRIES: u32 = 4;

/// Runs a block in a write transaction (IMMEDIATE on SQLite) and commits what
/// it did; answers the block's `Result`. Inside the block the transaction is
/// `$tx` (a `&DatabaseTransaction`), and `return`, `?` and the block's value
/// end the attempt as they would a function: an error rolls back and is
/// answered at once, a value is committed.
///
/// When the database reports contention at any point (a serialization failure,
/// a deadlock, SQLite's busy lock), nothing was written and the whole block
/// runs again in a new transaction, a few times with jitter, before the
/// contention reaches the caller (the client is then told 503 `busy`).
///
/// A macro rather than a function taking a closure: the block is an `async`
/// block of the caller's, whose future stays `Send` for the background tasks
/// (an async closure over a borrowed transaction is not, for every lifetime).
macro_rules! transaction {
    ($db:expr, |$tx:ident| $body:block) => {{
        let mut attempt = 0u32;
        loop {
            let outcome: $crate::service::error::Result<_> = async {
                let owned = $crate::store::begin_write($db).await?;
                // An async block of its own, so that `return` in the body ends
                // the body (and is committed), not the attempt.
                let $tx = &owned;
                let out: $crate::service::error::Result<_> = async { $body }.await;
                let out = out?;
                owned.commit().await?;
                Ok(out)
            }
            .await;
            match outcome {
                Err(e) if $crate::service::tx::again(&e, attempt) => {
                    attempt += 1;
                    $crate::service::tx::back_off(attempt).await;
                }
                other => break other,
            }
        }
    }};
}
pub(crate) use transaction;

/// Whether an attempt that ended in `e` is tried again.
pub fn again(e: &Error, attempts_so_far: u32) -> bool {
    matches!(e, Error::Contention(_)) && attempts_so_far < RETRIES
}

/// The pause before attempt `attempt` (1, 2, …): growing, with jitter so that
/// writers who collided do not collide again.
pub async fn back_off(attempt: u32) {
    let jitter = (uuid::Uuid::new_v4().as_u128() % 20) as u64;
    tracing::debug!(attempt, "contention; trying again");
    tokio::time::sleep(Duration::from_millis(10 * u64::from(attempt) + jitter)).await;
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, Database, DatabaseConnection};

    use super::super::error::{Error, Result};

    async fn db() -> (DatabaseConnection, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("a temp dir");
        let url = format!("sqlite://{}/t.db?mode=rwc", dir.path().display());
        let db = Database::connect(url).await.expect("SQLite opens");
        db.execute_unprepared("CREATE TABLE t (x INTEGER)")
            .await
            .expect("a table");
        (db, dir)
    }

    async fn count(db: &DatabaseConnection) -> i64 {
        let row = db
            .query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                "SELECT COUNT(*) AS n FROM t",
            ))
            .await
            .expect("a count")
            .expect("a row");
        row.try_get::<i64>("", "n").expect("n")
    }

    async fn insert(tx: &sea_orm::DatabaseTransaction) -> Result<()> {
        tx.execute_unprepared("INSERT INTO t VALUES (1)").await?;
        Ok(())
    }

    /// A `return` in the block ends the block, and what it wrote is committed;
    /// an error rolls back whatever was written before it.
    #[tokio::test]
    async fn a_return_commits_and_an_error_rolls_back() {
        let (db, _dir) = db().await;
        let early: Result<u8> = transaction!(&db, |tx| {
            insert(tx).await?;
            if std::hint::black_box(true) {
                return Ok(1);
            }
            Ok(2)
        });
        assert_eq!(early.expect("committed"), 1);
        assert_eq!(count(&db).await, 1);
        let failed: Result<()> = transaction!(&db, |tx| {
            insert(tx).await?;
            Err(Error::conflict("match_not_active", "refused after a write"))
        });
        assert_eq!(failed.expect_err("refused").code(), "match_not_active");
        assert_eq!(count(&db).await, 1, "the refused block's insert is gone");
    }
}

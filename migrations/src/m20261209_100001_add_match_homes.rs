use sea_orm_migration::{prelude::*, sea_orm::DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A match's home: the replica whose own moves have been writing it, which may
/// answer its reads from what it keeps until `home_until` without asking the
/// database for the version (docs/decisions.md, "Homes: reads without the
/// check across replicas").
///
/// Only a move statement claims a home, by setting both columns. The trigger
/// keeps the promise a claim makes: a write that changes the version of a
/// match another replica is home of waits, under the row's lock, until that
/// home's lease is over, so no replica answers from a snapshot older than a
/// committed change; and a write that does not claim the home again clears
/// it. `WHEN` keeps the trigger off every row no replica is home of, so a lone
/// replica, which never claims, pays nothing for it.
///
/// Postgres only. SQLite has one process. On Citus the columns exist, so that
/// the statements are the same, but no replica claims (every read there asks
/// the database) and no trigger is made: Citus does not distribute a table
/// with triggers.
const UP: [&str; 4] = [
    "ALTER TABLE matches ADD COLUMN IF NOT EXISTS home uuid, \
     ADD COLUMN IF NOT EXISTS home_until timestamptz",
    "CREATE OR REPLACE FUNCTION match_home_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    me text := nullif(current_setting('sealed_orders.replica', true), '');
BEGIN
    IF OLD.home_until > clock_timestamp() AND (me IS NULL OR OLD.home::text <> me) THEN
        PERFORM pg_sleep(greatest(0, extract(epoch FROM OLD.home_until - clock_timestamp())));
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    IF NEW.home_until IS NOT DISTINCT FROM OLD.home_until THEN
        NEW.home := NULL;
        NEW.home_until := NULL;
    END IF;
    RETURN NEW;
END
$$",
    "CREATE OR REPLACE TRIGGER matches_home_update BEFORE UPDATE ON matches FOR EACH ROW \
     WHEN (OLD.home_until IS NOT NULL AND NEW.version IS DISTINCT FROM OLD.version) \
     EXECUTE FUNCTION match_home_guard()",
    "CREATE OR REPLACE TRIGGER matches_home_delete BEFORE DELETE ON matches FOR EACH ROW \
     WHEN (OLD.home_until IS NOT NULL) EXECUTE FUNCTION match_home_guard()",
];

async fn on_citus(manager: &SchemaManager<'_>) -> Result<bool, DbErr> {
    Ok(manager
        .get_connection()
        .query_one_raw(sea_orm::Statement::from_string(
            DbBackend::Postgres,
            "SELECT 1 AS one FROM pg_extension WHERE extname = 'citus'",
        ))
        .await?
        .is_some())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        let citus = on_citus(manager).await?;
        for (i, sql) in UP.iter().enumerate() {
            if citus && i > 0 {
                break;
            }
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        // Citus refuses any trigger statement on a distributed table, even
        // `DROP TRIGGER IF EXISTS`; none was made there.
        if !on_citus(manager).await? {
            for sql in [
                "DROP TRIGGER IF EXISTS matches_home_update ON matches",
                "DROP TRIGGER IF EXISTS matches_home_delete ON matches",
                "DROP FUNCTION IF EXISTS match_home_guard()",
            ] {
                db.execute_unprepared(sql).await?;
            }
        }
        db.execute_unprepared(
            "ALTER TABLE matches DROP COLUMN IF EXISTS home, DROP COLUMN IF EXISTS home_until",
        )
        .await?;
        Ok(())
    }
}

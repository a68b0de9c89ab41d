use sea_orm_migration::{prelude::*, sea_orm::DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A match's state is several kilobytes of text, rewritten with every move;
/// past about 2 KB a row is compressed by Postgres before it is stored, and
/// with the default method (pglz) that compression was the costliest single
/// function of Postgres during a drive of moves (6 % of its CPU, under
/// `heap_update`). lz4 compresses the same text several times faster at a
/// similar size. Values already stored keep their method until rewritten, and
/// reads take either.
///
/// Only the speed of a write depends on it, so where the server cannot do it
/// (built without lz4, or a Citus table it refuses to alter once
/// distributed) the column keeps the default, and the migration still
/// succeeds. SQLite stores text as it is.
const UP: &str = "DO $$ BEGIN \
      EXECUTE 'ALTER TABLE matches ALTER COLUMN state SET COMPRESSION lz4'; \
      EXECUTE 'ALTER TABLE match_checkpoints ALTER COLUMN state SET COMPRESSION lz4'; \
    EXCEPTION WHEN OTHERS THEN \
      RAISE NOTICE 'states keep the default compression: %', SQLERRM; \
    END $$";
const DOWN: &str = "DO $$ BEGIN \
      EXECUTE 'ALTER TABLE matches ALTER COLUMN state SET COMPRESSION default'; \
      EXECUTE 'ALTER TABLE match_checkpoints ALTER COLUMN state SET COMPRESSION default'; \
    EXCEPTION WHEN OTHERS THEN \
      RAISE NOTICE 'states keep their compression: %', SQLERRM; \
    END $$";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            manager.get_connection().execute_unprepared(UP).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            manager.get_connection().execute_unprepared(DOWN).await?;
        }
        Ok(())
    }
}

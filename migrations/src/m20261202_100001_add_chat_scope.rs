use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Writing in chats became a scope of its own (`chat`), where `play` used to
/// allow it: every token that could play is given `chat`, so that no token
/// issued before loses what it could do. Scopes are stored space-separated, and
/// read in any order.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE api_tokens SET scopes = scopes || ' chat' \
                 WHERE (' ' || scopes || ' ') LIKE '% play %' \
                   AND (' ' || scopes || ' ') NOT LIKE '% chat %'",
            )
            .await
            .map(|_| ())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // A version without the scope reads the word as granting nothing, so
        // only the word is taken away: a token of `chat` alone stays useless.
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE api_tokens SET scopes = TRIM(REPLACE(' ' || scopes || ' ', ' chat ', ' ')) \
                 WHERE (' ' || scopes || ' ') LIKE '% chat %'",
            )
            .await
            .map(|_| ())
    }
}

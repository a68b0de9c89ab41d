use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Component data by content hash, so a match always plays with the data it was
/// created with, whatever the server's data files say later.
#[derive(DeriveIden)]
enum GameData {
    Table,
    Sha256,
    Game,
    Files,
    CreatedAt,
}

/// Server-wide values the server generates once (the SQLite default's JWT secret).
#[derive(DeriveIden)]
enum ServerSettings {
    Table,
    Key,
    Value,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(GameData::Table)
                    .col(string_len(GameData::Sha256, 64).primary_key())
                    .col(string_len(GameData::Game, 32))
                    .col(text(GameData::Files))
                    .col(timestamp_with_time_zone(GameData::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ServerSettings::Table)
                    .col(string_len(ServerSettings::Key, 64).primary_key())
                    .col(text(ServerSettings::Value))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ServerSettings::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(GameData::Table).to_owned())
            .await
    }
}

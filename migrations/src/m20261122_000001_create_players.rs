use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
    Name,
    NameKey,
    PasswordHash,
    IsBot,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Players::Table)
                    .col(uuid(Players::Id).primary_key())
                    .col(string_len(Players::Name, 32))
                    // Names are unique case-insensitively: the key is the lowercase name.
                    .col(string_len_uniq(Players::NameKey, 32))
                    .col(text(Players::PasswordHash))
                    .col(boolean(Players::IsBot).default(false))
                    .col(timestamp_with_time_zone(Players::CreatedAt))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Players::Table).to_owned())
            .await
    }
}

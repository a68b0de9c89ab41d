use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Moderation: an account's role (`player` or `admin`), when and why an admin
/// disabled it, and the audit log of every moderation action.
#[derive(DeriveIden)]
enum Players {
    Table,
    Role,
    DisabledAt,
    DisabledReason,
}

/// Written by moderation actions only (a few a day): on Citus a reference table
/// like the other account tables (it has no `match_id`).
#[derive(DeriveIden)]
enum AuditLog {
    Table,
    Id,
    At,
    Actor,
    Action,
    Target,
    Reason,
}

// One alteration per statement: SQLite cannot do more in one ALTER TABLE.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(string_len(Players::Role, 16).default("player"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(timestamp_with_time_zone_null(Players::DisabledAt))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(string_len_null(Players::DisabledReason, 500))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(AuditLog::Table)
                    // UUIDv7: newest first is descending id.
                    .col(uuid(AuditLog::Id).primary_key())
                    .col(timestamp_with_time_zone(AuditLog::At))
                    // The admin's name, or `cli` for the operator's command.
                    .col(string_len(AuditLog::Actor, 64))
                    .col(string_len(AuditLog::Action, 32))
                    // A player's name or a match's id, as it was at the time.
                    .col(string_len(AuditLog::Target, 64))
                    .col(string_len_null(AuditLog::Reason, 500))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(AuditLog::Table).to_owned())
            .await?;
        for col in [Players::DisabledReason, Players::DisabledAt, Players::Role] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Players::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

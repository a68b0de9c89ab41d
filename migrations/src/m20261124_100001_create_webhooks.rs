use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A player's subscriptions: where to post which events. The secret is kept as
/// is, not hashed, because the server signs every delivery with it.
#[derive(DeriveIden)]
enum Webhooks {
    Table,
    Id,
    PlayerId,
    Url,
    Events,
    Secret,
    CreatedAt,
    /// How far fan-out has read the player's events: (transaction, event id).
    CursorTx,
    CursorId,
}

/// The outbox: one row per (webhook, event), with the body fixed when it was
/// made, and the retry state.
#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    Id,
    WebhookId,
    EventId,
    MatchId,
    Kind,
    Payload,
    Status,
    Attempts,
    NextAttemptAt,
    ClaimedUntil,
    Claim,
    CreatedAt,
    DeliveredAt,
    LastStatusCode,
    LastError,
}

/// The delivery log: one row per attempt.
#[derive(DeriveIden)]
enum WebhookAttempts {
    Table,
    Id,
    DeliveryId,
    Attempt,
    StartedAt,
    DurationMs,
    StatusCode,
    Error,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Webhooks::Table)
                    .col(uuid(Webhooks::Id).primary_key())
                    .col(uuid(Webhooks::PlayerId))
                    .col(string_len(Webhooks::Url, 2048))
                    // Space-separated event kinds, or `*` for every kind.
                    .col(text(Webhooks::Events))
                    .col(string_len(Webhooks::Secret, 128))
                    .col(timestamp_with_time_zone(Webhooks::CreatedAt))
                    .col(big_integer(Webhooks::CursorTx))
                    .col(big_integer(Webhooks::CursorId))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Webhooks::Table, Webhooks::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhooks_player")
                    .table(Webhooks::Table)
                    .col(Webhooks::PlayerId)
                    .col(Webhooks::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(WebhookDeliveries::Table)
                    .col(uuid(WebhookDeliveries::Id).primary_key())
                    .col(uuid(WebhookDeliveries::WebhookId))
                    .col(big_integer(WebhookDeliveries::EventId))
                    .col(uuid(WebhookDeliveries::MatchId))
                    .col(string_len(WebhookDeliveries::Kind, 64))
                    .col(text(WebhookDeliveries::Payload))
                    // pending, delivered or failed.
                    .col(string_len(WebhookDeliveries::Status, 16))
                    .col(integer(WebhookDeliveries::Attempts))
                    .col(timestamp_with_time_zone(WebhookDeliveries::NextAttemptAt))
                    .col(timestamp_with_time_zone_null(
                        WebhookDeliveries::ClaimedUntil,
                    ))
                    // Which claim holds the lease: only its holder records the outcome.
                    .col(uuid_null(WebhookDeliveries::Claim))
                    .col(timestamp_with_time_zone(WebhookDeliveries::CreatedAt))
                    .col(timestamp_with_time_zone_null(
                        WebhookDeliveries::DeliveredAt,
                    ))
                    .col(integer_null(WebhookDeliveries::LastStatusCode))
                    .col(text_null(WebhookDeliveries::LastError))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookDeliveries::Table, WebhookDeliveries::WebhookId)
                            .to(Webhooks::Table, Webhooks::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // Exactly once per (webhook, event), however many replicas fan out.
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_event")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::WebhookId)
                    .col(WebhookDeliveries::EventId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // What the workers look for: pending rows by due time.
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_due")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::Status)
                    .col(WebhookDeliveries::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(WebhookAttempts::Table)
                    .col(uuid(WebhookAttempts::Id).primary_key())
                    .col(uuid(WebhookAttempts::DeliveryId))
                    .col(integer(WebhookAttempts::Attempt))
                    .col(timestamp_with_time_zone(WebhookAttempts::StartedAt))
                    .col(big_integer(WebhookAttempts::DurationMs))
                    .col(integer_null(WebhookAttempts::StatusCode))
                    .col(text_null(WebhookAttempts::Error))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookAttempts::Table, WebhookAttempts::DeliveryId)
                            .to(WebhookDeliveries::Table, WebhookDeliveries::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_attempts_delivery")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::DeliveryId)
                    .col(WebhookAttempts::Attempt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(WebhookAttempts::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(WebhookDeliveries::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Webhooks::Table).to_owned())
            .await
    }
}

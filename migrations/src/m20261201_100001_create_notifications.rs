use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A player's mail: the address (with when it was confirmed) and what to be
/// told by mail. One row per player who ever set either; no row means the
/// defaults and no address. A reference table on a distributed Postgres, as
/// every table of accounts is.
#[derive(DeriveIden)]
enum NotificationSettings {
    Table,
    PlayerId,
    /// As typed (trimmed); shown to its owner only.
    Address,
    /// Lower-cased: what a password reset by address looks up.
    AddressKey,
    ConfirmedAt,
    /// `immediately`, `daily_digest` or `off`.
    YourTurn,
    QuietMinutes,
    DigestHour,
    TimeZone,
    Invitations,
    MatchStarted,
    MatchFinished,
    DeadlineReminders,
    UpdatedAt,
}

/// Single-use tokens sent by mail (address confirmation, password reset), kept
/// only as the SHA-256 of the token.
#[derive(DeriveIden)]
enum MailTokens {
    Table,
    Hash,
    Id,
    PlayerId,
    /// `confirm_email` or `password_reset`.
    Purpose,
    /// The address a confirmation confirms.
    Address,
    CreatedAt,
    ExpiresAt,
    UsedAt,
}

/// The outbox: one row per mail, unique per (player, kind, subject, step), so
/// however many replicas notice the same cause, one mail is queued. The
/// subject is the match a mail is about (the nil UUID for none, the token's
/// id for a confirmation or a reset); it is not called `match_id`, which would
/// make this a per-match table on a distributed Postgres.
#[derive(DeriveIden)]
enum MailOutbox {
    Table,
    Id,
    PlayerId,
    Kind,
    SubjectId,
    Step,
    Address,
    /// What a confirmation or reset link carries, until the mail is sent or
    /// given up; then erased (the token itself is stored hashed).
    Secret,
    Status,
    Attempts,
    NextAttemptAt,
    ClaimedUntil,
    Claim,
    CreatedAt,
    SentAt,
    LastError,
}

/// How far the mail fan-out has read the event log: (transaction, event id).
#[derive(DeriveIden)]
enum MailCursor {
    Table,
    Id,
    Tx,
    EventId,
}

/// Who has a live stream open to a match, until when (streams renew it while
/// open): a turn mail is not sent to somebody watching the match.
#[derive(DeriveIden)]
enum MatchWatchers {
    Table,
    MatchId,
    PlayerId,
    WatchingUntil,
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
                    .table(NotificationSettings::Table)
                    .col(uuid(NotificationSettings::PlayerId).primary_key())
                    .col(string_len_null(NotificationSettings::Address, 254))
                    .col(string_len_null(NotificationSettings::AddressKey, 254))
                    .col(timestamp_with_time_zone_null(
                        NotificationSettings::ConfirmedAt,
                    ))
                    .col(string_len(NotificationSettings::YourTurn, 16))
                    .col(integer(NotificationSettings::QuietMinutes))
                    .col(integer(NotificationSettings::DigestHour))
                    .col(string_len(NotificationSettings::TimeZone, 64))
                    .col(boolean(NotificationSettings::Invitations))
                    .col(boolean(NotificationSettings::MatchStarted))
                    .col(boolean(NotificationSettings::MatchFinished))
                    .col(boolean(NotificationSettings::DeadlineReminders))
                    .col(timestamp_with_time_zone(NotificationSettings::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(NotificationSettings::Table, NotificationSettings::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_notification_settings_address")
                    .table(NotificationSettings::Table)
                    .col(NotificationSettings::AddressKey)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MailTokens::Table)
                    .col(string_len(MailTokens::Hash, 64).primary_key())
                    .col(uuid(MailTokens::Id))
                    .col(uuid(MailTokens::PlayerId))
                    .col(string_len(MailTokens::Purpose, 16))
                    .col(string_len_null(MailTokens::Address, 254))
                    .col(timestamp_with_time_zone(MailTokens::CreatedAt))
                    .col(timestamp_with_time_zone(MailTokens::ExpiresAt))
                    .col(timestamp_with_time_zone_null(MailTokens::UsedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(MailTokens::Table, MailTokens::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_mail_tokens_player")
                    .table(MailTokens::Table)
                    .col(MailTokens::PlayerId)
                    .col(MailTokens::Purpose)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MailOutbox::Table)
                    .col(uuid(MailOutbox::Id).primary_key())
                    .col(uuid(MailOutbox::PlayerId))
                    .col(string_len(MailOutbox::Kind, 32))
                    .col(uuid(MailOutbox::SubjectId))
                    .col(big_integer(MailOutbox::Step))
                    .col(string_len(MailOutbox::Address, 254))
                    .col(string_len_null(MailOutbox::Secret, 128))
                    // pending, sent, skipped (no longer true or wanted) or failed.
                    .col(string_len(MailOutbox::Status, 16))
                    .col(integer(MailOutbox::Attempts))
                    .col(timestamp_with_time_zone(MailOutbox::NextAttemptAt))
                    .col(timestamp_with_time_zone_null(MailOutbox::ClaimedUntil))
                    .col(uuid_null(MailOutbox::Claim))
                    .col(timestamp_with_time_zone(MailOutbox::CreatedAt))
                    .col(timestamp_with_time_zone_null(MailOutbox::SentAt))
                    .col(text_null(MailOutbox::LastError))
                    .foreign_key(
                        ForeignKey::create()
                            .from(MailOutbox::Table, MailOutbox::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // At most once per (player, kind, subject, step), across replicas.
        manager
            .create_index(
                Index::create()
                    .name("idx_mail_outbox_key")
                    .table(MailOutbox::Table)
                    .col(MailOutbox::PlayerId)
                    .col(MailOutbox::Kind)
                    .col(MailOutbox::SubjectId)
                    .col(MailOutbox::Step)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_mail_outbox_due")
                    .table(MailOutbox::Table)
                    .col(MailOutbox::Status)
                    .col(MailOutbox::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MailCursor::Table)
                    .col(integer(MailCursor::Id).primary_key())
                    .col(big_integer(MailCursor::Tx))
                    .col(big_integer(MailCursor::EventId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MatchWatchers::Table)
                    .col(uuid(MatchWatchers::MatchId))
                    .col(uuid(MatchWatchers::PlayerId))
                    .col(timestamp_with_time_zone(MatchWatchers::WatchingUntil))
                    .primary_key(
                        Index::create()
                            .col(MatchWatchers::MatchId)
                            .col(MatchWatchers::PlayerId),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in [
            MatchWatchers::Table.into_iden(),
            MailCursor::Table.into_iden(),
            MailOutbox::Table.into_iden(),
            MailTokens::Table.into_iden(),
            NotificationSettings::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        Ok(())
    }
}

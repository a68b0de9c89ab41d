//! Queries of mail: addresses and settings, single-use mail tokens, the mail
//! outbox, the fan-out cursor and who is watching a match.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::entities::{
    mail_cursor, mail_outbox, mail_tokens, match_watchers, matches, notification_settings,
};

// ------------------------------------------------------------ addresses and settings

pub async fn settings_of(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Option<notification_settings::Model>, DbErr> {
    notification_settings::Entity::find_by_id(player)
        .one(db)
        .await
}

/// The rows of these players that have a confirmed address.
pub async fn confirmed_of(
    db: &impl ConnectionTrait,
    players: Vec<Uuid>,
) -> Result<Vec<notification_settings::Model>, DbErr> {
    if players.is_empty() {
        return Ok(Vec::new());
    }
    notification_settings::Entity::find()
        .filter(notification_settings::Column::PlayerId.is_in(players))
        .filter(notification_settings::Column::ConfirmedAt.is_not_null())
        .all(db)
        .await
}

/// Every row with a confirmed address whose turns are told in a daily digest.
pub async fn digest_readers(
    db: &impl ConnectionTrait,
) -> Result<Vec<notification_settings::Model>, DbErr> {
    notification_settings::Entity::find()
        .filter(notification_settings::Column::YourTurn.eq("daily_digest"))
        .filter(notification_settings::Column::ConfirmedAt.is_not_null())
        .order_by_asc(notification_settings::Column::PlayerId)
        .all(db)
        .await
}

/// The accounts whose confirmed address is this one (lower-cased).
pub async fn confirmed_by_address(
    db: &impl ConnectionTrait,
    key: &str,
) -> Result<Vec<notification_settings::Model>, DbErr> {
    notification_settings::Entity::find()
        .filter(notification_settings::Column::AddressKey.eq(key))
        .filter(notification_settings::Column::ConfirmedAt.is_not_null())
        .all(db)
        .await
}

/// Writes a player's whole row (a new one, or over the old).
pub async fn save_settings(
    db: &impl ConnectionTrait,
    row: notification_settings::Model,
) -> Result<(), DbErr> {
    use notification_settings::Column as C;
    notification_settings::Entity::insert(row.into_active_model())
        .on_conflict(
            OnConflict::column(C::PlayerId)
                .update_columns([
                    C::Address,
                    C::AddressKey,
                    C::ConfirmedAt,
                    C::YourTurn,
                    C::QuietMinutes,
                    C::DigestHour,
                    C::TimeZone,
                    C::Invitations,
                    C::MatchStarted,
                    C::MatchFinished,
                    C::DeadlineReminders,
                    C::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Marks the player's address confirmed, if it is still `address`; answers
/// whether it did.
pub async fn confirm_address(
    db: &impl ConnectionTrait,
    player: Uuid,
    address: &str,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let done = notification_settings::Entity::update_many()
        .col_expr(notification_settings::Column::ConfirmedAt, Expr::value(now))
        .filter(notification_settings::Column::PlayerId.eq(player))
        .filter(notification_settings::Column::Address.eq(address))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Forgets a player's address and everything queued for it (account deletion,
/// or the player removing it).
pub async fn forget_address(db: &impl ConnectionTrait, player: Uuid) -> Result<(), DbErr> {
    notification_settings::Entity::update_many()
        .col_expr(
            notification_settings::Column::Address,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            notification_settings::Column::AddressKey,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            notification_settings::Column::ConfirmedAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(notification_settings::Column::PlayerId.eq(player))
        .exec(db)
        .await?;
    mail_outbox::Entity::delete_many()
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .filter(mail_outbox::Column::Status.eq("pending"))
        .exec(db)
        .await?;
    mail_tokens::Entity::delete_many()
        .filter(mail_tokens::Column::PlayerId.eq(player))
        .exec(db)
        .await
        .map(|_| ())
}

// ------------------------------------------------------------ tokens

/// Adds a token; earlier unused ones of the same purpose for the player stop
/// working (only the newest link counts).
pub async fn insert_token(db: &impl ConnectionTrait, t: mail_tokens::Model) -> Result<(), DbErr> {
    mail_tokens::Entity::update_many()
        .col_expr(mail_tokens::Column::UsedAt, Expr::value(t.created_at))
        .filter(mail_tokens::Column::PlayerId.eq(t.player_id))
        .filter(mail_tokens::Column::Purpose.eq(t.purpose.clone()))
        .filter(mail_tokens::Column::UsedAt.is_null())
        .exec(db)
        .await?;
    mail_tokens::Entity::delete_many()
        .filter(mail_tokens::Column::ExpiresAt.lt(t.created_at))
        .exec(db)
        .await?;
    mail_tokens::Entity::insert(t.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Uses a token, once: answers it when it was of this purpose, unused and
/// unexpired.
pub async fn redeem_token(
    db: &impl ConnectionTrait,
    hash: &str,
    purpose: &str,
    now: DateTime<Utc>,
) -> Result<Option<mail_tokens::Model>, DbErr> {
    let done = mail_tokens::Entity::update_many()
        .col_expr(mail_tokens::Column::UsedAt, Expr::value(now))
        .filter(mail_tokens::Column::Hash.eq(hash))
        .filter(mail_tokens::Column::Purpose.eq(purpose))
        .filter(mail_tokens::Column::UsedAt.is_null())
        .filter(mail_tokens::Column::ExpiresAt.gt(now))
        .exec(db)
        .await?;
    if done.rows_affected != 1 {
        return Ok(None);
    }
    mail_tokens::Entity::find_by_id(hash.to_owned())
        .one(db)
        .await
}

// ------------------------------------------------------------ the outbox

/// Queues a mail unless one with its (player, kind, subject, step) exists;
/// answers whether it was queued.
pub async fn queue_mail(db: &impl ConnectionTrait, m: mail_outbox::Model) -> Result<bool, DbErr> {
    use mail_outbox::Column as C;
    let n = mail_outbox::Entity::insert(m.into_active_model())
        .on_conflict(
            OnConflict::columns([C::PlayerId, C::Kind, C::SubjectId, C::Step])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(n == 1)
}

/// Mails of a kind queued for a player since `since`.
pub async fn mails_since(
    db: &impl ConnectionTrait,
    player: Uuid,
    kind: &str,
    since: DateTime<Utc>,
) -> Result<u64, DbErr> {
    mail_outbox::Entity::find()
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .filter(mail_outbox::Column::Kind.eq(kind))
        .filter(mail_outbox::Column::CreatedAt.gte(since))
        .count(db)
        .await
}

/// When the last mail of this kind about this subject went to the player.
pub async fn last_sent(
    db: &impl ConnectionTrait,
    player: Uuid,
    kind: &str,
    subject: Uuid,
) -> Result<Option<DateTime<Utc>>, DbErr> {
    Ok(mail_outbox::Entity::find()
        .select_only()
        .column_as(mail_outbox::Column::SentAt.max(), "m")
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .filter(mail_outbox::Column::Kind.eq(kind))
        .filter(mail_outbox::Column::SubjectId.eq(subject))
        .into_tuple::<Option<DateTime<Utc>>>()
        .one(db)
        .await?
        .flatten())
}

/// Marks the player's pending mails of this kind about this subject at an
/// earlier step `skipped`: a newer one stands for them.
pub async fn supersede(
    db: &impl ConnectionTrait,
    player: Uuid,
    kind: &str,
    subject: Uuid,
    before_step: i64,
) -> Result<(), DbErr> {
    mail_outbox::Entity::update_many()
        .col_expr(mail_outbox::Column::Status, Expr::value("skipped"))
        .col_expr(
            mail_outbox::Column::LastError,
            Expr::value("superseded by a later step"),
        )
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .filter(mail_outbox::Column::Kind.eq(kind))
        .filter(mail_outbox::Column::SubjectId.eq(subject))
        .filter(mail_outbox::Column::Step.lt(before_step))
        .filter(mail_outbox::Column::Status.eq("pending"))
        .exec(db)
        .await
        .map(|_| ())
}

fn due(now: DateTime<Utc>) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(mail_outbox::Column::Status.eq("pending"))
        .add(mail_outbox::Column::NextAttemptAt.lte(now))
        .add(
            sea_orm::Condition::any()
                .add(mail_outbox::Column::ClaimedUntil.is_null())
                .add(mail_outbox::Column::ClaimedUntil.lt(now)),
        )
}

/// Whether any mail is due (a plain read: idle polls take no lock).
pub async fn any_mail_due(db: &impl ConnectionTrait, now: DateTime<Utc>) -> Result<bool, DbErr> {
    Ok(mail_outbox::Entity::find()
        .select_only()
        .column(mail_outbox::Column::Id)
        .filter(due(now))
        .limit(1)
        .into_tuple::<Uuid>()
        .one(db)
        .await?
        .is_some())
}

/// Due mails, locked for this worker alone (`FOR UPDATE SKIP LOCKED` on
/// Postgres; the IMMEDIATE transaction on SQLite). Leased in the same
/// transaction by [`lease_mails`].
pub async fn lock_due_mails(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<mail_outbox::Model>, DbErr> {
    let q = mail_outbox::Entity::find()
        .filter(due(now))
        .order_by_asc(mail_outbox::Column::NextAttemptAt)
        .limit(limit);
    super::skipping_locked(q, db.get_database_backend())
        .all(db)
        .await
}

/// Leases mails to `claim` until `until` and counts the attempt now, before it
/// is made: a worker that dies mid-attempt has still used one.
pub async fn lease_mails(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
    claim: Uuid,
    until: DateTime<Utc>,
) -> Result<(), DbErr> {
    if ids.is_empty() {
        return Ok(());
    }
    mail_outbox::Entity::update_many()
        .col_expr(mail_outbox::Column::ClaimedUntil, Expr::value(until))
        .col_expr(mail_outbox::Column::Claim, Expr::value(claim))
        .col_expr(
            mail_outbox::Column::Attempts,
            Expr::col(mail_outbox::Column::Attempts).add(1),
        )
        .filter(mail_outbox::Column::Id.is_in(ids))
        .exec(db)
        .await
        .map(|_| ())
}

/// What an attempt changes in its mail.
#[derive(Debug, Clone)]
pub struct MailOutcome {
    pub status: &'static str,
    pub next_attempt_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub error: Option<String>,
}

/// Records an attempt's outcome while `claim` still holds the mail; a mail no
/// longer pending loses its secret. Answers whether it did.
pub async fn finish_mail(
    db: &impl ConnectionTrait,
    id: Uuid,
    claim: Uuid,
    o: MailOutcome,
) -> Result<bool, DbErr> {
    let mut q = mail_outbox::Entity::update_many()
        .col_expr(mail_outbox::Column::Status, Expr::value(o.status))
        .col_expr(
            mail_outbox::Column::NextAttemptAt,
            Expr::value(o.next_attempt_at),
        )
        .col_expr(mail_outbox::Column::SentAt, Expr::value(o.sent_at))
        .col_expr(mail_outbox::Column::LastError, Expr::value(o.error))
        .col_expr(
            mail_outbox::Column::ClaimedUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(
            mail_outbox::Column::Claim,
            Expr::value(Option::<Uuid>::None),
        );
    if o.status != "pending" {
        q = q.col_expr(
            mail_outbox::Column::Secret,
            Expr::value(Option::<String>::None),
        );
    }
    let done = q
        .filter(mail_outbox::Column::Id.eq(id))
        .filter(mail_outbox::Column::Claim.eq(claim))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

// ------------------------------------------------------------ the fan-out cursor

/// The fan-out cursor, if it was made.
pub async fn read_mail_cursor(db: &impl ConnectionTrait) -> Result<Option<(i64, i64)>, DbErr> {
    Ok(mail_cursor::Entity::find_by_id(1)
        .one(db)
        .await?
        .map(|c| (c.tx, c.event_id)))
}

/// The fan-out cursor; made at `head` the first time it is asked for, so a
/// new deployment does not mail about its whole past.
pub async fn mail_cursor(db: &impl ConnectionTrait, head: (i64, i64)) -> Result<(i64, i64), DbErr> {
    if let Some(c) = mail_cursor::Entity::find_by_id(1).one(db).await? {
        return Ok((c.tx, c.event_id));
    }
    mail_cursor::Entity::insert(
        mail_cursor::Model {
            id: 1,
            tx: head.0,
            event_id: head.1,
        }
        .into_active_model(),
    )
    .on_conflict(
        OnConflict::column(mail_cursor::Column::Id)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db)
    .await?;
    Ok(mail_cursor::Entity::find_by_id(1)
        .one(db)
        .await?
        .map_or(head, |c| (c.tx, c.event_id)))
}

/// Moves the cursor from `from` to `to` only if it still is at `from`;
/// answers whether it did (another replica may have moved it).
pub async fn advance_mail_cursor(
    db: &impl ConnectionTrait,
    from: (i64, i64),
    to: (i64, i64),
) -> Result<bool, DbErr> {
    let done = mail_cursor::Entity::update_many()
        .col_expr(mail_cursor::Column::Tx, Expr::value(to.0))
        .col_expr(mail_cursor::Column::EventId, Expr::value(to.1))
        .filter(mail_cursor::Column::Id.eq(1))
        .filter(mail_cursor::Column::Tx.eq(from.0))
        .filter(mail_cursor::Column::EventId.eq(from.1))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Active matches whose earliest deadline falls before `until`.
pub async fn matches_due_before(
    db: &impl ConnectionTrait,
    until: DateTime<Utc>,
) -> Result<Vec<matches::Model>, DbErr> {
    matches::Entity::find()
        .filter(matches::Column::Status.eq("active"))
        .filter(matches::Column::DeadlineAt.lte(until))
        .order_by_asc(matches::Column::DeadlineAt)
        .limit(1000)
        .all(db)
        .await
}

// ------------------------------------------------------------ watchers

/// Records that the player has a stream open to the match until `until`.
pub async fn watch_match(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
    until: DateTime<Utc>,
) -> Result<(), DbErr> {
    match_watchers::Entity::insert(
        match_watchers::Model {
            match_id,
            player_id: player,
            watching_until: until,
        }
        .into_active_model(),
    )
    .on_conflict(
        OnConflict::columns([
            match_watchers::Column::MatchId,
            match_watchers::Column::PlayerId,
        ])
        .update_column(match_watchers::Column::WatchingUntil)
        .to_owned(),
    )
    .exec_without_returning(db)
    .await
    .map(|_| ())
}

/// Whether the player has a live stream open to the match.
pub async fn is_watching(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    Ok(match_watchers::Entity::find()
        .filter(match_watchers::Column::MatchId.eq(match_id))
        .filter(match_watchers::Column::PlayerId.eq(player))
        .filter(match_watchers::Column::WatchingUntil.gt(now))
        .one(db)
        .await?
        .is_some())
}

/// Whether a mail of this key was queued already.
pub async fn mail_exists(
    db: &impl ConnectionTrait,
    player: Uuid,
    kind: &str,
    subject: Uuid,
    step: i64,
) -> Result<bool, DbErr> {
    Ok(mail_outbox::Entity::find()
        .select_only()
        .column(mail_outbox::Column::Id)
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .filter(mail_outbox::Column::Kind.eq(kind))
        .filter(mail_outbox::Column::SubjectId.eq(subject))
        .filter(mail_outbox::Column::Step.eq(step))
        .into_tuple::<Uuid>()
        .one(db)
        .await?
        .is_some())
}

/// Deletes every row of mail a player has: settings with the address, tokens,
/// the outbox's rows (account deletion).
pub async fn forget_player_mail(db: &impl ConnectionTrait, player: Uuid) -> Result<(), DbErr> {
    mail_outbox::Entity::delete_many()
        .filter(mail_outbox::Column::PlayerId.eq(player))
        .exec(db)
        .await?;
    mail_tokens::Entity::delete_many()
        .filter(mail_tokens::Column::PlayerId.eq(player))
        .exec(db)
        .await?;
    notification_settings::Entity::delete_many()
        .filter(notification_settings::Column::PlayerId.eq(player))
        .exec(db)
        .await
        .map(|_| ())
}

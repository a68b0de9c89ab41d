//! What deleting an account writes: the anonymised row, and what the account
//! leaves behind (tokens, webhooks, mutes, invitations, chat texts, ratings).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QuerySelect,
};
use uuid::Uuid;

use super::entities::{
    credentials, match_invitations, match_messages, match_seats, matches, player_mutes, ratings,
    webhooks,
};

/// Gives the account its anonymous name and a key nobody can log in or
/// register under, raises its password version (every JWT is refused) and
/// records when. False when it was already deleted.
pub async fn anonymise_player(
    db: &impl ConnectionTrait,
    id: Uuid,
    name: &str,
    name_key: &str,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let done = credentials::Entity::update_many()
        .col_expr(credentials::Column::Name, Expr::value(name))
        .col_expr(credentials::Column::NameKey, Expr::value(name_key))
        // Not a PHC string: no password verifies against it.
        .col_expr(credentials::Column::PasswordHash, Expr::value("!deleted"))
        .col_expr(
            credentials::Column::PasswordVersion,
            Expr::col(credentials::Column::PasswordVersion).add(1),
        )
        .col_expr(credentials::Column::Role, Expr::value("player"))
        .col_expr(credentials::Column::DeletedAt, Expr::value(now))
        .filter(credentials::Column::Id.eq(id))
        .filter(credentials::Column::DeletedAt.is_null())
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Whether a name key is held by a deleted account (its hashed form).
pub async fn name_key_retired(db: &impl ConnectionTrait, key: &str) -> Result<bool, DbErr> {
    Ok(credentials::Entity::find()
        .select_only()
        .column(credentials::Column::Id)
        .filter(credentials::Column::NameKey.eq(key))
        .into_tuple::<Uuid>()
        .one(db)
        .await?
        .is_some())
}

/// Removes what only served the account: webhooks (their deliveries go with
/// them), its address and mail, mutes either way, its ratings (its rating history stays with the
/// matches), and cancels the invitations still waiting for its answer.
pub async fn remove_account_leftovers(
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    webhooks::Entity::delete_many()
        .filter(webhooks::Column::PlayerId.eq(id))
        .exec(db)
        .await?;
    player_mutes::Entity::delete_many()
        .filter(
            Condition::any()
                .add(player_mutes::Column::PlayerId.eq(id))
                .add(player_mutes::Column::MutedId.eq(id)),
        )
        .exec(db)
        .await?;
    ratings::Entity::delete_many()
        .filter(ratings::Column::PlayerId.eq(id))
        .exec(db)
        .await?;
    // The address, the mail settings, the mail tokens and every mail queued
    // or sent: nothing of the address outlives the account.
    super::notifications::forget_player_mail(db, id).await?;
    match_invitations::Entity::update_many()
        .col_expr(match_invitations::Column::Status, Expr::value("cancelled"))
        .col_expr(match_invitations::Column::AnsweredAt, Expr::value(now))
        .filter(match_invitations::Column::PlayerId.eq(id))
        .filter(match_invitations::Column::Status.eq("pending"))
        .exec(db)
        .await?;
    Ok(())
}

/// Erases the text of every chat message the account wrote (the messages stay
/// in their matches' logs as deleted ones, by their author).
pub async fn erase_messages_of(
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    match_messages::Entity::update_many()
        .col_expr(
            match_messages::Column::Text,
            Expr::value(Option::<String>::None),
        )
        .col_expr(match_messages::Column::DeletedAt, Expr::value(now))
        .col_expr(match_messages::Column::DeletedBy, Expr::value(id))
        .filter(match_messages::Column::AuthorId.eq(id))
        .filter(match_messages::Column::Kind.eq("message"))
        .filter(match_messages::Column::DeletedAt.is_null())
        .exec(db)
        .await
        .map(|r| r.rows_affected)
}

/// The matches not yet over that the player is seated in or owns: a plain
/// read across every match (no locks); each is then taken under its own lock.
pub async fn open_matches_of(db: &impl ConnectionTrait, id: Uuid) -> Result<Vec<Uuid>, DbErr> {
    let mut ids: Vec<Uuid> = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::MatchId)
        .filter(match_seats::Column::PlayerId.eq(id))
        .into_tuple::<Uuid>()
        .all(db)
        .await?;
    let open = |ids: Vec<Uuid>| {
        matches::Entity::find()
            .select_only()
            .column(matches::Column::Id)
            .filter(matches::Column::Id.is_in(ids))
            .filter(matches::Column::Status.is_in(["waiting", "active"]))
            .into_tuple::<Uuid>()
    };
    ids = if ids.is_empty() {
        Vec::new()
    } else {
        open(ids).all(db).await?
    };
    ids.extend(
        matches::Entity::find()
            .select_only()
            .column(matches::Column::Id)
            .filter(matches::Column::OwnerId.eq(id))
            .filter(matches::Column::Status.eq("waiting"))
            .into_tuple::<Uuid>()
            .all(db)
            .await?,
    );
    ids.sort();
    ids.dedup();
    Ok(ids)
}

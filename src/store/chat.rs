//! Match chat and players' mutes.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use super::entities::{events, match_messages, player_mutes};

/// The match's last event id (0 when it has none).
pub async fn last_event_id(db: &impl ConnectionTrait, match_id: Uuid) -> Result<i64, DbErr> {
    Ok(events::Entity::find()
        .select_only()
        .expr(events::Column::Id.max())
        .filter(events::Column::MatchId.eq(match_id))
        .into_tuple::<Option<i64>>()
        .one(db)
        .await?
        .flatten()
        .unwrap_or(0))
}

/// The last `seq` of the match's chat (0 when it has none).
pub async fn last_chat_seq(db: &impl ConnectionTrait, match_id: Uuid) -> Result<i64, DbErr> {
    Ok(match_messages::Entity::find()
        .select_only()
        .expr(match_messages::Column::Seq.max())
        .filter(match_messages::Column::MatchId.eq(match_id))
        .into_tuple::<Option<i64>>()
        .one(db)
        .await?
        .flatten()
        .unwrap_or(0))
}

/// The last `seq` of the chat written before event `event_id` (0: none): where
/// a stream resumed after that event picks the chat up again.
pub async fn chat_seq_before_event(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    event_id: i64,
) -> Result<i64, DbErr> {
    Ok(match_messages::Entity::find()
        .select_only()
        .expr(match_messages::Column::Seq.max())
        .filter(match_messages::Column::MatchId.eq(match_id))
        .filter(match_messages::Column::AfterEvent.lt(event_id))
        .into_tuple::<Option<i64>>()
        .one(db)
        .await?
        .flatten()
        .unwrap_or(0))
}

pub async fn insert_chat_row(
    db: &impl ConnectionTrait,
    row: match_messages::Model,
) -> Result<(), DbErr> {
    match_messages::Entity::insert(row.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn chat_row(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    seq: i64,
) -> Result<Option<match_messages::Model>, DbErr> {
    match_messages::Entity::find_by_id((match_id, seq))
        .one(db)
        .await
}

/// Deletes a message's text, keeping who deleted it and when.
pub async fn mark_chat_deleted(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    seq: i64,
    by: Uuid,
    at: DateTime<Utc>,
) -> Result<(), DbErr> {
    match_messages::Entity::update_many()
        .col_expr(
            match_messages::Column::Text,
            Expr::value(Option::<String>::None),
        )
        .col_expr(match_messages::Column::DeletedAt, Expr::value(at))
        .col_expr(match_messages::Column::DeletedBy, Expr::value(by))
        .filter(match_messages::Column::MatchId.eq(match_id))
        .filter(match_messages::Column::Seq.eq(seq))
        .exec(db)
        .await
        .map(|_| ())
}

/// The chat's rows (messages and notices) after `after_seq`, in order.
pub async fn chat_after(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    after_seq: i64,
    limit: u64,
) -> Result<Vec<match_messages::Model>, DbErr> {
    match_messages::Entity::find()
        .filter(match_messages::Column::MatchId.eq(match_id))
        .filter(match_messages::Column::Seq.gt(after_seq))
        .order_by_asc(match_messages::Column::Seq)
        .limit(limit)
        .all(db)
        .await
}

/// The match's messages (not the notices) after `after_seq`, in order, leaving
/// out those written by `muted`.
pub async fn chat_messages(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    after_seq: i64,
    muted: &[Uuid],
    limit: u64,
) -> Result<Vec<match_messages::Model>, DbErr> {
    let mut q = match_messages::Entity::find()
        .filter(match_messages::Column::MatchId.eq(match_id))
        .filter(match_messages::Column::Kind.eq("message"))
        .filter(match_messages::Column::Seq.gt(after_seq));
    if !muted.is_empty() {
        q = q.filter(match_messages::Column::AuthorId.is_not_in(muted.to_vec()));
    }
    q.order_by_asc(match_messages::Column::Seq)
        .limit(limit)
        .all(db)
        .await
}

/// Mutes `muted` for `player` (again: no change).
pub async fn insert_mute(
    db: &impl ConnectionTrait,
    player: Uuid,
    muted: Uuid,
    at: DateTime<Utc>,
) -> Result<(), DbErr> {
    let row = player_mutes::Model {
        player_id: player,
        muted_id: muted,
        created_at: at,
    };
    player_mutes::Entity::insert(row.into_active_model())
        .on_conflict(
            OnConflict::columns([
                player_mutes::Column::PlayerId,
                player_mutes::Column::MutedId,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn delete_mute(
    db: &impl ConnectionTrait,
    player: Uuid,
    muted: Uuid,
) -> Result<(), DbErr> {
    player_mutes::Entity::delete_by_id((player, muted))
        .exec(db)
        .await
        .map(|_| ())
}

/// The players `player` muted, oldest first.
pub async fn mutes_of(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Vec<player_mutes::Model>, DbErr> {
    player_mutes::Entity::find()
        .filter(player_mutes::Column::PlayerId.eq(player))
        .order_by_asc(player_mutes::Column::CreatedAt)
        .order_by_asc(player_mutes::Column::MutedId)
        .all(db)
        .await
}

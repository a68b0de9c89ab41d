//! Invitations and join codes.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::entities::{match_invitations, matches};

/// What makes an invitation stand at `now`: pending (not accepted, declined or
/// withdrawn) and not expired. One definition for every read that asks.
fn standing(now: DateTime<Utc>) -> Condition {
    Condition::all()
        .add(match_invitations::Column::Status.eq("pending"))
        .add(match_invitations::Column::ExpiresAt.gt(now))
}

/// The invitation of `player` to a match that still stands: pending and not
/// expired by `now`. (Once accepted, the seat is what counts.)
pub async fn live_invitation(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<match_invitations::Model>, DbErr> {
    match_invitations::Entity::find_by_id((match_id, player))
        .filter(standing(now))
        .one(db)
        .await
}

/// The ids of the matches `player` holds a standing invitation to (pending,
/// not expired by `now`): a subquery for the player's feed.
pub fn invited_matches(player: Uuid, now: DateTime<Utc>) -> sea_orm::sea_query::SelectStatement {
    use sea_orm::QueryTrait;
    match_invitations::Entity::find()
        .select_only()
        .column(match_invitations::Column::MatchId)
        .filter(match_invitations::Column::PlayerId.eq(player))
        .filter(standing(now))
        .into_query()
}

/// The players holding a standing invitation to any of `matches`: a subquery
/// for the webhooks to fan out.
pub fn invited_players(
    matches: Vec<Uuid>,
    now: DateTime<Utc>,
) -> sea_orm::sea_query::SelectStatement {
    use sea_orm::QueryTrait;
    match_invitations::Entity::find()
        .select_only()
        .column(match_invitations::Column::PlayerId)
        .filter(match_invitations::Column::MatchId.is_in(matches))
        .filter(standing(now))
        .into_query()
}

/// Whether `player` follows a match on its feed: holds a seat in it, or a
/// standing invitation to it.
pub async fn follows_match(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    Ok(super::matches::seat_of_player(db, match_id, player)
        .await?
        .is_some()
        || live_invitation(db, match_id, player, now).await?.is_some())
}

/// The standing invitations (as of `now`) to any of `matches`: (match, player).
pub async fn invitees_of(
    db: &impl ConnectionTrait,
    matches: Vec<Uuid>,
    now: DateTime<Utc>,
) -> Result<Vec<(Uuid, Uuid)>, DbErr> {
    if matches.is_empty() {
        return Ok(Vec::new());
    }
    match_invitations::Entity::find()
        .select_only()
        .column(match_invitations::Column::MatchId)
        .column(match_invitations::Column::PlayerId)
        .filter(match_invitations::Column::MatchId.is_in(matches))
        .filter(standing(now))
        .into_tuple()
        .all(db)
        .await
}

/// The invitation of `player` to a match, whatever its status.
pub async fn invitation(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
) -> Result<Option<match_invitations::Model>, DbErr> {
    match_invitations::Entity::find_by_id((match_id, player))
        .one(db)
        .await
}

pub async fn insert_invitations(
    db: &impl ConnectionTrait,
    rows: Vec<match_invitations::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    match_invitations::Entity::insert_many(rows.into_iter().map(|r| r.into_active_model()))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Writes an invitation's answer.
pub async fn answer_invitation(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
    status: &str,
    at: DateTime<Utc>,
) -> Result<(), DbErr> {
    match_invitations::Entity::update_many()
        .col_expr(match_invitations::Column::Status, Expr::value(status))
        .col_expr(match_invitations::Column::AnsweredAt, Expr::value(at))
        .filter(match_invitations::Column::MatchId.eq(match_id))
        .filter(match_invitations::Column::PlayerId.eq(player))
        .exec(db)
        .await
        .map(|_| ())
}

/// A match's invitations, oldest first.
pub async fn invitations_of_match(
    db: &impl ConnectionTrait,
    match_id: Uuid,
) -> Result<Vec<match_invitations::Model>, DbErr> {
    match_invitations::Entity::find()
        .filter(match_invitations::Column::MatchId.eq(match_id))
        .order_by_asc(match_invitations::Column::CreatedAt)
        .order_by_asc(match_invitations::Column::PlayerId)
        .all(db)
        .await
}

/// A player's pending invitations that have not expired by `now`, to waiting
/// matches, soonest expiry first (a read across shards on Citus, by the
/// player's index).
pub async fn pending_invitations_of(
    db: &impl ConnectionTrait,
    player: Uuid,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<match_invitations::Model>, DbErr> {
    match_invitations::Entity::find()
        .filter(match_invitations::Column::PlayerId.eq(player))
        .filter(standing(now))
        .order_by_asc(match_invitations::Column::ExpiresAt)
        .order_by_asc(match_invitations::Column::MatchId)
        .limit(limit)
        .all(db)
        .await
}

/// The waiting match that a join code opens, if any.
pub async fn waiting_match_by_code(
    db: &impl ConnectionTrait,
    code: &str,
) -> Result<Option<Uuid>, DbErr> {
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(
            Condition::all()
                .add(matches::Column::JoinCode.eq(code))
                .add(matches::Column::Status.eq("waiting")),
        )
        .order_by_asc(matches::Column::Id)
        .into_tuple::<Uuid>()
        .one(db)
        .await
}

pub async fn delete_invitation(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
) -> Result<(), DbErr> {
    match_invitations::Entity::delete_by_id((match_id, player))
        .exec(db)
        .await
        .map(|_| ())
}

/// The rematch of a finished match, if one was made.
pub async fn rematch_of(db: &impl ConnectionTrait, old: Uuid) -> Result<Option<Uuid>, DbErr> {
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(matches::Column::RematchOf.eq(old))
        .order_by_asc(matches::Column::Id)
        .into_tuple::<Uuid>()
        .one(db)
        .await
}

/// How many invitations `sender` sent that still stand: pending, not expired
/// by `now`, to a match still waiting (by the sender's index).
pub async fn count_standing_sent(
    db: &impl ConnectionTrait,
    sender: Uuid,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    let waiting = sea_orm::sea_query::Query::select()
        .column(matches::Column::Id)
        .from(matches::Entity)
        .and_where(matches::Column::Status.eq("waiting"))
        .to_owned();
    match_invitations::Entity::find()
        .filter(match_invitations::Column::InvitedBy.eq(sender))
        .filter(standing(now))
        .filter(match_invitations::Column::MatchId.in_subquery(waiting))
        .count(db)
        .await
}

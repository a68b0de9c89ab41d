//! Clubs, their members, and what their leaderboards read.

use sea_orm::sea_query::{Expr, ExprTrait, LikeExpr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, QuerySelect, Statement,
};
use uuid::Uuid;

use super::entities::{club_members, clubs};

pub const MEMBER: &str = "member";
pub const REQUESTED: &str = "requested";
pub const INVITED: &str = "invited";

pub async fn insert_club(db: &impl ConnectionTrait, c: clubs::Model) -> Result<(), DbErr> {
    clubs::Entity::insert(c.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn club_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<clubs::Model>, DbErr> {
    clubs::Entity::find_by_id(id).one(db).await
}

pub async fn club_by_name(
    db: &impl ConnectionTrait,
    name: &str,
) -> Result<Option<clubs::Model>, DbErr> {
    clubs::Entity::find()
        .filter(clubs::Column::NameKey.eq(name.to_lowercase()))
        .one(db)
        .await
}

/// The club row locked for the rest of the transaction (membership changes of
/// one club take turns; SQLite's write transaction already serialises them).
pub async fn lock_club(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<clubs::Model>, DbErr> {
    let mut q = clubs::Entity::find_by_id(id);
    if db.get_database_backend() == DbBackend::Postgres {
        q = q.lock_exclusive();
    }
    q.one(db).await
}

pub async fn update_club(db: &impl ConnectionTrait, c: clubs::Model) -> Result<(), DbErr> {
    clubs::Entity::update(c.into_active_model().reset_all())
        .exec(db)
        .await
        .map(|_| ())
}

pub async fn delete_club(db: &impl ConnectionTrait, id: Uuid) -> Result<(), DbErr> {
    clubs::Entity::delete_by_id(id).exec(db).await.map(|_| ())
}

/// A page of clubs, newest first (ids are UUIDv7), optionally those whose name
/// starts with `prefix` (case-insensitive).
pub async fn list_clubs(
    db: &impl ConnectionTrait,
    prefix: Option<&str>,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<clubs::Model>, DbErr> {
    let mut q = clubs::Entity::find();
    if let Some(p) = prefix {
        let escaped = p
            .to_lowercase()
            .replace('!', "!!")
            .replace('%', "!%")
            .replace('_', "!_");
        q = q.filter(
            Expr::col(clubs::Column::NameKey)
                .like(LikeExpr::new(format!("{escaped}%")).escape('!')),
        );
    }
    if let Some(b) = before {
        q = q.filter(clubs::Column::Id.lt(b));
    }
    q.order_by_desc(clubs::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

pub async fn membership(
    db: &impl ConnectionTrait,
    club: Uuid,
    player: Uuid,
) -> Result<Option<club_members::Model>, DbErr> {
    club_members::Entity::find_by_id((club, player))
        .one(db)
        .await
}

/// Whether the player is a member (not merely invited or asking).
pub async fn is_club_member(
    db: &impl ConnectionTrait,
    club: Uuid,
    player: Uuid,
) -> Result<bool, DbErr> {
    Ok(membership(db, club, player)
        .await?
        .is_some_and(|m| m.status == MEMBER))
}

pub async fn put_membership(
    db: &impl ConnectionTrait,
    m: club_members::Model,
) -> Result<(), DbErr> {
    let existing = membership(db, m.club_id, m.player_id).await?;
    let active = m.into_active_model().reset_all();
    if existing.is_some() {
        club_members::Entity::update(active)
            .exec(db)
            .await
            .map(|_| ())
    } else {
        club_members::Entity::insert(active)
            .exec_without_returning(db)
            .await
            .map(|_| ())
    }
}

pub async fn delete_membership(
    db: &impl ConnectionTrait,
    club: Uuid,
    player: Uuid,
) -> Result<bool, DbErr> {
    let done = club_members::Entity::delete_by_id((club, player))
        .exec(db)
        .await?;
    Ok(done.rows_affected > 0)
}

/// A club's rows of one status, in the order they came (then by player id),
/// a page after `after` (the position in that order, as joined time and id).
pub async fn members_of(
    db: &impl ConnectionTrait,
    club: Uuid,
    status: &str,
    offset: u64,
    limit: u64,
) -> Result<Vec<club_members::Model>, DbErr> {
    club_members::Entity::find()
        .filter(club_members::Column::ClubId.eq(club))
        .filter(club_members::Column::Status.eq(status))
        .order_by_asc(club_members::Column::CreatedAt)
        .order_by_asc(club_members::Column::PlayerId)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await
}

/// How many members a club has.
pub async fn member_count(db: &impl ConnectionTrait, club: Uuid) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    club_members::Entity::find()
        .filter(club_members::Column::ClubId.eq(club))
        .filter(club_members::Column::Status.eq(MEMBER))
        .count(db)
        .await
}

/// Members per club, for the clubs given (a club without members is absent).
pub async fn member_counts(
    db: &impl ConnectionTrait,
    clubs: Vec<Uuid>,
) -> Result<std::collections::HashMap<Uuid, u64>, DbErr> {
    if clubs.is_empty() {
        return Ok(Default::default());
    }
    let rows: Vec<(Uuid, i64)> = club_members::Entity::find()
        .select_only()
        .column(club_members::Column::ClubId)
        .column_as(club_members::Column::PlayerId.count(), "n")
        .filter(club_members::Column::ClubId.is_in(clubs))
        .filter(club_members::Column::Status.eq(MEMBER))
        .group_by(club_members::Column::ClubId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(c, n)| (c, u64::try_from(n).unwrap_or(0)))
        .collect())
}

/// The player's rows in these clubs.
pub async fn memberships_in(
    db: &impl ConnectionTrait,
    player: Uuid,
    clubs: Vec<Uuid>,
) -> Result<Vec<club_members::Model>, DbErr> {
    if clubs.is_empty() {
        return Ok(Vec::new());
    }
    club_members::Entity::find()
        .filter(club_members::Column::PlayerId.eq(player))
        .filter(club_members::Column::ClubId.is_in(clubs))
        .all(db)
        .await
}

/// Every club row of a player (memberships, requests, invitations).
pub async fn clubs_of_player(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Vec<club_members::Model>, DbErr> {
    club_members::Entity::find()
        .filter(club_members::Column::PlayerId.eq(player))
        .order_by_asc(club_members::Column::CreatedAt)
        .all(db)
        .await
}

pub async fn clubs_by_ids(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<clubs::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    clubs::Entity::find()
        .filter(clubs::Column::Id.is_in(ids))
        .all(db)
        .await
}

/// One seat's result in a finished club match of a game: what a club's
/// leaderboard is computed from.
pub struct ClubResult {
    pub match_id: Uuid,
    pub player_id: Option<Uuid>,
    pub rank: i32,
}

/// The results of every finished match of `club` in `game`, by match.
pub async fn club_results(
    db: &impl ConnectionTrait,
    club: Uuid,
    game: &str,
) -> Result<Vec<ClubResult>, DbErr> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "SELECT r.match_id, r.player_id, r.rank FROM match_results r \
             JOIN matches m ON m.id = r.match_id \
             WHERE m.club_id = $1 AND m.game = $2 AND m.status = 'finished' \
             ORDER BY r.match_id, r.seat"
        }
        _ => {
            "SELECT r.match_id, r.player_id, r.rank FROM match_results r \
             JOIN matches m ON m.id = r.match_id \
             WHERE m.club_id = ? AND m.game = ? AND m.status = 'finished' \
             ORDER BY r.match_id, r.seat"
        }
    };
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [club.into(), game.into()],
        ))
        .await?;
    rows.iter()
        .map(|r| {
            Ok(ClubResult {
                match_id: r.try_get("", "match_id")?,
                player_id: r.try_get("", "player_id")?,
                rank: r.try_get("", "rank")?,
            })
        })
        .collect()
}

/// Every membership row of the player, removed (a deleted account).
pub async fn delete_memberships_of(db: &impl ConnectionTrait, player: Uuid) -> Result<(), DbErr> {
    club_members::Entity::delete_many()
        .filter(club_members::Column::PlayerId.eq(player))
        .exec(db)
        .await
        .map(|_| ())
}

/// How many clubs `owner` owns.
pub async fn count_owned(db: &impl ConnectionTrait, owner: Uuid) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    clubs::Entity::find()
        .filter(clubs::Column::OwnerId.eq(owner))
        .count(db)
        .await
}

/// How many invitations to clubs `sender` sent that are still unanswered (by
/// the sender's index).
pub async fn count_invitations_sent(db: &impl ConnectionTrait, sender: Uuid) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    club_members::Entity::find()
        .filter(club_members::Column::InvitedBy.eq(sender))
        .filter(club_members::Column::Status.eq(INVITED))
        .count(db)
        .await
}

//! Tournaments, their entries and pairings (reference tables on Citus, keyed by
//! tournament), and the reads of matches a tournament makes.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, DbBackend, DbErr, EntityTrait,
    IntoActiveModel, QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::entities::{
    match_results, matches, tournament_entries, tournament_pairings, tournaments,
};

pub async fn insert_tournament(
    db: &impl ConnectionTrait,
    t: tournaments::Model,
) -> Result<(), DbErr> {
    tournaments::Entity::insert(t.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn tournament_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<tournaments::Model>, DbErr> {
    tournaments::Entity::find_by_id(id).one(db).await
}

/// Reads a tournament for update: a row lock on Postgres; on SQLite the
/// caller's IMMEDIATE transaction already holds the write lock.
pub async fn lock_tournament(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<tournaments::Model>, DbErr> {
    let q = tournaments::Entity::find_by_id(id);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_exclusive().one(db).await
    } else {
        q.one(db).await
    }
}

/// [`lock_tournament`] that skips a row another transaction holds (`None`).
pub async fn try_lock_tournament(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<tournaments::Model>, DbErr> {
    let q = tournaments::Entity::find_by_id(id);
    super::skipping_locked(q, db.get_database_backend())
        .one(db)
        .await
}

pub async fn update_tournament(
    db: &impl ConnectionTrait,
    t: tournaments::Model,
) -> Result<(), DbErr> {
    t.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// A page of tournaments, newest first, older than `before`.
pub async fn list_tournaments(
    db: &impl ConnectionTrait,
    game: Option<&str>,
    status: Option<&str>,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<tournaments::Model>, DbErr> {
    let mut q = tournaments::Entity::find();
    if let Some(g) = game {
        q = q.filter(tournaments::Column::Game.eq(g));
    }
    if let Some(s) = status {
        q = q.filter(tournaments::Column::Status.eq(s));
    }
    if let Some(b) = before {
        q = q.filter(tournaments::Column::Id.lt(b));
    }
    q.order_by_desc(tournaments::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// Tournaments the server may have to move on, by id after `after`: those
/// running, and those registering whose start time came.
pub async fn tournaments_to_advance(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    after: Option<Uuid>,
    limit: u64,
) -> Result<Vec<Uuid>, DbErr> {
    let mut q = tournaments::Entity::find();
    if let Some(a) = after {
        q = q.filter(tournaments::Column::Id.gt(a));
    }
    q.select_only()
        .column(tournaments::Column::Id)
        .filter(
            Condition::any()
                .add(tournaments::Column::Status.eq("running"))
                .add(
                    Condition::all()
                        .add(tournaments::Column::Status.eq("registering"))
                        .add(tournaments::Column::StartsAt.lte(now)),
                ),
        )
        .order_by_asc(tournaments::Column::Id)
        .limit(limit)
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

/// The entries of a tournament, in entry order.
pub async fn entries_of(
    db: &impl ConnectionTrait,
    tournament: Uuid,
) -> Result<Vec<tournament_entries::Model>, DbErr> {
    tournament_entries::Entity::find()
        .filter(tournament_entries::Column::TournamentId.eq(tournament))
        .order_by_asc(tournament_entries::Column::Seq)
        .all(db)
        .await
}

pub async fn insert_entries(
    db: &impl ConnectionTrait,
    rows: Vec<tournament_entries::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    tournament_entries::Entity::insert_many(rows.into_iter().map(|r| r.into_active_model()))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn delete_entry(
    db: &impl ConnectionTrait,
    tournament: Uuid,
    player: Uuid,
) -> Result<(), DbErr> {
    tournament_entries::Entity::delete_by_id((tournament, player))
        .exec(db)
        .await
        .map(|_| ())
}

pub async fn update_entry(
    db: &impl ConnectionTrait,
    e: tournament_entries::Model,
) -> Result<(), DbErr> {
    e.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// Every pairing of a tournament, by round, table and seat.
pub async fn pairings_of(
    db: &impl ConnectionTrait,
    tournament: Uuid,
) -> Result<Vec<tournament_pairings::Model>, DbErr> {
    tournament_pairings::Entity::find()
        .filter(tournament_pairings::Column::TournamentId.eq(tournament))
        .order_by_asc(tournament_pairings::Column::Round)
        .order_by_asc(tournament_pairings::Column::TableNo)
        .order_by_asc(tournament_pairings::Column::Seat)
        .all(db)
        .await
}

pub async fn insert_pairings(
    db: &impl ConnectionTrait,
    rows: Vec<tournament_pairings::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    tournament_pairings::Entity::insert_many(rows.into_iter().map(|r| r.into_active_model()))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn update_pairing(
    db: &impl ConnectionTrait,
    p: tournament_pairings::Model,
) -> Result<(), DbErr> {
    p.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// The status of each of these matches.
pub async fn statuses_of_matches(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<(Uuid, String)>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .column(matches::Column::Status)
        .filter(matches::Column::Id.is_in(ids))
        .into_tuple::<(Uuid, String)>()
        .all(db)
        .await
}

/// The placings of these matches.
pub async fn results_of_matches(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<match_results::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    match_results::Entity::find()
        .filter(match_results::Column::MatchId.is_in(ids))
        .all(db)
        .await
}

/// The tournaments not over in which a player has an entry it has not
/// withdrawn.
pub async fn open_tournaments_of(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Vec<Uuid>, DbErr> {
    let open = sea_orm::sea_query::Query::select()
        .column(tournaments::Column::Id)
        .from(tournaments::Entity)
        .and_where(tournaments::Column::Status.is_in(["registering", "running"]))
        .to_owned();
    tournament_entries::Entity::find()
        .select_only()
        .column(tournament_entries::Column::TournamentId)
        .filter(tournament_entries::Column::PlayerId.eq(player))
        .filter(tournament_entries::Column::WithdrawnAt.is_null())
        .filter(tournament_entries::Column::TournamentId.in_subquery(open))
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

/// How many tournaments `owner` created that are registering or running.
pub async fn count_open_owned(db: &impl ConnectionTrait, owner: Uuid) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    tournaments::Entity::find()
        .filter(tournaments::Column::OwnerId.eq(owner))
        .filter(tournaments::Column::Status.is_in(["registering", "running"]))
        .count(db)
        .await
}

//! Ratings, their history, and the leaderboards.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, DbErr,
    EntityTrait, IntoActiveModel, QueryFilter, QueryOrder, QuerySelect,
};

use uuid::Uuid;

use super::entities::{rating_history, ratings};

// ---------------------------------------------------------------- ratings

/// The rating rows of these players in one game, created at the default when
/// missing, and locked in ascending player id (so two matches finishing together
/// with the same players queue instead of deadlocking).
pub async fn lock_ratings(
    db: &impl ConnectionTrait,
    game: &str,
    mut players: Vec<Uuid>,
    default: (f64, f64),
    now: DateTime<Utc>,
) -> Result<Vec<ratings::Model>, DbErr> {
    players.sort();
    players.dedup();
    if players.is_empty() {
        return Ok(Vec::new());
    }
    // One statement makes the missing rows, in the order the rows are locked.
    let rows = players.iter().map(|p| ratings::ActiveModel {
        game: Set(game.to_owned()),
        player_id: Set(*p),
        mu: Set(default.0),
        sigma: Set(default.1),
        rating: Set(default.0 - 3.0 * default.1),
        games: Set(0),
        wins: Set(0),
        updated_at: Set(now),
    });
    ratings::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::columns([ratings::Column::Game, ratings::Column::PlayerId])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    let q = ratings::Entity::find()
        .filter(ratings::Column::Game.eq(game))
        .filter(ratings::Column::PlayerId.is_in(players))
        .order_by_asc(ratings::Column::PlayerId);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_exclusive().all(db).await
    } else {
        q.all(db).await
    }
}

async fn save_rating(db: &impl ConnectionTrait, r: ratings::Model) -> Result<(), DbErr> {
    r.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// Writes the locked ratings back and their history: as one statement when
/// `combine` (plain Postgres), else one statement each.
pub async fn save_ratings(
    db: &impl ConnectionTrait,
    rows: Vec<ratings::Model>,
    history: Vec<rating_history::Model>,
    combine: bool,
) -> Result<(), DbErr> {
    if !combine {
        for r in rows {
            save_rating(db, r).await?;
        }
        return insert_rating_history(db, history).await;
    }
    let backend = db.get_database_backend();
    let mut batch = super::Batch::default();
    for r in rows {
        let (game, player) = (r.game.clone(), r.player_id);
        let mut active = r.into_active_model().reset_all();
        active.game = sea_orm::ActiveValue::NotSet;
        active.player_id = sea_orm::ActiveValue::NotSet;
        batch.push(
            &ratings::Entity::update_many()
                .set(active)
                .filter(ratings::Column::Game.eq(game))
                .filter(ratings::Column::PlayerId.eq(player)),
            backend,
        );
    }
    if !history.is_empty() {
        batch.push(
            &rating_history::Entity::insert_many(history_rows(history)),
            backend,
        );
    }
    batch.flush(db, None).await
}

/// History rows to insert, their ids left to the database.
fn history_rows(
    rows: Vec<rating_history::Model>,
) -> impl Iterator<Item = rating_history::ActiveModel> {
    rows.into_iter().map(|r| {
        let mut a = r.into_active_model();
        a.id = sea_orm::ActiveValue::NotSet;
        a
    })
}

async fn insert_rating_history(
    db: &impl ConnectionTrait,
    rows: Vec<rating_history::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    rating_history::Entity::insert_many(history_rows(rows))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// One page of a game's leaderboard, best first (ties by player id).
pub async fn leaderboard(
    db: &impl ConnectionTrait,
    game: &str,
    min_games: i32,
    offset: u64,
    limit: u64,
) -> Result<Vec<ratings::Model>, DbErr> {
    ratings::Entity::find()
        .filter(ratings::Column::Game.eq(game))
        .filter(ratings::Column::Games.gte(min_games))
        .order_by_desc(ratings::Column::Rating)
        .order_by_asc(ratings::Column::PlayerId)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await
}

/// The ratings in `game` of these players (those who have one).
pub async fn ratings_of_players(
    db: &impl ConnectionTrait,
    game: &str,
    players: Vec<Uuid>,
) -> Result<Vec<ratings::Model>, DbErr> {
    if players.is_empty() {
        return Ok(Vec::new());
    }
    ratings::Entity::find()
        .filter(ratings::Column::Game.eq(game))
        .filter(ratings::Column::PlayerId.is_in(players))
        .all(db)
        .await
}

pub async fn ratings_of(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Vec<ratings::Model>, DbErr> {
    ratings::Entity::find()
        .filter(ratings::Column::PlayerId.eq(player))
        .order_by_asc(ratings::Column::Game)
        .all(db)
        .await
}

pub async fn rating_history_of(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    after_id: Option<i64>,
    limit: u64,
) -> Result<Vec<rating_history::Model>, DbErr> {
    let mut q = rating_history::Entity::find().filter(rating_history::Column::PlayerId.eq(player));
    if let Some(g) = game {
        q = q.filter(rating_history::Column::Game.eq(g));
    }
    if let Some(a) = after_id {
        q = q.filter(rating_history::Column::Id.gt(a));
    }
    q.order_by_asc(rating_history::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

//! Ratings, their history, and the leaderboards.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, QuerySelect,
};

use uuid::Uuid;

use super::entities::{rating_history, ratings};

// ---------------------------------------------------------------- ratings

/// The rating rows of these players in one game, created at the default when
/// missing, and locked in ascending player id (so two folds, or a fold and an
/// account's deletion, queue instead of deadlocking).
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
    // Padded with repeats, so that a batch's list has one of a few lengths and
    // its statements one of a few texts (each text is a prepared statement kept
    // per connection); a repeat changes nothing here.
    let padded = super::folds::padded(&players);
    // One statement makes the missing rows, in the order the rows are locked.
    let rows = padded.iter().map(|p| ratings::ActiveModel {
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
        .filter(ratings::Column::PlayerId.is_in(padded))
        .order_by_asc(ratings::Column::PlayerId);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_exclusive().all(db).await
    } else {
        q.all(db).await
    }
}

/// Writes locked ratings of one game back, and their history: the ratings as
/// one statement (padded, like [`lock_ratings`], with repeats of the last row,
/// which write the same values again), the history in chunks of the padded
/// lengths.
pub async fn save_ratings(
    db: &impl ConnectionTrait,
    game: &str,
    rows: Vec<ratings::Model>,
    history: Vec<rating_history::Model>,
) -> Result<(), DbErr> {
    if let Some(last) = rows.last() {
        let mut rows = rows.clone();
        rows.resize(super::folds::padded_len(rows.len()), last.clone());
        let marks: Vec<String> = (0..rows.len())
            .map(|i| {
                let n = 2 + 7 * i;
                format!(
                    "(${}, ${}, ${}, ${}, ${}, ${}, ${})",
                    n,
                    n + 1,
                    n + 2,
                    n + 3,
                    n + 4,
                    n + 5,
                    n + 6
                )
            })
            .collect();
        let mut values: Vec<sea_orm::Value> = vec![game.into()];
        for r in rows {
            values.extend([
                r.player_id.into(),
                r.mu.into(),
                r.sigma.into(),
                r.rating.into(),
                r.games.into(),
                r.wins.into(),
                r.updated_at.into(),
            ]);
        }
        db.execute_raw(sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            format!(
                "WITH v (player_id, mu, sigma, rating, games, wins, updated_at) AS (VALUES {}) \
                 UPDATE ratings SET mu = v.mu, sigma = v.sigma, rating = v.rating, \
                 games = v.games, wins = v.wins, updated_at = v.updated_at \
                 FROM v WHERE ratings.game = $1 AND ratings.player_id = v.player_id",
                marks.join(", ")
            ),
            values,
        ))
        .await?;
    }
    let mut rest = history;
    while !rest.is_empty() {
        let n = super::folds::padded_len_below(rest.len());
        insert_rating_history(db, rest.drain(..n).collect()).await?;
    }
    Ok(())
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

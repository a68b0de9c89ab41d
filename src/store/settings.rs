//! Component data sets and server settings.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ConnectionTrait, DbErr, EntityTrait};

use super::entities::{game_data, server_settings};

// ---------------------------------------------------------------- component data

/// Stores a data set under its hash; a second store of the same hash is a no-op.
pub async fn ensure_game_data(
    db: &impl ConnectionTrait,
    sha256: &str,
    game: &str,
    files: &str,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    let row = game_data::ActiveModel {
        sha256: Set(sha256.to_owned()),
        game: Set(game.to_owned()),
        files: Set(files.to_owned()),
        created_at: Set(now),
    };
    game_data::Entity::insert(row)
        .on_conflict(
            OnConflict::column(game_data::Column::Sha256)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn game_data_by_sha(
    db: &impl ConnectionTrait,
    sha256: &str,
) -> Result<Option<game_data::Model>, DbErr> {
    game_data::Entity::find_by_id(sha256.to_owned())
        .one(db)
        .await
}

// ---------------------------------------------------------------- settings

pub async fn setting(db: &impl ConnectionTrait, key: &str) -> Result<Option<String>, DbErr> {
    Ok(server_settings::Entity::find_by_id(key.to_owned())
        .one(db)
        .await?
        .map(|s| s.value))
}

/// Stores a value unless one is already there; answers the stored value.
pub async fn setting_or_insert(
    db: &impl ConnectionTrait,
    key: &str,
    value: &str,
) -> Result<String, DbErr> {
    let row = server_settings::ActiveModel {
        key: Set(key.to_owned()),
        value: Set(value.to_owned()),
    };
    server_settings::Entity::insert(row)
        .on_conflict(
            OnConflict::column(server_settings::Column::Key)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(setting(db, key).await?.unwrap_or_else(|| value.to_owned()))
}

//! Players and the bot accounts.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter,
};

use uuid::Uuid;

use super::entities::players;

pub async fn insert_player(db: &impl ConnectionTrait, player: players::Model) -> Result<(), DbErr> {
    players::Entity::insert(player.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn player_by_name(
    db: &impl ConnectionTrait,
    name: &str,
) -> Result<Option<players::Model>, DbErr> {
    players::Entity::find()
        .filter(players::Column::NameKey.eq(name.to_lowercase()))
        .one(db)
        .await
}

pub async fn player_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<players::Model>, DbErr> {
    players::Entity::find_by_id(id).one(db).await
}

pub async fn players_by_ids(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<players::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    players::Entity::find()
        .filter(players::Column::Id.is_in(ids))
        .all(db)
        .await
}

/// The bot account of this name, created on first use (it can never log in).
pub async fn bot_player(
    db: &impl ConnectionTrait,
    name: &str,
    now: DateTime<Utc>,
) -> Result<players::Model, DbErr> {
    if let Some(p) = player_by_name(db, name).await? {
        return Ok(p);
    }
    let row = players::ActiveModel {
        id: Set(Uuid::now_v7()),
        name: Set(name.to_owned()),
        name_key: Set(name.to_lowercase()),
        password_hash: Set(String::new()),
        is_bot: Set(true),
        created_at: Set(now),
    };
    players::Entity::insert(row)
        .on_conflict(
            OnConflict::column(players::Column::NameKey)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    player_by_name(db, name)
        .await?
        .ok_or_else(|| DbErr::RecordNotFound(format!("bot player {name}")))
}

/// Names of players by id.
pub async fn names_by_id(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<std::collections::HashMap<Uuid, String>, DbErr> {
    Ok(players_by_ids(db, ids)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect())
}

/// The language a player chose, if any (None also when there is no such player).
pub async fn player_locale(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<String>, DbErr> {
    use super::entities::preferences;
    use sea_orm::QuerySelect;
    Ok(preferences::Entity::find_by_id(id)
        .select_only()
        .column(preferences::Column::Locale)
        .into_tuple::<Option<String>>()
        .one(db)
        .await?
        .flatten())
}

/// Records (or, with None, forgets) the language a player chose.
pub async fn set_player_locale(
    db: &impl ConnectionTrait,
    id: Uuid,
    locale: Option<&str>,
) -> Result<(), DbErr> {
    use super::entities::preferences;
    use sea_orm::sea_query::Expr;
    preferences::Entity::update_many()
        .col_expr(
            preferences::Column::Locale,
            Expr::value(locale.map(str::to_owned)),
        )
        .filter(preferences::Column::Id.eq(id))
        .exec(db)
        .await
        .map(|_| ())
}

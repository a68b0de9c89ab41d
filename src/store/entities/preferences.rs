//! The `players` columns that hold a player's own settings, as an entity of
//! their own (as `credentials` is): `players::Model` is built wherever an
//! account is created, and a new account has no preference yet.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "players")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// The language the player chose (`en`, `cs`, `et`); null until they do.
    pub locale: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

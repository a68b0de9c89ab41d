use sea_orm::entity::prelude::*;

/// A position kept with its match: the state after every move of the steps
/// before `step`, as `matches.state` stores a state.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "match_checkpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub step: i64,
    #[sea_orm(column_type = "Text")]
    pub state: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Sealed-move receipts: each move's commitment (hex SHA-256 over its match,
/// step, seat, action and nonce) and the nonce, published at its reveal. Moves
/// stored before have neither.
#[derive(DeriveIden)]
enum Moves {
    Table,
    Nonce,
    Commitment,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One alteration per statement: SQLite takes no more.
        for column in [Moves::Nonce, Moves::Commitment] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Moves::Table)
                        .add_column(string_null(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Moves::Commitment, Moves::Nonce] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Moves::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

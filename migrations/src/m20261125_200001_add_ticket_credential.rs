use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// What the credential that asked for a stream ticket was, so the stream the
/// ticket opens ends with that credential: the API token's id, or the password
/// version of the JWT, and when it expires. Tickets of older versions carry
/// neither and are refused (a ticket lives a minute).
#[derive(DeriveIden)]
enum StreamTickets {
    Table,
    TokenId,
    PasswordVersion,
    CredentialExpiresAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One alteration per statement: SQLite takes no more.
        manager
            .alter_table(
                Table::alter()
                    .table(StreamTickets::Table)
                    .add_column(uuid_null(StreamTickets::TokenId))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StreamTickets::Table)
                    .add_column(big_integer_null(StreamTickets::PasswordVersion))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StreamTickets::Table)
                    .add_column(timestamp_with_time_zone_null(
                        StreamTickets::CredentialExpiresAt,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            StreamTickets::CredentialExpiresAt,
            StreamTickets::PasswordVersion,
            StreamTickets::TokenId,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(StreamTickets::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

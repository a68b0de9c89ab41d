use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Rounds {
    Table,
    MatchId,
    Round,
    Step,
    Value,
    Outcome,
    TotalA,
    TotalB,
    LeadSeat,
    CreatedAt,
}

#[derive(DeriveIden)]
enum RoundSeats {
    Table,
    MatchId,
    Round,
    Seat,
    PlayerId,
    Card,
    Kind,
    Stake,
    Choice,
    Success,
    Delta,
    Drew,
}

#[derive(DeriveIden)]
enum Ledger {
    Table,
    Id,
    MatchId,
    Round,
    Seat,
    Amount,
    Reason,
}

#[derive(DeriveIden)]
enum MatchResults {
    Table,
    MatchId,
    Seat,
    PlayerId,
    Score,
    Rank,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
}

fn cascade_to_match<T: IntoIden>(table: T, column: T) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(table, column)
        .to(Matches::Table, Matches::Id)
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Rounds::Table)
                    .col(uuid(Rounds::MatchId))
                    .col(integer(Rounds::Round))
                    .col(big_integer(Rounds::Step))
                    .col(big_integer_null(Rounds::Value))
                    .col(string_len(Rounds::Outcome, 32))
                    .col(big_integer_null(Rounds::TotalA))
                    .col(big_integer_null(Rounds::TotalB))
                    .col(integer_null(Rounds::LeadSeat))
                    .col(timestamp_with_time_zone(Rounds::CreatedAt))
                    .primary_key(Index::create().col(Rounds::MatchId).col(Rounds::Round))
                    .foreign_key(&mut cascade_to_match(Rounds::Table, Rounds::MatchId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(RoundSeats::Table)
                    .col(uuid(RoundSeats::MatchId))
                    .col(integer(RoundSeats::Round))
                    .col(integer(RoundSeats::Seat))
                    .col(uuid_null(RoundSeats::PlayerId))
                    .col(string_len_null(RoundSeats::Card, 64))
                    .col(string_len_null(RoundSeats::Kind, 64))
                    .col(big_integer_null(RoundSeats::Stake))
                    .col(string_len_null(RoundSeats::Choice, 64))
                    .col(boolean_null(RoundSeats::Success))
                    .col(big_integer(RoundSeats::Delta))
                    .col(integer(RoundSeats::Drew))
                    .primary_key(
                        Index::create()
                            .col(RoundSeats::MatchId)
                            .col(RoundSeats::Round)
                            .col(RoundSeats::Seat),
                    )
                    .foreign_key(&mut cascade_to_match(
                        RoundSeats::Table,
                        RoundSeats::MatchId,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_round_seats_player")
                    .table(RoundSeats::Table)
                    .col(RoundSeats::PlayerId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Ledger::Table)
                    .col(big_pk_auto(Ledger::Id))
                    .col(uuid(Ledger::MatchId))
                    .col(integer(Ledger::Round))
                    .col(integer(Ledger::Seat))
                    .col(big_integer(Ledger::Amount))
                    .col(string_len(Ledger::Reason, 32))
                    .foreign_key(&mut cascade_to_match(Ledger::Table, Ledger::MatchId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_ledger_match_round")
                    .table(Ledger::Table)
                    .col(Ledger::MatchId)
                    .col(Ledger::Round)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MatchResults::Table)
                    .col(uuid(MatchResults::MatchId))
                    .col(integer(MatchResults::Seat))
                    .col(uuid_null(MatchResults::PlayerId))
                    .col(big_integer(MatchResults::Score))
                    .col(integer(MatchResults::Rank))
                    .primary_key(
                        Index::create()
                            .col(MatchResults::MatchId)
                            .col(MatchResults::Seat),
                    )
                    .foreign_key(&mut cascade_to_match(
                        MatchResults::Table,
                        MatchResults::MatchId,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_match_results_player")
                    .table(MatchResults::Table)
                    .col(MatchResults::PlayerId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            MatchResults::Table.into_iden(),
            Ledger::Table.into_iden(),
            RoundSeats::Table.into_iden(),
            Rounds::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

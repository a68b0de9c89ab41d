//! The rows a move writes (the move, its events, its rounds' records) and the
//! three forms they are written in. Each table's columns are listed once, below,
//! with their SQL type and where their value comes from; every form is derived
//! from those lists, so a column added to a table is added to all of them:
//!
//! - [`MoveLists::Arrays`]: one statement outside any transaction on plain
//!   Postgres, each list bound as arrays and unnested: a handful of texts, each
//!   prepared (and planned) once per connection.
//! - [`MoveLists::Values`]: the same statement with lists as multi-row `VALUES`,
//!   on Citus, where an `INSERT … SELECT … FROM unnest(…)` is planned through the
//!   coordinator and would make every move a two-phase commit.
//! - [`move_statements`] and [`insert_events_statement`]: plain `INSERT`s for a
//!   transaction (SQLite, and the locked path on every database).
//! - [`write_moves`]: many moves of different matches in one statement and one
//!   commit (plain Postgres), every value of every row bound as an array: one
//!   text for any number and shape of moves.
//!
//! Parameters are numbered as they are bound, by the one loop that writes the
//! text, so a text and its values cannot disagree; a test checks every form for
//! every shape of move.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Query, SimpleExpr};
use sea_orm::sqlx;
use sea_orm::{DatabaseConnection, DbBackend, DbErr, Statement};
use uuid::Uuid;

use super::entities::{ledger, matches, moves, round_seats, rounds};

// ---------------------------------------------------------------- the rows

/// An event as a move (or any write of a match) records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub match_id: Uuid,
    pub version: i64,
    pub audience_seat: Option<i32>,
    pub kind: String,
    pub data: String,
    pub created_at: DateTime<Utc>,
}

/// The rows of one resolved round.
#[derive(Clone, Debug)]
pub struct RoundRows {
    pub round: rounds::Model,
    pub seats: Vec<round_seats::Model>,
    pub ledger: Vec<ledger::Model>,
}

// ---------------------------------------------------------------- the columns

/// A column's SQL type: how its values are bound one by one and as an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int4,
    Int8,
    Bool,
    Text,
    Uuid,
    Time,
}

impl Ty {
    fn sql(self) -> &'static str {
        match self {
            Ty::Int4 => "int4",
            Ty::Int8 => "int8",
            Ty::Bool => "bool",
            Ty::Text => "text",
            Ty::Uuid => "uuid",
            Ty::Time => "timestamptz",
        }
    }
}

/// One value of a row, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V<'a> {
    Int4(Option<i32>),
    Int8(Option<i64>),
    Bool(Option<bool>),
    Text(Option<&'a str>),
    Uuid(Option<Uuid>),
    Time(Option<DateTime<Utc>>),
}

impl V<'_> {
    #[cfg(test)]
    fn ty(&self) -> Ty {
        match self {
            V::Int4(_) => Ty::Int4,
            V::Int8(_) => Ty::Int8,
            V::Bool(_) => Ty::Bool,
            V::Text(_) => Ty::Text,
            V::Uuid(_) => Ty::Uuid,
            V::Time(_) => Ty::Time,
        }
    }

    fn to_value(self) -> sea_orm::Value {
        match self {
            V::Int4(v) => v.into(),
            V::Int8(v) => v.into(),
            V::Bool(v) => v.into(),
            V::Text(v) => v.map(str::to_owned).into(),
            V::Uuid(v) => v.into(),
            V::Time(v) => v.into(),
        }
    }
}

/// Where a one-statement form takes a column's value from: the row, or one of
/// the statement's head parameters that every row shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    Row,
    /// `$1`: the match.
    MatchId,
    /// `$3`: the match's version after the move.
    Version,
    /// `$6`: the time of the move.
    Now,
}

struct Column<R: 'static> {
    name: &'static str,
    ty: Ty,
    src: Src,
    value: for<'a> fn(&'a R) -> V<'a>,
}

/// A table the move writes, with the name of its part in the one statement.
struct Table<R: 'static> {
    name: &'static str,
    part: &'static str,
    columns: &'static [Column<R>],
}

const fn col<R>(name: &'static str, ty: Ty, value: for<'a> fn(&'a R) -> V<'a>) -> Column<R> {
    Column {
        name,
        ty,
        src: Src::Row,
        value,
    }
}

const fn shared<R>(
    name: &'static str,
    ty: Ty,
    src: Src,
    value: for<'a> fn(&'a R) -> V<'a>,
) -> Column<R> {
    Column {
        name,
        ty,
        src,
        value,
    }
}

static MOVES: Table<moves::Model> = Table {
    name: "moves",
    part: "mv",
    columns: &[
        shared("match_id", Ty::Uuid, Src::MatchId, |m| {
            V::Uuid(Some(m.match_id))
        }),
        col("step", Ty::Int8, |m| V::Int8(Some(m.step))),
        col("seat", Ty::Int4, |m| V::Int4(Some(m.seat))),
        col("player_id", Ty::Uuid, |m| V::Uuid(m.player_id)),
        col("action", Ty::Text, |m| V::Text(Some(&m.action))),
        col("public_action", Ty::Text, |m| {
            V::Text(m.public_action.as_deref())
        }),
        col("revealed", Ty::Bool, |m| V::Bool(Some(m.revealed))),
        col("completes_step", Ty::Bool, |m| {
            V::Bool(Some(m.completes_step))
        }),
        shared("version_after", Ty::Int8, Src::Version, |m| {
            V::Int8(Some(m.version_after))
        }),
        shared("created_at", Ty::Time, Src::Now, |m| {
            V::Time(Some(m.created_at))
        }),
        col("idempotency_key", Ty::Text, |m| {
            V::Text(m.idempotency_key.as_deref())
        }),
        col("private_until_end", Ty::Bool, |m| {
            V::Bool(Some(m.private_until_end))
        }),
        col("author", Ty::Text, |m| V::Text(m.author.as_deref())),
        col("nonce", Ty::Text, |m| V::Text(m.nonce.as_deref())),
        col("commitment", Ty::Text, |m| V::Text(m.commitment.as_deref())),
        col("replaced", Ty::Bool, |m| V::Bool(Some(m.replaced))),
    ],
};

static EVENTS: Table<NewEvent> = Table {
    name: "events",
    part: "ev",
    columns: &[
        shared("match_id", Ty::Uuid, Src::MatchId, |e| {
            V::Uuid(Some(e.match_id))
        }),
        shared("version", Ty::Int8, Src::Version, |e| {
            V::Int8(Some(e.version))
        }),
        col("audience_seat", Ty::Int4, |e| V::Int4(e.audience_seat)),
        col("kind", Ty::Text, |e| V::Text(Some(&e.kind))),
        col("data", Ty::Text, |e| V::Text(Some(&e.data))),
        shared("created_at", Ty::Time, Src::Now, |e| {
            V::Time(Some(e.created_at))
        }),
    ],
};

static ROUNDS: Table<rounds::Model> = Table {
    name: "rounds",
    part: "rd",
    columns: &[
        shared("match_id", Ty::Uuid, Src::MatchId, |r| {
            V::Uuid(Some(r.match_id))
        }),
        col("round", Ty::Int4, |r| V::Int4(Some(r.round))),
        col("step", Ty::Int8, |r| V::Int8(Some(r.step))),
        col("value", Ty::Int8, |r| V::Int8(r.value)),
        col("outcome", Ty::Text, |r| V::Text(Some(&r.outcome))),
        col("total_a", Ty::Int8, |r| V::Int8(r.total_a)),
        col("total_b", Ty::Int8, |r| V::Int8(r.total_b)),
        col("lead_seat", Ty::Int4, |r| V::Int4(r.lead_seat)),
        col("subject", Ty::Text, |r| V::Text(r.subject.as_deref())),
        shared("created_at", Ty::Time, Src::Now, |r| {
            V::Time(Some(r.created_at))
        }),
    ],
};

static ROUND_SEATS: Table<round_seats::Model> = Table {
    name: "round_seats",
    part: "rs",
    columns: &[
        shared("match_id", Ty::Uuid, Src::MatchId, |s| {
            V::Uuid(Some(s.match_id))
        }),
        col("round", Ty::Int4, |s| V::Int4(Some(s.round))),
        col("seat", Ty::Int4, |s| V::Int4(Some(s.seat))),
        col("player_id", Ty::Uuid, |s| V::Uuid(s.player_id)),
        col("card", Ty::Text, |s| V::Text(s.card.as_deref())),
        col("kind", Ty::Text, |s| V::Text(s.kind.as_deref())),
        col("stake", Ty::Int8, |s| V::Int8(s.stake)),
        col("choice", Ty::Text, |s| V::Text(s.choice.as_deref())),
        col("success", Ty::Bool, |s| V::Bool(s.success)),
        col("delta", Ty::Int8, |s| V::Int8(Some(s.delta))),
        col("drew", Ty::Int4, |s| V::Int4(Some(s.drew))),
    ],
};

static LEDGER: Table<ledger::Model> = Table {
    name: "ledger",
    part: "lg",
    columns: &[
        shared("match_id", Ty::Uuid, Src::MatchId, |l| {
            V::Uuid(Some(l.match_id))
        }),
        col("round", Ty::Int4, |l| V::Int4(Some(l.round))),
        col("seat", Ty::Int4, |l| V::Int4(Some(l.seat))),
        col("amount", Ty::Int8, |l| V::Int8(Some(l.amount))),
        col("reason", Ty::Text, |l| V::Text(Some(&l.reason))),
    ],
};

// ---------------------------------------------------------------- the transaction form

/// A multi-row `INSERT` of `rows` into `t`, every column bound from the rows.
fn insert<R>(t: &Table<R>, rows: &[&R], backend: DbBackend) -> Result<Statement, DbErr> {
    let mut q = Query::insert();
    q.into_table(Alias::new(t.name))
        .columns(t.columns.iter().map(|c| Alias::new(c.name)));
    for row in rows {
        let values = t
            .columns
            .iter()
            .map(|c| SimpleExpr::Value((c.value)(row).to_value()));
        q.values(values)
            .map_err(|e| DbErr::Custom(format!("{}: {e}", t.name)))?;
    }
    Ok(backend.build(&q))
}

/// The inserts of a move and its rounds' records, for a transaction (its events
/// go with the transaction's own, see [`insert_events_statement`]).
pub fn move_statements(
    mv: &moves::Model,
    rounds: &[RoundRows],
    backend: DbBackend,
) -> Result<Vec<Statement>, DbErr> {
    let mut out = vec![insert(&MOVES, &[mv], backend)?];
    if !rounds.is_empty() {
        let all: Vec<&rounds::Model> = rounds.iter().map(|r| &r.round).collect();
        out.push(insert(&ROUNDS, &all, backend)?);
    }
    let seats: Vec<&round_seats::Model> = rounds.iter().flat_map(|r| &r.seats).collect();
    if !seats.is_empty() {
        out.push(insert(&ROUND_SEATS, &seats, backend)?);
    }
    let ledger: Vec<&ledger::Model> = rounds.iter().flat_map(|r| &r.ledger).collect();
    if !ledger.is_empty() {
        out.push(insert(&LEDGER, &ledger, backend)?);
    }
    Ok(out)
}

/// The insert of events, in the order given (their ids follow it); none for none.
pub fn insert_events_statement(
    events: &[NewEvent],
    backend: DbBackend,
) -> Result<Option<Statement>, DbErr> {
    if events.is_empty() {
        return Ok(None);
    }
    let rows: Vec<&NewEvent> = events.iter().collect();
    insert(&EVENTS, &rows, backend).map(Some)
}

// ---------------------------------------------------------------- the one statement

/// What happens to a match's row in `match_deadlines` with a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineWrite {
    /// Unchanged (most moves of a match without time limits).
    Keep,
    Set(DateTime<Utc>),
    Clear,
}

/// What a move statement does about the match's home (docs/decisions.md,
/// "Homes: reads without the check across replicas").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Home {
    /// This replica, when it takes part in homes: a match whose home it is can
    /// be written in a batch without waiting for anybody's lease.
    pub replica: Option<Uuid>,
    /// Claims the home for this replica, for so many milliseconds from the
    /// statement's execution. Without a claim the write clears the home.
    pub claim_ms: Option<i64>,
}

/// A move that neither finishes its match nor changes a seat: the match row after
/// it, the move, the reveal it may cause, its events and round records.
pub struct MoveWrite<'a> {
    /// The version the move was checked against: the write happens only if the
    /// match is still at it.
    pub before_version: i64,
    pub after: &'a matches::Model,
    pub deadline: DeadlineWrite,
    pub mv: &'a moves::Model,
    pub reveal: bool,
    pub events: &'a [NewEvent],
    pub rounds: &'a [RoundRows],
    pub home: Home,
}

/// A move's rows, owned: what a writer of many moves is handed and hands back.
pub struct MoveRows {
    pub before_version: i64,
    pub after: matches::Model,
    pub deadline: DeadlineWrite,
    pub mv: moves::Model,
    pub reveal: bool,
    pub events: Vec<NewEvent>,
    pub rounds: Vec<RoundRows>,
    pub home: Home,
}

impl MoveRows {
    pub fn write(&self) -> MoveWrite<'_> {
        MoveWrite {
            before_version: self.before_version,
            after: &self.after,
            deadline: self.deadline,
            mv: &self.mv,
            reveal: self.reveal,
            events: &self.events,
            rounds: &self.rounds,
            home: self.home,
        }
    }
}

/// How [`write_move`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// Committed.
    Done,
    /// Nothing written: the match was no longer at `before_version`, or a move
    /// with that idempotency key exists. Read under the lock and decide again.
    Stale,
}

/// How the move statement writes its lists (events, rounds, round seats, ledger
/// lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLists {
    /// Arrays bound once each and unnested: six statement texts in all, each
    /// prepared once per connection. Plain Postgres.
    Arrays,
    /// Multi-row `VALUES`, one parameter a field: the text follows the lists'
    /// lengths. Citus, where an `INSERT … SELECT … FROM unnest(…)` is planned
    /// through the coordinator and makes every move a two-phase commit.
    Values,
}

/// A value bound to the statement: one, or a list as an array of its type.
#[derive(Debug, PartialEq)]
enum Bind<'a> {
    One(V<'a>),
    Array(Ty, Vec<V<'a>>),
}

/// The statement's text and its parameters, in the order they are numbered.
#[derive(Default)]
struct Built<'a> {
    sql: String,
    binds: Vec<Bind<'a>>,
}

impl<'a> Built<'a> {
    /// Starts the next data-modifying part of the `WITH` list.
    fn part(&mut self, name: &str) {
        self.sql
            .push_str(if self.sql.is_empty() { "WITH " } else { ", " });
        self.sql.push_str(name);
        self.sql.push_str(" AS (");
    }

    /// Binds `b` as the next parameter and answers its placeholder.
    fn param(&mut self, b: Bind<'a>) -> String {
        self.binds.push(b);
        format!("${}", self.binds.len())
    }

    /// The placeholder of a column of a row: its head parameter, or a fresh one.
    fn field<R>(&mut self, c: &Column<R>, row: &'a R) -> String {
        match c.src {
            Src::MatchId => "$1".into(),
            Src::Version => "$3".into(),
            Src::Now => "$6".into(),
            Src::Row => self.param(Bind::One((c.value)(row))),
        }
    }

    /// `, <part> AS (INSERT INTO <table> (…) VALUES (…), …)`.
    fn values<R>(&mut self, t: &Table<R>, rows: &[&'a R]) {
        if rows.is_empty() {
            return;
        }
        let names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
        self.part(t.part);
        let mut sql = format!("INSERT INTO {} ({}) VALUES ", t.name, names.join(", "));
        for (i, row) in rows.iter().enumerate() {
            let fields: Vec<String> = t.columns.iter().map(|c| self.field(c, row)).collect();
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push('(');
            sql.push_str(&fields.join(", "));
            sql.push(')');
        }
        sql.push(')');
        self.sql.push_str(&sql);
    }

    /// `, <part> AS (INSERT INTO <table> (…) SELECT … FROM unnest(…) WITH
    /// ORDINALITY … ORDER BY …)`: the rows' order kept, so ids follow it.
    fn arrays<R>(&mut self, t: &Table<R>, rows: &[&'a R]) {
        let names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
        let mut select = Vec::new();
        let mut unnest = Vec::new();
        let mut alias = Vec::new();
        for c in t.columns {
            match c.src {
                Src::Row => {
                    let values = rows.iter().map(|r| (c.value)(r)).collect();
                    let p = self.param(Bind::Array(c.ty, values));
                    unnest.push(format!("{p}::{}[]", c.ty.sql()));
                    alias.push(c.name);
                    select.push(format!("x.{}", c.name));
                }
                Src::MatchId => select.push("$1".into()),
                Src::Version => select.push("$3".into()),
                Src::Now => select.push("$6".into()),
            }
        }
        self.part(t.part);
        self.sql.push_str(&format!(
            "INSERT INTO {} ({}) SELECT {} FROM unnest({}) WITH ORDINALITY AS x({}, o) ORDER BY x.o)",
            t.name,
            names.join(", "),
            select.join(", "),
            unnest.join(", "),
            alias.join(", "),
        ));
    }
}

impl<'a> Built<'a> {
    /// `, <part> AS (INSERT INTO <table> (…) SELECT … FROM unnest(…) WITH
    /// ORDINALITY AS x(…) JOIN m ON m.id = x.match_id ORDER BY x.o)`: the rows
    /// of many moves, every column bound from the rows, kept only for the
    /// matches the statement's part `m` updated.
    fn joined<R>(&mut self, t: &Table<R>, rows: &[&'a R]) {
        let names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
        let mut unnest = Vec::new();
        for c in t.columns {
            let values = rows.iter().map(|r| (c.value)(r)).collect();
            let p = self.param(Bind::Array(c.ty, values));
            unnest.push(format!("{p}::{}[]", c.ty.sql()));
        }
        let select: Vec<String> = names.iter().map(|n| format!("x.{n}")).collect();
        self.part(t.part);
        self.sql.push_str(&format!(
            "INSERT INTO {} ({}) SELECT {} FROM unnest({}) WITH ORDINALITY AS x({}, o) \
             JOIN m ON m.id = x.match_id ORDER BY x.o)",
            t.name,
            names.join(", "),
            select.join(", "),
            unnest.join(", "),
            names.join(", "),
        ));
    }

    /// Binds the values `f` takes from each move as one array.
    fn each<W>(&mut self, ws: &'a [W], ty: Ty, f: impl Fn(&'a W) -> V<'a>) -> String {
        let p = self.param(Bind::Array(ty, ws.iter().map(f).collect()));
        format!("{p}::{}[]", ty.sql())
    }
}

/// The statement of many moves, each of a different match: the match rows are
/// updated where each is still at the version its move was checked against, and
/// every other row is inserted only for a match so updated, so a stale move
/// writes nothing and the others are written. It answers the matches written.
/// The text is the same for any number of moves of any shape (one prepared
/// statement); `matches.id = ANY($1)` gives the update its index scan whatever
/// the planner guesses of the arrays' lengths.
fn batch_statement<'a>(ws: &'a [MoveWrite<'a>]) -> Built<'a> {
    let mut b = Built::default();
    let ids = b.each(ws, Ty::Uuid, |w| V::Uuid(Some(w.after.id)));
    let head = [
        b.each(ws, Ty::Int8, |w| V::Int8(Some(w.before_version))),
        b.each(ws, Ty::Int8, |w| V::Int8(Some(w.after.version))),
        b.each(ws, Ty::Int8, |w| V::Int8(Some(w.after.step))),
        b.each(ws, Ty::Text, |w| V::Text(w.after.state.as_deref())),
        b.each(ws, Ty::Time, |w| V::Time(Some(w.after.updated_at))),
        b.each(ws, Ty::Time, |w| V::Time(w.after.step_started_at)),
        b.each(ws, Ty::Time, |w| V::Time(w.after.deadline_at)),
        b.each(ws, Ty::Uuid, |w| V::Uuid(w.home.replica)),
        b.each(ws, Ty::Int8, |w| V::Int8(w.home.claim_ms)),
    ];
    b.part("i");
    b.sql.push_str(&format!(
        "SELECT * FROM unnest({ids}, {}) \
         AS i(id, before, after, step, state, updated_at, step_started_at, deadline_at, \
              home, claim))",
        head.join(", ")
    ));
    // A match another replica is home of, its lease running, is left out: the
    // move is answered as stale and written alone, waiting for the lease
    // there (the trigger), rather than holding up every move of the batch.
    b.part("m");
    b.sql.push_str(&format!(
        "UPDATE matches SET version = i.after, step = i.step, state = i.state, \
           updated_at = i.updated_at, step_started_at = i.step_started_at, \
           deadline_at = i.deadline_at, \
           home = CASE WHEN i.claim IS NULL THEN matches.home ELSE i.home END, \
           home_until = CASE WHEN i.claim IS NULL THEN matches.home_until \
             ELSE clock_timestamp() + i.claim * interval '1 millisecond' END \
         FROM i WHERE matches.id = ANY({ids}) AND matches.id = i.id \
           AND matches.version = i.before \
           AND (matches.home_until IS NULL OR matches.home = i.home \
             OR matches.home_until <= clock_timestamp()) \
         RETURNING matches.id)"
    ));
    let mvs: Vec<&moves::Model> = ws.iter().map(|w| w.mv).collect();
    b.joined(&MOVES, &mvs);
    let revealing: Vec<&MoveWrite<'a>> = ws.iter().filter(|w| w.reveal).collect();
    let p = b.param(Bind::Array(
        Ty::Uuid,
        revealing
            .iter()
            .map(|w| V::Uuid(Some(w.after.id)))
            .collect(),
    ));
    b.part("rv");
    b.sql.push_str(&format!(
        "UPDATE moves SET revealed = true FROM m \
         WHERE moves.match_id = ANY({p}::uuid[]) AND moves.match_id = m.id \
           AND NOT moves.revealed AND NOT moves.private_until_end)"
    ));
    let set: Vec<(Uuid, DateTime<Utc>)> = ws
        .iter()
        .filter_map(|w| match w.deadline {
            DeadlineWrite::Set(at) => Some((w.after.id, at)),
            _ => None,
        })
        .collect();
    let set_ids = b.param(Bind::Array(
        Ty::Uuid,
        set.iter().map(|(id, _)| V::Uuid(Some(*id))).collect(),
    ));
    let set_at = b.param(Bind::Array(
        Ty::Time,
        set.iter().map(|(_, at)| V::Time(Some(*at))).collect(),
    ));
    b.part("ds");
    b.sql.push_str(&format!(
        "INSERT INTO match_deadlines (match_id, due_at) \
         SELECT x.id, x.due FROM unnest({set_ids}::uuid[], {set_at}::timestamptz[]) AS x(id, due) \
         JOIN m ON m.id = x.id \
         ON CONFLICT (match_id) DO UPDATE SET due_at = excluded.due_at)"
    ));
    let cleared = b.param(Bind::Array(
        Ty::Uuid,
        ws.iter()
            .filter(|w| w.deadline == DeadlineWrite::Clear)
            .map(|w| V::Uuid(Some(w.after.id)))
            .collect(),
    ));
    b.part("dc");
    b.sql.push_str(&format!(
        "DELETE FROM match_deadlines d USING m \
         WHERE d.match_id = ANY({cleared}::uuid[]) AND d.match_id = m.id)"
    ));
    let events: Vec<&NewEvent> = ws.iter().flat_map(|w| w.events).collect();
    let rounds: Vec<&rounds::Model> = ws.iter().flat_map(|w| w.rounds).map(|r| &r.round).collect();
    let seats: Vec<&round_seats::Model> = ws
        .iter()
        .flat_map(|w| w.rounds)
        .flat_map(|r| &r.seats)
        .collect();
    let ledger: Vec<&ledger::Model> = ws
        .iter()
        .flat_map(|w| w.rounds)
        .flat_map(|r| &r.ledger)
        .collect();
    b.joined(&EVENTS, &events);
    b.joined(&ROUNDS, &rounds);
    b.joined(&ROUND_SEATS, &seats);
    b.joined(&LEDGER, &ledger);
    b.sql.push_str(" SELECT id FROM m");
    b
}

/// The one statement of a move: its text and parameters. Parameters 1–9 are the
/// head (the match, the version checked against and after, the match row's new
/// fields, whether the move reveals the step); then, where the replica takes
/// part in homes, the replica and the lease it claims; then the move, the deadline, and
/// the lists, as [`MoveLists`] says.
fn move_statement<'a>(w: &'a MoveWrite<'a>, lists: MoveLists) -> Built<'a> {
    let m = w.after;
    let mut b = Built::default();
    for head in [
        V::Uuid(Some(m.id)),
        V::Int8(Some(w.before_version)),
        V::Int8(Some(m.version)),
        V::Int8(Some(m.step)),
        V::Text(m.state.as_deref()),
        V::Time(Some(m.updated_at)),
        V::Time(m.step_started_at),
        V::Time(m.deadline_at),
        V::Bool(Some(w.reveal)),
    ] {
        b.param(Bind::One(head));
    }
    // Only where the replica takes part in homes (plain Postgres): Citus
    // refuses a volatile function in a distributed table's update.
    let home = w.home.replica.map(|_| {
        let me = b.param(Bind::One(V::Uuid(w.home.replica)));
        let claim = b.param(Bind::One(V::Int8(w.home.claim_ms)));
        format!(
            ", home = CASE WHEN {claim}::int8 IS NULL THEN home ELSE {me} END, \
             home_until = CASE WHEN {claim}::int8 IS NULL THEN home_until \
               ELSE clock_timestamp() + {claim} * interval '1 millisecond' END"
        )
    });
    b.values(&MOVES, &[w.mv]);
    b.part("rv");
    b.sql.push_str(
        "UPDATE moves SET revealed = true \
         WHERE match_id = $1 AND $9 AND NOT revealed AND NOT private_until_end)",
    );
    match w.deadline {
        DeadlineWrite::Keep => {}
        DeadlineWrite::Set(at) => {
            let p = b.param(Bind::One(V::Time(Some(at))));
            b.part("dl");
            b.sql.push_str(&format!(
                "INSERT INTO match_deadlines (match_id, due_at) VALUES ($1, {p}) \
                 ON CONFLICT (match_id) DO UPDATE SET due_at = excluded.due_at)"
            ));
        }
        DeadlineWrite::Clear => {
            b.part("dl");
            b.sql
                .push_str("DELETE FROM match_deadlines WHERE match_id = $1)");
        }
    }
    let events: Vec<&NewEvent> = w.events.iter().collect();
    let rounds: Vec<&rounds::Model> = w.rounds.iter().map(|r| &r.round).collect();
    let seats: Vec<&round_seats::Model> = w.rounds.iter().flat_map(|r| &r.seats).collect();
    let ledger: Vec<&ledger::Model> = w.rounds.iter().flat_map(|r| &r.ledger).collect();
    match lists {
        MoveLists::Values => {
            b.values(&EVENTS, &events);
            b.values(&ROUNDS, &rounds);
            b.values(&ROUND_SEATS, &seats);
            b.values(&LEDGER, &ledger);
        }
        // A fixed text per shape: events always, the round tables together
        // whenever the move resolves a round (empty arrays insert nothing).
        MoveLists::Arrays => {
            b.arrays(&EVENTS, &events);
            if !w.rounds.is_empty() {
                b.arrays(&ROUNDS, &rounds);
                b.arrays(&ROUND_SEATS, &seats);
                b.arrays(&LEDGER, &ledger);
            }
        }
    }
    // The guard: unless the row is still at version $2, 1 / 0 fails the statement.
    b.sql.push_str(&format!(
        " UPDATE matches SET version = $3 + 0 * (1 / (CASE WHEN version = $2 THEN 1 ELSE 0 END)), \
           step = $4, state = $5, updated_at = $6, step_started_at = $7, deadline_at = $8{} \
         WHERE id = $1",
        home.unwrap_or_default()
    ));
    b
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

fn bind_one<'q>(q: PgQuery<'q>, v: V<'q>) -> PgQuery<'q> {
    match v {
        V::Int4(v) => q.bind(v),
        V::Int8(v) => q.bind(v),
        V::Bool(v) => q.bind(v),
        V::Text(v) => q.bind(v),
        V::Uuid(v) => q.bind(v),
        V::Time(v) => q.bind(v),
    }
}

/// Binds a list as an array of its column's type. A value of another type is
/// bound as a null: the tables' test checks that none is.
fn bind_array<'q>(q: PgQuery<'q>, ty: Ty, values: Vec<V<'q>>) -> PgQuery<'q> {
    let it = values.into_iter();
    match ty {
        Ty::Int4 => q.bind(
            it.map(|v| if let V::Int4(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
        Ty::Int8 => q.bind(
            it.map(|v| if let V::Int8(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
        Ty::Bool => q.bind(
            it.map(|v| if let V::Bool(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
        Ty::Text => q.bind(
            it.map(|v| if let V::Text(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
        Ty::Uuid => q.bind(
            it.map(|v| if let V::Uuid(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
        Ty::Time => q.bind(
            it.map(|v| if let V::Time(x) = v { x } else { None })
                .collect::<Vec<_>>(),
        ),
    }
}

/// Writes a move on Postgres as one statement outside any transaction: the
/// inserts of the move, its events and rounds, and the update of the match row,
/// which fails (division by zero, SQLSTATE 22012) unless the match is still at the
/// version the move was checked against, taking every insert with it. One round
/// trip, one commit; no row lock is held while the server works.
///
/// No part reads another's result, and every part names the match (`$1`), so on
/// a distributed Postgres the whole statement stays on the one worker that holds
/// it (docs/decisions.md, "A move is one statement").
pub async fn write_move(
    db: &DatabaseConnection,
    w: &MoveWrite<'_>,
    lists: MoveLists,
) -> Result<Written, DbErr> {
    let built = move_statement(w, lists);
    let mut q = sqlx::query(sqlx::AssertSqlSafe(built.sql));
    for b in built.binds {
        q = match b {
            Bind::One(v) => bind_one(q, v),
            Bind::Array(ty, values) => bind_array(q, ty, values),
        };
    }
    written(q.execute(db.get_postgres_connection_pool()).await)
}

/// How [`write_moves`] ended, when the database answered.
#[derive(Debug, PartialEq, Eq)]
pub enum BatchWritten {
    /// Committed: each move's outcome, in the order given.
    Each(Vec<Written>),
    /// Nothing written: a unique index refused one of the moves, or the batch
    /// met another writer's in a deadlock. Write each alone to learn which.
    Refused,
}

/// Writes many moves, each of a different match, as one statement outside any
/// transaction: one round trip and one commit for all of them. A move whose
/// match moved past its version is [`Written::Stale`] and writes nothing; the
/// others are written (plain Postgres; see [`batch_statement`]).
pub async fn write_moves(
    db: &DatabaseConnection,
    ws: &[MoveWrite<'_>],
) -> Result<BatchWritten, DbErr> {
    use sea_orm::sqlx::Row;
    let built = batch_statement(ws);
    let mut q = sqlx::query(sqlx::AssertSqlSafe(built.sql));
    for b in built.binds {
        q = match b {
            Bind::One(v) => bind_one(q, v),
            Bind::Array(ty, values) => bind_array(q, ty, values),
        };
    }
    match q.fetch_all(db.get_postgres_connection_pool()).await {
        Ok(rows) => {
            let written: std::collections::HashSet<Uuid> = rows
                .iter()
                .map(|r| r.try_get::<Uuid, _>(0))
                .collect::<Result<_, _>>()
                .map_err(|e| DbErr::Exec(sea_orm::RuntimeErr::SqlxError(Arc::new(e))))?;
            Ok(BatchWritten::Each(
                ws.iter()
                    .map(|w| {
                        if written.contains(&w.after.id) {
                            Written::Done
                        } else {
                            Written::Stale
                        }
                    })
                    .collect(),
            ))
        }
        Err(sqlx::Error::Database(e))
            // 23505: a unique index (an idempotency key used before); 40P01: a
            // deadlock with another batch holding some of the same matches.
            if matches!(e.code().as_deref(), Some("23505" | "40P01")) =>
        {
            Ok(BatchWritten::Refused)
        }
        Err(e) => Err(DbErr::Exec(sea_orm::RuntimeErr::SqlxError(Arc::new(e)))),
    }
}

/// What a unique index or the version guard refusing the move means: somebody
/// else wrote first.
fn written(result: Result<sqlx::postgres::PgQueryResult, sqlx::Error>) -> Result<Written, DbErr> {
    match result {
        Ok(done) if done.rows_affected() == 1 => Ok(Written::Done),
        Ok(_) => Ok(Written::Stale),
        Err(sqlx::Error::Database(e))
            // 22012: the match moved past the version (the guard's division by
            // zero); 23505: a unique index refused the move (its idempotency key
            // was used before, or a concurrent writer stored the seat's move).
            if matches!(e.code().as_deref(), Some("22012" | "23505")) =>
        {
            Ok(Written::Stale)
        }
        Err(e) => Err(DbErr::Exec(sea_orm::RuntimeErr::SqlxError(Arc::new(e)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000, 0).expect("a valid time")
    }

    fn a_move(id: Uuid) -> moves::Model {
        moves::Model {
            id: 0,
            match_id: id,
            step: 4,
            seat: 1,
            player_id: Some(Uuid::nil()),
            action: "{}".into(),
            public_action: None,
            revealed: false,
            completes_step: true,
            version_after: 9,
            created_at: at(),
            idempotency_key: Some("k".into()),
            private_until_end: false,
            author: None,
            nonce: Some("n".into()),
            commitment: Some("c".into()),
            replaced: false,
        }
    }

    fn a_round(id: Uuid, round: i32, seats: usize, ledger: usize) -> RoundRows {
        RoundRows {
            round: rounds::Model {
                match_id: id,
                round,
                step: 4,
                value: Some(3),
                outcome: "won".into(),
                total_a: Some(1),
                total_b: None,
                lead_seat: None,
                subject: Some("ship:1".into()),
                created_at: at(),
            },
            seats: (0..seats)
                .map(|s| round_seats::Model {
                    match_id: id,
                    round,
                    seat: s as i32,
                    player_id: None,
                    card: Some("attack".into()),
                    kind: None,
                    stake: Some(2),
                    choice: None,
                    success: None,
                    delta: -1,
                    drew: 0,
                })
                .collect(),
            ledger: (0..ledger)
                .map(|s| ledger::Model {
                    id: 0,
                    match_id: id,
                    round,
                    seat: s as i32,
                    amount: 5,
                    reason: "trade".into(),
                })
                .collect(),
        }
    }

    fn an_event(id: Uuid, n: usize) -> NewEvent {
        NewEvent {
            match_id: id,
            version: 9,
            audience_seat: (n % 2 == 1).then_some(1),
            kind: format!("kind{n}"),
            data: "{}".into(),
            created_at: at(),
        }
    }

    /// The `$n` placeholders of a text, sorted and deduplicated.
    fn placeholders(sql: &str) -> Vec<usize> {
        let mut used: Vec<usize> = sql
            .split('$')
            .skip(1)
            .map(|t| {
                t.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .map(|n| n.parse().expect("a parameter number"))
            .collect();
        used.sort_unstable();
        used.dedup();
        used
    }

    #[test]
    fn every_column_gives_a_value_of_its_declared_type() {
        fn check<R>(t: &Table<R>, row: &R) {
            for c in t.columns {
                assert_eq!((c.value)(row).ty(), c.ty, "{}.{}", t.name, c.name);
            }
        }
        let id = Uuid::now_v7();
        let round = a_round(id, 1, 1, 1);
        check(&MOVES, &a_move(id));
        check(&EVENTS, &an_event(id, 0));
        check(&ROUNDS, &round.round);
        check(&ROUND_SEATS, &round.seats[0]);
        check(&LEDGER, &round.ledger[0]);
    }

    /// Every form numbers every bound value once, without a gap, whatever the
    /// shape of the move; every array holds one value a row; every column of
    /// every table written is named.
    #[test]
    fn every_form_numbers_every_bound_value_for_every_shape() {
        let id = Uuid::now_v7();
        let mv = a_move(id);
        let row = matches::Model { id, ..a_match() };
        for deadline in [
            DeadlineWrite::Keep,
            DeadlineWrite::Set(at()),
            DeadlineWrite::Clear,
        ] {
            for (events, rounds) in [
                (0, vec![]),
                (1, vec![]),
                (3, vec![(1, 3, 0)]),
                (2, vec![(1, 4, 2), (2, 8, 5)]),
            ] {
                let events: Vec<NewEvent> = (0..events).map(|n| an_event(id, n)).collect();
                let rounds: Vec<RoundRows> = rounds
                    .iter()
                    .map(|(r, s, l)| a_round(id, *r, *s, *l))
                    .collect();
                let w = MoveWrite {
                    before_version: 8,
                    after: &row,
                    deadline,
                    mv: &mv,
                    reveal: true,
                    events: &events,
                    rounds: &rounds,
                    home: Home::default(),
                };
                for lists in [MoveLists::Arrays, MoveLists::Values] {
                    let built = move_statement(&w, lists);
                    let shape = format!("{lists:?} {deadline:?} {} {}", events.len(), rounds.len());
                    assert_eq!(
                        placeholders(&built.sql),
                        (1..=built.binds.len()).collect::<Vec<_>>(),
                        "{shape}: {}",
                        built.sql
                    );
                    let seats: usize = rounds.iter().map(|r| r.seats.len()).sum();
                    let lines: usize = rounds.iter().map(|r| r.ledger.len()).sum();
                    let arrays = lists == MoveLists::Arrays;
                    for (t, rows, always) in [
                        (MOVES.name, 1, true),
                        (EVENTS.name, events.len(), arrays),
                        (ROUNDS.name, rounds.len(), false),
                        (ROUND_SEATS.name, seats, arrays && !rounds.is_empty()),
                        (LEDGER.name, lines, arrays && !rounds.is_empty()),
                    ] {
                        assert_eq!(
                            built.sql.contains(&format!("INSERT INTO {t} ")),
                            rows > 0 || always,
                            "{shape}: {t}"
                        );
                    }
                    for b in &built.binds {
                        if let Bind::Array(ty, values) = b {
                            assert!(values.iter().all(|v| v.ty() == *ty), "{shape}");
                        }
                    }
                    assert_eq!(
                        built.sql.contains("unnest"),
                        lists == MoveLists::Arrays,
                        "{shape}"
                    );
                    for c in MOVES.columns {
                        assert!(built.sql.contains(c.name), "{shape}: {}", c.name);
                    }
                }
            }
        }
    }

    #[test]
    fn a_move_claims_a_home_only_where_its_replica_takes_part_in_homes() {
        let id = Uuid::now_v7();
        let mv = a_move(id);
        let row = matches::Model { id, ..a_match() };
        let replica = Uuid::now_v7();
        for (home, named) in [
            (Home::default(), false),
            (
                Home {
                    replica: Some(replica),
                    claim_ms: None,
                },
                true,
            ),
            (
                Home {
                    replica: Some(replica),
                    claim_ms: Some(3000),
                },
                true,
            ),
        ] {
            let w = MoveWrite {
                before_version: 8,
                after: &row,
                deadline: DeadlineWrite::Keep,
                mv: &mv,
                reveal: false,
                events: &[],
                rounds: &[],
                home,
            };
            for lists in [MoveLists::Arrays, MoveLists::Values] {
                let built = move_statement(&w, lists);
                assert_eq!(built.sql.contains("home_until"), named, "{home:?}");
                assert_eq!(
                    placeholders(&built.sql),
                    (1..=built.binds.len()).collect::<Vec<_>>()
                );
                if named {
                    // Right after the head's nine.
                    assert_eq!(built.binds[9], Bind::One(V::Uuid(Some(replica))));
                    assert_eq!(built.binds[10], Bind::One(V::Int8(home.claim_ms)));
                }
            }
        }
    }

    #[test]
    fn the_arrays_form_has_one_text_per_shape_whatever_the_lists_lengths() {
        let id = Uuid::now_v7();
        let mv = a_move(id);
        let row = a_match();
        let texts = |events: usize, rounds: &[(i32, usize, usize)]| {
            let events: Vec<NewEvent> = (0..events).map(|n| an_event(id, n)).collect();
            let rounds: Vec<RoundRows> = rounds
                .iter()
                .map(|(r, s, l)| a_round(id, *r, *s, *l))
                .collect();
            let w = MoveWrite {
                before_version: 8,
                after: &row,
                deadline: DeadlineWrite::Keep,
                mv: &mv,
                reveal: false,
                events: &events,
                rounds: &rounds,
                home: Home::default(),
            };
            move_statement(&w, MoveLists::Arrays).sql
        };
        assert_eq!(texts(1, &[]), texts(5, &[]));
        assert_eq!(texts(2, &[(1, 2, 0)]), texts(4, &[(1, 3, 3), (2, 3, 1)]));
        assert_ne!(texts(1, &[]), texts(1, &[(1, 2, 0)]));
    }

    /// The statement of many moves has one text whatever their number and
    /// shape, numbers its parameters without a gap, binds one array element a
    /// row (or a move, for the head), and inserts every table's rows only for
    /// the matches it updated.
    #[test]
    fn the_batch_has_one_text_for_any_moves_and_one_element_a_row() {
        let rows: Vec<matches::Model> = (0..3)
            .map(|_| matches::Model {
                id: Uuid::now_v7(),
                ..a_match()
            })
            .collect();
        let moves: Vec<moves::Model> = rows.iter().map(|r| a_move(r.id)).collect();
        let events: Vec<Vec<NewEvent>> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (0..i + 1).map(|n| an_event(r.id, n)).collect())
            .collect();
        let rounds: Vec<Vec<RoundRows>> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (0..i).map(|n| a_round(r.id, n as i32, 3, n)).collect())
            .collect();
        let deadlines = [
            DeadlineWrite::Keep,
            DeadlineWrite::Set(at()),
            DeadlineWrite::Clear,
        ];
        let writes: Vec<MoveWrite> = (0..3)
            .map(|i| MoveWrite {
                before_version: 8,
                after: &rows[i],
                deadline: deadlines[i],
                mv: &moves[i],
                reveal: i == 1,
                events: &events[i],
                rounds: &rounds[i],
                home: Home::default(),
            })
            .collect();
        let all = batch_statement(&writes);
        let one = batch_statement(&writes[..1]);
        assert_eq!(all.sql, one.sql);
        assert_eq!(
            placeholders(&all.sql),
            (1..=all.binds.len()).collect::<Vec<_>>()
        );
        let lengths: Vec<usize> = all
            .binds
            .iter()
            .map(|b| match b {
                Bind::Array(ty, values) => {
                    assert!(values.iter().all(|v| v.ty() == *ty));
                    values.len()
                }
                Bind::One(_) => panic!("a value bound alone: {}", all.sql),
            })
            .collect();
        let per_table = |columns: usize, n: usize| vec![n; columns];
        let expected: Vec<usize> = [
            // The match, the version before, and the row's new fields, home and claim.
            vec![3; 10],
            per_table(MOVES.columns.len(), 3),
            vec![1],
            vec![1, 1],
            vec![1],
            per_table(EVENTS.columns.len(), 6),
            per_table(ROUNDS.columns.len(), 3),
            per_table(ROUND_SEATS.columns.len(), 9),
            per_table(LEDGER.columns.len(), 1),
        ]
        .concat();
        assert_eq!(lengths, expected);
        for t in [
            MOVES.name,
            EVENTS.name,
            ROUNDS.name,
            ROUND_SEATS.name,
            LEDGER.name,
        ] {
            let at = all
                .sql
                .find(&format!("INSERT INTO {t} "))
                .unwrap_or_else(|| panic!("{t}"));
            let part = &all.sql[at..];
            let end = part.find("ORDER BY x.o)").expect("the part's end");
            assert!(
                part[..end].contains("JOIN m ON m.id = x.match_id"),
                "{t}: {}",
                all.sql
            );
        }
    }

    /// The transaction form inserts every column of each table, with one value
    /// a column and row.
    #[test]
    fn the_transaction_form_names_every_column_and_binds_each_once() {
        let id = Uuid::now_v7();
        let rounds = vec![a_round(id, 1, 3, 2)];
        for backend in [DbBackend::Sqlite, DbBackend::Postgres] {
            let statements = move_statements(&a_move(id), &rounds, backend).expect("built");
            assert_eq!(statements.len(), 4);
            let counts = [
                (MOVES.columns.len(), 1),
                (ROUNDS.columns.len(), 1),
                (ROUND_SEATS.columns.len(), 3),
                (LEDGER.columns.len(), 2),
            ];
            for (st, (columns, rows)) in statements.iter().zip(counts) {
                let values = st.values.as_ref().map_or(0, |v| v.0.len());
                assert_eq!(values, columns * rows, "{}", st.sql);
            }
            let events: Vec<NewEvent> = (0..3).map(|n| an_event(id, n)).collect();
            let st = insert_events_statement(&events, backend)
                .expect("built")
                .expect("some");
            assert_eq!(
                st.values.as_ref().map_or(0, |v| v.0.len()),
                EVENTS.columns.len() * 3
            );
            for c in EVENTS.columns {
                assert!(st.sql.contains(c.name), "{}", c.name);
            }
        }
    }

    pub(super) fn a_match() -> matches::Model {
        matches::Model {
            id: Uuid::now_v7(),
            game: "malacca".into(),
            status: "active".into(),
            seat_count: 2,
            owner_id: None,
            options: "{}".into(),
            position: None,
            rated: false,
            seed: vec![0; 32],
            seed_sha256: String::new(),
            state: Some("{}".into()),
            step: 5,
            version: 9,
            engine_version: String::new(),
            data_sha256: String::new(),
            created_at: at(),
            started_at: Some(at()),
            finished_at: None,
            updated_at: at(),
            variant: String::new(),
            deadline_at: None,
            move_time_limit: None,
            absent_move_time_limit: None,
            timeout_policy: None,
            step_started_at: Some(at()),
            visibility: "public".into(),
            spectators: true,
            join_code: None,
            rematch_of: None,
            chat: "players".into(),
            club_id: None,
            bank_initial_seconds: None,
            bank_increment_seconds: None,
            bank_cap_seconds: None,
            playing_hours_zone: None,
            playing_hours_from: None,
            playing_hours_to: None,
            grace_extensions: None,
            grace_seconds: None,
        }
    }
}

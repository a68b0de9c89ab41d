//! Writes of one transaction sent together: on Postgres as one statement.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryTrait, Statement,
};

use super::entities::matches;
use super::move_write::{NewEvent, insert_events_statement};

/// Writes of one transaction that go out together: on Postgres as one statement
/// (all but the last as data-modifying `WITH` parts), on SQLite one after the other
/// (in-process calls: no round trips to save). They must not depend on each
/// other's effects: in one Postgres statement every part sees the rows as they
/// were before it. Events are gathered into one INSERT, last but for a final
/// statement, so that their ids follow the order they were recorded in.
#[derive(Default)]
pub struct Batch {
    statements: Vec<Statement>,
    events: Vec<NewEvent>,
}

impl Batch {
    pub fn push(&mut self, q: &impl QueryTrait, backend: DbBackend) {
        self.statements.push(q.build(backend));
    }

    pub fn push_statement(&mut self, st: Statement) {
        self.statements.push(st);
    }

    pub fn push_events(&mut self, rows: Vec<NewEvent>) {
        self.events.extend(rows);
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty() && self.events.is_empty()
    }

    /// Sends what is queued, then `last` (if any), as one statement on Postgres.
    pub async fn flush(
        &mut self,
        db: &impl ConnectionTrait,
        last: Option<Statement>,
    ) -> Result<(), DbErr> {
        let backend = db.get_database_backend();
        let mut all = std::mem::take(&mut self.statements);
        let events = std::mem::take(&mut self.events);
        all.extend(insert_events_statement(&events, backend)?);
        all.extend(last);
        if backend == DbBackend::Postgres && all.len() > 1 {
            return db.execute_raw(combine_pg(all)).await.map(|_| ());
        }
        for st in all {
            db.execute_raw(st).await?;
        }
        Ok(())
    }
}

/// `WITH w0 AS (s0), w1 AS (s1), … sN`, with each part's `$n` placeholders moved
/// past those of the parts before it.
fn combine_pg(parts: Vec<Statement>) -> Statement {
    let last = parts.len() - 1;
    let mut sql = String::from("WITH ");
    let mut values: Vec<sea_orm::Value> = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        let offset = values.len();
        let text = shift_placeholders(&part.sql, offset);
        if i < last {
            sql.push_str(&format!("w{i} AS ({text}), "));
        } else {
            sql.truncate(sql.len() - 2);
            sql.push(' ');
            sql.push_str(&text);
        }
        if let Some(v) = part.values {
            values.extend(v.0);
        }
    }
    Statement::from_sql_and_values(DbBackend::Postgres, sql, values)
}

/// Adds `offset` to every `$n` placeholder outside quoted identifiers and strings.
fn shift_placeholders(sql: &str, offset: usize) -> String {
    if offset == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) => {
                let mut n = 0usize;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n * 10 + d as usize;
                    chars.next();
                }
                out.push_str(&format!("${}", n + offset));
            }
            None => out.push(c),
        }
    }
    out
}

/// The statement that writes back every column of a match row.
pub fn update_match_statement(m: matches::Model, backend: DbBackend) -> Statement {
    let id = m.id;
    let mut active = m.into_active_model().reset_all();
    active.id = sea_orm::ActiveValue::NotSet;
    matches::Entity::update_many()
        .set(active)
        .filter(matches::Column::Id.eq(id))
        .build(backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_move_past_earlier_parts_only_outside_quotes() {
        assert_eq!(
            shift_placeholders(r#"INSERT INTO "a$1" ("x") VALUES ($1, '$2', $10)"#, 3),
            r#"INSERT INTO "a$1" ("x") VALUES ($4, '$2', $13)"#
        );
    }

    #[test]
    fn a_batch_is_one_statement_with_the_values_in_order() {
        let parts = vec![
            Statement::from_sql_and_values(
                DbBackend::Postgres,
                "INSERT INTO a (x, y) VALUES ($1, $2)",
                [1i32.into(), 2i32.into()],
            ),
            Statement::from_sql_and_values(
                DbBackend::Postgres,
                "UPDATE b SET z = $1 WHERE id = $2",
                [3i32.into(), 4i32.into()],
            ),
        ];
        let st = combine_pg(parts);
        assert_eq!(
            st.sql,
            "WITH w0 AS (INSERT INTO a (x, y) VALUES ($1, $2)) UPDATE b SET z = $3 WHERE id = $4"
        );
        let values: Vec<sea_orm::Value> = st.values.map(|v| v.0).unwrap_or_default();
        assert_eq!(
            values,
            vec![1i32.into(), 2i32.into(), 3i32.into(), 4i32.into()]
        );
    }
}

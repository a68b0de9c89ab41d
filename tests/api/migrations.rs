use migration::{Migrator, MigratorTrait};

use crate::helpers::test_settings;

#[tokio::test]
async fn migrations_go_up_down_and_up_again() {
    let (settings, _guard) = test_settings().await;
    let db = sealed_orders::store::connect(&settings)
        .await
        .expect("connect");
    Migrator::up(&db, None).await.expect("up");
    Migrator::down(&db, None).await.expect("down");
    Migrator::up(&db, None).await.expect("up again");
    sealed_orders::store::migrate(&db, &settings)
        .await
        .expect("migrate is idempotent");
}

/// The one text column `v` of the one row `sql` answers on Postgres.
async fn pg_text(db: &sea_orm::DatabaseConnection, sql: String) -> String {
    use sea_orm::ConnectionTrait;
    db.query_one_raw(sea_orm::Statement::from_string(
        sea_orm::DbBackend::Postgres,
        sql,
    ))
    .await
    .expect("query")
    .expect("a row")
    .try_get::<String>("", "v")
    .expect("text")
}

/// The move statement's pool plans generically, in the test's own schema, and
/// keeps options the URL already gave.
#[tokio::test]
async fn the_move_pool_uses_generic_plans_in_the_same_schema() {
    let (mut settings, _guard) = test_settings().await;
    let Some(schema) = settings.database_schema.clone() else {
        eprintln!("skipped: the move pool is Postgres's (TEST_DATABASE_URL)");
        return;
    };
    let sep = if settings.database_url.contains('?') {
        '&'
    } else {
        '?'
    };
    settings.database_url = format!(
        "{}{sep}options=-c%20statement_timeout%3D12345",
        settings.database_url
    );
    let db = sealed_orders::store::connect_for_moves(&settings)
        .await
        .expect("connect");
    let show = |name: &'static str| pg_text(&db, format!("SELECT current_setting('{name}') AS v"));
    assert_eq!(show("plan_cache_mode").await, "force_generic_plan");
    assert_eq!(show("statement_timeout").await, "12345ms");
    assert!(show("search_path").await.contains(&schema));
}

/// The notifications' pool commits without waiting for the disk, holds one
/// connection, and works in the test's own schema.
#[tokio::test]
async fn the_notification_pool_does_not_wait_for_the_disk() {
    let (settings, _guard) = test_settings().await;
    let Some(schema) = settings.database_schema.clone() else {
        eprintln!("skipped: the notification pool is Postgres's (TEST_DATABASE_URL)");
        return;
    };
    let db = sealed_orders::store::connect_for_notifications(&settings)
        .await
        .expect("connect");
    let show = |name: &'static str| pg_text(&db, format!("SELECT current_setting('{name}') AS v"));
    assert_eq!(show("synchronous_commit").await, "off");
    assert!(show("search_path").await.contains(&schema));
    assert_eq!(
        db.get_postgres_connection_pool()
            .options()
            .get_max_connections(),
        1
    );
}

/// `chat` became a scope of its own: the migration gives it to every token
/// that could play, so that none loses what it did, and takes only it away
/// going down.
#[tokio::test]
async fn tokens_that_could_play_keep_chatting_across_the_chat_scope_migration() {
    use sea_orm::ConnectionTrait;
    let app = crate::helpers::spawn_app().await;
    let alice = app.player("alice").await;
    for (name, scopes) in [
        ("player", serde_json::json!(["play", "read"])),
        ("reader", serde_json::json!(["read"])),
        ("talker", serde_json::json!(["chat"])),
    ] {
        app.post(
            "/api/v1/players/me/tokens",
            Some(&alice.token),
            &serde_json::json!({"name": name, "scopes": scopes}),
        )
        .await
        .expect(201);
    }
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    let scopes = || {
        let db = db.clone();
        async move {
            let rows = db
                .query_all_raw(sea_orm::Statement::from_string(
                    db.get_database_backend(),
                    "SELECT name, scopes FROM api_tokens ORDER BY name",
                ))
                .await
                .expect("query");
            rows.iter()
                .map(|r| {
                    (
                        r.try_get::<String>("", "name").expect("name"),
                        r.try_get::<String>("", "scopes").expect("scopes"),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    // Down to before the scope, whatever came after it.
    let all = Migrator::migrations();
    let at = all
        .iter()
        .position(|m| m.name().ends_with("_add_chat_scope"))
        .expect("the migration");
    Migrator::down(&db, Some((all.len() - at) as u32))
        .await
        .expect("down");
    let before = scopes().await;
    assert_eq!(
        before,
        [
            ("player".into(), "play read".into()),
            ("reader".into(), "read".into()),
            ("talker".into(), "".into()),
        ]
    );
    Migrator::up(&db, None).await.expect("up");
    assert_eq!(
        scopes().await,
        [
            ("player".into(), "play read chat".into()),
            ("reader".into(), "read".into()),
            ("talker".into(), "".into()),
        ]
    );
}

/// On Postgres the tables every move inserts into have no foreign key to the
/// match (its check, a query and a row lock per inserted row, was a tenth of
/// Postgres's work per move), while the other per-match tables keep theirs; and
/// the match's state is compressed with lz4 wherever the server has it. Going
/// down restores the keys.
#[tokio::test]
async fn move_rows_have_no_foreign_keys_and_states_use_lz4_on_postgres() {
    use sea_orm::ConnectionTrait;
    let (settings, _guard) = test_settings().await;
    if settings.database_schema.is_none() {
        eprintln!("skipped: the keys are dropped on Postgres only (TEST_DATABASE_URL)");
        return;
    }
    let db = sealed_orders::store::connect(&settings)
        .await
        .expect("connect");
    sealed_orders::store::migrate(&db, &settings)
        .await
        .expect("migrate");
    let text = |sql: String| pg_text(&db, sql);
    let keyed = || {
        text(
            "SELECT coalesce(string_agg(conrelid::regclass::text, ',' ORDER BY 1), '') AS v \
              FROM pg_constraint WHERE contype = 'f' AND confrelid = 'matches'::regclass"
                .into(),
        )
    };
    let without = ["moves", "events", "rounds", "round_seats", "ledger"];
    let with = [
        "match_seats",
        "match_results",
        "match_deadlines",
        "match_checkpoints",
    ];
    let now = keyed().await;
    let now: Vec<&str> = now.split(',').collect();
    for t in without {
        assert!(!now.contains(&t), "{t} still has its key: {now:?}");
    }
    for t in with {
        assert!(now.contains(&t), "{t} lost its key: {now:?}");
    }

    // lz4 where this Postgres was built with it (a column declared with it
    // is refused otherwise).
    let has_lz4 = db
        .execute_unprepared("CREATE TEMPORARY TABLE lz4_probe (x text COMPRESSION lz4)")
        .await
        .is_ok();
    if has_lz4 {
        for table in ["matches", "match_checkpoints"] {
            let method = text(format!(
                "SELECT attcompression::text AS v FROM pg_attribute \
                 WHERE attrelid = '{table}'::regclass AND attname = 'state'"
            ))
            .await;
            assert_eq!(method, "l", "{table}.state is not compressed with lz4");
        }
    }

    use migration::{Migrator, MigratorTrait};
    Migrator::down(&db, Some(2)).await.expect("down");
    let back = keyed().await;
    for t in without {
        assert!(
            back.split(',').any(|k| k == t),
            "{t} has no key after down: {back}"
        );
    }
}

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

/// The move statement's pool plans generically, in the test's own schema, and
/// keeps options the URL already gave.
#[tokio::test]
async fn the_move_pool_uses_generic_plans_in_the_same_schema() {
    use sea_orm::ConnectionTrait;
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
    let show = |name: &'static str| {
        let db = db.clone();
        async move {
            db.query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Postgres,
                format!("SELECT current_setting('{name}') AS v"),
            ))
            .await
            .expect("query")
            .expect("a row")
            .try_get::<String>("", "v")
            .expect("text")
        }
    };
    assert_eq!(show("plan_cache_mode").await, "force_generic_plan");
    assert_eq!(show("statement_timeout").await, "12345ms");
    assert!(show("search_path").await.contains(&schema));
}

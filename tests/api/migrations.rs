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

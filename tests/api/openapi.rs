//! The committed spec is what the code generates.

use crate::helpers::spawn_app;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

#[test]
fn the_committed_openapi_document_is_what_the_code_generates() {
    let generated =
        sealed_orders::openapi::spec_pretty(&sealed_orders::service::registry::all_games());
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::write(COMMITTED, &generated).expect("write openapi/openapi.json");
        return;
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date: regenerate it with `UPDATE_OPENAPI=1 cargo test --test api openapi` and commit it"
    );
}

#[tokio::test]
async fn the_served_spec_is_the_generated_one() {
    let app = spawn_app().await;
    let served = app.get("/api/v1/openapi.json", None).await.expect(200);
    let generated =
        sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    assert_eq!(served, generated);
    assert!(
        served["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3."))
    );
}

#[test]
fn every_response_has_a_description_and_the_license_is_set() {
    let spec = sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    assert!(spec["info"]["license"]["name"].is_string());
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            assert!(
                op["operationId"].is_string(),
                "{method} {path} has no operationId"
            );
            for (status, resp) in op["responses"].as_object().expect("responses") {
                assert!(
                    resp["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{method} {path} {status} has no description"
                );
            }
        }
    }
    // Per-game documents are typed, never a bare JSON value.
    let action = &spec["components"]["schemas"]["GameAction"]["anyOf"];
    assert!(action.as_array().is_some_and(|a| !a.is_empty()));
}

/// A schema a parameter names but the document lacks is skipped by some
/// generators and fatal to others (hey-api stops at it).
#[test]
fn every_reference_names_a_schema_of_the_document() {
    fn refs<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(r) = o.get("$ref").and_then(|r| r.as_str()) {
                    out.push(r);
                }
                o.values().for_each(|x| refs(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let spec = sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    let mut found = Vec::new();
    refs(&spec, &mut found);
    assert!(!found.is_empty());
    for r in found {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("a reference outside the schemas: {r}"));
        assert!(
            spec["components"]["schemas"].get(name).is_some(),
            "{r} names no schema"
        );
    }
}

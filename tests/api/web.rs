//! The browser client: served at `/` and `/app/`, and not part of the API.

use std::collections::BTreeSet;

use crate::helpers::spawn_app;

/// The `./x.js` and `/app/x` files a page or module refers to, as paths under
/// `/app/` (a `./` import is relative to the folder of `from`, the file that
/// makes it: the vendored modules import each other from their own folder).
fn references(text: &str, from: &str) -> Vec<String> {
    let folder = from.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut found = Vec::new();
    for (marker, relative) in [("from \"./", true), ("\"/app/", false)] {
        for (at, _) in text.match_indices(marker) {
            let rest = &text[at + marker.len()..];
            if let Some(end) = rest.find('"') {
                let name = &rest[..end];
                found.push(if relative && !folder.is_empty() {
                    format!("{folder}/{name}")
                } else {
                    name.to_owned()
                });
            }
        }
    }
    found
}

#[tokio::test]
async fn the_browser_client_is_served_at_the_root_with_every_file_it_loads_and_stays_out_of_the_spec()
 {
    let app = spawn_app().await;

    let page = app.get("/", None).await;
    assert_eq!(page.status, 200);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    assert_eq!(page.headers["cache-control"], "no-cache");
    let policy = page.headers["content-security-policy"]
        .to_str()
        .expect("ascii");
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert!(page.text.contains("/app/main.js"));

    // Every file the page loads, and every module those modules import, is
    // served with its type: a file missing from the embedded list shows here.
    let mut todo = references(&page.text, "");
    let mut seen = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let file = app.get(&format!("/app/{name}"), None).await;
        assert_eq!(file.status, 200, "/app/{name}");
        let expected = match name.rsplit('.').next() {
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            Some("svg") => "image/svg+xml",
            _ => panic!("unexpected file {name}"),
        };
        assert!(
            file.content_type.starts_with(expected),
            "/app/{name}: {}",
            file.content_type
        );
        todo.extend(references(&file.text, &name));
    }
    assert!(
        seen.contains("match.js") && seen.contains("board-cairo.js"),
        "{seen:?}"
    );

    let etag = app.get("/app/main.js", None).await.headers["etag"].clone();
    let again = app
        .client
        .get(app.url("/app/main.js"))
        .header("if-none-match", etag)
        .send()
        .await
        .expect("request");
    assert_eq!(again.status(), 304);

    let missing = app.get("/app/nothing.js", None).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["code"], "not_found");

    let spec = app.get("/api/v1/openapi.json", None).await.json();
    let paths = spec["paths"].as_object().expect("paths");
    assert!(
        paths.keys().all(|p| p != "/" && !p.starts_with("/app")),
        "the client's routes are not API operations"
    );
}

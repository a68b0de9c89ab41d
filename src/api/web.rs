//! The browser client: the page at `/` and its assets under `/app/`, embedded in
//! the binary so a release serves them with nothing beside it.
//!
//! These routes are not part of the API and stay out of the OpenAPI document:
//! the page talks to the server through `/api/v1` like any other client.

use std::sync::LazyLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use sha2::{Digest, Sha256};

use crate::errors::ApiError;

/// One embedded file: its path under `/app/`, content type and bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
    etag: String,
}

macro_rules! assets {
    ($($name:literal => $type:expr),* $(,)?) => {
        [$(($name, $type, include_bytes!(concat!("../../web/app/", $name)).as_slice())),*]
    };
}

/// The message catalogues, served as `/app/locales/<lang>/<file>`: the same
/// files the server formats problems from (`crate::i18n`), read where they are.
macro_rules! catalogues {
    ($($lang:literal),*) => {
        [$(
            (concat!("locales/", $lang, "/app.ftl"), FTL, include_bytes!(concat!("../../web/locales/", $lang, "/app.ftl")).as_slice()),
            (concat!("locales/", $lang, "/games.ftl"), FTL, include_bytes!(concat!("../../web/locales/", $lang, "/games.ftl")).as_slice()),
        )*]
    };
}

const JS: &str = "text/javascript; charset=utf-8";
/// Fluent has no registered media type; its files are UTF-8 text.
const FTL: &str = "text/plain; charset=utf-8";

/// Every file of `web/app/`; a file missing here is not served.
static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    assets![
        "style.css" => "text/css; charset=utf-8",
        "favicon.svg" => "image/svg+xml",
        "main.js" => JS,
        "api.js" => JS,
        "ui.js" => JS,
        "account.js" => JS,
        "notify.js" => JS,
        "lobby.js" => JS,
        "clubs.js" => JS,
        "tournaments.js" => JS,
        "admin.js" => JS,
        "oauth.js" => JS,
        "options.js" => JS,
        "match.js" => JS,
        "controls.js" => JS,
        "board-malacca.js" => JS,
        "board-heretics.js" => JS,
        "board-kontor.js" => JS,
        "board-cairo.js" => JS,
        "replay.js" => JS,
        "dashboard.js" => JS,
        "charts.js" => JS,
        "i18n.js" => JS,
        "rules.js" => JS,
        "terms.js" => JS,
        "vendor/fluent-bundle/index.js" => JS,
        "vendor/fluent-bundle/bundle.js" => JS,
        "vendor/fluent-bundle/builtins.js" => JS,
        "vendor/fluent-bundle/memoizer.js" => JS,
        "vendor/fluent-bundle/resolver.js" => JS,
        "vendor/fluent-bundle/resource.js" => JS,
        "vendor/fluent-bundle/scope.js" => JS,
        "vendor/fluent-bundle/types.js" => JS,
    ]
    .into_iter()
    .chain(catalogues!["en", "cs", "et"])
    .map(|(name, content_type, body)| Asset {
        name,
        content_type,
        body,
        etag: etag(body),
    })
    .collect()
});

static INDEX: LazyLock<Asset> = LazyLock::new(|| {
    let body = include_bytes!("../../web/index.html").as_slice();
    Asset {
        name: "index.html",
        content_type: "text/html; charset=utf-8",
        body,
        etag: etag(body),
    }
});

/// A strong validator from the content, so a new build is fetched at once.
fn etag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    format!("\"{}\"", hex::encode(&digest[..12]))
}

/// Always revalidated (`no-cache` with an ETag): module imports have fixed
/// names, so a long max-age would mix files of two builds after an upgrade.
fn answer(req: &HttpRequest, asset: &Asset) -> HttpResponse {
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == asset.etag));
    let mut res = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header((header::ETAG, asset.etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Content-Type-Options", "nosniff"));
    if fresh {
        return res.finish();
    }
    res.insert_header((
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    ))
    .body(asset.body)
}

/// What the page may load and run: its own files and the API only. The page
/// keeps its token in `localStorage`, so script from anywhere else is refused
/// outright (style attributes are allowed: the SVG boards use them).
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
    object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `GET /`: the page.
pub async fn index(req: HttpRequest) -> HttpResponse {
    let mut res = answer(&req, &INDEX);
    res.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    res
}

/// The page as the OAuth consent page (`GET /oauth/authorize`): never framed
/// (X-Frame-Options besides the CSP's `frame-ancestors`, for older browsers),
/// never cached, and its address (which holds the request's `state`) sent as
/// a referrer nowhere.
pub fn consent_page(req: &HttpRequest, status: actix_web::http::StatusCode) -> HttpResponse {
    let mut res = answer(req, &INDEX);
    if res.status().is_success() {
        *res.status_mut() = status;
    }
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    res
}

/// `GET /app/{name}`: a script, the style sheet, an icon or a catalogue.
pub async fn asset(req: HttpRequest, name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    ASSETS
        .iter()
        .find(|a| a.name == name.as_str())
        .map(|a| answer(&req, a))
        .ok_or_else(|| {
            ApiError::not_found("not_found", format!("There is no file /app/{name}."))
                .arg("path", format!("/app/{name}"))
        })
}

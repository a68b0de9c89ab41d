//! CORS for browser clients, off unless `CORS_ORIGINS` names origins. A small
//! middleware rather than actix-cors, because actix-cors answers a refused
//! preflight with a plain-text 400 where every error here is problem+json: a
//! request from an origin not listed simply gets no CORS headers, and the browser
//! withholds the answer.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};

/// Request headers a browser client may send.
const ALLOW_HEADERS: &str = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, Prefer";
/// Response headers a browser client may read besides the safelisted ones.
const EXPOSE_HEADERS: &str = "RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, \
    X-Request-Id, Idempotent-Replay, Preference-Applied, Location";
const ALLOW_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE";
/// How long a browser may cache a preflight answer, in seconds.
const MAX_AGE: &str = "3600";

/// The allowed origins; `*` alone allows any.
#[derive(Debug, Clone, Default)]
pub struct CorsOrigins(Vec<String>);

impl CorsOrigins {
    pub fn new(origins: Vec<String>) -> Self {
        Self(origins)
    }

    pub fn enabled(&self) -> bool {
        !self.0.is_empty()
    }

    /// The Access-Control-Allow-Origin value for a request from `origin`, if allowed.
    fn allow(&self, origin: &HeaderValue) -> Option<HeaderValue> {
        if self.0.iter().any(|o| o == "*") {
            return Some(HeaderValue::from_static("*"));
        }
        let text = origin.to_str().ok()?;
        self.0.iter().any(|o| o == text).then(|| origin.clone())
    }
}

/// Parses `CORS_ORIGINS`: comma-separated origins (`https://example.org`,
/// `http://localhost:5173`), or `*` alone for any origin. Since the API takes
/// bearer tokens and never cookies, `*` exposes nothing a listed origin would not.
pub fn parse_origins(text: &str) -> Result<Vec<String>, String> {
    let origins: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_owned)
        .collect();
    if origins.iter().any(|o| o == "*") {
        return if origins.len() == 1 {
            Ok(origins)
        } else {
            Err("`*` allows every origin and cannot be combined with others".into())
        };
    }
    for o in &origins {
        let rest = o
            .strip_prefix("https://")
            .or_else(|| o.strip_prefix("http://"));
        let valid = rest.is_some_and(|host| {
            !host.is_empty()
                && !host.contains('/')
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
        });
        if !valid {
            return Err(format!(
                "{o:?} is not an origin (scheme://host[:port], no path or trailing slash)"
            ));
        }
    }
    Ok(origins)
}

fn vary(res: &mut actix_web::http::header::HeaderMap, names: &'static str) {
    res.append(header::VARY, HeaderValue::from_static(names));
}

/// Answers an allowed origin's preflight itself, and adds the CORS headers to
/// the answers of its requests.
pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let allowed = req
        .app_data::<web::Data<CorsOrigins>>()
        .zip(req.headers().get(header::ORIGIN))
        .and_then(|(origins, origin)| origins.allow(origin));
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if let (Some(origin), true) = (&allowed, preflight) {
        let mut res = HttpResponse::build(StatusCode::NO_CONTENT)
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone()))
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW_METHODS))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE))
            .finish();
        vary(
            res.headers_mut(),
            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        );
        return Ok(req.into_response(res).map_into_right_body());
    }
    let mut res = next.call(req).await?;
    let headers = res.headers_mut();
    if let Some(origin) = allowed {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
    // Whether the answer carries CORS headers depends on the Origin: caches must
    // keep one answer per origin.
    vary(headers, "Origin");
    Ok(res.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_a_list_or_a_lone_star() {
        assert_eq!(parse_origins(""), Ok(vec![]));
        assert_eq!(
            parse_origins("https://a.example, http://localhost:5173"),
            Ok(vec![
                "https://a.example".to_owned(),
                "http://localhost:5173".to_owned()
            ])
        );
        assert_eq!(parse_origins(" * "), Ok(vec!["*".to_owned()]));
        for bad in [
            "*, https://a.example",
            "a.example",
            "https://a.example/",
            "https://a.example/app",
            "ftp://a.example",
        ] {
            assert!(parse_origins(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_a_listed_origin_is_echoed_and_a_star_allows_all() {
        let listed = CorsOrigins::new(vec!["https://a.example".into()]);
        let a = HeaderValue::from_static("https://a.example");
        let b = HeaderValue::from_static("https://b.example");
        assert_eq!(listed.allow(&a), Some(a.clone()));
        assert_eq!(listed.allow(&b), None);
        let any = CorsOrigins::new(vec!["*".into()]);
        assert_eq!(any.allow(&b), Some(HeaderValue::from_static("*")));
    }
}

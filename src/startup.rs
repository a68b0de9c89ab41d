//! Connect, migrate, bind, serve. Used by `main` and by the tests alike.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::Server;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::{self, Next};
use actix_web::{App, HttpMessage, HttpRequest, HttpResponse, HttpServer, web};
use secrecy::ExposeSecret;
use serde_json::Value;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::auth::JwtKeys;
use crate::config::{DatabaseKind, Settings};
use crate::errors::{ApiError, extractors};
use crate::metrics::Metrics;
use crate::service::clock::{Clock, SystemClock};
use crate::service::data::DataStore;
use crate::service::hub::Hub;
use crate::service::{Service, registry};
use crate::store;

/// The largest request body accepted: a replay bundle to verify (a move or a
/// position is far smaller).
const MAX_BODY: usize = crate::api::gate::MAX_BODY;

pub struct Application {
    port: u16,
    server: Server,
    hub: Arc<Hub>,
}

/// The path templates of the API with their methods, for 405 answers.
#[derive(Clone)]
struct RouteTable(Vec<(Vec<String>, Vec<String>)>);

impl RouteTable {
    fn from_spec(spec: &Value) -> Self {
        let mut routes = Vec::new();
        if let Some(paths) = spec.get("paths").and_then(Value::as_object) {
            for (path, item) in paths {
                let segments = path.split('/').map(str::to_owned).collect();
                let mut methods: Vec<String> = item
                    .as_object()
                    .map(|o| o.keys().map(|m| m.to_uppercase()).collect())
                    .unwrap_or_default();
                // HEAD is answered wherever GET is (`api::head`).
                if methods.iter().any(|m| m == "GET") {
                    methods.push("HEAD".into());
                }
                routes.push((segments, methods));
            }
        }
        Self(routes)
    }

    /// The methods allowed on `path`, if it is one of ours.
    fn allowed(&self, path: &str) -> Option<Vec<String>> {
        let given: Vec<&str> = path.split('/').collect();
        let mut found: Option<Vec<String>> = None;
        for (segments, methods) in &self.0 {
            let fits = segments.len() == given.len()
                && segments.iter().zip(&given).all(|(t, g)| {
                    (t.starts_with('{') && t.ends_with('}') && !g.is_empty()) || t == g
                });
            if fits {
                found
                    .get_or_insert_with(Vec::new)
                    .extend(methods.iter().cloned());
            }
        }
        found.map(|mut m| {
            m.sort();
            m.dedup();
            m
        })
    }
}

async fn fallback(
    req: HttpRequest,
    routes: web::Data<RouteTable>,
) -> Result<HttpResponse, ApiError> {
    match routes.allowed(req.path()) {
        Some(methods) if !methods.iter().any(|m| m == req.method().as_str()) => {
            if req.method() == Method::OPTIONS {
                return Ok(HttpResponse::NoContent()
                    .insert_header(("Allow", methods.join(", ")))
                    .finish());
            }
            Err(ApiError::method_not_allowed(methods.join(", ")))
        }
        _ => Err(ApiError::not_found(
            "not_found",
            format!("There is no resource at {}.", req.path()),
        )),
    }
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        Self::build_with_clock(settings, Arc::new(SystemClock)).await
    }

    pub async fn build_with_clock(
        settings: Settings,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Self> {
        let db = store::connect(&settings).await?;
        let on_citus = store::migrate(&db, &settings).await?;
        let move_lists = match settings.move_lists.as_str() {
            "arrays" => store::MoveLists::Arrays,
            "values" => store::MoveLists::Values,
            _ if on_citus => store::MoveLists::Values,
            _ => store::MoveLists::Arrays,
        };
        // Generic plans suit the arrays' fixed texts; VALUES lists (Citus)
        // change the text with every list's length.
        let move_db = match settings.database_kind()? {
            DatabaseKind::Postgres if move_lists == store::MoveLists::Arrays => {
                Some(store::connect_for_moves(&settings).await?)
            }
            _ => None,
        };
        let games = registry::all_games();
        let data = DataStore::load(&games, settings.data_dir.as_deref())?;
        data.persist(&db, clock.now()).await?;
        let secret = match &settings.jwt_secret {
            Some(s) => s.expose_secret().as_bytes().to_vec(),
            None if settings.database_kind()? == DatabaseKind::Sqlite => {
                let mut fresh = [0u8; 32];
                getrandom::fill(&mut fresh)
                    .map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
                let fresh_hex: String = fresh.iter().map(|b| format!("{b:02x}")).collect();
                let stored = store::setting_or_insert(&db, "jwt_secret", &fresh_hex).await?;
                if stored == fresh_hex {
                    tracing::warn!(
                        "JWT_SECRET is not set: generated one and stored it in the database"
                    );
                } else {
                    tracing::info!("JWT_SECRET is not set: using the one stored in the database");
                }
                stored.into_bytes()
            }
            None => anyhow::bail!("JWT_SECRET is required on Postgres"),
        };
        let jwt = JwtKeys::new(&secret, settings.jwt_ttl_seconds);
        let spec = crate::openapi::spec_json(&games);
        let routes = web::Data::new(RouteTable::from_spec(&spec));
        let openapi: utoipa::openapi::OpenApi = serde_json::from_value(spec.clone())?;
        let spec = web::Data::new(spec);
        let metrics = Arc::new(Metrics::new()?);
        let limits = web::Data::new(crate::ratelimit::RateLimits::new(&settings, clock.clone()));
        let cors = web::Data::new(crate::cors::CorsOrigins::new(settings.cors_origins.clone()));
        let service = web::Data::new(
            Service::new(db, games, data, jwt, clock, metrics.clone())
                .with_webhook_settings(settings.webhooks.clone())
                .with_password_hashing(
                    settings.password_hash_threads,
                    std::time::Duration::from_millis(settings.password_hash_wait_ms),
                )
                .with_match_cache(settings.match_cache_mib)
                .with_credential_cache(std::time::Duration::from_millis(
                    settings.credential_cache_ms,
                ))
                .with_stale_lobby_days(settings.stale_lobby_days)
                .with_invitation_hours(settings.invitation_hours)
                .with_move_lists(move_lists)
                .with_move_pool(move_db)
                // On Citus every read asks: a match on a worker that is down
                // answers 503 like every other request about it, rather than
                // its last state from memory.
                .with_notified_reads(settings.match_reads == "auto" && !on_citus),
        );
        let metrics = web::Data::from(metrics);

        // Every replica polls; each expired deadline is handled once (rows are
        // claimed with SKIP LOCKED and re-checked under the lock). A commit that
        // makes a move due at once (a bot's turn) wakes this replica's poller
        // early. 0 turns polling off.
        let poller = service.clone();
        let every = std::time::Duration::from_millis(settings.deadline_poll_ms.max(10));
        if settings.deadline_poll_ms > 0 {
            tokio::spawn(async move {
                let hub = poller.hub().clone();
                let mut stop = hub.shutdown_signal();
                loop {
                    if let Err(e) = poller.expire_deadlines().await {
                        tracing::warn!(error = %e, "deadline poll failed");
                    }
                    if let Err(e) = poller.cancel_stale_lobbies().await {
                        tracing::warn!(error = %e, "stale lobby sweep failed");
                    }
                    if let Err(e) = poller.advance_tournaments().await {
                        tracing::warn!(error = %e, "tournament sweep failed");
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(every) => {}
                        _ = hub.poller_woken() => {}
                        _ = stop.changed() => return,
                    }
                }
            });
        }
        // Every replica fans events out to webhooks and delivers them (rows are
        // claimed with SKIP LOCKED under a lease). 0 turns it off here.
        if settings.webhooks.poll_ms > 0 {
            let worker = service.clone();
            tokio::spawn(async move { worker.run_webhook_worker().await });
        }
        // Every replica folds finished matches into the ratings and totals, one
        // transaction at a time across replicas (see `service::folds`).
        let folder = service.clone();
        tokio::spawn(async move { folder.run_folder().await });
        // Across replicas (Postgres): wake-ups go out as NOTIFY after commit and
        // come in through LISTEN.
        if settings.database_kind()? == DatabaseKind::Postgres {
            let channel = Hub::channel(settings.database_schema.as_deref());
            service
                .hub()
                .set_replica_silence(std::time::Duration::from_millis(
                    settings.replica_silence_ms,
                ));
            let (hub, db) = (service.hub().clone(), service.db().clone());
            let ch = channel.clone();
            tokio::spawn(async move { hub.publish_forever(db, ch).await });
            service.watch_remote_changes();
            service.hub().announce(service.db(), &channel).await;
            let (hub, db) = (service.hub().clone(), service.db().clone());
            tokio::spawn(async move { hub.listen_forever(db, channel).await });
        }
        let forgetter = service.clone();
        tokio::spawn(async move { forgetter.forget_changed_credentials().await });
        let hub = service.hub().clone();
        let listener = TcpListener::bind((settings.host.as_str(), settings.port))?;
        let port = listener.local_addr()?.port();
        let server = HttpServer::new(move || {
            // Registered before the /api/v1 scope, which would otherwise answer for it.
            let (app, _) = App::new()
                .route("/api/v1/openapi.json", web::get().to(serve_spec))
                .route("/docs", web::get().to(crate::api::docs_redirect))
                .route("/", web::get().to(crate::api::web::index))
                .route("/app/{name}", web::get().to(crate::api::web::asset))
                .wrap(middleware::from_fn(crate::api::gate::gate))
                .wrap(middleware::Condition::new(
                    cors.enabled(),
                    middleware::from_fn(crate::cors::cors),
                ))
                .wrap(middleware::from_fn(observe))
                .wrap(middleware::from_fn(crate::api::head::head_as_get))
                .wrap(tracing_actix_web::TracingLogger::<RequestSpan>::new())
                .app_data(metrics.clone())
                .app_data(limits.clone())
                .app_data(cors.clone())
                .app_data(service.clone())
                .app_data(routes.clone())
                .app_data(spec.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(MAX_BODY)
                        .error_handler(extractors::json),
                )
                .app_data(web::PathConfig::default().error_handler(extractors::path))
                .app_data(web::QueryConfig::default().error_handler(extractors::query))
                .app_data(web::PayloadConfig::default().limit(MAX_BODY))
                .into_utoipa_app()
                .configure(crate::api::routes)
                .split_for_parts();
            app.service(SwaggerUi::new("/docs/{_:.*}").url("/api/v1/openapi.json", openapi.clone()))
                .default_service(web::to(fallback))
        })
        .listen(listener)?
        .shutdown_timeout(10)
        .disable_signals()
        .run();
        tracing::info!(port, "listening");
        Ok(Self { port, server, hub })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then closes every event stream at once (with
    /// a `retry:` hint, so clients reconnect to another replica) and drains the
    /// other requests in flight.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let handle = self.server.handle();
        let hub = self.hub.clone();
        tokio::spawn(async move {
            stop_signal().await;
            tracing::info!("stopping: closing streams, draining requests");
            hub.shut_down();
            handle.stop(true).await;
        });
        self.server.await
    }
}

/// SIGINT or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn serve_spec(spec: web::Data<Value>) -> HttpResponse {
    HttpResponse::Ok().json(spec.get_ref())
}

/// Counts and times every request by route pattern (never the raw path, which
/// would make a series per match), and returns the request id in a header.
/// The root span of a request: the fields of tracing-actix-web's own, built
/// only when the span is enabled, and its route recorded by [`observe`] once
/// routing found it. The default builder finds the route at the start by
/// walking the router's patterns again (regular expressions with captures) at
/// every request, whether or not anything logs it.
struct RequestSpan;

impl tracing_actix_web::RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> tracing::Span {
        use tracing::field::Empty;
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = Empty,
            http.flavor = http_flavor(request.version()),
            http.scheme = %request.connection_info().scheme(),
            http.host = %request.connection_info().host(),
            http.client_ip = %request.connection_info().realip_remote_addr().unwrap_or(""),
            http.user_agent = %request
                .headers()
                .get("User-Agent")
                .and_then(|h| h.to_str().ok())
                .unwrap_or(""),
            http.target = %request.uri().path_and_query().map(|p| p.as_str()).unwrap_or(""),
            http.status_code = Empty,
            otel.kind = "server",
            otel.status_code = Empty,
            request_id = %request
                .extensions()
                .get::<tracing_actix_web::RequestId>()
                .map(ToString::to_string)
                .unwrap_or_default(),
            exception.message = Empty,
            exception.details = Empty,
        )
    }

    fn on_request_end<B: MessageBody>(
        span: tracing::Span,
        outcome: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
        tracing_actix_web::DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// The route pattern a request matched, for the metrics' labels and the span.
/// Asking actix for it walks the router's patterns again (regular expressions
/// with captures); the answer depends only on the path's shape, the path with
/// its ids (UUIDs, numbers: never a literal segment of a route) blanked, so it
/// is kept per shape, for at most [`LABEL_SHAPES`] shapes.
fn route_label(req: &actix_web::HttpRequest) -> String {
    static LABELS: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<String, String>>,
    > = std::sync::LazyLock::new(Default::default);
    let shape = path_shape(req.path());
    if let Some(label) = LABELS.lock().ok().and_then(|m| m.get(&shape).cloned()) {
        return label;
    }
    let label = req
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    if let Ok(mut m) = LABELS.lock()
        && m.len() < LABEL_SHAPES
    {
        m.insert(shape, label.clone());
    }
    label
}

const LABEL_SHAPES: usize = 1024;

/// A path with every segment that is a UUID or a number replaced by `\0`.
fn path_shape(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let id = uuid::Uuid::try_parse(seg).is_ok()
                || (!seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()));
            if id { "\0" } else { seg }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The HTTP version as OpenTelemetry names it.
fn http_flavor(v: actix_web::http::Version) -> &'static str {
    use actix_web::http::Version;
    match v {
        Version::HTTP_09 => "0.9",
        Version::HTTP_10 => "1.0",
        Version::HTTP_2 => "2.0",
        Version::HTTP_3 => "3.0",
        _ => "1.1",
    }
}

async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = std::time::Instant::now();
    let method = req.method().as_str().to_owned();
    let request_id = req
        .extensions()
        .get::<tracing_actix_web::RequestId>()
        .map(|id| id.to_string());
    let metrics = req.app_data::<web::Data<Metrics>>().cloned();
    let mut res = next.call(req).await?;
    let route = route_label(res.request());
    tracing::Span::current().record("http.route", route.as_str());
    if let Some(m) = metrics {
        let status = res.status().as_u16().to_string();
        m.requests
            .with_label_values(&[route.as_str(), method.as_str(), status.as_str()])
            .inc();
        m.latency
            .with_label_values(&[route.as_str(), method.as_str()])
            .observe(started.elapsed().as_secs_f64());
    }
    if let Some(id) = request_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), id);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::path_shape;

    #[test]
    fn a_path_shape_blanks_ids_and_numbers_and_keeps_every_literal() {
        assert_eq!(
            path_shape("/api/v1/matches/01a215a3-d472-73d7-a31f-879d54720bd5/moves"),
            "/api/v1/matches/\0/moves"
        );
        assert_eq!(
            path_shape("/api/v1/matches/x/rounds/12"),
            "/api/v1/matches/x/rounds/\0"
        );
        assert_eq!(path_shape("/api/v1/players/me"), "/api/v1/players/me");
        assert_eq!(path_shape("/api/v1"), "/api/v1");
        assert_eq!(path_shape("/"), "/");
    }
}

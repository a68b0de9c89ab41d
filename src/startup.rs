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
use crate::service::{Foundation, Services, registry};
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
        )
        .arg("path", req.path())),
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
        let replica = uuid::Uuid::new_v4();
        let mut settings = settings;
        if settings.database_kind()? == DatabaseKind::Postgres {
            settings.database_url = store::naming_the_replica(&settings.database_url, replica)?;
        }
        let db = store::connect(&settings).await?;
        let on_citus = store::migrate(&db, &settings).await?;
        let move_lists = match settings.move_lists.as_str() {
            "arrays" => store::move_write::MoveLists::Arrays,
            "values" => store::move_write::MoveLists::Values,
            _ if on_citus => store::move_write::MoveLists::Values,
            _ => store::move_write::MoveLists::Arrays,
        };
        // Generic plans suit the arrays' fixed texts; VALUES lists (Citus)
        // change the text with every list's length.
        let move_db = match settings.database_kind()? {
            DatabaseKind::Postgres if move_lists == store::move_write::MoveLists::Arrays => {
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
                let stored =
                    store::settings::setting_or_insert(&db, "jwt_secret", &fresh_hex).await?;
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
        // A key of its own for the mail's unsubscribe links, so that no
        // link can ever be read as a JWT signature.
        let mail_key = {
            use sha2::Digest;
            let mut h = sha2::Sha256::new();
            h.update(b"sealed-orders mail links\0");
            h.update(&secret);
            h.finalize().to_vec()
        };
        let spec = crate::openapi::spec_json(&games);
        let routes = web::Data::new(RouteTable::from_spec(&spec));
        let openapi: utoipa::openapi::OpenApi = serde_json::from_value(spec.clone())?;
        let spec = web::Data::new(spec);
        let metrics = Arc::new(Metrics::new()?);
        let limits = web::Data::new(crate::ratelimit::RateLimits::new(&settings, clock.clone()));
        let cors = web::Data::new(crate::cors::CorsOrigins::new(settings.cors_origins.clone()));
        let services = Services::build(
            Foundation {
                db: db.clone(),
                move_db,
                move_lists,
                games,
                data,
                jwt,
                clock,
                metrics: metrics.clone(),
                // On Citus every read asks: a match on a worker that is down
                // answers 503 like every other request about it, rather than
                // its last state from memory.
                notified_reads: settings.match_reads == "auto" && !on_citus,
                mail_key,
                replica,
                // Homes need the trigger, which Citus has not (every read asks
                // there), and would be pointless where every read asks anyway.
                home_lease: (settings.database_kind()? == DatabaseKind::Postgres
                    && !on_citus
                    && settings.match_reads == "auto"
                    && settings.home_lease_ms > 0)
                    .then(|| std::time::Duration::from_millis(settings.home_lease_ms)),
            },
            &settings,
        );
        let metrics = web::Data::from(metrics);

        // Every replica polls; each expired deadline is handled once (rows are
        // claimed with SKIP LOCKED and re-checked under the lock). A commit that
        // makes a move due at once (a bot's turn) wakes this replica's poller
        // early. 0 turns polling off.
        let every = std::time::Duration::from_millis(settings.deadline_poll_ms.max(10));
        if settings.deadline_poll_ms > 0 {
            let (deadlines, lobby, tournaments) = (
                services.deadlines.clone(),
                services.lobby.clone(),
                services.tournaments.clone(),
            );
            let hub = services.hub.clone();
            tokio::spawn(async move {
                let mut stop = hub.shutdown_signal();
                loop {
                    if let Err(e) = deadlines.expire_deadlines().await {
                        tracing::warn!(error = %e, "deadline poll failed");
                    }
                    if let Err(e) = lobby.cancel_stale_lobbies().await {
                        tracing::warn!(error = %e, "stale lobby sweep failed");
                    }
                    if let Err(e) = tournaments.advance_tournaments().await {
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
            let worker = services.webhooks.clone();
            tokio::spawn(async move { worker.run_webhook_worker().await });
        }
        // Every replica queues and sends mail (rows are claimed with SKIP
        // LOCKED under a lease), when there is an SMTP server to send through.
        match &settings.mail.smtp_url {
            Some(url) => {
                let mailer = crate::service::notifications::mail::Mailer::new(
                    url.expose_secret(),
                    &settings.mail.from,
                    &settings.mail.public_url,
                )?;
                tracing::info!(
                    from = %settings.mail.from,
                    public_url = %settings.mail.public_url,
                    "mail is sent over SMTP"
                );
                if settings.mail.poll_ms > 0 {
                    let worker = services.notifications.clone();
                    tokio::spawn(async move { worker.run_mail_worker(mailer).await });
                }
            }
            None => tracing::info!(
                "SMTP_URL is not set: no mail is sent (no turn mails, address confirmations or password resets)"
            ),
        }
        // Every replica folds finished matches into the ratings and totals, one
        // transaction at a time across replicas (see `service::folds`).
        let folder = services.folds.clone();
        tokio::spawn(async move { folder.run_folder().await });
        // Across replicas (Postgres): wake-ups go out as NOTIFY after commit and
        // come in through LISTEN.
        if settings.database_kind()? == DatabaseKind::Postgres {
            let channel = Hub::channel(settings.database_schema.as_deref());
            services
                .hub
                .set_replica_silence(std::time::Duration::from_millis(
                    settings.replica_silence_ms,
                ));
            // Sent through a pool of its own whose commits are not waited for
            // on disk (`store::connect_for_notifications`).
            let (hub, pool) = (
                services.hub.clone(),
                store::connect_for_notifications(&settings).await?,
            );
            let ch = channel.clone();
            tokio::spawn(async move { hub.publish_forever(pool, ch).await });
            services.watch_remote_changes();
            services.hub.announce(&db, &channel).await;
            let (hub, pool) = (services.hub.clone(), db.clone());
            tokio::spawn(async move { hub.listen_forever(pool, channel).await });
        }
        let forgetter = services.accounts.clone();
        tokio::spawn(async move { forgetter.forget_changed_credentials().await });
        let hub = services.hub.clone();
        let parts = Parts::of(&services);
        let listener = TcpListener::bind((settings.host.as_str(), settings.port))?;
        let port = listener.local_addr()?.port();
        let server = HttpServer::new(move || {
            // Registered before the /api/v1 scope, which would otherwise answer for it.
            let (app, _) = App::new()
                .route("/api/v1/openapi.json", web::get().to(serve_spec))
                .route("/docs", web::get().to(crate::api::docs_redirect))
                .route("/", web::get().to(crate::api::web::index))
                .route("/app/{name:.*}", web::get().to(crate::api::web::asset))
                .route(
                    "/oauth/authorize",
                    web::get().to(crate::api::oauth::authorize),
                )
                .route("/oauth/token", web::post().to(crate::api::oauth::token))
                .route(
                    "/oauth/token",
                    web::method(Method::OPTIONS).to(crate::api::oauth::preflight),
                )
                .route("/oauth/revoke", web::post().to(crate::api::oauth::revoke))
                .route(
                    "/oauth/revoke",
                    web::method(Method::OPTIONS).to(crate::api::oauth::preflight),
                )
                .route(
                    "/.well-known/oauth-authorization-server",
                    web::get().to(crate::api::oauth::metadata),
                )
                .wrap(middleware::from_fn(crate::api::gate::gate))
                .wrap(middleware::Condition::new(
                    cors.enabled(),
                    middleware::from_fn(crate::cors::cors),
                ))
                // Inside `head_as_get`, which empties the body it rewrites.
                .wrap(middleware::from_fn(crate::errors::localize))
                .wrap(middleware::from_fn(observe))
                .wrap(middleware::from_fn(crate::api::head::head_as_get))
                .wrap(tracing_actix_web::TracingLogger::<RequestSpan>::new())
                .app_data(metrics.clone())
                .app_data(limits.clone())
                .app_data(cors.clone())
                .configure(|cfg| parts.register(cfg))
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
            // The API browser signs in through OAuth like any other front end.
            let sign_in = utoipa_swagger_ui::oauth::Config::new()
                .client_id("API documentation")
                .use_pkce_with_authorization_code_grant(true);
            app.service(
                SwaggerUi::new("/docs/{_:.*}")
                    .url("/api/v1/openapi.json", openapi.clone())
                    .oauth(sign_in),
            )
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

/// The parts of the service the handlers take, as `web::Data` (shared by every
/// worker thread), each handed only to the handlers that name it.
#[derive(Clone)]
struct Parts {
    games: web::Data<crate::service::games::Games>,
    reads: web::Data<crate::service::reads::Reads>,
    positions: web::Data<crate::service::positions::Positions>,
    history: web::Data<crate::service::history::History>,
    invitations: web::Data<crate::service::invitations::Invitations>,
    lobby: web::Data<crate::service::lobby::Lobby>,
    moves: web::Data<crate::service::moves::Moves>,
    presence: web::Data<crate::service::presence::Presence>,
    chat: web::Data<crate::service::chat::Chat>,
    replays: web::Data<crate::service::replay::Replays>,
    streams: web::Data<crate::service::streams::Streams>,
    lobby_feed: web::Data<crate::service::streams::lobby::LobbyFeed>,
    accounts: web::Data<crate::service::accounts::Accounts>,
    tokens: web::Data<crate::service::tokens::Tokens>,
    oauth: web::Data<crate::service::oauth::OAuth>,
    ratings: web::Data<crate::service::ratings::Ratings>,
    stats: web::Data<crate::service::stats::Stats>,
    reliability: web::Data<crate::service::reliability::Reliability>,
    clubs: web::Data<crate::service::clubs::Clubs>,
    tournaments: web::Data<crate::service::tournaments::Tournaments>,
    deletion: web::Data<crate::service::deletion::Deletion>,
    moderation: web::Data<crate::service::moderation::Moderation>,
    webhooks: web::Data<crate::service::webhooks::Webhooks>,
    notifications: web::Data<crate::service::notifications::Notifications>,
    ops: web::Data<crate::service::ops::Ops>,
    caps: web::Data<crate::service::caps::Caps>,
}

impl Parts {
    fn of(s: &Services) -> Self {
        Self {
            games: web::Data::from(s.games.clone()),
            reads: web::Data::from(s.reads.clone()),
            positions: web::Data::from(s.positions.clone()),
            history: web::Data::from(s.history.clone()),
            invitations: web::Data::from(s.invitations.clone()),
            lobby: web::Data::from(s.lobby.clone()),
            moves: web::Data::from(s.moves.clone()),
            presence: web::Data::from(s.presence.clone()),
            chat: web::Data::from(s.chat.clone()),
            replays: web::Data::from(s.replays.clone()),
            streams: web::Data::from(s.streams.clone()),
            lobby_feed: web::Data::from(s.lobby_feed.clone()),
            accounts: web::Data::from(s.accounts.clone()),
            tokens: web::Data::from(s.tokens.clone()),
            oauth: web::Data::from(s.oauth.clone()),
            ratings: web::Data::from(s.ratings.clone()),
            stats: web::Data::from(s.stats.clone()),
            reliability: web::Data::from(s.reliability.clone()),
            clubs: web::Data::from(s.clubs.clone()),
            tournaments: web::Data::from(s.tournaments.clone()),
            deletion: web::Data::from(s.deletion.clone()),
            moderation: web::Data::from(s.moderation.clone()),
            webhooks: web::Data::from(s.webhooks.clone()),
            notifications: web::Data::from(s.notifications.clone()),
            ops: web::Data::from(s.ops.clone()),
            caps: web::Data::from(s.caps.clone()),
        }
    }

    fn register(&self, cfg: &mut web::ServiceConfig) {
        let p = self.clone();
        cfg.app_data(p.games)
            .app_data(p.reads)
            .app_data(p.positions)
            .app_data(p.history)
            .app_data(p.invitations)
            .app_data(p.lobby)
            .app_data(p.moves)
            .app_data(p.presence)
            .app_data(p.chat)
            .app_data(p.replays)
            .app_data(p.streams)
            .app_data(p.lobby_feed)
            .app_data(p.accounts)
            .app_data(p.tokens)
            .app_data(p.oauth)
            .app_data(p.ratings)
            .app_data(p.stats)
            .app_data(p.reliability)
            .app_data(p.clubs)
            .app_data(p.tournaments)
            .app_data(p.deletion)
            .app_data(p.moderation)
            .app_data(p.webhooks)
            .app_data(p.notifications)
            .app_data(p.ops)
            .app_data(p.caps);
    }
}

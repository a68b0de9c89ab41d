//! The match lifecycle, written once for all games, as parts a newcomer can name.
//! Each part is a type holding only what it uses; a part that needs another holds
//! it as a field, so the imports show every dependency and none runs in a circle.
//! Built once by [`Services::build`] and handed to the handlers that need them.
//!
//! From the ground up (each line uses only the lines above it):
//!
//! - [`games::Games`]: the hosted games and their component data.
//! - [`records::Records`]: a match as stored and as kept in memory (snapshots).
//! - [`commits::Commits`]: what follows a committed write (wake-ups, signals).
//! - [`visibility::Policy`]: who may see what of a match. Every read asks it.
//! - [`caps::Caps`]: what one account may hold open at once.
//! - [`play::Play`]: applying a move, finishing, scheduling deadlines, starting.
//! - [`reads::Reads`], [`history::History`]: a match and its record as a viewer sees them.
//! - [`invitations::Invitations`], [`lobby::Lobby`]: making, joining and leaving matches.
//! - [`moves::Moves`]: a submitted move, exactly once.
//! - [`presence::Presence`], [`deadlines::Deadlines`]: absence, resignation, time-outs.
//! - [`chat::Chat`], [`replay::Replays`], [`streams::Streams`]: talk, bundles, live events;
//!   [`streams::lobby::LobbyFeed`]: the lobby's changes, relayed from the log's one read.
//! - [`accounts::Accounts`], [`tokens::Tokens`], [`deletion::Deletion`]: players and their credentials;
//!   [`oauth::OAuth`]: tokens for third-party front ends, by consent (OAuth 2 with PKCE).
//! - [`reliability::Reliability`]: players' records of deadlines met and owed.
//! - [`folds::Folds`], [`ratings::Ratings`], [`stats::Stats`], [`clubs::Clubs`],
//!   [`tournaments::Tournaments`], [`moderation::Moderation`], [`webhooks::Webhooks`].
//! - [`notifications::Notifications`]: addresses, mail settings, the mail outbox
//!   and its worker, password resets.
//!
//! Transactions start in [`tx`]; errors are [`error::Error`].

pub mod accounts;
pub mod backoff;
pub mod caps;
pub mod chat;
pub mod clock;
pub mod clubs;
pub mod commitment;
pub mod commits;
pub mod data;
pub mod deadlines;
pub mod deletion;
pub mod error;
pub mod folds;
pub mod games;
pub mod history;
pub mod homes;
pub mod hub;
pub mod invitations;
pub mod lifecycle;
pub mod lobby;
pub mod models;
pub mod moderation;
pub mod move_writer;
pub mod moves;
pub mod notifications;
pub mod oauth;
pub mod ops;
pub mod options;
pub mod outcome;
pub mod pages;
pub mod pairing;
pub mod play;
pub mod playing_hours;
pub mod positions;
pub mod presence;
pub mod ratings;
pub mod reads;
pub mod records;
pub mod registry;
pub mod reliability;
pub mod replay;
pub mod settled;
pub mod skill;
pub mod snapshots;
pub mod stats;
pub mod streams;
pub mod timing;
pub mod tokens;
pub mod tournaments;
pub mod tx;
pub mod visibility;
pub mod webhooks;
use std::sync::Arc;
use std::time::Duration;

use sea_orm::DatabaseConnection;

use crate::auth::{JwtKeys, PasswordPool};
use crate::config::Settings;
use crate::games::DynGame;
use crate::metrics::Metrics;
use crate::store::move_write::MoveLists;

/// Every part of the service, built once.
pub struct Services {
    pub games: Arc<games::Games>,
    pub records: Arc<records::Records>,
    pub commits: Arc<commits::Commits>,
    pub policy: Arc<visibility::Policy>,
    pub caps: Arc<caps::Caps>,
    pub play: Arc<play::Play>,
    pub reads: Arc<reads::Reads>,
    pub positions: Arc<positions::Positions>,
    pub history: Arc<history::History>,
    pub invitations: Arc<invitations::Invitations>,
    pub lobby: Arc<lobby::Lobby>,
    pub moves: Arc<moves::Moves>,
    pub presence: Arc<presence::Presence>,
    pub deadlines: Arc<deadlines::Deadlines>,
    pub chat: Arc<chat::Chat>,
    pub replays: Arc<replay::Replays>,
    pub settled: Arc<settled::Settled>,
    pub streams: Arc<streams::Streams>,
    pub lobby_feed: Arc<streams::lobby::LobbyFeed>,
    pub accounts: Arc<accounts::Accounts>,
    pub tokens: Arc<tokens::Tokens>,
    pub oauth: Arc<oauth::OAuth>,
    pub folds: Arc<folds::Folds>,
    pub ratings: Arc<ratings::Ratings>,
    pub stats: Arc<stats::Stats>,
    pub reliability: Arc<reliability::Reliability>,
    pub clubs: Arc<clubs::Clubs>,
    pub tournaments: Arc<tournaments::Tournaments>,
    pub deletion: Arc<deletion::Deletion>,
    pub moderation: Arc<moderation::Moderation>,
    pub webhooks: Arc<webhooks::Webhooks>,
    pub notifications: Arc<notifications::Notifications>,
    pub ops: Arc<ops::Ops>,
    pub hub: Arc<hub::Hub>,
}

/// What the parts are built from besides the settings.
pub struct Foundation {
    pub db: DatabaseConnection,
    /// The pool the one-statement move is sent on (generic plans; see
    /// `store::connect_for_moves`); the main pool when none is given.
    pub move_db: Option<DatabaseConnection>,
    pub move_lists: MoveLists,
    pub games: Vec<Box<dyn DynGame>>,
    pub data: data::DataStore,
    pub jwt: JwtKeys,
    pub clock: Arc<dyn clock::Clock>,
    pub metrics: Arc<Metrics>,
    /// Whether a read trusts a kept snapshot while the hub hears of every
    /// change, or asks the database for the version.
    pub notified_reads: bool,
    /// Signs the unsubscribe links of mail (derived from the server's secret).
    pub mail_key: Vec<u8>,
    /// This replica's name among the others (its wake-ups, its homes).
    pub replica: uuid::Uuid,
    /// The lease of a match's home, where this replica claims homes (see
    /// `homes`).
    pub home_lease: Option<Duration>,
}

impl Services {
    /// Builds every part, each from the parts below it.
    pub fn build(f: Foundation, settings: &Settings) -> Self {
        let Foundation {
            db,
            move_db,
            move_lists,
            games,
            data,
            jwt,
            clock,
            metrics,
            notified_reads,
            mail_key,
            replica,
            home_lease,
        } = f;
        let across_replicas = db.get_database_backend() == sea_orm::DbBackend::Postgres;
        let hub = Arc::new(hub::Hub::for_replica(across_replicas, replica));
        let snapshots = snapshots::SnapshotCache::new(settings.match_cache_mib << 20);
        let games = Arc::new(games::Games::new(db.clone(), games, data));
        let records = Arc::new(records::Records::new(records::RecordsParts {
            db: db.clone(),
            games: games.clone(),
            snapshots: snapshots.clone(),
            hub: hub.clone(),
            notified_reads,
            homes: home_lease.map(|lease| Arc::new(homes::Homes::new(replica, lease))),
            metrics: metrics.clone(),
        }));
        let commits = Arc::new(commits::Commits::new(
            snapshots.clone(),
            hub.clone(),
            clock.clone(),
            metrics.clone(),
        ));
        let policy = Arc::new(visibility::Policy::new(db.clone(), clock.clone()));
        let caps = Arc::new(caps::Caps::new(db.clone(), clock.clone(), settings.caps));
        let play = Arc::new(play::Play::new(
            games.clone(),
            records.clone(),
            clock.clone(),
        ));
        let reads = Arc::new(reads::Reads::new(
            db.clone(),
            games.clone(),
            records.clone(),
            policy.clone(),
            clock.clone(),
        ));
        let positions = Arc::new(positions::Positions::new(
            db.clone(),
            games.clone(),
            records.clone(),
            policy.clone(),
        ));
        let history = Arc::new(history::History::new(
            db.clone(),
            records.clone(),
            policy.clone(),
        ));
        let invitation_ttl =
            chrono::Duration::hours(settings.invitation_hours.clamp(1, 24 * 365) as i64);
        let invitations = Arc::new(invitations::Invitations::new(
            db.clone(),
            clock.clone(),
            invitation_ttl,
            policy.clone(),
            commits.clone(),
            caps.clone(),
        ));
        let passwords = Arc::new(PasswordPool::new(
            settings.password_hash_threads,
            Duration::from_millis(settings.password_hash_wait_ms),
        ));
        let accounts = Arc::new(accounts::Accounts::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            jwt,
            passwords,
            Duration::from_millis(settings.credential_cache_ms),
            snapshots.clone(),
        ));
        let folds = Arc::new(folds::Folds::new(
            db.clone(),
            hub.clone(),
            commits.clone(),
            move_lists,
        ));
        let clubs = Arc::new(clubs::Clubs::new(
            db.clone(),
            clock.clone(),
            games.clone(),
            folds.clone(),
            caps.clone(),
        ));
        let stale_lobby = (settings.stale_lobby_days > 0)
            .then(|| chrono::Duration::days(settings.stale_lobby_days as i64));
        let reliability = Arc::new(reliability::Reliability::new(db.clone(), clock.clone()));
        let lobby = Arc::new(lobby::Lobby::new(lobby::LobbyParts {
            db: db.clone(),
            clock: clock.clone(),
            games: games.clone(),
            commits: commits.clone(),
            play: play.clone(),
            policy: policy.clone(),
            invitations: invitations.clone(),
            clubs: clubs.clone(),
            reads: reads.clone(),
            caps: caps.clone(),
            reliability: reliability.clone(),
            stale_lobby,
            invitation_ttl,
        }));
        // Many moves, one commit: where moves are one statement with arrays
        // (plain Postgres; Citus keeps a move to one shard, alone).
        let writer = match (&move_db, move_lists) {
            (Some(pool), MoveLists::Arrays) if settings.move_batch > 1 => {
                Some(move_writer::MoveWriter::start(
                    pool.clone(),
                    move_writer::Batching {
                        most: settings.move_batch as usize,
                        writers: settings.move_writers as usize,
                        wait: Duration::from_micros(settings.move_batch_wait_us),
                    },
                    metrics.clone(),
                ))
            }
            _ => None,
        };
        let moves = Arc::new(moves::Moves::new(moves::MovesParts {
            db: db.clone(),
            writer,
            // Postgres: a move is one statement outside a transaction;
            // SQLite is in-process, where a transaction costs no round trips.
            one_statement: across_replicas,
            move_db,
            move_lists,
            clock: clock.clone(),
            games: games.clone(),
            records: records.clone(),
            commits: commits.clone(),
            play: play.clone(),
            policy: policy.clone(),
            snapshots: snapshots.clone(),
        }));
        let presence = Arc::new(presence::Presence::new(presence::PresenceParts {
            db: db.clone(),
            clock: clock.clone(),
            records: records.clone(),
            play: play.clone(),
            commits: commits.clone(),
            policy: policy.clone(),
            reads: reads.clone(),
            games: games.clone(),
            vacation_days_per_year: settings.vacation_days_per_year,
        }));
        let deadlines = Arc::new(deadlines::Deadlines::new(
            db.clone(),
            clock.clone(),
            games.clone(),
            records.clone(),
            play.clone(),
            commits.clone(),
        ));
        let chat = Arc::new(chat::Chat::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            policy.clone(),
            accounts.clone(),
        ));
        let replays = Arc::new(replay::Replays::new(
            db.clone(),
            games.clone(),
            records.clone(),
            policy.clone(),
            chat.clone(),
            positions.clone(),
        ));
        let settled = Arc::new(settled::Settled::new(db.clone()));
        let streams = Arc::new(streams::Streams::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            policy.clone(),
            chat.clone(),
            reads.clone(),
            settled.clone(),
        ));
        // The lobby relays from the streams' one read of the event log.
        let lobby_feed = Arc::new(streams::lobby::LobbyFeed::new(
            db.clone(),
            hub.clone(),
            policy.clone(),
            reads.clone(),
            settled.clone(),
            streams.feed(),
        ));
        let tokens = Arc::new(tokens::Tokens::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            accounts.clone(),
        ));
        let oauth = Arc::new(oauth::OAuth::new(db.clone(), clock.clone(), tokens.clone()));
        let ratings = Arc::new(ratings::Ratings::new(
            db.clone(),
            games.clone(),
            folds.clone(),
        ));
        let stats = Arc::new(stats::Stats::new(
            db.clone(),
            games.clone(),
            folds.clone(),
            reliability.clone(),
        ));
        let tournaments = Arc::new(tournaments::Tournaments::new(
            db.clone(),
            clock.clone(),
            games.clone(),
            lobby.clone(),
            play.clone(),
            presence.clone(),
            commits.clone(),
            caps.clone(),
            reliability.clone(),
        ));
        let deletion = Arc::new(deletion::Deletion::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            accounts.clone(),
            lobby.clone(),
            presence.clone(),
            clubs.clone(),
            tournaments.clone(),
            folds.clone(),
        ));
        let moderation = Arc::new(moderation::Moderation::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            accounts.clone(),
            lobby.clone(),
            policy.clone(),
            reads.clone(),
            commits.clone(),
        ));
        let webhooks = Arc::new(webhooks::Webhooks::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            metrics.clone(),
            settings.webhooks.clone(),
            settled.clone(),
        ));
        let notifications = Arc::new(notifications::Notifications::new(
            db.clone(),
            clock.clone(),
            hub.clone(),
            reads.clone(),
            accounts.clone(),
            settings.mail.clone(),
            mail_key,
        ));
        let ops = Arc::new(ops::Ops::new(
            db,
            hub.clone(),
            metrics,
            snapshots,
            accounts.clone(),
            records.clone(),
        ));
        Self {
            games,
            records,
            commits,
            policy,
            caps,
            play,
            reads,
            positions,
            history,
            invitations,
            lobby,
            moves,
            presence,
            deadlines,
            chat,
            replays,
            settled,
            streams,
            lobby_feed,
            accounts,
            tokens,
            oauth,
            folds,
            ratings,
            stats,
            reliability,
            clubs,
            tournaments,
            deletion,
            moderation,
            webhooks,
            notifications,
            ops,
            hub,
        }
    }

    /// Has the hub drop the snapshot of every match another replica changes,
    /// before anybody waiting on it is woken. Call before the hub listens.
    pub fn watch_remote_changes(&self) {
        self.records.watch_remote_changes();
    }
}

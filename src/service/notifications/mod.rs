//! Mail: a verified address per player, what each player wants to be told by
//! mail, the outbox the mails wait in, and password resets.
//!
//! Mails are rows of an outbox (`mail_outbox`), unique per (player, kind,
//! subject, step), so a cause noticed by several replicas, or twice, queues
//! one mail. Account mails (a confirmation, a reset) are queued in the
//! transaction of the request that asks for them; the game's mails are
//! queued by the worker from the event log, which the move's transaction
//! wrote (see [`worker`]), with the cursor moved in the same transaction as
//! the rows it queued. Workers in every replica claim due rows with
//! `FOR UPDATE SKIP LOCKED` under a lease, send them, and retry with backoff.
//! See docs/notifications.md.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::config::MailSettings;
use crate::games::rng::sha256_hex;
use crate::service::accounts::Accounts;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::reads::Reads;
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{mail_outbox, mail_tokens, notification_settings};

pub mod links;
pub mod mail;
mod worker;

pub use links::Topic;

/// How long a confirmation link works.
const CONFIRM_HOURS: i64 = 48;
/// How long a password reset link works.
const RESET_MINUTES: i64 = 30;
/// Reset mails an account is sent in an hour at most, whatever the replicas
/// and their in-memory rate limits.
const RESETS_PER_HOUR: u64 = 3;
/// Confirmation mails an account is sent in an hour at most.
const CONFIRMATIONS_PER_HOUR: u64 = 5;

/// Mail kinds, as stored in the outbox.
pub const CONFIRM_EMAIL: &str = "confirm_email";
pub const PASSWORD_RESET: &str = "password_reset";
pub const YOUR_TURN: &str = "your_turn";
pub const DIGEST: &str = "digest";
pub const REMINDER_24H: &str = "reminder_24h";
pub const REMINDER_1H: &str = "reminder_1h";
pub const INVITATION: &str = "invitation";
pub const MATCH_STARTED: &str = "match_started";
pub const MATCH_FINISHED: &str = "match_finished";

/// How "your turn" is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnMail {
    /// A mail when it becomes your turn in a match: at most one per match per
    /// quiet period, and none while you have the match's stream open.
    Immediately,
    /// One mail a day at `digest_hour` in `time_zone`, listing every match
    /// where it is your turn (none when there is none).
    DailyDigest,
    Off,
}

impl TurnMail {
    fn as_str(self) -> &'static str {
        match self {
            TurnMail::Immediately => "immediately",
            TurnMail::DailyDigest => "daily_digest",
            TurnMail::Off => "off",
        }
    }

    fn parse(s: &str) -> TurnMail {
        match s {
            "daily_digest" => TurnMail::DailyDigest,
            "off" => TurnMail::Off,
            _ => TurnMail::Immediately,
        }
    }
}

/// The caller's address, shown to nobody else.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailResponse {
    #[schema(example = "alice@example.org")]
    pub address: String,
    /// Null until the link mailed to the address is opened.
    pub confirmed_at: Option<DateTime<Utc>>,
}

/// What the caller is told by mail, and where.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NotificationSettingsResponse {
    /// Null without an address; nothing is mailed to an unconfirmed one.
    pub email: Option<EmailResponse>,
    pub your_turn: TurnMail,
    /// With `immediately`: at most one turn mail per match in this many minutes.
    pub quiet_minutes: u32,
    /// With `daily_digest`: the hour (0–23) it is sent, in `time_zone`.
    pub digest_hour: u32,
    /// An IANA time zone name (`Europe/Prague`).
    #[schema(example = "Europe/Tallinn")]
    pub time_zone: String,
    /// A mail when somebody invites you to a match.
    pub invitations: bool,
    /// A mail when a match of yours starts.
    pub match_started: bool,
    /// A mail with the result when a match of yours ends.
    pub match_finished: bool,
    /// Mails 24 h and 1 h before your move falls due, while you have not moved
    /// (each only when the step is longer than its lead).
    pub deadline_reminders: bool,
    /// Whether this server sends mail at all (it has an SMTP server configured).
    pub mail_enabled: bool,
}

/// New settings: every field, as `GET` answers them (without `email` and
/// `mail_enabled`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationSettingsRequest {
    pub your_turn: TurnMail,
    #[schema(minimum = 0, maximum = 1440)]
    pub quiet_minutes: u32,
    #[schema(minimum = 0, maximum = 23)]
    pub digest_hour: u32,
    #[schema(example = "Europe/Prague")]
    pub time_zone: String,
    pub invitations: bool,
    pub match_started: bool,
    pub match_finished: bool,
    pub deadline_reminders: bool,
}

/// What an unsubscribe link turned off.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UnsubscribeResponse {
    /// The setting now off: `your_turn`, `deadline_reminders`, `invitations`,
    /// `match_started` or `match_finished`.
    #[schema(example = "your_turn")]
    pub topic: String,
}

fn defaults(player: Uuid, now: DateTime<Utc>) -> notification_settings::Model {
    notification_settings::Model {
        player_id: player,
        address: None,
        address_key: None,
        confirmed_at: None,
        your_turn: TurnMail::Immediately.as_str().into(),
        quiet_minutes: 60,
        digest_hour: 8,
        time_zone: "UTC".into(),
        invitations: true,
        match_started: false,
        match_finished: true,
        deadline_reminders: true,
        updated_at: now,
    }
}

/// An address as stored: trimmed, checked. Deliberately plain: one `@`, a
/// local part, a domain with a dot, no spaces or controls, within the RFC
/// 5321 lengths; what mail servers accept is wider, what people type is not.
pub fn parse_address(raw: &str) -> Result<String> {
    let bad = || {
        Error::unprocessable(
            "invalid_email",
            "That is not an email address this server can send to (like name@example.org).",
        )
    };
    let a = raw.trim();
    let (local, domain) = a.split_once('@').ok_or_else(bad)?;
    let domain_ok = domain.contains('.')
        && domain.len() <= 253
        && domain.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && !"<>()[]\\,;:@\"".contains(c));
    if a.len() > 254 || !domain_ok || !local_ok || a.parse::<lettre::Address>().is_err() {
        return Err(bad());
    }
    Ok(a.to_owned())
}

/// A fresh token for a mailed link: 32 random bytes, hex.
fn new_token() -> Result<String> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
    Ok(hex::encode(raw))
}

fn response(
    row: &notification_settings::Model,
    mail_enabled: bool,
) -> NotificationSettingsResponse {
    NotificationSettingsResponse {
        email: row.address.as_ref().map(|a| EmailResponse {
            address: a.clone(),
            confirmed_at: row.confirmed_at,
        }),
        your_turn: TurnMail::parse(&row.your_turn),
        quiet_minutes: row.quiet_minutes.max(0) as u32,
        digest_hour: row.digest_hour.clamp(0, 23) as u32,
        time_zone: row.time_zone.clone(),
        invitations: row.invitations,
        match_started: row.match_started,
        match_finished: row.match_finished,
        deadline_reminders: row.deadline_reminders,
        mail_enabled,
    }
}

/// Mail: addresses, settings, the outbox and its worker, password resets.
pub struct Notifications {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    reads: Arc<Reads>,
    accounts: Arc<Accounts>,
    settings: MailSettings,
    /// Signs unsubscribe links (derived from the server's secret).
    link_key: Vec<u8>,
}

impl Notifications {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        reads: Arc<Reads>,
        accounts: Arc<Accounts>,
        settings: MailSettings,
        link_key: Vec<u8>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            reads,
            accounts,
            settings,
            link_key,
        }
    }

    pub fn mail_settings(&self) -> &MailSettings {
        &self.settings
    }

    async fn row_of(&self, player: Uuid) -> Result<notification_settings::Model> {
        Ok(store::notifications::settings_of(&self.db, player)
            .await?
            .unwrap_or_else(|| defaults(player, self.clock.now())))
    }

    /// The caller's address and settings.
    pub async fn my_settings(
        &self,
        me: &AuthenticatedPlayer,
    ) -> Result<NotificationSettingsResponse> {
        Ok(response(
            &self.row_of(me.id).await?,
            self.settings.enabled(),
        ))
    }

    /// Replaces the caller's settings (the address stays as it is).
    pub async fn set_my_settings(
        &self,
        me: &AuthenticatedPlayer,
        req: NotificationSettingsRequest,
    ) -> Result<NotificationSettingsResponse> {
        if req.quiet_minutes > 1440 {
            return Err(Error::unprocessable(
                "invalid_notification_settings",
                "quiet_minutes is 0 to 1440.",
            ));
        }
        if req.digest_hour > 23 {
            return Err(Error::unprocessable(
                "invalid_notification_settings",
                "digest_hour is 0 to 23.",
            ));
        }
        if req.time_zone.parse::<chrono_tz::Tz>().is_err() {
            return Err(Error::unprocessable(
                "invalid_time_zone",
                "time_zone is an IANA time zone name, like Europe/Prague or UTC.",
            ));
        }
        let now = self.clock.now();
        let row = transaction!(&self.db, |tx| {
            let mut row = store::notifications::settings_of(tx, me.id)
                .await?
                .unwrap_or_else(|| defaults(me.id, now));
            row.your_turn = req.your_turn.as_str().into();
            row.quiet_minutes = req.quiet_minutes as i32;
            row.digest_hour = req.digest_hour as i32;
            row.time_zone = req.time_zone.clone();
            row.invitations = req.invitations;
            row.match_started = req.match_started;
            row.match_finished = req.match_finished;
            row.deadline_reminders = req.deadline_reminders;
            row.updated_at = now;
            store::notifications::save_settings(tx, row.clone()).await?;
            Ok(row)
        })?;
        Ok(response(&row, self.settings.enabled()))
    }

    /// Sets the caller's address (unconfirmed) and mails it a confirmation
    /// link; the same address again, already confirmed, changes nothing.
    pub async fn set_my_email(
        &self,
        me: &AuthenticatedPlayer,
        raw: &str,
    ) -> Result<NotificationSettingsResponse> {
        let address = parse_address(raw)?;
        let now = self.clock.now();
        let token = new_token()?;
        let enabled = self.settings.enabled();
        let row = transaction!(&self.db, |tx| {
            let mut row = store::notifications::settings_of(tx, me.id)
                .await?
                .unwrap_or_else(|| defaults(me.id, now));
            if row.address.as_deref() == Some(address.as_str()) && row.confirmed_at.is_some() {
                return Ok(row);
            }
            row.address = Some(address.clone());
            row.address_key = Some(address.to_lowercase());
            row.confirmed_at = None;
            row.updated_at = now;
            store::notifications::save_settings(tx, row.clone()).await?;
            let sent = store::notifications::mails_since(
                tx,
                me.id,
                CONFIRM_EMAIL,
                now - chrono::Duration::hours(1),
            )
            .await?;
            if sent >= CONFIRMATIONS_PER_HOUR {
                return Err(Error::conflict(
                    "too_many_confirmations",
                    "Several confirmation mails went out in the last hour; try again later.",
                ));
            }
            let id = Uuid::now_v7();
            store::notifications::insert_token(
                tx,
                mail_tokens::Model {
                    hash: sha256_hex(token.as_bytes()),
                    id,
                    player_id: me.id,
                    purpose: CONFIRM_EMAIL.into(),
                    address: Some(address.clone()),
                    created_at: now,
                    expires_at: now + chrono::Duration::hours(CONFIRM_HOURS),
                    used_at: None,
                },
            )
            .await?;
            if enabled {
                store::notifications::queue_mail(
                    tx,
                    outbox_row(
                        me.id,
                        CONFIRM_EMAIL,
                        id,
                        0,
                        &address,
                        Some(token.clone()),
                        now,
                    ),
                )
                .await?;
            }
            Ok(row)
        })?;
        if enabled {
            self.hub.wake_mailer();
        }
        tracing::info!(player.id = %me.id, "email address set");
        Ok(response(&row, enabled))
    }

    /// Removes the caller's address: nothing is mailed from now on.
    pub async fn remove_my_email(&self, me: &AuthenticatedPlayer) -> Result<()> {
        transaction!(&self.db, |tx| {
            store::notifications::forget_address(tx, me.id).await?;
            Ok(())
        })?;
        tracing::info!(player.id = %me.id, "email address removed");
        Ok(())
    }

    /// Confirms an address with the token its link carried (single use).
    pub async fn confirm_email(&self, token: &str) -> Result<()> {
        let now = self.clock.now();
        let hash = sha256_hex(token.trim().as_bytes());
        let invalid = || {
            Error::unprocessable(
                "invalid_mail_token",
                "This link is not valid: it was used already, has expired, or a newer one was sent.",
            )
        };
        let player = transaction!(&self.db, |tx| {
            let Some(t) = store::notifications::redeem_token(tx, &hash, CONFIRM_EMAIL, now).await?
            else {
                return Err(invalid());
            };
            let Some(address) = t.address.as_deref() else {
                return Err(invalid());
            };
            if !store::notifications::confirm_address(tx, t.player_id, address, now).await? {
                return Err(invalid());
            }
            Ok(t.player_id)
        })?;
        tracing::info!(player.id = %player, "email address confirmed");
        Ok(())
    }

    /// Mails a reset link to the account named `login` (a name or a confirmed
    /// address), if there is one with a confirmed address. Answers nothing
    /// about whether there was.
    pub async fn request_password_reset(&self, login: &str) -> Result<()> {
        let login = login.trim();
        if login.is_empty() || login.len() > 254 || !self.settings.enabled() {
            return Ok(());
        }
        let rows = if login.contains('@') {
            store::notifications::confirmed_by_address(&self.db, &login.to_lowercase()).await?
        } else {
            match store::players::player_by_name(&self.db, login).await? {
                Some(p) if !p.is_bot => {
                    store::notifications::confirmed_of(&self.db, vec![p.id]).await?
                }
                _ => Vec::new(),
            }
        };
        let now = self.clock.now();
        for row in rows {
            let Some(address) = row.address.clone() else {
                continue;
            };
            let token = new_token()?;
            let queued = transaction!(&self.db, |tx| {
                let sent = store::notifications::mails_since(
                    tx,
                    row.player_id,
                    PASSWORD_RESET,
                    now - chrono::Duration::hours(1),
                )
                .await?;
                if sent >= RESETS_PER_HOUR {
                    return Ok(false);
                }
                let id = Uuid::now_v7();
                store::notifications::insert_token(
                    tx,
                    mail_tokens::Model {
                        hash: sha256_hex(token.as_bytes()),
                        id,
                        player_id: row.player_id,
                        purpose: PASSWORD_RESET.into(),
                        address: None,
                        created_at: now,
                        expires_at: now + chrono::Duration::minutes(RESET_MINUTES),
                        used_at: None,
                    },
                )
                .await?;
                store::notifications::queue_mail(
                    tx,
                    outbox_row(
                        row.player_id,
                        PASSWORD_RESET,
                        id,
                        0,
                        &address,
                        Some(token.clone()),
                        now,
                    ),
                )
                .await
                .map_err(Error::from)
            })?;
            tracing::info!(player.id = %row.player_id, queued, "password reset asked for");
        }
        self.hub.wake_mailer();
        Ok(())
    }

    /// Sets a new password with a reset link's token: as a password change
    /// does, it ends every session, API token, ticket and stream.
    pub async fn reset_password(&self, token: &str, new_password: &str) -> Result<()> {
        let hash = sha256_hex(token.trim().as_bytes());
        self.accounts
            .reset_password(&hash, PASSWORD_RESET, new_password)
            .await
    }

    /// What an unsubscribe link would turn off, and whose it is; for the page
    /// a GET of the link shows.
    pub fn read_unsubscribe(&self, token: &str) -> Result<(Uuid, Topic)> {
        links::read_unsubscribe_token(&self.link_key, token).ok_or_else(|| {
            Error::not_found(
                "unsubscribe_link_invalid",
                "This unsubscribe link is not valid.",
            )
        })
    }

    /// Turns off what an unsubscribe link names (RFC 8058: by POST only).
    pub async fn unsubscribe(&self, token: &str) -> Result<UnsubscribeResponse> {
        let (player, topic) = self.read_unsubscribe(token)?;
        let now = self.clock.now();
        transaction!(&self.db, |tx| {
            let Some(mut row) = store::notifications::settings_of(tx, player).await? else {
                return Ok(());
            };
            match topic {
                Topic::YourTurn => row.your_turn = TurnMail::Off.as_str().into(),
                Topic::Reminders => row.deadline_reminders = false,
                Topic::Invitations => row.invitations = false,
                Topic::MatchStarted => row.match_started = false,
                Topic::MatchFinished => row.match_finished = false,
            }
            row.updated_at = now;
            store::notifications::save_settings(tx, row).await?;
            Ok(())
        })?;
        tracing::info!(player.id = %player, topic = topic.name(), "unsubscribed");
        Ok(UnsubscribeResponse {
            topic: topic.name().into(),
        })
    }

    /// The locale of a player, for pages about their mail.
    pub async fn locale_of(&self, player: Uuid) -> Result<crate::i18n::Locale> {
        Ok(store::players::player_locale(&self.db, player)
            .await?
            .as_deref()
            .and_then(crate::i18n::Locale::from_tag)
            .unwrap_or(crate::i18n::Locale::En))
    }
}

/// A new outbox row, due now.
pub(crate) fn outbox_row(
    player: Uuid,
    kind: &str,
    subject: Uuid,
    step: i64,
    address: &str,
    secret: Option<String>,
    now: DateTime<Utc>,
) -> mail_outbox::Model {
    mail_outbox::Model {
        id: Uuid::now_v7(),
        player_id: player,
        kind: kind.into(),
        subject_id: subject,
        step,
        address: address.into(),
        secret,
        status: worker::PENDING.into(),
        attempts: 0,
        next_attempt_at: now,
        claimed_until: None,
        claim: None,
        created_at: now,
        sent_at: None,
        last_error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_people_type_are_taken_and_others_refused() {
        for ok in [
            "a@example.org",
            " Alice.B+x@mail.example.co.uk ",
            "ž@příklad.cz",
        ] {
            assert!(parse_address(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "alice",
            "alice@",
            "@example.org",
            "alice@localhost",
            "a b@example.org",
            "a@b@example.org",
            "a..b@example.org",
            "a@-x.org",
            "<a@example.org>",
        ] {
            assert!(parse_address(bad).is_err(), "{bad}");
        }
    }
}

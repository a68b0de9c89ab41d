//! The mail worker every replica runs: it turns the event log into mails
//! (turns, invitations, starts and ends), looks for deadline reminders and
//! daily digests that are due, and sends what the outbox holds: claimed with
//! SKIP LOCKED under a lease, retried with exponential backoff and jitter.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use chrono::{DateTime, Datelike, Timelike, Utc};
use fluent_bundle::FluentValue;
use uuid::Uuid;

use super::mail::{Composed, Line, Mailer, tr};
use super::{
    CONFIRM_EMAIL, CONFIRM_HOURS, DIGEST, INVITATION, MATCH_FINISHED, MATCH_STARTED, Notifications,
    PASSWORD_RESET, REMINDER_1H, REMINDER_24H, RESET_MINUTES, Topic, TurnMail, YOUR_TURN, links,
    outbox_row,
};
use crate::i18n::Locale;
use crate::service::backoff::backoff;
use crate::service::error::Result;
use crate::service::lifecycle::ACTIVE;
use crate::service::models::TurnResponse;
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{mail_outbox, match_seats, matches, notification_settings};
use crate::store::notifications::MailOutcome;

pub const PENDING: &str = "pending";
pub const SENT: &str = "sent";
pub const SKIPPED: &str = "skipped";
pub const FAILED: &str = "failed";

/// Events read per fan-out step.
const EVENTS_PER_STEP: u64 = 500;
/// The least time between two passes (a stream of moves wakes the worker at
/// every commit).
const WAKE_GAP: Duration = Duration::from_millis(100);
/// Mails claimed at once.
const CLAIM_BATCH: u64 = 8;
/// How long a claimed mail is this worker's: longer than an SMTP exchange.
const LEASE_SECONDS: i64 = 120;
/// The reminders, longest lead first: (kind, lead in hours).
const REMINDERS: [(&str, i64); 2] = [(REMINDER_24H, 24), (REMINDER_1H, 1)];
/// How much of an error is kept.
const MAX_ERROR_CHARS: usize = 500;

/// A mail to queue: its key, and the address it goes to.
struct Planned {
    row: mail_outbox::Model,
    /// For a turn mail: pending turn mails of earlier steps of the same match
    /// are superseded by it.
    supersedes: bool,
}

impl Notifications {
    /// Queues and sends mail until the server stops.
    pub async fn run_mail_worker(&self, mailer: Mailer) {
        let every = Duration::from_millis(self.settings.poll_ms.max(10));
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        let mut last_pass = Instant::now() - WAKE_GAP;
        let mut last_scan: Option<Instant> = None;
        loop {
            let since = last_pass.elapsed();
            if since < WAKE_GAP {
                tokio::time::sleep(WAKE_GAP - since).await;
            }
            while wakes.try_recv().is_ok() {}
            last_pass = Instant::now();
            if let Err(e) = self.fan_out_mail().await {
                tracing::warn!(error = %e, "mail fan-out failed");
            }
            // Reminders and digests follow the clock, not the commits: at the
            // poll's pace, however often moves wake the worker.
            if last_scan.is_none_or(|at| at.elapsed() >= every) {
                last_scan = Some(Instant::now());
                if let Err(e) = self.queue_reminders().await {
                    tracing::warn!(error = %e, "deadline reminders failed");
                }
                if let Err(e) = self.queue_digests().await {
                    tracing::warn!(error = %e, "daily digests failed");
                }
            }
            if let Err(e) = self.send_due_mail(&mailer).await {
                tracing::warn!(error = %e, "sending mail failed");
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = wakes.recv() => {}
                _ = self.hub.mailer_woken() => {}
                _ = stop.changed() => return,
            }
        }
    }

    /// The players of these ids with a confirmed address, by id.
    async fn readers(
        &self,
        players: Vec<Uuid>,
    ) -> Result<HashMap<Uuid, notification_settings::Model>> {
        Ok(store::notifications::confirmed_of(&self.db, players)
            .await?
            .into_iter()
            .map(|r| (r.player_id, r))
            .collect())
    }

    /// Turns the settled events past the cursor into mails, and moves the
    /// cursor past them in the same transaction, only if nobody moved it
    /// meanwhile (the outbox's unique key keeps a mail single whatever races).
    pub(super) async fn fan_out_mail(&self) -> Result<usize> {
        let mut made = 0;
        loop {
            let settled = store::streams::settled_tx(&self.db).await?;
            let at = match store::notifications::read_mail_cursor(&self.db).await? {
                Some(at) => at,
                // The first pass of a new deployment starts at the head of
                // the log: no mail about the past.
                None => {
                    let head = match settled {
                        Some(x) => (x, 0),
                        None => {
                            let h = store::streams::stream_head(&self.db).await?;
                            (h.tx, h.id)
                        }
                    };
                    store::notifications::mail_cursor(&self.db, head).await?
                }
            };
            let events = store::streams::log_after(
                &self.db,
                store::streams::StreamPosition { tx: at.0, id: at.1 },
                settled,
                EVENTS_PER_STEP,
            )
            .await?;
            let full = events.len() as u64 == EVENTS_PER_STEP;
            // Moved only past events read: an idle log costs no write.
            let Some(to) = events.last().map(|e| (e.tx, e.id)) else {
                return Ok(made);
            };
            let planned = self.plan(&events).await?;
            let n = planned.len();
            // When another replica moved the cursor meanwhile, it read these
            // events too: the rows queued here are the same keys as its own
            // (the unique key keeps each mail single), and it goes on from there.
            let moved = transaction!(&self.db, |tx| {
                for p in &planned {
                    if store::notifications::queue_mail(tx, p.row.clone()).await? && p.supersedes {
                        store::notifications::supersede(
                            tx,
                            p.row.player_id,
                            &p.row.kind,
                            p.row.subject_id,
                            p.row.step,
                        )
                        .await?;
                    }
                }
                Ok(store::notifications::advance_mail_cursor(tx, at, to).await?)
            })?;
            if !moved {
                return Ok(made);
            }
            made += n;
            if !full {
                return Ok(made);
            }
        }
    }

    /// The mails a batch of events calls for.
    ///
    /// The seats of every match the events touch are read at once, and the
    /// readers among their players with them; a match's state is read and its
    /// turns worked out only where a reader wants a turn mail. Every move
    /// touches a match, and most players set no address: reading each moved
    /// match's row, seats and state on every pass cost the move path a tenth
    /// of its server time.
    async fn plan(&self, events: &[store::entities::events::Model]) -> Result<Vec<Planned>> {
        let now = self.clock.now();
        let mut touched = BTreeSet::new();
        // (player, kind, match) of the mails one event calls for.
        let mut singles: BTreeSet<(Uuid, &'static str, Uuid)> = BTreeSet::new();
        // (kind, match) of the mails every human seat of a match is owed.
        let mut to_seats: BTreeSet<(&'static str, Uuid)> = BTreeSet::new();
        for e in events {
            touched.insert(e.match_id);
            let kind = match e.kind.as_str() {
                "match_started" => MATCH_STARTED,
                "match_finished" => MATCH_FINISHED,
                "invitation_sent" => {
                    let data: serde_json::Value = serde_json::from_str(&e.data).unwrap_or_default();
                    let invitee = data["player"]
                        .as_str()
                        .and_then(|s| Uuid::try_parse(s).ok());
                    if let Some(p) = invitee {
                        singles.insert((p, INVITATION, e.match_id));
                    }
                    continue;
                }
                _ => continue,
            };
            to_seats.insert((kind, e.match_id));
        }
        let mut seats_of: HashMap<Uuid, Vec<match_seats::Model>> = HashMap::new();
        for s in
            store::matches::seats_of_matches(&self.db, touched.iter().copied().collect()).await?
        {
            seats_of.entry(s.match_id).or_default().push(s);
        }
        for (kind, match_id) in &to_seats {
            for s in seats_of.get(match_id).into_iter().flatten() {
                if s.bot.is_none() {
                    singles.insert((s.player_id, kind, *match_id));
                }
            }
        }
        let mut players: Vec<Uuid> = singles.iter().map(|k| k.0).collect();
        players.extend(
            seats_of
                .values()
                .flatten()
                .filter(|s| s.bot.is_none())
                .map(|s| s.player_id),
        );
        players.sort_unstable();
        players.dedup();
        let readers = self.readers(players).await?;
        let wants_turns = |s: &match_seats::Model| {
            s.bot.is_none()
                && readers.get(&s.player_id).is_some_and(|r| {
                    r.address.is_some() && TurnMail::parse(&r.your_turn) == TurnMail::Immediately
                })
        };
        let mut turns: Vec<TurnResponse> = Vec::new();
        let mut owed: Vec<Uuid> = Vec::new();
        for id in &touched {
            let Some(seats) = seats_of.get(id) else {
                continue;
            };
            if !seats.iter().any(wants_turns) {
                continue;
            }
            let Some(m) = store::matches::match_by_id(&self.db, *id).await? else {
                continue;
            };
            if m.status != ACTIVE {
                continue;
            }
            for (seat, turn) in self.reads.owed_turns(&m, seats, false).await? {
                if seat.bot.is_none() && !turn.absent {
                    owed.push(seat.player_id);
                    turns.push(turn);
                }
            }
        }
        let mut out = Vec::new();
        for (player, kind, match_id) in &singles {
            let Some(r) = readers.get(player) else {
                continue;
            };
            let wanted = match *kind {
                MATCH_STARTED => r.match_started,
                MATCH_FINISHED => r.match_finished,
                _ => r.invitations,
            };
            let Some(address) = r.address.as_deref() else {
                continue;
            };
            if wanted {
                out.push(Planned {
                    row: outbox_row(*player, kind, *match_id, 0, address, None, now),
                    supersedes: false,
                });
            }
        }
        for (player, turn) in owed.iter().zip(&turns) {
            let Some(r) = readers.get(player) else {
                continue;
            };
            let Some(address) = r.address.as_deref() else {
                continue;
            };
            if TurnMail::parse(&r.your_turn) != TurnMail::Immediately {
                continue;
            }
            // Coalesced: one turn mail per match per quiet period; a later
            // one waits for the period's end (and is dropped then if the
            // turn has passed, or a newer step's mail stands for it).
            let mut row = outbox_row(
                *player,
                YOUR_TURN,
                turn.match_id,
                turn.step,
                address,
                None,
                now,
            );
            if let Some(sent) =
                store::notifications::last_sent(&self.db, *player, YOUR_TURN, turn.match_id).await?
            {
                let quiet_end = sent + chrono::Duration::minutes(i64::from(r.quiet_minutes.max(0)));
                if quiet_end > now {
                    row.next_attempt_at = quiet_end;
                }
            }
            out.push(Planned {
                row,
                supersedes: true,
            });
        }
        Ok(out)
    }

    /// Queues the deadline reminders that are due: for each seat that owes
    /// a move with a deadline, the shortest lead (24 h, 1 h) it is within,
    /// if the step is longer than that lead (a 12 h step has no 24 h
    /// reminder), once per step.
    pub(super) async fn queue_reminders(&self) -> Result<usize> {
        let now = self.clock.now();
        let matches =
            store::notifications::matches_due_before(&self.db, now + chrono::Duration::hours(24))
                .await?;
        let mut planned = Vec::new();
        for m in &matches {
            let seats = store::matches::seats_of(&self.db, m.id).await?;
            let owed = self.reads.owed_turns(m, &seats, false).await?;
            let readers = self
                .readers(owed.iter().map(|(s, _)| s.player_id).collect())
                .await?;
            for (seat, turn) in owed {
                let (Some(r), Some(due)) = (readers.get(&seat.player_id), turn.deadline) else {
                    continue;
                };
                let Some(address) = r.address.as_deref() else {
                    continue;
                };
                if !r.deadline_reminders || seat.bot.is_some() || turn.absent || due <= now {
                    continue;
                }
                let (left, whole) = (due - now, due - turn.owed_since);
                let lead = REMINDERS.iter().rev().find(|(_, h)| {
                    let lead = chrono::Duration::hours(*h);
                    left <= lead && whole > lead
                });
                if let Some((kind, _)) = lead {
                    planned.push(outbox_row(
                        seat.player_id,
                        kind,
                        m.id,
                        m.step,
                        address,
                        None,
                        now,
                    ));
                }
            }
        }
        self.queue_all(planned).await
    }

    /// Queues the daily digests whose hour it is in their readers' time
    /// zones, once per local day, for readers who owe a move somewhere.
    pub(super) async fn queue_digests(&self) -> Result<usize> {
        let now = self.clock.now();
        let mut planned = Vec::new();
        for r in store::notifications::digest_readers(&self.db).await? {
            let tz: chrono_tz::Tz = r.time_zone.parse().unwrap_or(chrono_tz::UTC);
            let local = now.with_timezone(&tz);
            if local.hour() as i32 != r.digest_hour {
                continue;
            }
            let day = i64::from(local.year()) * 10_000
                + i64::from(local.month()) * 100
                + i64::from(local.day());
            if store::notifications::mail_exists(&self.db, r.player_id, DIGEST, Uuid::nil(), day)
                .await?
            {
                continue;
            }
            let Some(address) = r.address.as_deref() else {
                continue;
            };
            if self.reads.turns_of(r.player_id).await?.items.is_empty() {
                continue;
            }
            planned.push(outbox_row(
                r.player_id,
                DIGEST,
                Uuid::nil(),
                day,
                address,
                None,
                now,
            ));
        }
        self.queue_all(planned).await
    }

    async fn queue_all(&self, rows: Vec<mail_outbox::Model>) -> Result<usize> {
        if rows.is_empty() {
            return Ok(0);
        }
        transaction!(&self.db, |tx| {
            let mut n = 0;
            for r in &rows {
                if store::notifications::queue_mail(tx, r.clone()).await? {
                    n += 1;
                }
            }
            Ok(n)
        })
    }

    /// Claims due mails a batch at a time and sends them; answers how many
    /// were tried.
    pub(super) async fn send_due_mail(&self, mailer: &Mailer) -> Result<usize> {
        let mut tried = 0;
        loop {
            let now = self.clock.now();
            if !store::notifications::any_mail_due(&self.db, now).await? {
                return Ok(tried);
            }
            let claim = Uuid::new_v4();
            let rows = transaction!(&self.db, |tx| {
                let rows = store::notifications::lock_due_mails(tx, now, CLAIM_BATCH).await?;
                store::notifications::lease_mails(
                    tx,
                    rows.iter().map(|r| r.id).collect(),
                    claim,
                    now + chrono::Duration::seconds(LEASE_SECONDS),
                )
                .await?;
                Ok(rows)
            })?;
            if rows.is_empty() {
                return Ok(tried);
            }
            for row in &rows {
                let outcome = self.attempt(mailer, row).await;
                if let Err(e) = transaction!(&self.db, |tx| {
                    if !store::notifications::finish_mail(tx, row.id, claim, outcome.clone())
                        .await?
                    {
                        tracing::warn!(mail.id = %row.id, "a mail's lease ran out during its attempt");
                    }
                    Ok(())
                }) {
                    tracing::warn!(mail.id = %row.id, error = %e, "recording a mail failed");
                }
            }
            tried += rows.len();
            if (rows.len() as u64) < CLAIM_BATCH {
                return Ok(tried);
            }
        }
    }

    /// One attempt at a mail: composed now (so it says what is true now, in
    /// the reader's language now), skipped when it no longer holds.
    async fn attempt(&self, mailer: &Mailer, row: &mail_outbox::Model) -> MailOutcome {
        let attempt = row.attempts + 1;
        let composed = match self.compose(row).await {
            Ok(Some(c)) => c,
            Ok(None) => {
                tracing::info!(mail.id = %row.id, kind = %row.kind, "mail no longer called for");
                return MailOutcome {
                    status: SKIPPED,
                    next_attempt_at: self.clock.now(),
                    sent_at: None,
                    error: None,
                };
            }
            Err(e) => return self.failed(row, attempt, e.to_string()),
        };
        match mailer.send(row.id, &row.address, &composed).await {
            Ok(()) => {
                tracing::info!(mail.id = %row.id, player.id = %row.player_id, kind = %row.kind, attempt, "mail sent");
                MailOutcome {
                    status: SENT,
                    next_attempt_at: self.clock.now(),
                    sent_at: Some(self.clock.now()),
                    error: None,
                }
            }
            Err(e) => self.failed(row, attempt, e),
        }
    }

    fn failed(&self, row: &mail_outbox::Model, attempt: i32, error: String) -> MailOutcome {
        let now = self.clock.now();
        let error: String = error.chars().take(MAX_ERROR_CHARS).collect();
        tracing::warn!(mail.id = %row.id, kind = %row.kind, attempt, error = %error, "mail attempt failed");
        if attempt >= self.settings.max_attempts as i32 {
            MailOutcome {
                status: FAILED,
                next_attempt_at: now,
                sent_at: None,
                error: Some(error),
            }
        } else {
            MailOutcome {
                status: PENDING,
                next_attempt_at: now + backoff(self.settings.backoff_ms, attempt),
                sent_at: None,
                error: Some(error),
            }
        }
    }

    /// The mail a row stands for, as of now; None when it is no longer
    /// called for (the setting was turned off, the address removed, the turn
    /// played, the player watching the match).
    async fn compose(&self, row: &mail_outbox::Model) -> Result<Option<Composed>> {
        let Some(player) = store::players::player_by_id(&self.db, row.player_id).await? else {
            return Ok(None);
        };
        let locale = store::players::player_locale(&self.db, row.player_id)
            .await?
            .as_deref()
            .and_then(Locale::from_tag)
            .unwrap_or(Locale::En);
        let settings = store::notifications::settings_of(&self.db, row.player_id).await?;
        let hello = tr(
            locale,
            "mail-greeting",
            &[("name", player.name.clone().into())],
        );
        let base = &self.settings.public_url;
        // Account mail goes to the address it was made for.
        if row.kind == CONFIRM_EMAIL || row.kind == PASSWORD_RESET {
            let Some(secret) = row.secret.as_deref() else {
                return Ok(None);
            };
            let (subject, body, link) = if row.kind == CONFIRM_EMAIL {
                (
                    tr(locale, "mail-confirm-subject", &[]),
                    tr(
                        locale,
                        "mail-confirm-body",
                        &[("hours", CONFIRM_HOURS.into())],
                    ),
                    format!("{base}/#/confirm-email?token={secret}"),
                )
            } else {
                (
                    tr(locale, "mail-reset-subject", &[]),
                    tr(
                        locale,
                        "mail-reset-body",
                        &[("minutes", RESET_MINUTES.into())],
                    ),
                    format!("{base}/#/reset-password?token={secret}"),
                )
            };
            return Ok(Some(Composed {
                subject,
                lines: vec![
                    Line::Text(hello),
                    Line::Text(body),
                    Line::Link(String::new(), link),
                    Line::Blank,
                    Line::Text(tr(locale, "mail-signature", &[])),
                ],
                unsubscribe: None,
            }));
        }
        // Everything else only to the confirmed address, while wanted.
        let Some(s) = settings else { return Ok(None) };
        if s.confirmed_at.is_none() || s.address.as_deref() != Some(row.address.as_str()) {
            return Ok(None);
        }
        let tz: chrono_tz::Tz = s.time_zone.parse().unwrap_or(chrono_tz::UTC);
        let when = |at: DateTime<Utc>| {
            at.with_timezone(&tz)
                .format("%Y-%m-%d %H:%M %Z")
                .to_string()
        };
        let game_name = |game: &str| tr(locale, &format!("game-{game}"), &[]);
        let match_link = |id: Uuid| format!("{base}/#/match/{id}");
        let (topic, subject, mut lines) = match row.kind.as_str() {
            DIGEST => {
                if TurnMail::parse(&s.your_turn) != TurnMail::DailyDigest {
                    return Ok(None);
                }
                let turns = self.reads.turns_of(row.player_id).await?.items;
                if turns.is_empty() {
                    return Ok(None);
                }
                let mut lines = vec![Line::Text(tr(locale, "mail-digest-body", &[]))];
                for t in &turns {
                    let game: FluentValue<'static> = game_name(&t.game).into();
                    let link: FluentValue<'static> = match_link(t.match_id).into();
                    lines.push(Line::Text(match t.deadline {
                        Some(d) => tr(
                            locale,
                            "mail-digest-line-deadline",
                            &[("game", game), ("deadline", when(d).into()), ("link", link)],
                        ),
                        None => tr(
                            locale,
                            "mail-digest-line",
                            &[("game", game), ("link", link)],
                        ),
                    }));
                }
                let count = turns.len() as i64;
                (
                    Topic::YourTurn,
                    tr(locale, "mail-digest-subject", &[("count", count.into())]),
                    lines,
                )
            }
            kind => {
                let Some(m) = store::matches::match_by_id(&self.db, row.subject_id).await? else {
                    return Ok(None);
                };
                let game: FluentValue<'static> = game_name(&m.game).into();
                match kind {
                    YOUR_TURN | REMINDER_24H | REMINDER_1H => {
                        let wanted = if kind == YOUR_TURN {
                            TurnMail::parse(&s.your_turn) == TurnMail::Immediately
                        } else {
                            s.deadline_reminders
                        };
                        let Some(turn) = self.still_owed(&m, row).await? else {
                            return Ok(None);
                        };
                        if !wanted
                            || (kind == YOUR_TURN
                                && store::notifications::is_watching(
                                    &self.db,
                                    m.id,
                                    row.player_id,
                                    self.clock.now(),
                                )
                                .await?)
                        {
                            return Ok(None);
                        }
                        let deadline = turn.deadline.map(|d| {
                            Line::Text(tr(locale, "mail-deadline", &[("deadline", when(d).into())]))
                        });
                        if kind == YOUR_TURN {
                            let mut lines = vec![Line::Text(tr(
                                locale,
                                "mail-turn-body",
                                &[("game", game.clone()), ("step", m.step.into())],
                            ))];
                            lines.extend(deadline);
                            (
                                Topic::YourTurn,
                                tr(locale, "mail-turn-subject", &[("game", game)]),
                                lines,
                            )
                        } else {
                            let Some(due) = turn.deadline else {
                                return Ok(None);
                            };
                            let hours = if kind == REMINDER_1H { 1 } else { 24 };
                            (
                                Topic::Reminders,
                                tr(
                                    locale,
                                    "mail-reminder-subject",
                                    &[("game", game.clone()), ("hours", hours.into())],
                                ),
                                vec![Line::Text(tr(
                                    locale,
                                    "mail-reminder-body",
                                    &[("game", game), ("deadline", when(due).into())],
                                ))],
                            )
                        }
                    }
                    INVITATION => {
                        if !s.invitations {
                            return Ok(None);
                        }
                        let by = self.inviter_name(&m, row.player_id).await?;
                        (
                            Topic::Invitations,
                            tr(
                                locale,
                                "mail-invitation-subject",
                                &[("game", game.clone()), ("by", by.clone().into())],
                            ),
                            vec![Line::Text(tr(
                                locale,
                                "mail-invitation-body",
                                &[("game", game), ("by", by.into())],
                            ))],
                        )
                    }
                    MATCH_STARTED if s.match_started => (
                        Topic::MatchStarted,
                        tr(locale, "mail-started-subject", &[("game", game.clone())]),
                        vec![Line::Text(tr(
                            locale,
                            "mail-started-body",
                            &[("game", game)],
                        ))],
                    ),
                    MATCH_FINISHED if s.match_finished => (
                        Topic::MatchFinished,
                        tr(locale, "mail-finished-subject", &[("game", game.clone())]),
                        vec![Line::Text(tr(
                            locale,
                            "mail-finished-body",
                            &[("game", game)],
                        ))],
                    ),
                    _ => return Ok(None),
                }
                .pipe(|(t, s, mut l)| {
                    l.push(Line::Link(
                        tr(locale, "mail-open-match", &[]),
                        match_link(m.id),
                    ));
                    (t, s, l)
                })
            }
        };
        // The header's link is the API's (a mail client posts to it, RFC
        // 8058); the body's opens the web client, which asks first.
        let token = links::unsubscribe_token(&self.link_key, row.player_id, topic);
        let unsubscribe = format!("{base}/api/v1/unsubscribe?token={token}");
        let mut all = vec![Line::Text(hello)];
        all.append(&mut lines);
        all.extend([
            Line::Blank,
            Line::Text(tr(locale, "mail-signature", &[])),
            Line::Blank,
            Line::Link(tr(locale, "mail-why", &[]), format!("{base}/#/account")),
            Line::Link(
                tr(locale, "mail-unsubscribe", &[]),
                format!("{base}/#/unsubscribe?token={token}"),
            ),
        ]);
        Ok(Some(Composed {
            subject,
            lines: all,
            unsubscribe: Some(unsubscribe),
        }))
    }

    /// The player's turn in `m` at the row's step, if it is still owed.
    async fn still_owed(
        &self,
        m: &matches::Model,
        row: &mail_outbox::Model,
    ) -> Result<Option<TurnResponse>> {
        if m.status != ACTIVE || m.step != row.step {
            return Ok(None);
        }
        let seats = store::matches::seats_of(&self.db, m.id).await?;
        Ok(self
            .reads
            .owed_turns(m, &seats, false)
            .await?
            .into_iter()
            .find(|(s, _)| s.player_id == row.player_id)
            .map(|(_, t)| t))
    }

    /// Who invited the player to `m` (the match's owner when the invitation
    /// is gone).
    async fn inviter_name(&self, m: &matches::Model, player: Uuid) -> Result<String> {
        let by = store::community::invitation(&self.db, m.id, player)
            .await?
            .map(|i| i.invited_by)
            .or(m.owner_id);
        let Some(by) = by else {
            return Ok(String::from("?"));
        };
        Ok(store::players::player_by_id(&self.db, by)
            .await?
            .map_or_else(|| String::from("?"), |p| p.name))
    }
}

/// `x.pipe(f)` is `f(x)`: keeps a long match expression readable.
trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

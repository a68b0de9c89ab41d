//! Moderation: admins, disabled accounts, cancelled matches, and the audit log
//! of every such action (see docs/community.md, "Moderation").
//!
//! Whether a player may moderate is read from the database at each admin
//! action (they are rare), so a role granted or revoked counts at once on every
//! replica without touching the credential cache. A disabled account, on the
//! other hand, goes through the credential cache's invalidation, as a password
//! change does: every replica forgets its checks and ends the account's streams.

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::service::accounts::Accounts;
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::lifecycle::{ABORTED, ACTIVE, WAITING, not_found};
use crate::service::lobby::Lobby;
use crate::service::models::{AuditEntry, AuditPage, MatchResponse, ModerationResponse};
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::service::reads::Reads;
use crate::service::tx::transaction;
use crate::service::visibility::{Policy, ROLE_ADMIN, ROLE_PLAYER};
use crate::store;

/// Admins, disabled accounts, cancelled matches and the audit log.
pub struct Moderation {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    accounts: Arc<Accounts>,
    lobby: Arc<Lobby>,
    policy: Arc<Policy>,
    reads: Arc<Reads>,
    commits: Arc<Commits>,
}

impl Moderation {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        accounts: Arc<Accounts>,
        lobby: Arc<Lobby>,
        policy: Arc<Policy>,
        reads: Arc<Reads>,
        commits: Arc<Commits>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            accounts,
            lobby,
            policy,
            reads,
            commits,
        }
    }
}

/// The actor the audit log names for the operator's command line.
pub const CLI_ACTOR: &str = "cli";

const MAX_REASON_CHARS: usize = 500;

fn not_admin() -> Error {
    Error::forbidden("not_admin", "Only an admin may do this.")
}

fn player_not_found() -> Error {
    super::accounts::player_not_found()
}

fn check_reason(reason: Option<&str>) -> Result<Option<String>, Error> {
    match reason.map(str::trim) {
        Some(r) if r.chars().count() > MAX_REASON_CHARS => Err(Error::unprocessable(
            "invalid_reason",
            "A reason has at most 500 characters.",
        )),
        Some("") | None => Ok(None),
        Some(r) => Ok(Some(r.to_owned())),
    }
}

/// Grants (or revokes) the admin role by name, for the operator's command
/// (`sealed-orders grant-admin <name>`), recorded in the audit log with the
/// actor `cli`. Answers false when no such player exists (or it is a bot).
pub async fn set_admin_by_cli(
    db: &sea_orm::DatabaseConnection,
    name: &str,
    admin: bool,
) -> Result<bool, Error> {
    let Some(p) = store::auth::credentials_by_name(db, name).await? else {
        return Ok(false);
    };
    if p.is_bot {
        return Ok(false);
    }
    let tx = store::begin_write(db).await?;
    store::moderation::set_role(&tx, p.id, if admin { ROLE_ADMIN } else { ROLE_PLAYER }).await?;
    let action = if admin { "grant_admin" } else { "revoke_admin" };
    store::moderation::audit(&tx, chrono::Utc::now(), CLI_ACTOR, action, &p.name, None).await?;
    tx.commit().await?;
    Ok(true)
}

impl Moderation {
    async fn require_admin(&self, me: &AuthenticatedPlayer) -> Result<(), Error> {
        if self.policy.is_admin(me).await? {
            Ok(())
        } else {
            Err(not_admin())
        }
    }

    /// Grants or revokes the admin role of another player (an admin may not
    /// revoke their own, so that the server always keeps one).
    pub async fn set_admin(
        &self,
        me: &AuthenticatedPlayer,
        name: &str,
        admin: bool,
        reason: Option<&str>,
    ) -> Result<ModerationResponse, Error> {
        self.require_admin(me).await?;
        let reason = check_reason(reason)?;
        let target = store::auth::credentials_by_name(&self.db, name)
            .await?
            .filter(|p| !p.is_bot)
            .ok_or_else(player_not_found)?;
        if !admin && target.id == me.id {
            return Err(Error::conflict(
                "own_admin_role",
                "An admin cannot revoke their own role; another admin (or the command line) can.",
            ));
        }
        let action = if admin { "grant_admin" } else { "revoke_admin" };
        let now = self.clock.now();
        transaction!(&self.db, |tx| {
            store::moderation::set_role(
                tx,
                target.id,
                if admin { ROLE_ADMIN } else { ROLE_PLAYER },
            )
            .await?;
            store::moderation::audit(tx, now, &me.name, action, &target.name, reason.clone())
                .await?;
            Ok::<_, Error>(())
        })?;
        tracing::info!(admin = %me.name, target = %target.name, action, "moderation");
        Ok(ModerationResponse {
            action: action.into(),
            target: target.name,
            at: now,
        })
    }

    /// Disables (or enables again) an account. A disabled account's JWTs, API
    /// tokens and logins are refused (403 `account_disabled`) from the next
    /// request on, on every replica, and its open streams end.
    pub async fn set_disabled(
        &self,
        me: &AuthenticatedPlayer,
        name: &str,
        disabled: bool,
        reason: Option<&str>,
    ) -> Result<ModerationResponse, Error> {
        self.require_admin(me).await?;
        let reason = check_reason(reason)?;
        let target = store::auth::credentials_by_name(&self.db, name)
            .await?
            .filter(|p| !p.is_bot)
            .ok_or_else(player_not_found)?;
        if disabled && target.id == me.id {
            return Err(Error::conflict(
                "own_account",
                "An admin cannot disable their own account.",
            ));
        }
        let action = if disabled { "disable" } else { "enable" };
        let now = self.clock.now();
        transaction!(&self.db, |tx| {
            store::moderation::set_disabled(
                tx,
                target.id,
                disabled.then_some(now),
                if disabled { reason.as_deref() } else { None },
            )
            .await?;
            store::moderation::audit(tx, now, &me.name, action, &target.name, reason.clone())
                .await?;
            Ok::<_, Error>(())
        })?;
        self.accounts.credentials.clear();
        self.hub.credentials_changed(target.id);
        tracing::info!(admin = %me.name, target = %target.name, action, "moderation");
        Ok(ModerationResponse {
            action: action.into(),
            target: target.name,
            at: now,
        })
    }

    /// Ends a waiting or active match as aborted (reason `moderated` in its
    /// `match_aborted` event): no results, no ratings, its deadline cleared,
    /// its streams told as for any change.
    pub async fn moderate_cancel_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        reason: Option<&str>,
    ) -> Result<MatchResponse, Error> {
        self.require_admin(me).await?;
        let reason = check_reason(reason)?;
        let now = self.clock.now();
        transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            if m.status != WAITING && m.status != ACTIVE {
                return Err(Error::conflict("match_over", "The match is already over."));
            }
            m.deadline_at = None;
            self.lobby.abort_waiting(tx, &mut m, "moderated").await?;
            store::moderation::audit(
                tx,
                now,
                &me.name,
                "cancel_match",
                &id.to_string(),
                reason.clone(),
            )
            .await?;
            Ok::<_, Error>(m)
        })
        .map(|m| {
            debug_assert_eq!(m.status, ABORTED);
            self.commits.committed(&m)
        })?;
        tracing::info!(admin = %me.name, match_id = %id, "moderation: match cancelled");
        self.reads.get_match(Some(me.id), id).await
    }

    /// The audit log, newest first.
    pub async fn audit_log(
        &self,
        me: &AuthenticatedPlayer,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<AuditPage, Error> {
        self.require_admin(me).await?;
        let limit = page_limit(limit)?;
        let before = match cursor {
            Some(c) => Some(decode_cursor(&c)?.parse::<Uuid>().map_err(|_| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let mut rows = store::moderation::list_audit(&self.db, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        Ok(AuditPage {
            next_cursor: more
                .then(|| rows.last().map(|r| encode_cursor(&r.id.to_string())))
                .flatten(),
            items: rows
                .into_iter()
                .map(|r| AuditEntry {
                    id: r.id,
                    at: r.at,
                    actor: r.actor,
                    action: r.action,
                    target: r.target,
                    reason: r.reason,
                })
                .collect(),
        })
    }
}

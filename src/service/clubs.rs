//! Clubs: named groups of players (Lichess's teams, Board Game Arena's groups)
//! with an owner, admins and members, joined openly, by request or by
//! invitation; a club's matches seat its members only and make its own
//! leaderboard per game (see docs/community.md, "Clubs").
//!
//! Every membership change of a club runs under the club row's lock, so two
//! admins answering the same request, or an owner handing the club over while
//! leaving it, take turns.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseTransaction, SqlErr};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::models::PlayerRef;
use super::{Service, encode_cursor, offset_cursor, page_limit, uuid_cursor, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::store::clubs::{INVITED, MEMBER, REQUESTED};
use crate::store::entities::{club_members, clubs};
use crate::store::{self};

pub const OPEN: &str = "open";
pub const REQUEST: &str = "request";
pub const INVITATION: &str = "invitation";

pub const OWNER: &str = "owner";
pub const ADMIN: &str = "admin";
/// A member's role (the same word as the membership status).
pub const PLAIN: &str = MEMBER;

const MAX_NAME_CHARS: usize = 48;
const MAX_DESCRIPTION_CHARS: usize = 1000;

/// A club as anyone sees it, with the caller's own standing in it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClubResponse {
    pub id: Uuid,
    #[schema(example = "Tuesday Malacca")]
    pub name: String,
    pub description: String,
    /// `open` (anyone joins at once), `request` (an admin accepts each
    /// request) or `invitation` (members come by invitation only).
    #[schema(example = "request")]
    pub join_policy: String,
    pub owner: PlayerRef,
    /// How many members it has (requests and invitations aside).
    pub members: u64,
    pub created_at: DateTime<Utc>,
    /// The caller's standing: `member`, `requested`, `invited`, or null.
    pub your_status: Option<String>,
    /// The caller's role once a member: `owner`, `admin` or `member`.
    pub your_role: Option<String>,
}

/// A page of clubs, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClubPage {
    pub items: Vec<ClubResponse>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A player's place in a club.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MemberResponse {
    pub club_id: Uuid,
    pub player: PlayerRef,
    /// `member`, `requested` or `invited`.
    pub status: String,
    /// `owner`, `admin` or `member`.
    pub role: String,
    /// Who invited the player, for an invitation.
    pub invited_by: Option<PlayerRef>,
    /// When the request, invitation or membership began.
    pub since: DateTime<Utc>,
    pub joined_at: Option<DateTime<Utc>>,
}

/// A page of a club's members (or of its requests or invitations).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MemberPage {
    pub items: Vec<MemberResponse>,
    pub next_cursor: Option<String>,
}

/// A club the caller belongs to, asked to join, or is invited to.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MyClub {
    pub club: ClubRef,
    /// `member`, `requested` or `invited`.
    pub status: String,
    pub role: String,
    pub since: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClubRef {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MyClubs {
    pub items: Vec<MyClub>,
}

/// One member's line of a club's leaderboard for a game: its finished club
/// matches of that game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClubStanding {
    pub rank: usize,
    pub player: PlayerRef,
    pub games: u64,
    /// Matches it placed first in (alone or tied).
    pub wins: u64,
    /// The sum over its matches of the share of the others it placed ahead
    /// of (a tie counts half): 1 for a win of two, ½ for a draw.
    pub points: f64,
    /// Its rating in the game (server-wide), if it has one.
    pub rating: Option<f64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClubLeaderboard {
    pub club_id: Uuid,
    pub game: String,
    pub items: Vec<ClubStanding>,
}

/// What an owner or admin may change of a club.
pub struct ClubChanges {
    pub description: Option<String>,
    pub join_policy: Option<String>,
}

fn club_not_found() -> ApiError {
    ApiError::not_found("club_not_found", "No club has that id.")
}

fn not_club_admin() -> ApiError {
    ApiError::forbidden(
        "not_club_admin",
        "Only the club's owner and admins may do this.",
    )
}

fn member_not_found() -> ApiError {
    ApiError::not_found(
        "member_not_found",
        "That player has no place in this club (no membership, request or invitation).",
    )
}

pub(super) fn not_club_member() -> ApiError {
    ApiError::forbidden(
        "not_club_member",
        "Only the club's members take part in its matches.",
    )
}

fn check_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    let n = name.chars().count();
    let fine = (3..=MAX_NAME_CHARS).contains(&n)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || " _-.'&".contains(c))
        && !name.contains("  ");
    if fine {
        Ok(name.to_owned())
    } else {
        Err(ApiError::unprocessable(
            "invalid_club_name",
            "A club's name has 3 to 48 characters: letters, digits, single spaces and _ - . ' &.",
        ))
    }
}

fn check_description(d: &str) -> Result<String, ApiError> {
    let d = d.trim();
    if d.chars().count() > MAX_DESCRIPTION_CHARS || d.chars().any(|c| c.is_control() && c != '\n') {
        return Err(ApiError::unprocessable(
            "invalid_description",
            "A description has at most 1000 characters, without control characters but line breaks.",
        ));
    }
    Ok(d.to_owned())
}

fn check_policy(p: &str) -> Result<String, ApiError> {
    if [OPEN, REQUEST, INVITATION].contains(&p) {
        Ok(p.to_owned())
    } else {
        Err(ApiError::unprocessable(
            "invalid_join_policy",
            "join_policy is \"open\", \"request\" or \"invitation\".",
        ))
    }
}

fn is_admin(m: Option<&club_members::Model>) -> bool {
    m.is_some_and(|m| m.status == MEMBER && (m.role == OWNER || m.role == ADMIN))
}

/// Points for each seat of one finished match: the share of the others it
/// placed ahead of, a tie counting half (ranks as stored: 1 is first).
fn match_points(ranks: &[i32]) -> Vec<f64> {
    let others = ranks.len().saturating_sub(1);
    ranks
        .iter()
        .map(|&r| {
            if others == 0 {
                return 0.0;
            }
            let ahead = ranks.iter().filter(|&&o| o > r).count() as f64;
            let tied = ranks.iter().filter(|&&o| o == r).count().saturating_sub(1) as f64;
            (ahead + tied / 2.0) / others as f64
        })
        .collect()
}

impl Service {
    async fn club(&self, id: Uuid) -> Result<clubs::Model, ApiError> {
        store::clubs::club_by_id(&self.db, id)
            .await?
            .ok_or_else(club_not_found)
    }

    async fn club_response(
        &self,
        c: clubs::Model,
        caller: Option<Uuid>,
    ) -> Result<ClubResponse, ApiError> {
        let mut one = self.club_responses(vec![c], caller).await?;
        one.pop()
            .ok_or_else(|| ApiError::internal("a club went missing"))
    }

    /// Clubs as answered, in the order given: their member counts, owners'
    /// names and the caller's rows read in three statements for all of them.
    async fn club_responses(
        &self,
        clubs: Vec<clubs::Model>,
        caller: Option<Uuid>,
    ) -> Result<Vec<ClubResponse>, ApiError> {
        let ids: Vec<Uuid> = clubs.iter().map(|c| c.id).collect();
        let mut mine: HashMap<Uuid, club_members::Model> = match caller {
            Some(p) => store::clubs::memberships_in(&self.db, p, ids.clone())
                .await?
                .into_iter()
                .map(|m| (m.club_id, m))
                .collect(),
            None => HashMap::new(),
        };
        let counts = store::clubs::member_counts(&self.db, ids).await?;
        let names = self
            .player_names(clubs.iter().map(|c| c.owner_id).collect())
            .await?;
        Ok(clubs
            .into_iter()
            .map(|c| {
                let mine = mine.remove(&c.id);
                ClubResponse {
                    id: c.id,
                    owner: PlayerRef {
                        id: c.owner_id,
                        name: names.get(&c.owner_id).cloned().unwrap_or_default(),
                    },
                    members: counts.get(&c.id).copied().unwrap_or(0),
                    name: c.name,
                    description: c.description,
                    join_policy: c.join_policy,
                    created_at: c.created_at,
                    your_role: mine
                        .as_ref()
                        .filter(|m| m.status == MEMBER)
                        .map(|m| m.role.clone()),
                    your_status: mine.map(|m| m.status),
                }
            })
            .collect())
    }

    pub async fn create_club(
        &self,
        me: &AuthenticatedPlayer,
        name: &str,
        description: Option<&str>,
        join_policy: Option<&str>,
    ) -> Result<ClubResponse, ApiError> {
        let name = check_name(name)?;
        let description = check_description(description.unwrap_or(""))?;
        let join_policy = check_policy(join_policy.unwrap_or(REQUEST))?;
        let now = self.clock.now();
        let club = clubs::Model {
            id: Uuid::now_v7(),
            name_key: name.to_lowercase(),
            name,
            description,
            join_policy,
            owner_id: me.id,
            created_at: now,
        };
        let taken = || ApiError::conflict("club_name_taken", "A club already has that name.");
        if store::clubs::club_by_name(&self.db, &club.name)
            .await?
            .is_some()
        {
            return Err(taken());
        }
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            // Two clubs created at once under one name: the unique key decides.
            match store::clubs::insert_club(&tx, club.clone()).await {
                Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
                    return Err(taken());
                }
                other => other?,
            }
            store::clubs::put_membership(
                &tx,
                club_members::Model {
                    club_id: club.id,
                    player_id: me.id,
                    status: MEMBER.into(),
                    role: OWNER.into(),
                    invited_by: None,
                    created_at: now,
                    joined_at: Some(now),
                },
            )
            .await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        tracing::info!(club.id = %club.id, "club created");
        self.club_response(club, Some(me.id)).await
    }

    pub async fn get_club(&self, caller: Option<Uuid>, id: Uuid) -> Result<ClubResponse, ApiError> {
        let c = self.club(id).await?;
        self.club_response(c, caller).await
    }

    pub async fn list_clubs(
        &self,
        caller: Option<Uuid>,
        prefix: Option<&str>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<ClubPage, ApiError> {
        let limit = page_limit(limit)?;
        let before = uuid_cursor(cursor)?;
        let prefix = prefix.map(str::trim).filter(|p| !p.is_empty());
        if prefix.is_some_and(|p| p.chars().count() > MAX_NAME_CHARS) {
            return Ok(ClubPage {
                items: Vec::new(),
                next_cursor: None,
            });
        }
        let mut rows = store::clubs::list_clubs(&self.db, prefix, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = more
            .then(|| rows.last().map(|c| encode_cursor(&c.id.to_string())))
            .flatten();
        let items = self.club_responses(rows, caller).await?;
        Ok(ClubPage { items, next_cursor })
    }

    /// Changes a club's description or join policy (its owner and admins).
    pub async fn update_club(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        changes: ClubChanges,
    ) -> Result<ClubResponse, ApiError> {
        let description = changes
            .description
            .as_deref()
            .map(check_description)
            .transpose()?;
        let policy = changes
            .join_policy
            .as_deref()
            .map(check_policy)
            .transpose()?;
        let club = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut c = self.locked_as_admin(&tx, id, me.id).await?;
            if let Some(d) = &description {
                c.description = d.clone();
            }
            if let Some(p) = &policy {
                c.join_policy = p.clone();
            }
            store::clubs::update_club(&tx, c.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(c)
        })?;
        self.club_response(club, Some(me.id)).await
    }

    async fn locked_club(
        &self,
        tx: &DatabaseTransaction,
        id: Uuid,
    ) -> Result<clubs::Model, ApiError> {
        store::clubs::lock_club(tx, id)
            .await?
            .ok_or_else(club_not_found)
    }

    /// The club locked, if `me` is its owner or one of its admins.
    async fn locked_as_admin(
        &self,
        tx: &DatabaseTransaction,
        id: Uuid,
        me: Uuid,
    ) -> Result<clubs::Model, ApiError> {
        let c = self.locked_club(tx, id).await?;
        if is_admin(store::clubs::membership(tx, id, me).await?.as_ref()) {
            Ok(c)
        } else {
            Err(not_club_admin())
        }
    }

    async fn member_response(&self, m: club_members::Model) -> Result<MemberResponse, ApiError> {
        let mut ids = vec![m.player_id];
        ids.extend(m.invited_by);
        let names = self.player_names(ids).await?;
        Ok(self.member_with(&names, m))
    }

    fn member_with(&self, names: &HashMap<Uuid, String>, m: club_members::Model) -> MemberResponse {
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        MemberResponse {
            club_id: m.club_id,
            player: player_ref(m.player_id),
            status: m.status,
            role: m.role,
            invited_by: m.invited_by.map(player_ref),
            since: m.created_at,
            joined_at: m.joined_at,
        }
    }

    /// Joins a club: at once if it is open or the caller is invited; as a
    /// request for an admin to accept if it takes requests.
    pub async fn join_club(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MemberResponse, ApiError> {
        let row = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let c = self.locked_club(&tx, id).await?;
            let now = self.clock.now();
            let mine = store::clubs::membership(&tx, id, me.id).await?;
            let status = match mine.as_ref().map(|m| m.status.as_str()) {
                Some(MEMBER) => {
                    return Err(ApiError::conflict(
                        "already_member",
                        "You are a member of this club already.",
                    ));
                }
                Some(REQUESTED) => {
                    return Err(ApiError::conflict(
                        "already_requested",
                        "Your request to join waits for an admin's answer.",
                    ));
                }
                Some(_) => MEMBER,
                None if c.join_policy == OPEN => MEMBER,
                None if c.join_policy == REQUEST => REQUESTED,
                None => {
                    return Err(ApiError::forbidden(
                        "invitation_required",
                        "This club takes members by invitation only.",
                    ));
                }
            };
            let row = club_members::Model {
                club_id: id,
                player_id: me.id,
                status: status.into(),
                role: PLAIN.into(),
                invited_by: mine.and_then(|m| m.invited_by),
                created_at: now,
                joined_at: (status == MEMBER).then_some(now),
            };
            store::clubs::put_membership(&tx, row.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(row)
        })?;
        self.member_response(row).await
    }

    /// Invites a player by name (the club's owner and admins). A player who
    /// asked to join becomes a member at once.
    pub async fn invite_to_club(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        name: &str,
    ) -> Result<MemberResponse, ApiError> {
        let target = self.person_named(name).await?;
        let row = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            self.locked_as_admin(&tx, id, me.id).await?;
            let now = self.clock.now();
            let theirs = store::clubs::membership(&tx, id, target).await?;
            let row = match theirs {
                Some(m) if m.status == MEMBER => {
                    return Err(ApiError::conflict(
                        "already_member",
                        "That player is a member already.",
                    ));
                }
                Some(m) if m.status == REQUESTED => club_members::Model {
                    status: MEMBER.into(),
                    joined_at: Some(now),
                    invited_by: Some(me.id),
                    ..m
                },
                _ => club_members::Model {
                    club_id: id,
                    player_id: target,
                    status: INVITED.into(),
                    role: PLAIN.into(),
                    invited_by: Some(me.id),
                    created_at: now,
                    joined_at: None,
                },
            };
            store::clubs::put_membership(&tx, row.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(row)
        })?;
        self.member_response(row).await
    }

    /// Accepts a player's request to join (the club's owner and admins).
    pub async fn accept_club_request(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        name: &str,
    ) -> Result<MemberResponse, ApiError> {
        let target = self.person_named(name).await?;
        let row = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            self.locked_as_admin(&tx, id, me.id).await?;
            let Some(m) = store::clubs::membership(&tx, id, target)
                .await?
                .filter(|m| m.status == REQUESTED)
            else {
                return Err(ApiError::not_found(
                    "request_not_found",
                    "That player has no request to join waiting.",
                ));
            };
            let row = club_members::Model {
                status: MEMBER.into(),
                joined_at: Some(self.clock.now()),
                ..m
            };
            store::clubs::put_membership(&tx, row.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(row)
        })?;
        self.member_response(row).await
    }

    /// Removes a player's place in a club: their own (leaving, withdrawing a
    /// request, declining an invitation) or, for an admin, another's (a plain
    /// member, a request, an invitation; only the owner removes an admin). The
    /// owner leaves only after handing the club over, unless nobody else is
    /// left: then the club goes.
    pub async fn remove_club_member(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        name: Option<&str>,
    ) -> Result<(), ApiError> {
        let target = match name {
            Some(n) => self.person_named(n).await?,
            None => me.id,
        };
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            self.locked_club(&tx, id).await?;
            let theirs = store::clubs::membership(&tx, id, target)
                .await?
                .ok_or_else(member_not_found)?;
            if target != me.id {
                let mine = store::clubs::membership(&tx, id, me.id).await?;
                let allowed = is_admin(mine.as_ref())
                    && theirs.role != OWNER
                    && (theirs.role != ADMIN || mine.as_ref().is_some_and(|m| m.role == OWNER));
                if !allowed {
                    return Err(not_club_admin());
                }
            } else if theirs.role == OWNER {
                if store::clubs::member_count(&tx, id).await? > 1 {
                    return Err(ApiError::conflict(
                        "owner_must_hand_over",
                        "The owner leaves after making another member the owner (PUT …/members/{name}/role).",
                    ));
                }
                store::clubs::delete_club(&tx, id).await?;
                tx.commit().await?;
                return Ok::<_, ApiError>(());
            }
            store::clubs::delete_membership(&tx, id, target).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// Sets a member's role (the owner only): `admin`, `member`, or `owner`,
    /// which hands the club over (the old owner stays as an admin).
    pub async fn set_club_role(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        name: &str,
        role: &str,
    ) -> Result<MemberResponse, ApiError> {
        if ![OWNER, ADMIN, PLAIN].contains(&role) {
            return Err(ApiError::unprocessable(
                "invalid_role",
                "role is \"owner\", \"admin\" or \"member\".",
            ));
        }
        let target = self.person_named(name).await?;
        let row = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut c = self.locked_club(&tx, id).await?;
            if c.owner_id != me.id {
                return Err(ApiError::forbidden(
                    "not_club_owner",
                    "Only the club's owner gives roles.",
                ));
            }
            let theirs = store::clubs::membership(&tx, id, target)
                .await?
                .filter(|m| m.status == MEMBER)
                .ok_or_else(member_not_found)?;
            if target == me.id {
                return Err(ApiError::conflict(
                    "own_role",
                    "The owner hands the club over by making another member the owner.",
                ));
            }
            if role == OWNER {
                let mine = store::clubs::membership(&tx, id, me.id)
                    .await?
                    .ok_or_else(member_not_found)?;
                store::clubs::put_membership(
                    &tx,
                    club_members::Model {
                        role: ADMIN.into(),
                        ..mine
                    },
                )
                .await?;
                c.owner_id = target;
                store::clubs::update_club(&tx, c).await?;
            }
            let row = club_members::Model {
                role: role.into(),
                ..theirs
            };
            store::clubs::put_membership(&tx, row.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(row)
        })?;
        self.member_response(row).await
    }

    /// A club's members (anyone may look), or its requests or invitations
    /// (its owner and admins only), oldest first.
    pub async fn club_members(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        status: Option<&str>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<MemberPage, ApiError> {
        let status = status.unwrap_or(MEMBER);
        if ![MEMBER, REQUESTED, INVITED].contains(&status) {
            return Err(ApiError::bad_request(
                "invalid_status",
                "status is member, requested or invited.",
            ));
        }
        let limit = page_limit(limit)?;
        let offset = offset_cursor(cursor)?;
        self.club(id).await?;
        if status != MEMBER {
            let mine = match caller {
                Some(p) => store::clubs::membership(&self.db, id, p).await?,
                None => None,
            };
            if !is_admin(mine.as_ref()) {
                return Err(not_club_admin());
            }
        }
        let mut rows = store::clubs::members_of(&self.db, id, status, offset, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let mut ids: Vec<Uuid> = rows.iter().map(|r| r.player_id).collect();
        ids.extend(rows.iter().filter_map(|r| r.invited_by));
        ids.sort();
        ids.dedup();
        let names = self.player_names(ids).await?;
        Ok(MemberPage {
            next_cursor: more.then(|| encode_cursor(&(offset + limit).to_string())),
            items: rows
                .into_iter()
                .map(|r| self.member_with(&names, r))
                .collect(),
        })
    }

    /// The caller's clubs, requests and invitations.
    pub async fn my_clubs(&self, me: &AuthenticatedPlayer) -> Result<MyClubs, ApiError> {
        let rows = store::clubs::clubs_of_player(&self.db, me.id).await?;
        let clubs: HashMap<Uuid, String> =
            store::clubs::clubs_by_ids(&self.db, rows.iter().map(|r| r.club_id).collect())
                .await?
                .into_iter()
                .map(|c| (c.id, c.name))
                .collect();
        Ok(MyClubs {
            items: rows
                .into_iter()
                .map(|r| MyClub {
                    club: ClubRef {
                        id: r.club_id,
                        name: clubs.get(&r.club_id).cloned().unwrap_or_default(),
                    },
                    status: r.status,
                    role: r.role,
                    since: r.created_at,
                })
                .collect(),
        })
    }

    /// A club's leaderboard for a game: its members ranked by the points of
    /// their finished club matches of the game (then wins, then fewer games,
    /// then name). Members without such a match are left out.
    pub async fn club_leaderboard(
        &self,
        id: Uuid,
        game: &str,
    ) -> Result<ClubLeaderboard, ApiError> {
        if self.game(game).is_none() {
            return Err(ApiError::not_found(
                "game_not_found",
                "No game has that id.",
            ));
        }
        self.club(id).await?;
        let results = store::clubs::club_results(&self.db, id, game).await?;
        let mut totals: HashMap<Uuid, (u64, u64, f64)> = HashMap::new();
        for one in results.chunk_by(|a, b| a.match_id == b.match_id) {
            let ranks: Vec<i32> = one.iter().map(|r| r.rank).collect();
            let best = ranks.iter().copied().min().unwrap_or(1);
            for (r, points) in one.iter().zip(match_points(&ranks)) {
                let Some(p) = r.player_id else { continue };
                let t = totals.entry(p).or_default();
                t.0 += 1;
                t.1 += u64::from(r.rank == best);
                t.2 += points;
            }
        }
        // Members only: a player who left keeps their results in the matches
        // but not a line on the board.
        let mut members = Vec::new();
        let mut offset = 0;
        loop {
            let page = store::clubs::members_of(&self.db, id, MEMBER, offset, 1000).await?;
            let n = page.len() as u64;
            members.extend(page.into_iter().map(|m| m.player_id));
            if n < 1000 {
                break;
            }
            offset += n;
        }
        let ids: Vec<Uuid> = members
            .into_iter()
            .filter(|p| totals.contains_key(p))
            .collect();
        let names = self.player_names(ids.clone()).await?;
        self.settle_finishes().await?;
        let ratings: HashMap<Uuid, f64> = store::ratings_of_players(&self.db, game, ids.clone())
            .await?
            .into_iter()
            .map(|r| (r.player_id, r.rating))
            .collect();
        let mut items: Vec<ClubStanding> = ids
            .into_iter()
            .map(|p| {
                let (games, wins, points) = totals[&p];
                ClubStanding {
                    rank: 0,
                    player: PlayerRef {
                        id: p,
                        name: names.get(&p).cloned().unwrap_or_default(),
                    },
                    games,
                    wins,
                    points,
                    rating: ratings.get(&p).copied(),
                }
            })
            .collect();
        items.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(b.wins.cmp(&a.wins))
                .then(a.games.cmp(&b.games))
                .then(a.player.name.cmp(&b.player.name))
        });
        for (i, s) in items.iter_mut().enumerate() {
            s.rank = i + 1;
        }
        Ok(ClubLeaderboard {
            club_id: id,
            game: game.to_owned(),
            items,
        })
    }

    /// A person's id by name (bots cannot belong to clubs).
    async fn person_named(&self, name: &str) -> Result<Uuid, ApiError> {
        if name.is_empty() || name.len() > 64 {
            return Err(super::players::player_not_found());
        }
        store::credentials_by_name(&self.db, name)
            .await?
            .filter(|p| !p.is_bot && p.deleted_at.is_none())
            .map(|p| p.id)
            .ok_or_else(super::players::player_not_found)
    }

    /// Whether a player may take a seat in a match of `club`.
    pub(super) async fn require_club_member(
        &self,
        tx: &DatabaseTransaction,
        club: Option<Uuid>,
        player: Uuid,
    ) -> Result<(), ApiError> {
        match club {
            Some(c) if !store::clubs::is_club_member(tx, c, player).await? => {
                Err(not_club_member())
            }
            _ => Ok(()),
        }
    }

    /// Takes a deleted account out of its clubs: its rows go, and a club it
    /// owned passes to its longest-standing admin, else member, or goes if
    /// nobody is left.
    pub(super) async fn leave_clubs_for_deletion(
        &self,
        tx: &DatabaseTransaction,
        player: Uuid,
    ) -> Result<(), ApiError> {
        for row in store::clubs::clubs_of_player(tx, player).await? {
            if row.role != OWNER || row.status != MEMBER {
                continue;
            }
            let Some(mut c) = store::clubs::lock_club(tx, row.club_id).await? else {
                continue;
            };
            let members = store::clubs::members_of(tx, c.id, MEMBER, 0, 1000).await?;
            let heir = members
                .iter()
                .filter(|m| m.player_id != player)
                .min_by_key(|m| (m.role != ADMIN, m.joined_at, m.player_id));
            match heir {
                Some(h) => {
                    c.owner_id = h.player_id;
                    store::clubs::update_club(tx, c).await?;
                    store::clubs::put_membership(
                        tx,
                        club_members::Model {
                            role: OWNER.into(),
                            ..h.clone()
                        },
                    )
                    .await?;
                }
                None => store::clubs::delete_club(tx, c.id).await?,
            }
        }
        store::clubs::delete_memberships_of(tx, player).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_share_the_others_beaten_and_halve_ties() {
        assert_eq!(match_points(&[1, 2]), vec![1.0, 0.0]);
        assert_eq!(match_points(&[1, 1]), vec![0.5, 0.5]);
        assert_eq!(
            match_points(&[2, 1, 3, 4]),
            vec![2.0 / 3.0, 1.0, 1.0 / 3.0, 0.0]
        );
        assert_eq!(match_points(&[1, 1, 3]), vec![0.75, 0.75, 0.0]);
        assert_eq!(match_points(&[1]), vec![0.0]);
    }

    #[test]
    fn names_and_policies_are_checked() {
        assert!(check_name("Tuesday Malacca").is_ok());
        assert!(check_name("ab").is_err());
        assert!(check_name("two  spaces").is_err());
        assert!(check_name("tab\there").is_err());
        assert_eq!(check_name("  Trim me  ").ok().as_deref(), Some("Trim me"));
        assert!(check_policy("open").is_ok());
        assert!(check_policy("closed").is_err());
        assert!(check_description(&"x".repeat(1001)).is_err());
    }
}

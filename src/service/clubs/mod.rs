//! Clubs: named groups of players (Lichess's teams, Board Game Arena's groups)
//! with an owner, admins and members, joined openly, by request or by
//! invitation; a club's matches seat its members only and make its own
//! leaderboard per game (see docs/community.md, "Clubs").
//!
//! Every membership change of a club runs under the club row's lock, so two
//! admins answering the same request, or an owner handing the club over while
//! leaving it, take turns.

mod members;
use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DatabaseTransaction, SqlErr};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::service::caps::{Adding, Caps};
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::folds::Folds;
use crate::service::games::Games;
use crate::service::models::PlayerRef;
use crate::service::pages::{encode_cursor, page_limit, uuid_cursor};
use crate::service::tx::transaction;
use crate::store;
use crate::store::clubs::MEMBER;
use crate::store::entities::{club_members, clubs};

/// Clubs, their members and leaderboards.
pub struct Clubs {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    games: Arc<Games>,
    folds: Arc<Folds>,
    caps: Arc<Caps>,
}

impl Clubs {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        games: Arc<Games>,
        folds: Arc<Folds>,
        caps: Arc<Caps>,
    ) -> Self {
        Self {
            db,
            clock,
            games,
            folds,
            caps,
        }
    }
}

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

fn club_not_found() -> Error {
    Error::not_found("club_not_found", "No club has that id.")
}

fn not_club_admin() -> Error {
    Error::forbidden(
        "not_club_admin",
        "Only the club's owner and admins may do this.",
    )
}

fn member_not_found() -> Error {
    Error::not_found(
        "member_not_found",
        "That player has no place in this club (no membership, request or invitation).",
    )
}

pub(super) fn not_club_member() -> Error {
    Error::forbidden(
        "not_club_member",
        "Only the club's members take part in its matches.",
    )
}

fn check_name(name: &str) -> Result<String, Error> {
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
        Err(Error::unprocessable(
            "invalid_club_name",
            "A club's name has 3 to 48 characters: letters, digits, single spaces and _ - . ' &.",
        ))
    }
}

fn check_description(d: &str) -> Result<String, Error> {
    let d = d.trim();
    if d.chars().count() > MAX_DESCRIPTION_CHARS || d.chars().any(|c| c.is_control() && c != '\n') {
        return Err(Error::unprocessable(
            "invalid_description",
            "A description has at most 1000 characters, without control characters but line breaks.",
        ));
    }
    Ok(d.to_owned())
}

fn check_policy(p: &str) -> Result<String, Error> {
    if [OPEN, REQUEST, INVITATION].contains(&p) {
        Ok(p.to_owned())
    } else {
        Err(Error::unprocessable(
            "invalid_join_policy",
            "join_policy is \"open\", \"request\" or \"invitation\".",
        ))
    }
}

pub(crate) fn is_admin(m: Option<&club_members::Model>) -> bool {
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

impl Clubs {
    async fn club(&self, id: Uuid) -> Result<clubs::Model, Error> {
        store::clubs::club_by_id(&self.db, id)
            .await?
            .ok_or_else(club_not_found)
    }

    async fn club_response(
        &self,
        c: clubs::Model,
        caller: Option<Uuid>,
    ) -> Result<ClubResponse, Error> {
        let mut one = self.club_responses(vec![c], caller).await?;
        one.pop()
            .ok_or_else(|| Error::internal("a club went missing"))
    }

    /// Clubs as answered, in the order given: their member counts, owners'
    /// names and the caller's rows read in three statements for all of them.
    async fn club_responses(
        &self,
        clubs: Vec<clubs::Model>,
        caller: Option<Uuid>,
    ) -> Result<Vec<ClubResponse>, Error> {
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
        let names =
            store::players::names_by_id(&self.db, clubs.iter().map(|c| c.owner_id).collect())
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
    ) -> Result<ClubResponse, Error> {
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
        let taken = || Error::conflict("club_name_taken", "A club already has that name.");
        if store::clubs::club_by_name(&self.db, &club.name)
            .await?
            .is_some()
        {
            return Err(taken());
        }
        transaction!(&self.db, |tx| {
            let adding = Adding {
                clubs: 1,
                ..Adding::default()
            };
            self.caps.check_locked(tx, me, adding).await?;
            // Two clubs created at once under one name: the unique key decides.
            match store::clubs::insert_club(tx, club.clone()).await {
                Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
                    return Err(taken());
                }
                other => other?,
            }
            store::clubs::put_membership(
                tx,
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
            Ok::<_, Error>(())
        })?;
        tracing::info!(club.id = %club.id, "club created");
        self.club_response(club, Some(me.id)).await
    }

    pub async fn get_club(&self, caller: Option<Uuid>, id: Uuid) -> Result<ClubResponse, Error> {
        let c = self.club(id).await?;
        self.club_response(c, caller).await
    }

    pub async fn list_clubs(
        &self,
        caller: Option<Uuid>,
        prefix: Option<&str>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<ClubPage, Error> {
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
    ) -> Result<ClubResponse, Error> {
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
        let club = transaction!(&self.db, |tx| {
            let mut c = self.locked_as_admin(tx, id, me.id).await?;
            if let Some(d) = &description {
                c.description = d.clone();
            }
            if let Some(p) = &policy {
                c.join_policy = p.clone();
            }
            store::clubs::update_club(tx, c.clone()).await?;
            Ok::<_, Error>(c)
        })?;
        self.club_response(club, Some(me.id)).await
    }

    async fn locked_club(&self, tx: &DatabaseTransaction, id: Uuid) -> Result<clubs::Model, Error> {
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
    ) -> Result<clubs::Model, Error> {
        let c = self.locked_club(tx, id).await?;
        if is_admin(store::clubs::membership(tx, id, me).await?.as_ref()) {
            Ok(c)
        } else {
            Err(not_club_admin())
        }
    }

    /// A club's leaderboard for a game: its members ranked by the points of
    /// their finished club matches of the game (then wins, then fewer games,
    /// then name). Members without such a match are left out.
    pub async fn club_leaderboard(&self, id: Uuid, game: &str) -> Result<ClubLeaderboard, Error> {
        if self.games.get(game).is_none() {
            return Err(Error::not_found("game_not_found", "No game has that id."));
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
        let names = store::players::names_by_id(&self.db, ids.clone()).await?;
        self.folds.settle_finishes().await?;
        let ratings: HashMap<Uuid, f64> =
            store::ratings::ratings_of_players(&self.db, game, ids.clone())
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

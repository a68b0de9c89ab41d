//! A club's members: joining (openly, by request or by invitation), answering
//! requests, leaving or being removed, roles (the owner hands the club over),
//! and a player's clubs.

use std::collections::HashMap;

use sea_orm::DatabaseTransaction;
use uuid::Uuid;

use super::{
    ADMIN, ClubRef, Clubs, MemberPage, MemberResponse, MyClub, MyClubs, OPEN, OWNER, PLAIN,
    REQUEST, is_admin, member_not_found, not_club_admin, not_club_member,
};
use crate::auth::AuthenticatedPlayer;
use crate::service::caps::Adding;
use crate::service::error::{Error, Result};
use crate::service::models::PlayerRef;
use crate::service::pages::{encode_cursor, offset_cursor, page_limit};
use crate::service::tx::transaction;
use crate::store;
use crate::store::clubs::{INVITED, MEMBER, REQUESTED};
use crate::store::entities::club_members;

impl Clubs {
    pub(super) async fn member_response(
        &self,
        m: club_members::Model,
    ) -> Result<MemberResponse, Error> {
        let mut ids = vec![m.player_id];
        ids.extend(m.invited_by);
        let names = store::players::names_by_id(&self.db, ids).await?;
        Ok(self.member_with(&names, m))
    }

    pub(super) fn member_with(
        &self,
        names: &HashMap<Uuid, String>,
        m: club_members::Model,
    ) -> MemberResponse {
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
    ) -> Result<MemberResponse, Error> {
        let row = transaction!(&self.db, |tx| {
            let c = self.locked_club(tx, id).await?;
            let now = self.clock.now();
            let mine = store::clubs::membership(tx, id, me.id).await?;
            let status = match mine.as_ref().map(|m| m.status.as_str()) {
                Some(MEMBER) => {
                    return Err(Error::conflict(
                        "already_member",
                        "You are a member of this club already.",
                    ));
                }
                Some(REQUESTED) => {
                    return Err(Error::conflict(
                        "already_requested",
                        "Your request to join waits for an admin's answer.",
                    ));
                }
                Some(_) => MEMBER,
                None if c.join_policy == OPEN => MEMBER,
                None if c.join_policy == REQUEST => REQUESTED,
                None => {
                    return Err(Error::forbidden(
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
            store::clubs::put_membership(tx, row.clone()).await?;
            Ok::<_, Error>(row)
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
    ) -> Result<MemberResponse, Error> {
        let target = self.person_named(name).await?;
        let row = transaction!(&self.db, |tx| {
            self.locked_as_admin(tx, id, me.id).await?;
            let now = self.clock.now();
            let theirs = store::clubs::membership(tx, id, target).await?;
            let row = match theirs {
                Some(m) if m.status == MEMBER => {
                    return Err(Error::conflict(
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
                other => {
                    // Inviting again whom the sender invited already renews
                    // the invitation: it adds none.
                    let renewed =
                        other.is_some_and(|m| m.status == INVITED && m.invited_by == Some(me.id));
                    let adding = Adding {
                        invitations: u32::from(!renewed),
                        ..Adding::default()
                    };
                    self.caps.check_locked(tx, me, adding).await?;
                    club_members::Model {
                        club_id: id,
                        player_id: target,
                        status: INVITED.into(),
                        role: PLAIN.into(),
                        invited_by: Some(me.id),
                        created_at: now,
                        joined_at: None,
                    }
                }
            };
            store::clubs::put_membership(tx, row.clone()).await?;
            Ok::<_, Error>(row)
        })?;
        self.member_response(row).await
    }

    /// Accepts a player's request to join (the club's owner and admins).
    pub async fn accept_club_request(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        name: &str,
    ) -> Result<MemberResponse, Error> {
        let target = self.person_named(name).await?;
        let row = transaction!(&self.db, |tx| {
            self.locked_as_admin(tx, id, me.id).await?;
            let Some(m) = store::clubs::membership(tx, id, target)
                .await?
                .filter(|m| m.status == REQUESTED)
            else {
                return Err(Error::not_found(
                    "request_not_found",
                    "That player has no request to join waiting.",
                ));
            };
            let row = club_members::Model {
                status: MEMBER.into(),
                joined_at: Some(self.clock.now()),
                ..m
            };
            store::clubs::put_membership(tx, row.clone()).await?;
            Ok::<_, Error>(row)
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
    ) -> Result<(), Error> {
        let target = match name {
            Some(n) => self.person_named(n).await?,
            None => me.id,
        };
        transaction!(&self.db, |tx| {
            self.locked_club(tx, id).await?;
            let theirs = store::clubs::membership(tx, id, target)
                .await?
                .ok_or_else(member_not_found)?;
            if target != me.id {
                let mine = store::clubs::membership(tx, id, me.id).await?;
                let allowed = is_admin(mine.as_ref())
                    && theirs.role != OWNER
                    && (theirs.role != ADMIN || mine.as_ref().is_some_and(|m| m.role == OWNER));
                if !allowed {
                    return Err(not_club_admin());
                }
            } else if theirs.role == OWNER {
                if store::clubs::member_count(tx, id).await? > 1 {
                    return Err(Error::conflict(
                        "owner_must_hand_over",
                        "The owner leaves after making another member the owner (PUT …/members/{name}/role).",
                    ));
                }
                store::clubs::delete_club(tx, id).await?;
                return Ok::<_, Error>(());
            }
            store::clubs::delete_membership(tx, id, target).await?;
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
    ) -> Result<MemberResponse, Error> {
        if ![OWNER, ADMIN, PLAIN].contains(&role) {
            return Err(Error::unprocessable(
                "invalid_role",
                "role is \"owner\", \"admin\" or \"member\".",
            ));
        }
        let target = self.person_named(name).await?;
        let row = transaction!(&self.db, |tx| {
            let mut c = self.locked_club(tx, id).await?;
            if c.owner_id != me.id {
                return Err(Error::forbidden(
                    "not_club_owner",
                    "Only the club's owner gives roles.",
                ));
            }
            let theirs = store::clubs::membership(tx, id, target)
                .await?
                .filter(|m| m.status == MEMBER)
                .ok_or_else(member_not_found)?;
            if target == me.id {
                return Err(Error::conflict(
                    "own_role",
                    "The owner hands the club over by making another member the owner.",
                ));
            }
            if role == OWNER {
                let mine = store::clubs::membership(tx, id, me.id)
                    .await?
                    .ok_or_else(member_not_found)?;
                store::clubs::put_membership(
                    tx,
                    club_members::Model {
                        role: ADMIN.into(),
                        ..mine
                    },
                )
                .await?;
                c.owner_id = target;
                store::clubs::update_club(tx, c).await?;
            }
            let row = club_members::Model {
                role: role.into(),
                ..theirs
            };
            store::clubs::put_membership(tx, row.clone()).await?;
            Ok::<_, Error>(row)
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
    ) -> Result<MemberPage, Error> {
        let status = status.unwrap_or(MEMBER);
        if ![MEMBER, REQUESTED, INVITED].contains(&status) {
            return Err(Error::bad_request(
                "invalid_status",
                "status is member, requested or invited.",
            )
            .arg("statuses", "member, requested, invited"));
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
        let names = store::players::names_by_id(&self.db, ids).await?;
        Ok(MemberPage {
            next_cursor: more.then(|| encode_cursor(&(offset + limit).to_string())),
            items: rows
                .into_iter()
                .map(|r| self.member_with(&names, r))
                .collect(),
        })
    }

    /// The caller's clubs, requests and invitations.
    pub async fn my_clubs(&self, me: &AuthenticatedPlayer) -> Result<MyClubs, Error> {
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

    /// A person's id by name (bots cannot belong to clubs).
    pub(super) async fn person_named(&self, name: &str) -> Result<Uuid, Error> {
        if name.is_empty() || name.len() > 64 {
            return Err(crate::service::accounts::player_not_found());
        }
        store::auth::credentials_by_name(&self.db, name)
            .await?
            .filter(|p| !p.is_bot && p.deleted_at.is_none())
            .map(|p| p.id)
            .ok_or_else(crate::service::accounts::player_not_found)
    }

    /// Whether a player may take a seat in a match of `club`.
    pub(in crate::service) async fn require_club_member(
        &self,
        tx: &DatabaseTransaction,
        club: Option<Uuid>,
        player: Uuid,
    ) -> Result<(), Error> {
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
    pub(in crate::service) async fn leave_clubs_for_deletion(
        &self,
        tx: &DatabaseTransaction,
        player: Uuid,
    ) -> Result<(), Error> {
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

//! Replay bundles: everything needed to re-derive a match from its seed, and the
//! check that a bundle is what the server published.

use std::collections::BTreeMap;
use std::sync::Arc;

use sea_orm::DatabaseConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::data;
use crate::games::rng::{GameRng, sha256_hex};
use crate::games::{DynGame, Outcome};
use crate::service::chat::Chat;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{FINISHED, forfeited_seats, not_found, seed_of};
use crate::service::models::PositionResponse;
use crate::service::outcome::final_outcome;
use crate::service::positions::Positions;
use crate::service::records::Records;
use crate::service::visibility::{Access, MoveShown, Policy};
use crate::store;

/// Replay bundles: exported, and checked.
pub struct Replays {
    db: DatabaseConnection,
    games: Arc<Games>,
    records: Arc<Records>,
    policy: Arc<Policy>,
    chat: Arc<Chat>,
    positions: Arc<Positions>,
}

impl Replays {
    pub fn new(
        db: DatabaseConnection,
        games: Arc<Games>,
        records: Arc<Records>,
        policy: Arc<Policy>,
        chat: Arc<Chat>,
        positions: Arc<Positions>,
    ) -> Self {
        Self {
            db,
            games,
            records,
            policy,
            chat,
            positions,
        }
    }
}

/// A line of the bulk export: a bundle, with every position when asked for.
#[derive(Serialize)]
struct ExportLine<'a> {
    #[serde(flatten)]
    bundle: &'a ReplayBundle,
    #[serde(skip_serializing_if = "Option::is_none")]
    positions: Option<Vec<PositionResponse>>,
}

/// One move of a bundle.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BundleMove {
    pub step: i64,
    pub seat: usize,
    /// The move; while the match runs, only its public part if still sealed.
    #[schema(value_type = Object)]
    pub action: Value,
    pub sealed: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// The move's commitment (docs/fairness.md); absent for moves stored
    /// before receipts existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The nonce behind the commitment, once the move is revealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// The seat replaced this sealed move before its step's reveal: its
    /// commitment is checked, but the replay skips it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
}

/// One seat's player.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BundlePlayer {
    pub seat: usize,
    pub id: Uuid,
    pub name: String,
    /// The bot kind, when a bot played the seat.
    #[serde(default)]
    pub bot: Option<String>,
    /// Whether the seat forfeited (resigned, or ran out of time under the
    /// `forfeit` policy): it then ranks last, and the match may end early.
    #[serde(default)]
    pub forfeited: bool,
}

/// A message of the match's chat, as kept with the match. A deleted one keeps
/// its place without its text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BundleChatMessage {
    pub id: i64,
    pub author_id: Uuid,
    pub author: String,
    /// Null once deleted.
    pub text: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_by: Option<Uuid>,
}

/// A resolved round, as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BundleRound {
    pub round: u32,
    /// What the round was about (`city:brno`); absent in bundles of rounds
    /// recorded before the server kept it, and then not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub value: Option<i64>,
    pub outcome: String,
    pub total_a: Option<i64>,
    pub total_b: Option<i64>,
    pub seats: Vec<BundleSeat>,
}

/// One seat's part in a resolved round, as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BundleSeat {
    pub seat: usize,
    pub card: Option<String>,
    pub kind: Option<String>,
    pub stake: Option<i64>,
    pub choice: Option<String>,
    pub delta: i64,
}

/// One seat's final place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BundlePlacing {
    pub seat: usize,
    pub score: i64,
    pub rank: u32,
}

/// A self-contained replay bundle.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReplayBundle {
    pub match_id: Uuid,
    pub game: String,
    pub status: String,
    pub engine_version: String,
    /// The component data files the match was created with: `{file name: contents}`.
    pub data: BTreeMap<String, String>,
    pub data_sha256: String,
    /// The options; with the position, once the match is over.
    #[schema(value_type = Object)]
    pub options: Value,
    pub seats: usize,
    pub players: Vec<BundlePlayer>,
    pub seed_sha256: String,
    /// The seed in hex, once the match is over.
    pub seed: Option<String>,
    pub moves: Vec<BundleMove>,
    pub rounds: Vec<BundleRound>,
    pub result: Option<Vec<BundlePlacing>>,
    /// The match's chat, oldest first (left out when it has none). Not part of
    /// what a verification checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<BundleChatMessage>,
}

/// What a verification found.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VerifyReport {
    /// True only when every check passed.
    pub valid: bool,
    pub seed_matches_hash: bool,
    pub data_matches_hash: bool,
    /// Every move was legal when replayed, in order.
    pub moves_replay: bool,
    pub rounds_match: bool,
    pub result_matches: bool,
    /// Every move that carries a commitment carries its nonce, and the two
    /// hash to it with the move as replayed (moves stored before receipts
    /// carry neither and are not counted against it).
    pub commitments_match: bool,
    /// What failed, in words.
    pub problems: Vec<String>,
}

/// The most moves a bundle may hold.
pub const MAX_BUNDLE_MOVES: usize = 10_000;

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

pub(crate) fn placings(o: &Outcome) -> Vec<BundlePlacing> {
    o.placings
        .iter()
        .map(|p| BundlePlacing {
            seat: p.seat,
            score: p.score,
            rank: p.rank,
        })
        .collect()
}

/// Replays a bundle with the engines; never trusts anything it carries (but the
/// seats' forfeits, which leave no move of their own: the result is checked
/// given them).
pub fn verify(games: &[Box<dyn DynGame>], b: &ReplayBundle) -> VerifyReport {
    let mut problems = Vec::new();
    let mut r = VerifyReport {
        valid: false,
        seed_matches_hash: false,
        data_matches_hash: false,
        moves_replay: false,
        rounds_match: false,
        result_matches: false,
        commitments_match: false,
        problems: Vec::new(),
    };
    let Some(game) = games.iter().find(|g| g.info().id == b.game) else {
        r.problems.push(format!("unknown game {:?}", b.game));
        return r;
    };
    let seed: Option<[u8; 32]> = b
        .seed
        .as_deref()
        .and_then(hex_decode)
        .and_then(|v| v.try_into().ok());
    match &seed {
        Some(s) if sha256_hex(s) == b.seed_sha256 => r.seed_matches_hash = true,
        Some(_) => problems.push("the seed does not hash to seed_sha256".to_owned()),
        None => problems.push("the bundle has no seed (the match is not over)".to_owned()),
    }
    let data = match data::build(game.as_ref(), b.data.clone()) {
        Ok(d) => {
            r.data_matches_hash = d.sha256 == b.data_sha256;
            if !r.data_matches_hash {
                problems.push("the component data does not hash to data_sha256".to_owned());
            }
            Some(d)
        }
        Err(e) => {
            problems.push(format!("the component data does not load: {e}"));
            None
        }
    };
    if b.moves.len() > MAX_BUNDLE_MOVES {
        problems.push(format!("more than {MAX_BUNDLE_MOVES} moves"));
    }
    if let (Some(seed), Some(data)) = (seed, data)
        && b.moves.len() <= MAX_BUNDLE_MOVES
    {
        let mut options = b.options.as_object().cloned().unwrap_or_default();
        let position = options.remove("position").filter(|p| !p.is_null());
        for key in super::options::SERVICE_OPTION_KEYS {
            options.remove(key);
        }
        let options = Value::Object(options);
        let start = match &position {
            Some(p) => game.from_position(&data.parsed, b.seats, &options, p),
            None => game.setup(
                &data.parsed,
                b.seats,
                &options,
                &mut GameRng::for_setup(&seed),
            ),
        };
        match start {
            Err(e) => problems.push(format!("the match does not set up: {e:?}")),
            Ok(mut state) => {
                let mut step = 0i64;
                let mut rounds = Vec::new();
                let mut ok = true;
                for (i, mv) in b.moves.iter().enumerate().filter(|(_, mv)| !mv.replaced) {
                    if mv.step != step {
                        problems.push(format!(
                            "move {i} is for step {}, the replay is at {step}",
                            mv.step
                        ));
                        ok = false;
                        break;
                    }
                    match game.apply(
                        &state,
                        mv.seat,
                        &mv.action,
                        &mut GameRng::for_step(&seed, step as u64),
                    ) {
                        Ok(applied) => {
                            let t = applied.transition;
                            if t.completes_step {
                                step += 1;
                            }
                            rounds.extend(t.rounds.iter().map(|r| {
                                BundleRound {
                                    round: r.round,
                                    subject: r.subject.clone(),
                                    value: r.value,
                                    outcome: r.outcome.clone(),
                                    total_a: r.total_a,
                                    total_b: r.total_b,
                                    seats: r
                                        .seats
                                        .iter()
                                        .map(|s| BundleSeat {
                                            seat: s.seat,
                                            card: s.card.clone(),
                                            kind: s.kind.clone(),
                                            stake: s.stake,
                                            choice: s.choice.clone(),
                                            delta: s.delta,
                                        })
                                        .collect(),
                                }
                            }));
                            state = t.state;
                        }
                        Err(e) => {
                            problems.push(format!("move {i} does not replay: {e:?}"));
                            ok = false;
                            break;
                        }
                    }
                }
                r.moves_replay = ok;
                // Rounds recorded before subjects were kept carry none.
                for (mine, theirs) in rounds.iter_mut().zip(&b.rounds) {
                    if theirs.subject.is_none() {
                        mine.subject = None;
                    }
                }
                r.rounds_match = ok && rounds == b.rounds;
                if ok && !r.rounds_match {
                    problems.push("the replayed rounds differ from the bundle's".to_owned());
                }
                let forfeited: Vec<usize> = b
                    .players
                    .iter()
                    .filter(|p| p.forfeited)
                    .map(|p| p.seat)
                    .collect();
                let replayed = match final_outcome(game.as_ref(), &state, b.seats, &forfeited) {
                    Ok(Some(o)) => Some(placings(&o)),
                    _ => None,
                };
                r.result_matches = ok && replayed == b.result;
                if ok && !r.result_matches {
                    problems.push("the replayed result differs from the bundle's".to_owned());
                }
            }
        }
    }
    let broken: Vec<usize> = b
        .moves
        .iter()
        .enumerate()
        .filter(|(_, mv)| match (&mv.commitment, &mv.nonce) {
            (None, None) => false,
            (Some(c), Some(n)) => {
                super::commitment::commitment(b.match_id, mv.step, mv.seat, &mv.action, n) != *c
            }
            _ => true,
        })
        .map(|(i, _)| i)
        .collect();
    r.commitments_match = broken.is_empty();
    if let Some(first) = broken.first() {
        problems.push(format!(
            "{} move(s) do not match their commitment, the first is move {first}",
            broken.len()
        ));
    }
    r.valid = r.seed_matches_hash
        && r.data_matches_hash
        && r.moves_replay
        && r.rounds_match
        && r.result_matches
        && r.commitments_match;
    r.problems = problems;
    r
}

impl Replays {
    /// A match's replay bundle: complete once it is over; before that only public
    /// parts, no seed and no position.
    pub async fn export_match(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<ReplayBundle, Error> {
        let (m, seats, access) = self.policy.access_by_id(caller, id).await?;
        self.bundle_of(m, seats, access).await
    }

    /// The bundle of a match, as a viewer with `access` may have it.
    async fn bundle_of(
        &self,
        m: crate::store::entities::matches::Model,
        seats: Vec<crate::store::entities::match_seats::Model>,
        access: Access,
    ) -> Result<ReplayBundle, Error> {
        let id = m.id;
        let over = access.shows_secrets_of_setup();
        let names = self.records.names(&self.db, &seats, None).await?;
        let files = self
            .games
            .data
            .files_by_sha(&self.db, &m.data_sha256)
            .await
            .map_err(Error::internal)?;
        let mut options: Value = serde_json::from_str(&m.options).map_err(Error::internal)?;
        if let (Some(o), Some(p)) = (options.as_object_mut(), m.position.as_deref()) {
            let shown = if over {
                serde_json::from_str(p).map_err(Error::internal)?
            } else {
                serde_json::json!({"redacted": true})
            };
            o.insert("position".into(), shown);
        }
        let mut moves = Vec::new();
        let mut after = None;
        loop {
            let page = store::moves::moves_of(&self.db, id, after, 1000).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            for mv in &page {
                let visible = access.move_shown(mv) == MoveShown::Whole;
                let text = if visible {
                    &mv.action
                } else {
                    mv.public_action.as_deref().unwrap_or("{}")
                };
                moves.push(BundleMove {
                    step: mv.step,
                    seat: mv.seat as usize,
                    action: serde_json::from_str(text).map_err(Error::internal)?,
                    sealed: !visible,
                    created_at: mv.created_at,
                    commitment: mv.commitment.clone(),
                    nonce: mv.nonce.clone().filter(|_| visible),
                    replaced: mv.replaced,
                });
            }
        }
        let rounds = store::moves::rounds_of(&self.db, id)
            .await?
            .into_iter()
            .map(|r| BundleRound {
                round: r.round.round as u32,
                subject: r.round.subject,
                value: r.round.value,
                outcome: r.round.outcome,
                total_a: r.round.total_a,
                total_b: r.round.total_b,
                seats: r
                    .seats
                    .into_iter()
                    .map(|s| BundleSeat {
                        seat: s.seat as usize,
                        card: s.card,
                        kind: s.kind,
                        stake: s.stake,
                        choice: s.choice,
                        delta: s.delta,
                    })
                    .collect(),
            })
            .collect();
        let mut chat = Vec::new();
        let mut after = 0;
        loop {
            let page = store::chat::chat_messages(&self.db, id, after, &[], 1000).await?;
            let Some(last) = page.last() else { break };
            after = last.seq;
            for r in self.chat.chat_responses(&page).await? {
                chat.push(BundleChatMessage {
                    id: r.id,
                    author_id: r.author.id,
                    author: r.author.name,
                    text: r.text,
                    created_at: r.created_at,
                    deleted_at: r.deleted_at,
                    deleted_by: r.deleted_by.map(|p| p.id),
                });
            }
        }
        let result = match (m.status == FINISHED, self.records.state_of(&m).await?) {
            (true, Some(state)) => {
                let game = self.games.of(&m.game)?;
                let forfeited = forfeited_seats(&seats);
                final_outcome(game, &state, m.seat_count as usize, &forfeited)?
                    .map(|o| placings(&o))
            }
            _ => None,
        };
        Ok(ReplayBundle {
            match_id: m.id,
            game: m.game.clone(),
            status: m.status.clone(),
            engine_version: m.engine_version.clone(),
            data: files,
            data_sha256: m.data_sha256.clone(),
            options,
            seats: m.seat_count as usize,
            players: seats
                .iter()
                .map(|s| BundlePlayer {
                    seat: s.seat as usize,
                    id: s.player_id,
                    name: names.get(&s.player_id).cloned().unwrap_or_default(),
                    bot: s.bot.clone(),
                    forfeited: s.presence == super::timing::FORFEITED,
                })
                .collect(),
            seed_sha256: m.seed_sha256.clone(),
            seed: if over {
                Some(seed_of(&m)?.iter().map(|b| format!("{b:02x}")).collect())
            } else {
                None
            },
            moves,
            rounds,
            result,
            chat,
        })
    }

    /// The finished matches of one response of the bulk export, in order, and
    /// the cursor of the next: each is then written by [`Self::export_line`],
    /// one at a time, so a response is streamed rather than held.
    pub async fn export_batch(
        &self,
        game: Option<String>,
        since: Option<chrono::DateTime<chrono::Utc>>,
        until: Option<chrono::DateTime<chrono::Utc>>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<(Vec<Uuid>, Option<String>), Error> {
        let limit = match limit {
            None => 100,
            Some(l) if (1..=1000).contains(&l) => l,
            Some(_) => {
                return Err(Error::bad_request(
                    "invalid_limit",
                    "limit must be between 1 and 1000.",
                )
                .arg("max", 1000));
            }
        };
        let after =
            match cursor {
                Some(c) => Some(super::pages::decode_cursor(&c)?.parse::<Uuid>().map_err(
                    |_| {
                        Error::bad_request(
                            "invalid_cursor",
                            "The cursor is not one this server issued.",
                        )
                    },
                )?),
                None => None,
            };
        let mut ids = store::matches::finished_matches(
            &self.db,
            game.as_deref(),
            since,
            until,
            after,
            limit + 1,
        )
        .await?;
        let more = ids.len() as u64 > limit;
        ids.truncate(limit as usize);
        let next = if more {
            ids.last()
                .map(|id| super::pages::encode_cursor(&id.to_string()))
        } else {
            None
        };
        Ok((ids, next))
    }

    /// One line of the bulk export (with its newline): the match's bundle, and
    /// with `positions` every position as `GET /matches/{id}/positions/{step}`
    /// answers anybody.
    pub async fn export_line(&self, id: Uuid, positions: bool) -> Result<String, Error> {
        let m = store::matches::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let seats = store::matches::seats_of(&self.db, id).await?;
        // The bulk export is what anybody may read of each match.
        let access = self.policy.anonymous(&m)?;
        let positions = if positions {
            Some(self.positions.all_positions(&m, access).await?)
        } else {
            None
        };
        let bundle = self.bundle_of(m, seats, access).await?;
        let line = ExportLine {
            bundle: &bundle,
            positions,
        };
        let mut out = serde_json::to_string(&line).map_err(Error::internal)?;
        out.push('\n');
        Ok(out)
    }

    pub fn verify_bundle(&self, bundle: &ReplayBundle) -> VerifyReport {
        verify(self.games.all(), bundle)
    }
}

//! The documents the service answers with (serialized as API bodies, typed in the
//! OpenAPI document). Built explicitly from rows and engine output; never rows.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// A player as others see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerRef {
    pub id: Uuid,
    pub name: String,
}

/// A player's public profile.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerResponse {
    pub id: Uuid,
    pub name: String,
    pub is_bot: bool,
    pub created_at: DateTime<Utc>,
}

/// Your own profile: the public one, and your settings.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MyProfileResponse {
    pub id: Uuid,
    pub name: String,
    pub is_bot: bool,
    pub created_at: DateTime<Utc>,
    /// The language you chose for the web client (and mail); null until you
    /// choose one, when a client follows the browser's languages.
    pub locale: Option<crate::i18n::Locale>,
}

/// An access token for `Authorization: Bearer <access_token>`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    pub expires_at: DateTime<Utc>,
    pub player: PlayerRef,
}

/// An API token as its owner sees it: never the secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiTokenResponse {
    pub id: Uuid,
    pub name: String,
    /// As granted; `play` implies `read`.
    pub scopes: Vec<crate::auth::Scope>,
    pub created_at: DateTime<Utc>,
    /// Null: never expires.
    pub expires_at: Option<DateTime<Utc>>,
    /// When it last authenticated a request (recorded at most once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// Null while it works.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A new API token: the only time its secret is shown.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedApiToken {
    /// `sot_` and 43 characters, for `Authorization: Bearer <token>`. Keep it
    /// secret: the server stores only its hash and cannot show it again.
    pub token: String,
    pub api_token: ApiTokenResponse,
}

/// A page of API tokens, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiTokenPage {
    pub items: Vec<ApiTokenResponse>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A game of the catalogue.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameResponse {
    /// The id used in `POST /api/v1/matches` (`malacca`).
    pub id: String,
    pub name: String,
    pub summary: String,
    /// Every allowed seat count.
    pub seats: Vec<usize>,
    /// The game's options with their defaults.
    #[schema(value_type = Object)]
    pub options: Value,
    /// The service options every game accepts in the same `options` object, with
    /// their defaults: `rated`; `position`; `move_time_limit` (seconds per move,
    /// none by default); `time_control` (a `TimeControl`: a bank of time per
    /// seat, or seconds per move; none by default); `timeout_policy` (`bot`: a bot moves for a seat whose time
    /// ran out, which is then absent; `forfeit`: the seat forfeits);
    /// `absent_move_time_limit` (seconds an absent seat gets, with `bot`);
    /// `min_reliability` (the least share of deadlines met a joiner needs, 0
    /// to 1; none by default).
    #[schema(value_type = Object)]
    pub service_options: Value,
    /// The options `POST /matches` takes for this game (its own and the
    /// service's), as a self-contained JSON Schema (2020-12): what the server
    /// validates them against, for a client that builds its own form.
    #[schema(value_type = Object)]
    pub options_schema: Value,
    /// The bots that can take a seat (`bots` of `POST /matches`, or
    /// `POST /matches/{id}/bots`), weakest first.
    pub bots: Vec<String>,
    /// SHA-256 of the component data new matches are created with.
    pub data_sha256: String,
    /// Whether any of that data is a placeholder rather than sourced.
    pub data_placeholder: bool,
}

/// One seat of a match.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatResponse {
    /// 0-based.
    pub seat: usize,
    /// Null while the seat is free.
    pub player: Option<PlayerRef>,
    /// The bot kind when a bot plays the seat.
    pub bot: Option<String>,
    /// `present`; `absent` while a bot stands in for a player who let a deadline
    /// pass; `forfeited` once the seat resigned or forfeited on time. Null while free.
    pub presence: Option<String>,
    /// With a bank time control: the seat's bank in whole seconds, as of this
    /// answer (running down while the seat owes a move; once it moved in a
    /// sealed step, what its move left it, increment included). Banks are
    /// public, as on a chess clock. Null without a bank.
    #[schema(example = 172800)]
    pub bank_seconds: Option<i64>,
    /// When the seat must have moved, while it owes a move that has a
    /// deadline; null otherwise.
    pub deadline: Option<DateTime<Utc>>,
    /// Whole seconds from this answer to `deadline` (0 once it passed); null
    /// when `deadline` is.
    #[schema(example = 86399)]
    pub seconds_remaining: Option<i64>,
    /// With the match's `grace_extensions`: how many the seat has left; null
    /// when the match grants none.
    #[schema(example = 1)]
    pub graces_left: Option<i32>,
    /// While the seat's player is on vacation: until when (the seat's clock
    /// stands until then); null otherwise.
    pub away_until: Option<DateTime<Utc>>,
}

/// When a seat must move by (deadlines are set by the match's options).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Deadline {
    pub seat: usize,
    pub at: DateTime<Utc>,
    /// Whole seconds from this answer to `at` (0 once it passed).
    #[schema(example = 86399)]
    pub seconds_remaining: Option<i64>,
    /// With a bank time control: the seat's bank in whole seconds as of this
    /// answer; null without a bank.
    #[schema(example = 86399)]
    pub bank_seconds: Option<i64>,
}

/// Who must act now, and what they may do.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PromptResponse {
    /// The step to submit with a move.
    pub step: i64,
    pub round: Option<u32>,
    /// The kind of decision (Malacca: `bet`, `waiting_choice`, `equipment_purchase`,
    /// `sayyida_keep`).
    pub kind: String,
    /// Sealed: every awaited seat submits, unseen by the others.
    pub sealed: bool,
    /// The seats that still owe a move in this step.
    pub awaiting: Vec<usize>,
    pub your_turn: bool,
    pub deadlines: Vec<Deadline>,
    /// Null when the caller owes no move; otherwise complete actions or templates
    /// (see the API guide).
    #[schema(value_type = Option<Vec<Object>>)]
    pub legal: Option<Vec<Value>>,
}

/// A match as it stood at one step, as the caller may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PositionResponse {
    pub match_id: Uuid,
    /// The step this is the position at: 0 is the start, and the position at a
    /// step comes after every move of the steps before it.
    pub step: i64,
    /// The match's step now: its positions are 0 to this.
    pub last_step: i64,
    /// The caller's seat, whose view `view` is; null for everybody else.
    pub your_seat: Option<usize>,
    /// The game's view of the position for the caller, as `GET /matches/{id}`
    /// gave it at that step (a seat's own secrets, nobody else's).
    #[schema(value_type = Object)]
    pub view: Box<serde_json::value::RawValue>,
    /// Who was to move at that position and how; null where the match ended.
    pub prompt: Option<PositionPrompt>,
    /// The whole state at that step, hidden parts included: once the match is
    /// over, to everybody who may read it.
    #[schema(value_type = Option<Object>)]
    pub state: Option<Value>,
}

/// The decision a position waited for.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PositionPrompt {
    pub round: Option<u32>,
    pub kind: String,
    pub sealed: bool,
    /// The seats that owed a move at the start of that step.
    pub awaiting: Vec<usize>,
}

/// One seat's final place.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlacingResponse {
    pub seat: usize,
    pub player: Option<PlayerRef>,
    pub score: i64,
    /// 1 is best; tied seats share a rank.
    pub rank: u32,
}

/// A match, as one caller may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchResponse {
    pub id: Uuid,
    pub game: String,
    /// `waiting`, `active`, `finished` or `aborted`.
    pub status: String,
    /// The number of seats.
    pub seat_count: usize,
    pub seats: Vec<SeatResponse>,
    pub owner: Option<PlayerRef>,
    /// The caller's seat, if seated.
    pub your_seat: Option<usize>,
    /// The options, defaults filled in; a position shows as `{"redacted": true}`
    /// until the match is over.
    #[schema(value_type = Object)]
    pub options: Value,
    pub rated: bool,
    /// Hex SHA-256 of the seed, published at creation.
    pub seed_sha256: String,
    /// The seed in hex, once the match is finished or aborted.
    pub seed: Option<String>,
    pub step: i64,
    pub version: i64,
    /// The caller's view of the game (the spectator view when not seated); null
    /// while waiting.
    #[schema(value_type = Option<Object>)]
    pub view: Option<Box<serde_json::value::RawValue>>,
    pub prompt: Option<PromptResponse>,
    /// The final placings, once finished.
    pub result: Option<Vec<PlacingResponse>>,
    /// The whole game state, once the match is finished or aborted.
    #[schema(value_type = Option<Object>)]
    pub final_state: Option<Value>,
    pub engine_version: String,
    /// SHA-256 of the component data this match plays with.
    pub data_sha256: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// `public` (in the lobby), `unlisted` (not listed; anyone with the id may
    /// look) or `private` (only its owner, seats and invitees see it).
    #[schema(example = "public")]
    pub visibility: String,
    /// Whether people without a seat may watch the match while it is played.
    pub spectators: bool,
    /// The code that lets others join an unlisted or private match; shown to its
    /// owner only.
    pub join_code: Option<String>,
    /// The finished match this one is a rematch of.
    pub rematch_of: Option<Uuid>,
    /// Who writes in its chat: `players` (its seated players and owner),
    /// `everyone` (signed-in spectators too) or `off`.
    #[schema(example = "players")]
    pub chat: String,
    /// The club whose match this is (only its members take seats).
    pub club_id: Option<Uuid>,
}

/// A match in a list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchSummary {
    pub id: Uuid,
    pub game: String,
    pub status: String,
    pub seat_count: usize,
    pub seats: Vec<SeatResponse>,
    pub owner: Option<PlayerRef>,
    pub step: i64,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// `public`, `unlisted` or `private` (lists show the last two only to
    /// those who take part).
    pub visibility: String,
    /// The club whose match this is.
    pub club_id: Option<Uuid>,
    /// The final places of a finished match, best first; null otherwise.
    pub result: Option<Vec<PlacingResponse>>,
}

/// A page of matches.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchPage {
    pub items: Vec<MatchSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The answer to an accepted move (the same answer when the move is re-sent).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoveReceipt {
    pub match_id: Uuid,
    pub step: i64,
    pub seat: usize,
    /// The move as stored (the caller's own, so complete).
    #[schema(value_type = Object)]
    pub action: Value,
    /// Whether this move completed its step (false in a sealed step that still
    /// awaits others).
    pub completes_step: bool,
    /// The match version right after this move.
    pub version: i64,
    pub accepted_at: DateTime<Utc>,
    /// Sealed-move receipt: hex SHA-256 over the match, step, seat, action and
    /// `nonce` (docs/fairness.md), shown to everybody at once; keep it to check
    /// that the move revealed later is the one you sent. Null for moves stored
    /// before receipts existed.
    #[schema(example = "d898ebca246ce6642c5b29b92b093f17a9df816d791651692d29812abcbbde2f")]
    pub commitment: Option<String>,
    /// The 32-byte nonce (hex) the commitment hides the move with: yours now,
    /// everybody's once the move is revealed.
    pub nonce: Option<String>,
    /// Only when the request said `Prefer: return=representation` (and the
    /// answer `Preference-Applied`): the caller's prompt in this match right
    /// after the move, as `GET /matches/{id}` would give it then, so a bot
    /// that plays on needs no read before its next move; null once the match
    /// is over. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PromptResponse>, nullable)]
    pub prompt: Option<Option<PromptResponse>>,
}

/// A stored move as one caller may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoveResponse {
    pub id: i64,
    pub step: i64,
    pub seat: usize,
    pub player: Option<PlayerRef>,
    /// True while the caller sees only the public part.
    pub sealed: bool,
    /// The move, or only its public part while it is sealed to the caller.
    #[schema(value_type = Object)]
    pub action: Value,
    /// Null when the seat's player moved; `bot:<kind>` when a bot did (a bot seat,
    /// or a stand-in for an absent player); `null` when the server played the
    /// seat's null move (a forfeited seat, or a game's own time limit).
    pub author: Option<String>,
    /// The move's commitment (see `MoveReceipt`), shown from the start; null
    /// for moves stored before receipts existed.
    pub commitment: Option<String>,
    /// The nonce behind the commitment, once the move is visible to the caller.
    pub nonce: Option<String>,
    /// The seat replaced this sealed move with a later one before its step's
    /// reveal (`move_replaced` event); it counts for nothing but the history.
    pub replaced: bool,
    pub version: i64,
    pub created_at: DateTime<Utc>,
}

/// A page of moves.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MovePage {
    pub items: Vec<MoveResponse>,
    pub next_cursor: Option<String>,
}

/// An event of a match, visible to the caller.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventResponse {
    pub id: i64,
    pub version: i64,
    /// Null for public events; the seat for a private one.
    pub audience_seat: Option<usize>,
    pub kind: String,
    #[schema(value_type = Object)]
    pub data: Value,
    pub created_at: DateTime<Utc>,
}

/// A page of events.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventPage {
    pub items: Vec<EventResponse>,
    pub next_cursor: Option<String>,
}

/// One seat in a resolved round.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoundSeatResponse {
    pub seat: usize,
    pub player: Option<PlayerRef>,
    /// The card as revealed (Malacca: `attack2`).
    pub card: Option<String>,
    /// What it counted as (Malacca: the resolved kind).
    pub kind: Option<String>,
    pub stake: Option<i64>,
    /// A choice made after the reveal (Malacca: the waiting choice).
    pub choice: Option<String>,
    pub success: Option<bool>,
    /// Net change of the seat's score this round.
    pub delta: i64,
    /// How many cards the seat drew (never which).
    pub drew: u32,
}

/// One coin (score) change, with its reason.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LedgerResponse {
    pub seat: usize,
    pub amount: i64,
    /// Malacca: `stake_placed`, `stake_returned`, `stake_lost`, `loot_share`,
    /// `defense_share`, `cargo`, `trade_profit`, `deck_scrubbing`,
    /// `character_bonus`, `equipment_bonus`, `caught_penalty`, `equipment_purchase`.
    pub reason: String,
}

/// A resolved round.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoundResponse {
    pub round: u32,
    /// The step at which the round resolved.
    pub step: i64,
    /// Malacca: the ship's cargo value.
    pub value: Option<i64>,
    /// Malacca: `captured` or `defended`.
    pub outcome: String,
    /// Malacca: the attack total.
    pub total_a: Option<i64>,
    /// Malacca: the defense total.
    pub total_b: Option<i64>,
    /// Malacca: the captain.
    pub lead_seat: Option<usize>,
    /// What the round was about, as `<what>:<id>`: Malacca `ship:<cargo value>`;
    /// Heretics `city:<id>`, the city fought for (whether won or left unclaimed);
    /// Kontor `cards:<id>,…`, the cards revealed, in play order (`cards:` when
    /// every seat passed); Cairo `parcel:<id>` (a simulated flick's target),
    /// `landing:<id>` (a reported flick's landing) or `final_scoring`. Null for
    /// rounds recorded before the server kept it.
    pub subject: Option<String>,
    pub seats: Vec<RoundSeatResponse>,
    pub ledger: Vec<LedgerResponse>,
    pub created_at: DateTime<Utc>,
}

/// Every resolved round of a match (always one page).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoundPage {
    pub items: Vec<RoundResponse>,
    /// Always null: a match's rounds fit one page.
    pub next_cursor: Option<String>,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1 is best.
    pub rank: u64,
    pub player: PlayerRef,
    /// The conservative estimate `mu − 3·sigma` the board is sorted by.
    pub rating: f64,
    /// Weng-Lin skill estimate.
    pub mu: f64,
    /// Weng-Lin uncertainty.
    pub sigma: f64,
    /// Rated matches played.
    pub games: u32,
    /// Rated matches won (rank 1, ties included).
    pub wins: u32,
}

/// A page of a leaderboard.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LeaderboardPage {
    pub items: Vec<LeaderboardEntry>,
    pub next_cursor: Option<String>,
}

/// A player's current rating in one game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingResponse {
    pub game: String,
    pub rating: f64,
    pub mu: f64,
    pub sigma: f64,
    pub games: u32,
    pub wins: u32,
}

/// One rated match's effect on a player's rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingChange {
    pub game: String,
    pub match_id: Uuid,
    /// The player's rank in that match.
    pub rank: u32,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
    pub rating_after: f64,
    pub created_at: DateTime<Utc>,
}

/// A player's ratings and their history, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingsPage {
    pub player: PlayerRef,
    pub current: Vec<RatingResponse>,
    pub items: Vec<RatingChange>,
    pub next_cursor: Option<String>,
}

/// Plays of one kind (Malacca: a resolved kind) or one card.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayGroup {
    /// The kind or card id (null where the game records none).
    pub key: Option<String>,
    pub plays: i64,
    /// Plays that succeeded (Malacca: captured for attack, defended for defense and trade).
    pub successes: i64,
    pub success_rate: Option<f64>,
    /// Average stake of the plays that had one.
    pub average_stake: Option<f64>,
    /// Average net score change of the round.
    pub average_payoff: Option<f64>,
}

/// A round, pointed at.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoundRef {
    pub match_id: Uuid,
    pub round: i64,
    pub delta: i64,
}

/// One player's figures in one game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerGameStats {
    pub game: String,
    /// Matches with a seat, active or finished.
    pub played: i64,
    pub finished: i64,
    /// Finished matches ranked first (ties included).
    pub won: i64,
    pub win_rate: Option<f64>,
    pub average_rank: Option<f64>,
    pub average_score: Option<f64>,
    /// Current conservative rating (`mu − 3·sigma`), if rated.
    pub rating: Option<f64>,
    /// By kind (Malacca: the resolved kind).
    pub kinds: Vec<PlayGroup>,
    /// By card played (Malacca: special card ids are the non-normal ones).
    pub cards: Vec<PlayGroup>,
    /// The round with the largest gain.
    pub best_round: Option<RoundRef>,
}

/// A player's statistics, one entry per game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerStatsResponse {
    pub player: PlayerRef,
    pub games: Vec<PlayerGameStats>,
    /// Deadlines met against deadlines owed, over the recent window, whatever
    /// the `game` and `include` asked (a record of the player, not of its
    /// finished matches).
    pub reliability: ReliabilityResponse,
}

/// Finished matches of one size and variant.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchCount {
    pub players: i64,
    pub variant: String,
    pub matches: i64,
}

/// Resolved rounds of one value (Malacca: a ship's cargo value).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ValueStats {
    pub value: Option<i64>,
    pub rounds: i64,
    /// Rounds per outcome (Malacca: `captured`, `defended`).
    #[schema(value_type = Object)]
    pub outcomes: std::collections::BTreeMap<String, i64>,
    /// Share of rounds per outcome (Malacca: the capture rate is `outcome_rates.captured`).
    #[schema(value_type = Object)]
    pub outcome_rates: std::collections::BTreeMap<String, f64>,
}

/// Wins of a group of seats.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WinGroup {
    /// The seat offset from the first round's lead seat (Malacca: the first
    /// captain), or the role (Malacca: the character).
    pub key: String,
    pub seats: i64,
    pub wins: i64,
    pub win_rate: Option<f64>,
}

/// Statistics of one game over finished matches.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameStatsResponse {
    pub game: String,
    pub matches: Vec<MatchCount>,
    pub by_value: Vec<ValueStats>,
    pub kinds: Vec<PlayGroup>,
    pub seat_offsets: Vec<WinGroup>,
    pub roles: Vec<WinGroup>,
}

/// A match in which the caller owes a move.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnResponse {
    pub match_id: Uuid,
    pub game: String,
    pub your_seat: usize,
    /// The step to submit.
    pub step: i64,
    /// The kind of decision owed.
    pub kind: String,
    pub sealed: bool,
    /// When the move falls due, if it has a deadline.
    pub deadline: Option<DateTime<Utc>>,
    /// Whole seconds from this answer to `deadline` (0 once it passed).
    pub seconds_remaining: Option<i64>,
    /// With a bank time control: your bank in whole seconds as of this answer.
    pub bank_seconds: Option<i64>,
    /// When the move became owed (the start of the step).
    pub owed_since: DateTime<Utc>,
    /// True while a bot stands in for you after a missed deadline (moving, or
    /// `POST /matches/{id}/return`, ends it).
    pub absent: bool,
    /// Only with `?prompts=true`: your prompt in the match, as
    /// `GET /matches/{id}` gives it (with `legal`), so a bot playing many
    /// matches moves in each without reading it first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptResponse>,
}

/// Every match where the caller owes a move: soonest deadline first, then oldest.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnsResponse {
    pub items: Vec<TurnResponse>,
}

/// A moderation action that was done.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ModerationResponse {
    /// `disable`, `enable`, `grant_admin` or `revoke_admin`.
    #[schema(example = "disable")]
    pub action: String,
    /// The player's name.
    #[schema(example = "mallory")]
    pub target: String,
    pub at: DateTime<Utc>,
}

/// One entry of the moderation audit log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditEntry {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    /// The admin's name, or `cli` for the operator's command line.
    #[schema(example = "alice")]
    pub actor: String,
    /// `disable`, `enable`, `grant_admin`, `revoke_admin`, `cancel_match` or
    /// `delete_chat_message` (its target `<match id>/<message id>`).
    #[schema(example = "disable")]
    pub action: String,
    /// The player's name (as it was then) or the match's id.
    #[schema(example = "mallory")]
    pub target: String,
    /// Why, as the admin said; null when not said.
    pub reason: Option<String>,
}

/// A page of the audit log, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditPage {
    pub items: Vec<AuditEntry>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Deadlines met against deadlines owed in one game.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"game": "malacca", "met": 41, "owed": 42, "ratio": 0.976}))]
pub struct GameReliability {
    /// The game's id.
    pub game: String,
    /// Deadlines the player met: its own move came before its time ran out.
    pub met: i64,
    /// Deadlines owed: met, and missed (its seat timed out).
    pub owed: i64,
    /// `met / owed`, from 0 to 1; null while nothing is owed.
    pub ratio: Option<f64>,
}

/// A player's public record of deadlines, over the last `window_days`: each
/// time one of its seats was asked to move in a match with a clock (a
/// per-move limit or a time bank), the deadline was met when the player moved
/// in time, missed when the seat timed out. Moves a bot or the game played
/// for the seat count for neither; matches without a clock and private
/// matches count for nothing. A match may ask for a minimum to join
/// (`min_reliability`), which a player with fewer than `provisional_below`
/// deadlines owed always passes.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"met": 57, "owed": 60, "ratio": 0.95, "window_days": 180,
    "provisional_below": 10,
    "by_game": [{"game": "malacca", "met": 41, "owed": 42, "ratio": 0.976},
                {"game": "kontor", "met": 16, "owed": 18, "ratio": 0.889}]}))]
pub struct ReliabilityResponse {
    /// Deadlines met, over every game.
    pub met: i64,
    /// Deadlines owed, over every game.
    pub owed: i64,
    /// `met / owed`, from 0 to 1; null while nothing is owed (a newcomer).
    pub ratio: Option<f64>,
    /// The days counted, back from now (by when the move or time-out was).
    pub window_days: i64,
    /// Fewer deadlines owed than this make a record too short to judge: no
    /// match's minimum refuses it.
    pub provisional_below: i64,
    /// Per game, the games with a deadline owed, by id.
    pub by_game: Vec<GameReliability>,
}

/// A player's public profile, with its record of deadlines.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerProfileResponse {
    pub id: Uuid,
    pub name: String,
    pub is_bot: bool,
    pub created_at: DateTime<Utc>,
    pub reliability: ReliabilityResponse,
}

/// A vacation's span.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VacationSpan {
    pub starts_at: DateTime<Utc>,
    /// When it ends (or ended: coming back early cuts it).
    pub ends_at: DateTime<Utc>,
}

/// A player's vacation and allowance. While on vacation every clock of the
/// player's seats stands, the other seats see it (`seat_on_vacation` and the
/// seat's `away_until`), and the lobby seats the player in no new match.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VacationResponse {
    /// The vacation under way; null when none.
    pub current: Option<VacationSpan>,
    /// Days of vacation a player may take in any 365 days.
    #[schema(example = 30)]
    pub days_per_year: u64,
    /// Days taken in the last 365 days (a day begun counts whole; the
    /// vacation under way counts to its planned end).
    #[schema(example = 7)]
    pub days_used: u64,
    #[schema(example = 23)]
    pub days_left: u64,
}

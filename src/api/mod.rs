//! HTTP handlers: parse, authenticate, call one service function, answer.

mod admin;
mod auth;
mod chat;
mod clubs;
mod community;
mod exports;
mod games;
pub mod gate;
pub mod head;
mod health;
mod matches;
mod moves;
mod notifications;
pub mod oauth;
mod players;
mod preferences;
mod ratings;
pub mod replays;
mod stats;
pub mod streams;
mod tokens;
mod tournaments;
mod vacation;
pub mod web;
mod webhooks;

use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use health::{healthz, readyz};

/// Registers every API route (each with its spec entry).
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(
            // The router tries a scope's routes in the order given, a regular
            // expression each: the two a game is played with come first.
            scope::scope("/api/v1")
                .service(moves::submit_move)
                .service(matches::get_match)
                .service(players::create_player)
                .service(players::get_me)
                .service(preferences::update_me)
                .service(players::get_my_turns)
                .service(vacation::get_my_vacation)
                .service(vacation::start_vacation)
                .service(vacation::end_vacation)
                .service(community::get_my_invitations)
                .service(chat::list_mutes)
                .service(chat::mute_player)
                .service(chat::unmute_player)
                .service(clubs::get_my_clubs)
                .service(players::change_password)
                .service(players::delete_account)
                .service(tokens::create_api_token)
                .service(tokens::list_api_tokens)
                .service(tokens::revoke_api_token)
                .service(oauth::get_oauth_authorization)
                .service(oauth::answer_oauth_authorization)
                .service(webhooks::create_webhook)
                .service(webhooks::list_webhooks)
                .service(webhooks::delete_webhook)
                .service(webhooks::list_webhook_deliveries)
                .service(notifications::get_my_notifications)
                .service(notifications::update_my_notifications)
                .service(notifications::set_my_email)
                .service(notifications::delete_my_email)
                .service(notifications::confirm_email)
                .service(notifications::request_password_reset)
                .service(notifications::reset_password)
                .service(notifications::get_unsubscribe)
                .service(notifications::unsubscribe)
                .service(players::get_player)
                .service(ratings::get_player_ratings)
                .service(ratings::get_leaderboard)
                .service(stats::get_player_stats)
                .service(stats::get_game_stats)
                .service(replays::export_match)
                .service(replays::verify_replay)
                .service(exports::export_matches)
                .service(auth::create_token)
                .service(games::list_games)
                .service(games::get_game)
                .service(matches::create_match)
                .service(matches::list_matches)
                .service(matches::join_match_by_code)
                .service(matches::join_match)
                .service(matches::start_match)
                .service(matches::leave_match)
                .service(matches::cancel_match)
                .service(matches::add_bot)
                .service(matches::resign_match)
                .service(matches::return_to_match)
                .service(matches::extend_seat)
                .service(community::invite_players)
                .service(community::list_invitations)
                .service(community::accept_invitation)
                .service(community::decline_invitation)
                .service(community::rematch)
                .service(tournaments::create_tournament)
                .service(tournaments::list_tournaments)
                .service(tournaments::get_tournament)
                .service(tournaments::join_tournament)
                .service(tournaments::withdraw_from_tournament)
                .service(tournaments::add_tournament_bots)
                .service(tournaments::start_tournament)
                .service(tournaments::cancel_tournament)
                .service(chat::post_chat_message)
                .service(chat::list_chat_messages)
                .service(chat::delete_chat_message)
                .service(clubs::create_club)
                .service(clubs::list_clubs)
                .service(clubs::get_club)
                .service(clubs::update_club)
                .service(clubs::join_club)
                .service(clubs::leave_club)
                .service(clubs::list_club_members)
                .service(clubs::invite_to_club)
                .service(clubs::accept_club_request)
                .service(clubs::remove_club_member)
                .service(clubs::set_club_role)
                .service(clubs::get_club_leaderboard)
                .service(streams::create_stream_ticket)
                .service(streams::get_my_events)
                .service(streams::get_lobby_events)
                .service(moves::list_moves)
                .service(moves::list_events)
                .service(moves::list_rounds)
                .service(moves::get_position)
                .service(admin::disable_player)
                .service(admin::enable_player)
                .service(admin::grant_admin)
                .service(admin::revoke_admin)
                .service(admin::moderate_cancel_match)
                .service(admin::get_audit_log),
        );
}

/// `/docs` is the API browser's folder: its pages load from `/docs/`.
pub async fn docs_redirect() -> actix_web::HttpResponse {
    actix_web::HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

/// Query parameters of the paginated lists.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Takes a token from the player's (and the address's) bucket for a creation.
/// An admin is never refused: whether the player is one is asked only when a
/// bucket is empty, so an ordinary creation costs no extra read.
pub(crate) async fn creation_quota(
    limits: &crate::ratelimit::RateLimits,
    caps: &crate::service::caps::Caps,
    req: &actix_web::HttpRequest,
    me: &crate::auth::AuthenticatedPlayer,
    kind: crate::ratelimit::Creation,
) -> Result<crate::ratelimit::Granted, crate::errors::ApiError> {
    match limits.creations(req, kind, me.id) {
        Err(refused) => {
            if caps.exempt(me.id).await? {
                Ok(crate::ratelimit::Granted::default())
            } else {
                Err(refused)
            }
        }
        granted => granted,
    }
}

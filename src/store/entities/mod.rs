//! sea-orm entities, one per table. Never serialized as API bodies.

pub mod api_tokens;
pub mod audit_log;
pub mod club_members;
pub mod clubs;
pub mod credentials;
pub mod events;
pub mod game_data;
pub mod ledger;
pub mod match_deadlines;
pub mod match_invitations;
pub mod match_messages;
pub mod match_results;
pub mod match_seats;
pub mod matches;
pub mod moves;
pub mod player_mutes;
pub mod players;
pub mod rating_history;
pub mod ratings;
pub mod round_seats;
pub mod rounds;
pub mod server_settings;
pub mod stream_tickets;
pub mod webhook_attempts;
pub mod webhook_deliveries;
pub mod webhooks;

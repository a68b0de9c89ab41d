//! The one integration-test binary: a real server on a random port, a real
//! database per test (a fresh SQLite file, or a fresh Postgres schema when
//! TEST_DATABASE_URL is set).

mod helpers;

mod account;
mod amend;
mod async_play;
mod batches;
mod chat;
mod clocks;
mod clubs;
mod community;
mod connections;
mod contract;
mod credentials;
mod deadlines;
mod distributed;
mod edge;
mod errors;
mod extensions;
mod games;
mod i18n;
mod leak;
mod limits;
mod lobby;
mod lobby_limits;
mod mailsink;
mod malacca;
mod matches;
mod migrations;
mod moderation;
mod notifications;
mod oauth;
mod observability;
mod openapi;
mod players;
mod positions;
mod race;
mod ratings;
mod reliability;
mod replays;
mod replicas;
mod stats;
mod streams;
mod timed;
mod tokens;
mod tournaments;
mod vacation;
mod web;
mod webhooks;

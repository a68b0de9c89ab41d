//! What one viewer may see (rules §2, API contract item 5).

use super::rules::{Phase, State};
use super::{CurrentResult, MalaccaView, MyPlay, PlayerView, RankEntry, Stakes};
use crate::games::{Outcome, Viewer};

pub fn view(state: &State, viewer: Viewer) -> MalaccaView {
    let me = match viewer {
        Viewer::Seat(s) if s < state.players.len() => Some(s),
        _ => None,
    };
    // Before the reveal, cards lie face down: nobody but the author sees one, and
    // no public count moves (D4).
    let face_down = matches!(state.phase, Phase::Bet { .. });
    let sealed = state.options.stakes == Stakes::Sealed;
    let players: Vec<PlayerView> = state
        .players
        .iter()
        .map(|p| {
            let own = me == Some(p.seat);
            let hide_stake = face_down && sealed && !own;
            let coins = match p.play {
                Some(play) if hide_stake => play.coins_at_bet,
                _ => p.coins,
            };
            let special_count = if face_down && !own {
                p.special_count_at_bet
            } else {
                p.special_count()
            };
            let revealed = if face_down { None } else { p.play };
            let kind = revealed.and_then(|play| {
                state
                    .rules
                    .card(play.card)
                    .and_then(|d| d.kind)
                    .or(play.choice)
            });
            PlayerView {
                seat: p.seat,
                coins,
                special_count,
                stake: if hide_stake {
                    None
                } else {
                    p.play.map(|play| play.stake)
                },
                has_played: p.play.is_some(),
                card: revealed.map(|play| play.card),
                kind,
                choice: revealed.and_then(|play| play.choice),
                character: p.character,
                equipment: p.equipment,
            }
        })
        .collect();
    let own = me.and_then(|s| state.players.get(s));
    let pending_keep = match &state.phase {
        Phase::SayyidaKeep { seat, cards, .. } if me == Some(*seat) => Some(cards.clone()),
        _ => None,
    };
    let scores: Vec<i64> = players.iter().map(|p| p.coins).collect();
    let mut ranking: Vec<RankEntry> = Outcome::from_scores(&scores)
        .placings
        .into_iter()
        .map(|p| RankEntry {
            seat: p.seat,
            coins: p.score,
            rank: p.rank,
        })
        .collect();
    ranking.sort_by_key(|r| (r.rank, r.seat));
    MalaccaView {
        seat: me,
        round: state.round,
        rounds_total: state.rounds_total,
        captain: state.captain,
        phase: state.prompt_kind().to_owned(),
        stakes: state.options.stakes,
        equipment_purchase: state.options.equipment_purchase,
        ship_value: state.ship_value,
        ships_revealed: state.ships_revealed.clone(),
        ships_left: state.ship_deck.len(),
        special_deck_size: state.special_deck.len(),
        players,
        equipment_supply: state.equipment_supply,
        hand: own.map(|p| p.hand.clone()),
        my_play: own.and_then(|p| p.play).map(|play| MyPlay {
            card: play.card,
            stake: play.stake,
        }),
        pending_keep,
        result: state.resolution.as_ref().map(|r| CurrentResult {
            outcome: r.outcome,
            total_attack: r.total_attack,
            total_defense: r.total_defense,
        }),
        ranking,
        last_round: state.history.last().cloned(),
        history: state.history.clone(),
    }
}

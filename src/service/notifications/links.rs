//! Unsubscribe links: a token that names the player and what to stop, signed
//! with a key derived from the server's secret, so nothing is stored for it
//! and a link works for as long as the secret stays the same.

use hmac::{KeyInit, Mac};
use uuid::Uuid;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// What an unsubscribe link stops: one setting of the player's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    YourTurn,
    Reminders,
    Invitations,
    MatchStarted,
    MatchFinished,
}

impl Topic {
    pub const ALL: [Topic; 5] = [
        Topic::YourTurn,
        Topic::Reminders,
        Topic::Invitations,
        Topic::MatchStarted,
        Topic::MatchFinished,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Topic::YourTurn => "your_turn",
            Topic::Reminders => "deadline_reminders",
            Topic::Invitations => "invitations",
            Topic::MatchStarted => "match_started",
            Topic::MatchFinished => "match_finished",
        }
    }

    pub fn from_name(name: &str) -> Option<Topic> {
        Topic::ALL.into_iter().find(|t| t.name() == name)
    }
}

fn mac(key: &[u8], player: Uuid, topic: Topic) -> String {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    m.update(b"unsubscribe.");
    m.update(player.as_bytes());
    m.update(b".");
    m.update(topic.name().as_bytes());
    // 128 bits are plenty for a link that can only turn a mail off.
    hex::encode(&m.finalize().into_bytes()[..16])
}

/// The token of an unsubscribe link: `<player>.<topic>.<mac>`.
pub fn unsubscribe_token(key: &[u8], player: Uuid, topic: Topic) -> String {
    format!(
        "{}.{}.{}",
        player.simple(),
        topic.name(),
        mac(key, player, topic)
    )
}

/// The player and topic a token names, if its signature holds.
pub fn read_unsubscribe_token(key: &[u8], token: &str) -> Option<(Uuid, Topic)> {
    let mut parts = token.trim().splitn(3, '.');
    let player = Uuid::try_parse(parts.next()?).ok()?;
    let topic = Topic::from_name(parts.next()?)?;
    let given = parts.next()?;
    let want = mac(key, player, topic);
    // Compared in constant time: the signature is what guards the link.
    let same = given.len() == want.len()
        && given
            .bytes()
            .zip(want.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    same.then_some((player, topic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_and_a_changed_one_does_not() {
        let key = [7u8; 32];
        let p = Uuid::new_v4();
        let t = unsubscribe_token(&key, p, Topic::Reminders);
        assert_eq!(
            read_unsubscribe_token(&key, &t),
            Some((p, Topic::Reminders))
        );
        let other = t.replace("deadline_reminders", "your_turn");
        assert_eq!(read_unsubscribe_token(&key, &other), None);
        assert_eq!(read_unsubscribe_token(&[8u8; 32], &t), None);
        assert_eq!(read_unsubscribe_token(&key, "nonsense"), None);
    }
}

//! Token buckets per key, in this process's memory: replicas each keep their own.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

/// Whom a bucket counts for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// A client address (an IPv6 client by its /64, see `address`), for one kind
    /// of request: an address's logins and its moves are counted apart.
    Address(&'static str, IpAddr),
    /// An account by its lowercase name (before anybody is authenticated).
    Account(String),
    /// An authenticated player.
    Player(Uuid),
    /// An authenticated player, for one kind of request counted apart from its
    /// moves (its chat).
    PlayerFor(&'static str, Uuid),
}

/// Where a key stands after a request: what the RateLimit-* headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Requests per minute (also the burst: a full bucket).
    pub limit: u32,
    /// Requests left now.
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset: u64,
    /// Seconds until the next request is allowed; set only on a refusal.
    pub retry_after: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Its allowance: requests of burst, and refilled a minute.
    per_minute: u32,
    tokens: f64,
    at: DateTime<Utc>,
}

impl Bucket {
    fn full(per_minute: u32, now: DateTime<Utc>) -> Self {
        Self {
            per_minute,
            tokens: f64::from(per_minute),
            at: now,
        }
    }

    /// Tokens per second.
    fn rate(&self) -> f64 {
        f64::from(self.per_minute) / 60.0
    }

    fn tokens_at(&self, now: DateTime<Utc>) -> f64 {
        (self.tokens + seconds_between(self.at, now) * self.rate()).min(f64::from(self.per_minute))
    }

    fn seconds_for(&self, tokens: f64) -> u64 {
        (tokens.max(0.0) / self.rate()).ceil() as u64
    }

    fn quota(&self, refused: bool) -> Quota {
        Quota {
            limit: self.per_minute,
            remaining: self.tokens.floor().max(0.0) as u32,
            reset: self.seconds_for(f64::from(self.per_minute) - self.tokens),
            retry_after: refused.then(|| self.seconds_for(1.0 - self.tokens).max(1)),
        }
    }
}

struct Buckets {
    map: HashMap<Key, Bucket>,
    swept: Option<DateTime<Utc>>,
}

/// How many keys a limiter holds before it drops the least recently used half.
const MAX_KEYS: usize = 100_000;

/// Token buckets per key: a key allowed `n` a minute has a burst of `n` and
/// gets `n` back a minute. A bucket that has refilled completely says nothing a
/// fresh one would not, so idle keys are dropped.
pub struct Limiter {
    max_keys: usize,
    buckets: Mutex<Buckets>,
}

impl Default for Limiter {
    fn default() -> Self {
        Self::with_max_keys(MAX_KEYS)
    }
}

fn seconds_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    (to - from)
        .num_microseconds()
        .map_or(0.0, |us| us.max(0) as f64 / 1e6)
}

impl Limiter {
    fn with_max_keys(max_keys: usize) -> Self {
        Self {
            max_keys: max_keys.max(2),
            buckets: Mutex::new(Buckets {
                map: HashMap::new(),
                swept: None,
            }),
        }
    }

    /// Takes a token from the bucket of every key (each with its allowance a
    /// minute; 0 means unlimited), or from none when one of them is empty. `Ok`
    /// with the quota of the scarcest bucket; `Err` with the quota of the empty
    /// one, saying when to retry. `None` when no key is limited.
    pub fn take(&self, keys: &[(Key, u32)], now: DateTime<Utc>) -> Option<Result<Quota, Quota>> {
        let keys: Vec<&(Key, u32)> = keys.iter().filter(|(_, n)| *n > 0).collect();
        if keys.is_empty() {
            return None;
        }
        // A poisoned lock only means another request panicked mid-update; the
        // counters are still usable.
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        self.sweep(&mut buckets, now);
        let current: Vec<Bucket> = keys
            .iter()
            .map(|(key, per_minute)| {
                let b = match buckets.map.get(key) {
                    Some(b) if b.per_minute == *per_minute => *b,
                    _ => Bucket::full(*per_minute, now),
                };
                Bucket {
                    tokens: b.tokens_at(now),
                    at: now,
                    ..b
                }
            })
            .collect();
        let allowed = current.iter().all(|b| b.tokens >= 1.0);
        let mut scarcest: Option<Bucket> = None;
        for ((key, _), mut b) in keys.iter().zip(current) {
            if allowed {
                b.tokens -= 1.0;
            }
            buckets.map.insert(key.clone(), b);
            if scarcest.is_none_or(|s| b.tokens < s.tokens) {
                scarcest = Some(b);
            }
        }
        let quota = scarcest?.quota(!allowed);
        Some(if allowed { Ok(quota) } else { Err(quota) })
    }

    /// Once a minute (and whenever the map is over its bound) drops the buckets
    /// that have refilled; if that is not enough, keeps the most recently used half.
    fn sweep(&self, buckets: &mut Buckets, now: DateTime<Utc>) {
        let due = buckets
            .swept
            .is_none_or(|t| now - t >= Duration::minutes(1));
        if !due && buckets.map.len() < self.max_keys {
            return;
        }
        buckets.swept = Some(now);
        buckets
            .map
            .retain(|_, b| b.tokens_at(now) < f64::from(b.per_minute));
        if buckets.map.len() >= self.max_keys {
            let mut times: Vec<DateTime<Utc>> = buckets.map.values().map(|b| b.at).collect();
            let middle = times.len() / 2;
            let (_, median, _) = times.select_nth_unstable(middle);
            let median = *median;
            buckets.map.retain(|_, b| b.at > median);
        }
    }

    /// How many keys are held (for tests of the bound).
    pub fn keys(&self) -> usize {
        self.buckets
            .lock()
            .map(|b| b.map.len())
            .unwrap_or_else(|p| p.into_inner().map.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(last: u8) -> (Key, u32) {
        (Key::Address("test", IpAddr::from([10, 0, 0, last])), 60)
    }

    #[test]
    fn a_bucket_allows_its_burst_then_refuses_until_it_refills() {
        let limiter = Limiter::default();
        let t0 = Utc::now();
        for i in 0..60 {
            let q = limiter.take(&[addr(1)], t0).expect("on").expect("allowed");
            assert_eq!(q.remaining, 59 - i);
        }
        let refused = limiter
            .take(&[addr(1)], t0)
            .expect("on")
            .expect_err("empty");
        assert_eq!(
            (refused.remaining, refused.retry_after, refused.reset),
            (0, Some(1), 60)
        );
        // Another key has its own bucket.
        assert!(limiter.take(&[addr(2)], t0).expect("on").is_ok());
        // One token a second comes back.
        let later = t0 + Duration::seconds(1);
        assert!(limiter.take(&[addr(1)], later).expect("on").is_ok());
        assert!(limiter.take(&[addr(1)], later).expect("on").is_err());
        let full = limiter
            .take(&[addr(1)], later + Duration::minutes(5))
            .expect("on")
            .expect("allowed");
        assert_eq!(full.remaining, 59);
    }

    #[test]
    fn a_request_takes_from_every_key_or_from_none() {
        let limiter = Limiter::default();
        let t0 = Utc::now();
        let account = (Key::Account("alice".into()), 2);
        assert!(
            limiter
                .take(&[addr(1), account.clone()], t0)
                .expect("on")
                .is_ok()
        );
        let q = limiter
            .take(&[addr(2), account.clone()], t0)
            .expect("on")
            .expect("allowed");
        // The scarcest bucket speaks: the account's, with its own allowance.
        assert_eq!((q.limit, q.remaining, q.reset), (2, 0, 60));
        // The account is empty: the third address is refused and keeps its token.
        let refused = limiter
            .take(&[addr(3), account.clone()], t0)
            .expect("on")
            .expect_err("account empty");
        assert_eq!((refused.limit, refused.retry_after), (2, Some(30)));
        let q = limiter.take(&[addr(3)], t0).expect("on").expect("allowed");
        assert_eq!(q.remaining, 59);
    }

    #[test]
    fn an_allowance_of_zero_is_unlimited() {
        let limiter = Limiter::default();
        let player = (Key::Player(Uuid::nil()), 0);
        assert!(
            limiter
                .take(std::slice::from_ref(&player), Utc::now())
                .is_none()
        );
        let q = limiter
            .take(&[player, addr(1)], Utc::now())
            .expect("the address is limited")
            .expect("allowed");
        assert_eq!(q.limit, 60);
    }

    #[test]
    fn idle_keys_are_dropped_and_the_map_stays_bounded() {
        let limiter = Limiter::with_max_keys(100);
        let t0 = Utc::now();
        for i in 0..250u32 {
            let key = (Key::Player(Uuid::from_u128(u128::from(i))), 60);
            let at = t0 + Duration::milliseconds(i64::from(i));
            let _ = limiter.take(&[key], at);
            assert!(limiter.keys() <= 100, "{} keys", limiter.keys());
        }
        // Once every bucket has refilled, the next sweep drops them all.
        let _ = limiter.take(&[addr(1)], t0 + Duration::minutes(3));
        assert_eq!(limiter.keys(), 1);
    }
}

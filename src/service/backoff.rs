//! The wait before a delivery is tried again (webhooks, mail): doubled per
//! failure, capped, with jitter, so receivers that failed together are not
//! retried together.

use uuid::Uuid;

/// The longest wait between two attempts.
const MAX_BACKOFF_MS: u64 = 6 * 3600 * 1000;

/// The wait after failed attempt number `attempt` (1-based): `base_ms`
/// doubled per earlier failure, capped at 6 h, then a random point in its
/// upper half.
pub fn backoff(base_ms: u64, attempt: i32) -> chrono::Duration {
    let doublings = u32::try_from(attempt.saturating_sub(1))
        .unwrap_or(0)
        .min(30);
    let full = base_ms
        .saturating_mul(1u64 << doublings)
        .min(MAX_BACKOFF_MS);
    let half = full / 2;
    let jitter = if half == 0 {
        0
    } else {
        (Uuid::new_v4().as_u128() % u128::from(half + 1)) as u64
    };
    chrono::Duration::milliseconds((half + jitter) as i64)
}

#[cfg(test)]
mod tests {
    use super::backoff;

    #[test]
    fn backoff_doubles_within_its_upper_half_and_is_capped() {
        for attempt in 1..=6 {
            let full = 1000i64 << (attempt - 1);
            for _ in 0..50 {
                let d = backoff(1000, attempt).num_milliseconds();
                assert!((full / 2..=full).contains(&d), "attempt {attempt}: {d}");
            }
        }
        let capped = backoff(10_000, 40).num_milliseconds();
        assert!((3 * 3600 * 1000..=6 * 3600 * 1000).contains(&capped));
        assert_eq!(backoff(0, 3).num_milliseconds(), 0);
    }
}

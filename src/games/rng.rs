//! Seeded randomness for rules engines.
//!
//! Every random draw in a match comes from ChaCha20 seeded with a SHA-256 of the
//! match seed and a label: `"setup"` for setup, the step number (u64, big-endian)
//! for the draws made while a step resolves. The index draw and the shuffle are
//! written out here, not borrowed from a crate, so that a dependency upgrade can
//! never change a deal; docs/fairness.md states them and a test pins a vector.

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

/// A match seed: 32 bytes from the operating system's CSPRNG.
pub type Seed = [u8; 32];

/// The deterministic generator handed to a rules engine.
pub struct GameRng {
    inner: ChaCha20Rng,
}

impl GameRng {
    /// The generator for setup: ChaCha20 keyed with SHA-256(seed ‖ "setup").
    pub fn for_setup(seed: &Seed) -> Self {
        Self::keyed(seed, b"setup")
    }

    /// The generator for the draws of step `step`: SHA-256(seed ‖ step as u64 BE).
    pub fn for_step(seed: &Seed, step: u64) -> Self {
        Self::keyed(seed, &step.to_be_bytes())
    }

    /// A generator from raw key material; for bots, simulations and tests, which
    /// must never share a match's stream.
    pub fn from_key(key: [u8; 32]) -> Self {
        Self {
            inner: ChaCha20Rng::from_seed(key),
        }
    }

    fn keyed(seed: &Seed, label: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(seed);
        hasher.update(label);
        let key: [u8; 32] = hasher.finalize().into();
        Self::from_key(key)
    }

    /// The next raw 64-bit word of the ChaCha20 stream.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform integer in `0..n` by rejection sampling: draw a u64 `x`; reject it
    /// while `x >= 2^64 - (2^64 mod n)`; answer `x mod n`. Panics never: `n == 0`
    /// answers 0 (callers never ask for it).
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        // 2^64 mod n, computed without overflow.
        let rem = (u64::MAX % n + 1) % n;
        let limit = u64::MAX - rem; // accept x <= limit, i.e. x < 2^64 - rem
        loop {
            let x = self.next_u64();
            if rem == 0 || x <= limit {
                return x % n;
            }
        }
    }

    /// A uniform index into a slice of length `len`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// Fisher–Yates, from the last position down: for `i` from `len-1` to 1,
    /// swap item `i` with item `below(i + 1)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// True with probability `num / den` (one `below(den)` draw).
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// Hex SHA-256 of raw bytes; the published commitment to a seed.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = GameRng::from_key([7; 32]);
        let mut seen = [false; 5];
        for _ in 0..500 {
            let v = rng.below(5) as usize;
            assert!(v < 5);
            seen[v] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn shuffle_is_a_permutation_and_deterministic() {
        let seed = [1u8; 32];
        let mut a: Vec<u32> = (0..16).collect();
        let mut b: Vec<u32> = (0..16).collect();
        GameRng::for_setup(&seed).shuffle(&mut a);
        GameRng::for_setup(&seed).shuffle(&mut b);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
        assert_ne!(a, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn setup_and_step_streams_differ() {
        let seed = [9u8; 32];
        assert_ne!(
            GameRng::for_setup(&seed).next_u64(),
            GameRng::for_step(&seed, 0).next_u64()
        );
        assert_ne!(
            GameRng::for_step(&seed, 1).next_u64(),
            GameRng::for_step(&seed, 2).next_u64()
        );
    }
}

#[cfg(test)]
mod vector {
    use super::*;

    /// The seed of docs/fairness.md's test vector: bytes 0, 1, …, 31.
    fn seed() -> Seed {
        let mut s = [0u8; 32];
        for (i, b) in s.iter_mut().enumerate() {
            *b = i as u8;
        }
        s
    }

    /// Pins docs/fairness.md: if this fails, deals changed, and every published
    /// match would no longer replay. Never update it without a new engine version.
    #[test]
    fn the_published_test_vector_holds() {
        let seed = seed();
        assert_eq!(
            sha256_hex(&seed),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        assert_eq!(GameRng::for_setup(&seed).next_u64(), 0x71b2_71ee_5b1e_1c16);
        let mut deck: Vec<u32> = (0..16).collect();
        GameRng::for_setup(&seed).shuffle(&mut deck);
        assert_eq!(deck, [12, 10, 13, 15, 9, 2, 11, 14, 8, 0, 1, 5, 3, 4, 7, 6]);
        let mut deck: Vec<u32> = (0..12).collect();
        GameRng::for_step(&seed, 7).shuffle(&mut deck);
        assert_eq!(deck, [4, 1, 3, 5, 2, 9, 6, 11, 0, 8, 10, 7]);
        let mut r = GameRng::for_step(&seed, 0);
        let draws: Vec<u64> = (0..5).map(|_| r.below(6)).collect();
        assert_eq!(draws, [1, 3, 5, 5, 4]);
    }
}

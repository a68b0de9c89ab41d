//! Password hashing with bounded memory and bounded concurrency.
//!
//! One argon2id computation with the crate's default parameters fills 19 MiB of
//! memory blocks. Run on tokio's blocking pool (up to 512 threads), every login
//! in a burst allocated its own, and the allocator kept what it had grown to: a
//! few hundred failed logins left the server at several GiB, a way for anyone
//! to exhaust its memory. Here a fixed number of threads (as many as the
//! machine has cores unless configured) each keep one block buffer for good,
//! and a semaphore admits at most that many computations; a request that finds
//! no free thread within a bounded wait is answered `503` with `Retry-After`
//! instead of queueing without limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::{Semaphore, oneshot};

/// A password hash could not be computed now, or at all.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every hashing thread stayed busy for the whole wait.
    #[error("password hashing is busy")]
    Busy,
    #[error("password hashing failed: {0}")]
    Failed(String),
}

type Job = Box<dyn FnOnce(&mut Vec<Block>) + Send>;

/// The pool: `threads` hashing threads, each with a block buffer it reuses.
pub struct PasswordPool {
    permits: Arc<Semaphore>,
    wait: Duration,
    jobs: Mutex<mpsc::Sender<Job>>,
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    threads: usize,
}

impl PasswordPool {
    /// `threads` at least 1; `wait` is how long a request may wait for one.
    pub fn new(threads: usize, wait: Duration) -> Self {
        let threads = threads.max(1);
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || {
                    let mut blocks = Vec::new();
                    loop {
                        // The lock is held only while taking the next job.
                        let job = match rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(&mut blocks),
                            Err(_) => return, // the pool was dropped
                        }
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a password hashing thread");
            }
        }
        Self {
            permits: Arc::new(Semaphore::new(threads)),
            wait,
            jobs: Mutex::new(tx),
            running: Arc::new(AtomicUsize::new(0)),
            peak: Arc::new(AtomicUsize::new(0)),
            threads,
        }
    }

    /// The number of hashing threads (and so of computations at once).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Computations running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Relaxed)
    }

    /// The most computations ever seen running at once in this process.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// How long a request waits for a hashing thread before `Busy`.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// An argon2id PHC string of `password` with the default parameters and a
    /// random salt.
    pub async fn hash(&self, password: &str) -> Result<String, HashError> {
        let password = password.to_owned();
        self.run(move |blocks| hash_with(&password, blocks)).await?
    }

    /// Whether `password` matches the stored PHC string.
    pub async fn verify(&self, password: &str, phc: &str) -> Result<bool, HashError> {
        let (password, phc) = (password.to_owned(), phc.to_owned());
        self.run(move |blocks| verify_with(&password, &phc, blocks))
            .await
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| HashError::Busy)?
            .map_err(|_| HashError::Busy)?;
        let (tx, rx) = oneshot::channel();
        let (running, peak) = (self.running.clone(), self.peak.clone());
        let job: Job = Box::new(move |blocks| {
            let now = running.fetch_add(1, Ordering::Relaxed) + 1;
            peak.fetch_max(now, Ordering::Relaxed);
            let out = f(blocks);
            running.fetch_sub(1, Ordering::Relaxed);
            let _ = tx.send(out);
        });
        self.jobs
            .lock()
            .map_err(|_| HashError::Failed("the hashing pool is poisoned".into()))?
            .send(job)
            .map_err(|_| HashError::Failed("no hashing thread runs".into()))?;
        // The permit is held until the result is back, so at most `threads`
        // jobs are ever queued or running.
        let out = rx
            .await
            .map_err(|_| HashError::Failed("a hashing thread stopped".into()));
        drop(permit);
        out
    }
}

/// The buffer grown to `n` blocks (kept for the thread's next computation).
fn blocks_for(blocks: &mut Vec<Block>, n: usize) -> &mut [Block] {
    if blocks.len() < n {
        blocks.resize(n, Block::new());
    }
    &mut blocks[..n]
}

/// Stored hashes at most this costly are computed; a larger `m` in a stored
/// string (which only a tampered database could hold) is refused rather than
/// allowed to allocate without bound.
const MAX_MEMORY_KIB: u32 = 64 * 1024;

fn hash_with(password: &str, blocks: &mut Vec<Block>) -> Result<String, HashError> {
    let failed = |e: &dyn std::fmt::Display| HashError::Failed(e.to_string());
    let params = Params::default();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| failed(&e))?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon
        .hash_password_into_with_memory(
            password.as_bytes(),
            &salt,
            &mut out,
            blocks_for(blocks, params.block_count()),
        )
        .map_err(|e| failed(&e))?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| failed(&e))?,
        salt: Some(Salt::new(&salt).map_err(|e| failed(&e))?),
        hash: Some(Output::new(&out).map_err(|e| failed(&e))?),
    };
    Ok(phc.to_string())
}

/// A malformed stored string verifies nothing (as the crate's own verifier).
fn verify_with(password: &str, phc: &str, blocks: &mut Vec<Block>) -> bool {
    let Ok(hash) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
        return false;
    };
    let Ok(params) = Params::try_from(&hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(hash.algorithm.as_str()) else {
        return false;
    };
    let version = match hash.version.map(Version::try_from).transpose() {
        Ok(v) => v.unwrap_or_default(),
        Err(_) => return false,
    };
    if params.m_cost() > MAX_MEMORY_KIB {
        return false;
    }
    let n = params.block_count();
    let mut out = vec![0u8; expected.len()];
    let argon = Argon2::new(algorithm, version, params);
    if argon
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, blocks_for(blocks, n))
        .is_err()
    {
        return false;
    }
    // `Output`'s equality is constant-time.
    Output::new(&out).is_ok_and(|computed| &computed == expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier;

    fn pool(threads: usize, wait_ms: u64) -> PasswordPool {
        PasswordPool::new(threads, Duration::from_millis(wait_ms))
    }

    #[tokio::test]
    async fn a_hash_verifies_here_and_with_the_crates_own_verifier() {
        let p = pool(1, 5000);
        let phc = p.hash("correct horse").await.expect("hashed");
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(p.verify("correct horse", &phc).await.expect("ran"));
        assert!(!p.verify("wrong horse", &phc).await.expect("ran"));
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", phc.as_str())
                .is_ok()
        );
    }

    #[tokio::test]
    async fn hashes_made_by_the_crate_verify_and_garbage_does_not() {
        use argon2::PasswordHasher;
        let p = pool(1, 5000);
        let phc = Argon2::default()
            .hash_password(b"s3cret!")
            .expect("hashed")
            .to_string();
        assert!(p.verify("s3cret!", &phc).await.expect("ran"));
        for bad in [
            "",
            "not a hash",
            "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaA",
        ] {
            assert!(!p.verify("s3cret!", bad).await.expect("ran"), "{bad}");
        }
    }

    #[tokio::test]
    async fn no_more_computations_run_at_once_than_the_pool_has_threads() {
        let p = Arc::new(pool(2, 60_000));
        let phc = p.hash("pw").await.expect("hashed");
        let tasks: Vec<_> = (0..12)
            .map(|_| {
                let (p, phc) = (p.clone(), phc.clone());
                tokio::spawn(async move { p.verify("nope", &phc).await })
            })
            .collect();
        for t in tasks {
            assert!(!t.await.expect("joined").expect("ran"));
        }
        assert!(p.peak() <= 2, "peak {}", p.peak());
        assert_eq!(p.running(), 0);
    }

    #[tokio::test]
    async fn a_request_that_finds_every_thread_busy_past_the_wait_is_refused() {
        let p = pool(1, 0);
        // Holding the only permit stands for a computation in progress.
        let held = p.permits.clone().acquire_owned().await.expect("permit");
        assert!(matches!(p.verify("pw", "x").await, Err(HashError::Busy)));
        drop(held);
        assert!(matches!(p.verify("pw", "x").await, Ok(false)));
    }
}

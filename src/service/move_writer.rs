//! Many moves, one commit. The one-statement moves of a process go through a
//! queue to a few writers; a writer takes every move waiting when it becomes
//! free (and, if told to, what arrives within a short wait after the first),
//! and writes them as one statement: one round trip and one commit for all.
//! Moves arriving while every writer is busy gather for the next, so a batch
//! grows with the load and a lone move goes at once, as Postgres's own WAL
//! writer groups commits.
//!
//! Each move keeps its own version condition and gets its own answer: a stale
//! one writes nothing and its caller takes the locked path, as a stale move
//! written alone does. A batch holds one move per match (a second waits its
//! turn in the queue); a batch a unique index or a deadlock refuses is written
//! again move by move, so a refused move fails alone; so is a batch that
//! failed for any other reason, so one move's error is never another's.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use sea_orm::{DatabaseConnection, DbErr};
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::metrics::Metrics;
use crate::store::move_write::{self, BatchWritten, MoveLists, MoveRows, Written};

/// How the writers gather.
#[derive(Clone, Copy, Debug)]
pub struct Batching {
    /// The most moves a statement carries.
    pub most: usize,
    /// Statements in flight at once.
    pub writers: usize,
    /// How long a writer waits for more after the first move (zero: no wait).
    pub wait: Duration,
}

type Answer = (MoveRows, Result<Written, DbErr>);

struct Job {
    rows: MoveRows,
    answer: oneshot::Sender<Answer>,
}

/// The queue to this process's move writers.
pub struct MoveWriter {
    queue: mpsc::UnboundedSender<Job>,
}

impl MoveWriter {
    /// Starts the writers on `db` (plain Postgres, the arrays' pool).
    pub fn start(db: DatabaseConnection, batching: Batching, metrics: Arc<Metrics>) -> Self {
        let (queue, waiting) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            waiting: Mutex::new(Waiting {
                queue: waiting,
                deferred: Vec::new(),
            }),
            db,
            batching,
            metrics,
        });
        for _ in 0..batching.writers.max(1) {
            tokio::spawn(shared.clone().run());
        }
        Self { queue }
    }

    /// Writes a move with whatever else is waiting, and answers how it ended,
    /// handing its rows back.
    pub async fn write(&self, rows: MoveRows) -> Result<(MoveRows, Written), DbErr> {
        let stopped = || DbErr::Custom("the move writers have stopped".into());
        let (answer, answered) = oneshot::channel();
        self.queue
            .send(Job { rows, answer })
            .map_err(|_| stopped())?;
        let (rows, written) = answered.await.map_err(|_| stopped())?;
        Ok((rows, written?))
    }
}

struct Waiting {
    queue: mpsc::UnboundedReceiver<Job>,
    /// Moves of a match that already had one in the batch being gathered:
    /// first in the next.
    deferred: Vec<Job>,
}

struct Shared {
    waiting: Mutex<Waiting>,
    db: DatabaseConnection,
    batching: Batching,
    metrics: Arc<Metrics>,
}

impl Shared {
    async fn run(self: Arc<Self>) {
        while let Some(batch) = self.gather().await {
            self.write(batch).await;
        }
    }

    /// The next batch: what was deferred, then the first move to arrive and
    /// everything behind it, one move a match. `None` once the queue is closed
    /// and empty.
    async fn gather(&self) -> Option<Vec<Job>> {
        let mut w = self.waiting.lock().await;
        let most = self.batching.most.max(1);
        let mut batch: Vec<Job> = Vec::new();
        let mut held: HashSet<Uuid> = HashSet::new();
        let mut later = Vec::new();
        for job in std::mem::take(&mut w.deferred) {
            if batch.len() < most && held.insert(job.rows.after.id) {
                batch.push(job);
            } else {
                later.push(job);
            }
        }
        if batch.is_empty() {
            let job = w.queue.recv().await?;
            held.insert(job.rows.after.id);
            batch.push(job);
        }
        let until = tokio::time::Instant::now() + self.batching.wait;
        while batch.len() < most {
            let next = match w.queue.try_recv() {
                Ok(job) => job,
                Err(_) if self.batching.wait.is_zero() => break,
                Err(_) => match tokio::time::timeout_at(until, w.queue.recv()).await {
                    Ok(Some(job)) => job,
                    _ => break,
                },
            };
            if held.insert(next.rows.after.id) {
                batch.push(next);
            } else {
                later.push(next);
            }
        }
        w.deferred = later;
        Some(batch)
    }

    async fn write(&self, batch: Vec<Job>) {
        let counted = |how: &str, n: usize| {
            self.metrics
                .move_writes
                .with_label_values(&[how])
                .inc_by(n as u64);
        };
        if batch.len() == 1 {
            counted("alone", 1);
            return self.write_each(batch).await;
        }
        let writes: Vec<_> = batch.iter().map(|j| j.rows.write()).collect();
        let outcome = move_write::write_moves(&self.db, &writes).await;
        drop(writes);
        match outcome {
            Ok(BatchWritten::Each(written)) => {
                self.metrics.move_batches.inc();
                counted("batched", batch.len());
                for (job, written) in batch.into_iter().zip(written) {
                    let _ = job.answer.send((job.rows, Ok(written)));
                }
            }
            Ok(BatchWritten::Refused) => {
                counted("refused_batch", batch.len());
                self.write_each(batch).await;
            }
            // Whatever failed the batch (a dropped connection, a timeout)
            // fails each move only if it fails that move alone too.
            Err(e) => {
                tracing::warn!(error = %e, moves = batch.len(), "a batch of moves failed; writing each alone");
                counted("refused_batch", batch.len());
                self.write_each(batch).await;
            }
        }
    }

    /// Each move as its own statement, one after the other.
    async fn write_each(&self, batch: Vec<Job>) {
        for job in batch {
            let written =
                move_write::write_move(&self.db, &job.rows.write(), MoveLists::Arrays).await;
            let _ = job.answer.send((job.rows, written));
        }
    }
}

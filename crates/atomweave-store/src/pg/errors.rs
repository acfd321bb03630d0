//! The driver's errors, as the store reports them.
//!
//! Invariant: every error names what went wrong in the server's words (or
//! that the server cannot be reached, and that the batch in flight was
//! not stored); a deadlock or serialization failure is a
//! [`StoreError::Conflict`], and only that is tried again, at most
//! [`CONFLICT_TRIES`] times.

use std::time::Duration;

use crate::{Result, StoreError};

/// What the driver says went wrong: the server's message (and detail), or
/// the error and its cause.
pub(super) fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_string(),
        };
    }
    match std::error::Error::source(e) {
        Some(why) => format!("{e}: {why}"),
        None => e.to_string(),
    }
}

/// Why a first connection failed: the server's message (a wrong password,
/// a missing database), or that it cannot be reached and why.
pub(super) fn connect_err(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(_) => describe(e),
        None => format!("the PostgreSQL server cannot be reached ({})", describe(e)),
    }
}

/// How often a batch is tried when the server rolls it back for a conflict
/// with another writer ([`PgStore::write`]).
const CONFLICT_TRIES: usize = 6;

/// Up to `ms` milliseconds, drawn from the clock's nanoseconds: writers
/// that conflicted do not try again in step.
fn jitter_ms(ms: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    u64::from(nanos) % ms.max(1)
}

/// `attempt`, a transaction, tried again after a pause that grows (at
/// random) while the server rolls it back for a conflict with another
/// writer's, [`CONFLICT_TRIES`] times in all.
pub(super) fn retry_conflicts<T>(mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut pause_ms = 10u64;
    for _ in 1..CONFLICT_TRIES {
        match attempt() {
            Err(StoreError::Conflict(_)) => {
                std::thread::sleep(Duration::from_millis(pause_ms / 2 + jitter_ms(pause_ms)));
                pause_ms *= 2;
            }
            done => return done,
        }
    }
    attempt().map_err(|e| match e {
        StoreError::Conflict(why) => StoreError::Conflict(format!("{why} (the batch was tried {CONFLICT_TRIES} times; none of it was stored)")),
        e => e,
    })
}

/// A clear error from the driver: the server's message, or that the
/// server cannot be reached; a deadlock or serialization failure is a
/// [`StoreError::Conflict`], which [`retry_conflicts`] tries again.
pub(super) fn pg_err(url: &str, e: postgres::Error) -> StoreError {
    use postgres::error::SqlState;
    if e.code().is_some_and(|c| *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE) {
        return StoreError::Conflict(format!("postgres: {}", describe(&e)));
    }
    if e.as_db_error().is_none() && (e.is_closed() || std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>())) {
        return StoreError::Backend(format!(
            "{url}: the PostgreSQL server cannot be reached or went away ({e}); nothing of the batch in flight was stored, and the next call reconnects"
        ));
    }
    StoreError::Backend(format!("postgres: {}", describe(&e)))
}

#[cfg(all(test, feature = "scratch-server"))]
mod tests {
    use super::super::scratch_server::ScratchServer;
    use super::*;
    use postgres::{Client, NoTls};

    /// A batch rolled back for a conflict is tried again, up to
    /// `CONFLICT_TRIES` times; other errors end it at once.
    #[test]
    fn conflicts_are_tried_again_and_other_errors_are_not() {
        let mut calls = 0;
        let got = retry_conflicts(|| {
            calls += 1;
            if calls < 3 {
                Err(StoreError::Conflict("deadlock detected".into()))
            } else {
                Ok(calls)
            }
        });
        assert_eq!(got.unwrap(), 3);
        calls = 0;
        let err = retry_conflicts(|| -> Result<()> {
            calls += 1;
            Err(StoreError::Conflict("deadlock detected".into()))
        })
        .unwrap_err();
        assert_eq!(calls, CONFLICT_TRIES);
        assert!(matches!(&err, StoreError::Conflict(m) if m.contains("tried 6 times")), "{err}");
        calls = 0;
        let err = retry_conflicts(|| -> Result<()> {
            calls += 1;
            Err(StoreError::Backend("gone".into()))
        })
        .unwrap_err();
        assert_eq!(calls, 1);
        assert!(matches!(err, StoreError::Backend(_)));
    }

    /// A deadlock between two transactions, as the server reports it to the
    /// one it rolls back, is a conflict (what `write` tries again).
    #[test]
    fn a_deadlock_the_server_reports_is_a_conflict() {
        let s = ScratchServer::start(false).unwrap();
        let url = s.url();
        let mut a = Client::connect(&url, NoTls).unwrap();
        let mut b = Client::connect(&url, NoTls).unwrap();
        a.batch_execute("CREATE TABLE t (id int PRIMARY KEY, x int); INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
        let mut ta = a.transaction().unwrap();
        let mut tb = b.transaction().unwrap();
        ta.execute("UPDATE t SET x = 1 WHERE id = 1", &[]).unwrap();
        tb.execute("UPDATE t SET x = 2 WHERE id = 2", &[]).unwrap();
        // Each now waits for the row the other holds: the server rolls one back.
        let (ra, rb) = std::thread::scope(|sc| {
            let first = sc.spawn(move || ta.execute("UPDATE t SET x = 1 WHERE id = 2", &[]).map(drop));
            std::thread::sleep(Duration::from_millis(100));
            let second = tb.execute("UPDATE t SET x = 2 WHERE id = 1", &[]).map(drop);
            (first.join().unwrap(), second)
        });
        let lost = ra.err().or(rb.err()).expect("one of the two is rolled back");
        assert!(matches!(pg_err(&url, lost), StoreError::Conflict(m) if m.contains("deadlock")));
    }
}

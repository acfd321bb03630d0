//! The store's tables and indexes, made (or moved from version 1) when a
//! store is opened, and how an atom is a row of `atoms`.
//!
//! Invariant: a store has schema version [`SCHEMA`](super::SCHEMA) or is
//! refused when opened (a version 1 store is moved to version 2 first, in
//! one transaction); an atom's row is keyed by a digest of its type code
//! and its name or members' uuids (an unordered link's sorted), so one
//! content is one row whoever stores it; and every condition that finds
//! holders ([`holding!`]) is answered by an index.

use atomweave::{Handle, TruthValue};
use postgres::types::Type as SqlType;
use sha2::{Digest, Sha256};

use super::errors::{describe, pg_err};
use super::{PgStore, SCHEMA};
use crate::{HashMap, Result, SpaceIds, StoreError};

// Sets of uuids or digests are passed as arrays and joined with
// `unnest(..)`, on connections that do not hash or merge join: every
// statement here looks rows up by key, and for a batch of tens of
// thousands of keys the planner would otherwise scan the whole table
// (as it does for `= ANY(..)`), once per batch.

const CREATE: &str = "
CREATE TABLE atomweave_types (code smallint PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE SEQUENCE atomweave_ids INCREMENT BY 4096 START WITH 1;
CREATE TABLE atoms (
    uuid bigint NOT NULL,
    type smallint NOT NULL,
    height smallint NOT NULL,
    name text,
    outgoing bigint[],
    digest bytea NOT NULL,
    tv_mean double precision,
    tv_confidence double precision,
    tv_count double precision
) WITH (fillfactor = 85);
CREATE TABLE atom_values (atom bigint NOT NULL, key bigint NOT NULL, value bytea NOT NULL);
";

/// The indexes, made with the tables, and again after a whole space has
/// been copied into an empty store without them (building an index from
/// sorted rows is several times faster than growing it row by row).
pub(super) const INDEXES: &str = "
ALTER TABLE atoms ADD CONSTRAINT atoms_pkey PRIMARY KEY (uuid);
CREATE UNIQUE INDEX atoms_digest ON atoms (digest);
ALTER TABLE atom_values ADD CONSTRAINT atom_values_pkey PRIMARY KEY (atom, key);
";
/// The indexes that find the links holding an atom; `holding!` is the
/// condition that uses them (each part implies its index's predicate).
pub(super) const MEMBER_INDEXES: &str = "
CREATE INDEX atoms_member1 ON atoms ((outgoing[1])) WHERE cardinality(outgoing) > 0;
CREATE INDEX atoms_member2 ON atoms ((outgoing[2])) WHERE cardinality(outgoing) > 1;
CREATE INDEX atoms_members ON atoms USING gin (outgoing) WHERE cardinality(outgoing) > 2;
";
pub(super) const DROP_INDEXES: &str = "
ALTER TABLE atoms DROP CONSTRAINT atoms_pkey;
DROP INDEX atoms_digest, atoms_member1, atoms_member2, atoms_members;
ALTER TABLE atom_values DROP CONSTRAINT atom_values_pkey;
";

/// Rows of links holding any of the uuids in `$1`, through [`MEMBER_INDEXES`].
macro_rules! holding {
    () => {
        "((cardinality(outgoing) > 0 AND outgoing[1] = ANY($1::bigint[])) \
          OR (cardinality(outgoing) > 1 AND outgoing[2] = ANY($1::bigint[])) \
          OR (cardinality(outgoing) > 2 AND outgoing && $1::bigint[]))"
    };
}
pub(super) use holding;

/// Per-connection settings and staging tables (emptied at every commit).
pub(super) const STAGING: &str = "
SET enable_hashjoin = off;
SET enable_mergejoin = off;
CREATE TEMP TABLE aw_stage (LIKE atoms) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE aw_values (atom bigint, key bigint, value bytea) ON COMMIT DELETE ROWS;
";

pub(super) const ATOM_COLUMNS: &str = "uuid, type, height, name, outgoing, digest, tv_mean, tv_confidence, tv_count";
pub(super) const ATOM_TYPES: [SqlType; 9] =
    [SqlType::INT8, SqlType::INT2, SqlType::INT2, SqlType::TEXT, SqlType::INT8_ARRAY, SqlType::BYTEA, SqlType::FLOAT8, SqlType::FLOAT8, SqlType::FLOAT8];
pub(super) const READ_COLUMNS: &str = "uuid, type, height, name, outgoing, tv_mean, tv_confidence, tv_count";
pub(super) const READ_TYPES: [SqlType; 8] =
    [SqlType::INT8, SqlType::INT2, SqlType::INT2, SqlType::TEXT, SqlType::INT8_ARRAY, SqlType::FLOAT8, SqlType::FLOAT8, SqlType::FLOAT8];

/// The truth value as its three columns.
pub(super) fn tv_columns(tv: TruthValue) -> [Option<f64>; 3] {
    match tv {
        _ if tv.is_default() => [None; 3],
        TruthValue::Simple { strength, confidence } => [Some(strength), Some(confidence), None],
        TruthValue::Count { mean, confidence, count } => [Some(mean), Some(confidence), Some(count)],
    }
}

pub(super) fn tv_of(cols: [Option<f64>; 3]) -> TruthValue {
    match cols {
        [Some(m), Some(c), None] => TruthValue::simple(m, c),
        [Some(m), Some(c), Some(n)] => TruthValue::count(m, c, n),
        _ => TruthValue::DEFAULT,
    }
}

fn digest(tag: u8, code: i16, body: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update([tag]);
    h.update(code.to_le_bytes());
    h.update(body);
    h.finalize()[..16].try_into().expect("16 of 32 bytes")
}

pub(super) fn node_digest(code: i16, name: &str) -> [u8; 16] {
    digest(b'N', code, name.as_bytes())
}

/// Unordered links' members are sorted by uuid first.
pub(super) fn link_digest(code: i16, members: &[i64]) -> [u8; 16] {
    let bytes: Vec<u8> = members.iter().flat_map(|m| m.to_le_bytes()).collect();
    digest(b'L', code, &bytes)
}

/// An atom about to be written.
pub(super) struct Row {
    pub(super) h: Handle,
    pub(super) uuid: i64,
    pub(super) height: i16,
}

/// An atom read from `atoms`.
pub(super) struct Stored {
    pub(super) uuid: i64,
    pub(super) code: i16,
    pub(super) height: i16,
    pub(super) name: Option<String>,
    pub(super) outgoing: Option<Vec<i64>>,
    pub(super) tv: TruthValue,
}

pub(super) fn stored_of(row: &postgres::Row) -> Stored {
    Stored { uuid: row.get(0), code: row.get(1), height: row.get(2), name: row.get(3), outgoing: row.get(4), tv: tv_of([row.get(5), row.get(6), row.get(7)]) }
}

/// Store uuids and heights of atoms, by handle.
pub(super) type Ids = HashMap<Handle, (i64, i16)>;

/// [`Ids`] kept across writes, for a whole space: by handle number (no
/// uuid is 0, which marks none).
pub(super) type UuidCache = SpaceIds<(i64, i16)>;

/// Encoded values by (atom uuid, key uuid); `None` removes the value.
pub(super) type ValueRows = HashMap<(i64, i64), Option<Vec<u8>>>;

impl PgStore {
    pub(super) fn make_schema(&mut self, create: bool) -> Result<()> {
        let url = self.url.clone();
        let open_err = |msg: String| StoreError::Open { url: url.clone(), msg };
        let mut t = self.client()?.transaction().map_err(|e| pg_err(&url, e))?;
        // Two processes opening a new database at once make the schema once.
        t.execute("SELECT pg_advisory_xact_lock(7201001)", &[]).map_err(|e| pg_err(&url, e))?;
        let has_meta: bool = t.query_one("SELECT to_regclass('atomweave_meta') IS NOT NULL", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        if has_meta {
            let found: Option<String> =
                t.query_opt("SELECT value FROM atomweave_meta WHERE key = 'schema'", &[]).map_err(|e| pg_err(&url, e))?.map(|r| r.get(0));
            match found.as_deref().map(str::parse::<u32>) {
                Some(Ok(SCHEMA)) => return t.commit().map_err(|e| pg_err(&url, e)),
                Some(Ok(1)) => {
                    // Version 1 differs only in its one GIN index of every link, and full pages.
                    // The new indexes are built first (readers go on meanwhile,
                    // writers wait), the old one dropped last, briefly locking all out.
                    let moved = t
                        .batch_execute("SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL lock_timeout = '60s'")
                        .and_then(|()| t.batch_execute(MEMBER_INDEXES))
                        .and_then(|()| t.batch_execute("DROP INDEX atoms_outgoing; ALTER TABLE atoms SET (fillfactor = 85)"))
                        .and_then(|()| t.execute("UPDATE atomweave_meta SET value = $1 WHERE key = 'schema'", &[&SCHEMA.to_string()]))
                        .and_then(|_| t.commit());
                    return moved.map_err(|e| {
                        open_err(format!(
                            "the store has schema version 1, which this atomweave moves to version {SCHEMA} when it opens it (its indexes and page fill only), \
                             and could not: {} (open it once as the owner of its tables, on the primary server)",
                            describe(&e)
                        ))
                    });
                }
                Some(Ok(v)) => {
                    return Err(open_err(format!(
                        "the store has schema version {v}; this atomweave reads version {SCHEMA} (copy it with the atomweave that wrote it)"
                    )))
                }
                _ => return Err(open_err("atomweave_meta has no schema version: not an atomweave store".into())),
            }
        }
        if !create {
            return Err(open_err("no atomweave store in this database".into()));
        }
        let has_atoms: bool = t.query_one("SELECT to_regclass('atoms') IS NOT NULL", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        if has_atoms {
            return Err(open_err("the database has an `atoms` table but no atomweave_meta: not an atomweave store".into()));
        }
        t.batch_execute(CREATE).map_err(|e| pg_err(&url, e))?;
        t.batch_execute(INDEXES).map_err(|e| pg_err(&url, e))?;
        t.batch_execute(MEMBER_INDEXES).map_err(|e| pg_err(&url, e))?;
        t.execute("CREATE TABLE atomweave_meta (key text PRIMARY KEY, value text NOT NULL)", &[]).map_err(|e| pg_err(&url, e))?;
        t.execute("INSERT INTO atomweave_meta VALUES ('schema', $1)", &[&SCHEMA.to_string()]).map_err(|e| pg_err(&url, e))?;
        t.commit().map_err(|e| pg_err(&url, e))
    }
}

#[cfg(all(test, feature = "scratch-server"))]
mod tests {
    use super::super::scratch_server::ScratchServer;
    use super::PgStore;
    use postgres::{Client, NoTls};

    /// Each part of `holding!` is answered by its index: were one not (a
    /// condition that no longer implies its index's predicate), finding
    /// incoming sets would read the whole table.
    #[test]
    fn holders_are_found_through_the_member_indexes() {
        let s = ScratchServer::start(false).unwrap();
        PgStore::open(&s.url(), true).unwrap();
        let mut c = Client::connect(&s.url(), NoTls).unwrap();
        // Links of two members, and some of three, as a planner sees them.
        c.batch_execute(
            "INSERT INTO atoms (uuid, type, height, outgoing, digest) \
             SELECT g, 1, 1, CASE WHEN g % 10 = 0 THEN ARRAY[g + 1, g + 2, g + 3] ELSE ARRAY[g + 1, g + 2] END, \
                    substring(sha256(int8send(g)) for 16) FROM generate_series(1, 50000) g; \
             ANALYZE atoms",
        )
        .unwrap();
        c.batch_execute(concat!("PREPARE holders(bigint[]) AS SELECT uuid FROM atoms WHERE ", holding!())).unwrap();
        let plan: String = c.query("EXPLAIN EXECUTE holders('{1, 2}')", &[]).unwrap().iter().map(|r| r.get::<_, String>(0) + "\n").collect();
        assert!(!plan.contains("Seq Scan"), "{plan}");
        for index in ["atoms_member1", "atoms_member2", "atoms_members"] {
            assert!(plan.contains(index), "{index} unused:\n{plan}");
        }
    }
}

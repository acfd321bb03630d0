//! A writer of RocksDB stores in upstream's atomspace-rocks layout, key by
//! key, with the `rocksdb` crate: the fixture the rocks:// tests read. It
//! shares no code with the backend (its texts are written out by hand
//! here), so that a mistake in the backend's encoder cannot hide in both.
//!
//! The layout, from upstream's RocksIO.cc: `a@SID:` -> the atom's
//! s-expression (after `h@HASH` for a scope link), `n@`/`l@` + s-expression
//! -> SID, `k@SID:KID` -> value text, `i@SID:TYPE-LID` -> "", `h@HASH` ->
//! "SID " list, `*-Version-*`, `*-NextUnusedAID-*` (the highest id issued).
//! A SID is the id in base 62, least significant digit first.

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::Path;

/// Upstream's base 62, least significant digit first.
pub fn sid(mut n: u64) -> String {
    const D: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut s = String::new();
    loop {
        s.push(D[(n % 62) as usize] as char);
        n /= 62;
        if n == 0 {
            return s;
        }
    }
}

/// Writes raw keys into a RocksDB database.
pub struct Writer {
    pub db: rocksdb::DB,
}

impl Writer {
    pub fn create(dir: &Path) -> Writer {
        let mut o = rocksdb::Options::default();
        o.create_if_missing(true);
        Writer { db: rocksdb::DB::open(&o, dir).unwrap() }
    }

    pub fn put(&self, k: &str, v: &str) {
        self.db.put(k.as_bytes(), v.as_bytes()).unwrap();
    }

    /// The store's header: its version and the highest id issued.
    pub fn header(&self, version: &str, highest: u64) {
        self.put("*-Version-*", version);
        self.put("*-NextUnusedAID-*", &sid(highest));
    }

    /// An atom: its text under its id, its id under its text, and (for a
    /// link of `link_type`) an incoming entry in each member's index.
    pub fn atom(&self, aid: u64, text: &str, link_type: Option<&str>, members: &[u64]) {
        let s = sid(aid);
        self.put(&format!("a@{s}:"), text);
        self.put(&format!("{}{text}", if link_type.is_some() { "l@" } else { "n@" }), &s);
        if let Some(t) = link_type {
            for m in members {
                self.put(&format!("i@{}:{t}-{s}", sid(*m)), "");
            }
        }
    }

    /// A value of atom `aid` under key atom `key`.
    pub fn value(&self, aid: u64, key: u64, text: &str) {
        self.put(&format!("k@{}:{}", sid(aid), sid(key)), text);
    }

    /// Every key and value, in key order.
    pub fn all(db: &rocksdb::DB) -> Vec<(String, String)> {
        db.iterator(rocksdb::IteratorMode::Start)
            .map(|e| {
                let (k, v) = e.unwrap();
                (String::from_utf8(k.to_vec()).unwrap(), String::from_utf8(v.to_vec()).unwrap())
            })
            .collect()
    }
}

/// A small store as upstream writes it (its version 2, before truth values
/// became plain values): the truth value's key at id 1, nodes, links, a
/// name with a quote and a backslash, an empty link, an id of two digits
/// (62, `01`), a scope link with its hash, and every kind of value.
pub fn write_sample(dir: &Path) {
    let w = Writer::create(dir);
    w.header("2", 62);
    w.atom(1, "(PredicateNode \"*-TruthValueKey-*\")", None, &[]);
    w.atom(2, "(ConceptNode \"cat\")", None, &[]);
    w.atom(3, "(ConceptNode \"animal\")", None, &[]);
    w.atom(4, "(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\"))", Some("InheritanceLink"), &[2, 3]);
    w.atom(5, "(PredicateNode \"key\")", None, &[]);
    w.atom(6, "(ConceptNode \"say \\\"hi\\\"\\\\\")", None, &[]);
    w.atom(7, "(ListLink (ConceptNode \"cat\")(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\")))", Some("ListLink"), &[2, 4]);
    w.atom(8, "(ListLink )", Some("ListLink"), &[]);
    w.atom(62, "(ConceptNode \"far\")", None, &[]);
    w.atom(10, "(VariableNode \"$x\")", None, &[]);
    // A scope link: its hash before its text, and in the hash's list.
    w.put("a@B:", "h@q3Zx(LambdaLink (VariableNode \"$x\")(ConceptNode \"cat\"))");
    w.put("l@(LambdaLink (VariableNode \"$x\")(ConceptNode \"cat\"))", "B");
    w.put("i@A:LambdaLink-B", "");
    w.put("i@2:LambdaLink-B", "");
    w.put("h@q3Zx", "B ");
    w.value(4, 1, "(SimpleTruthValue 0.9 0.8)");
    w.value(2, 1, "(CountTruthValue 1 0.5 42)");
    w.value(2, 5, "(FloatValue 1 2.5 -3 1e+20)");
    w.value(3, 5, "(StringValue \"a\" \"b\\\"c\")");
    // Upstream writes atoms inside values in the short form, over lines.
    w.value(4, 5, "(LinkValue (Concept \"x\")(FloatValue 0.5)(List\n  (Concept \"y\")))");
    w.value(7, 5, "(BoolValue 1 0 1)");
    w.value(8, 5, "(VoidValue)");
    w.value(62, 5, "(ConceptNode \"cat\")");
    w.value(11, 5, "(FloatValue 3)");
}

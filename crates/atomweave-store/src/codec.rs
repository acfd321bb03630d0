//! The binary form of values in a store. Atoms inside values are written as
//! store ids, which the caller maps.

use std::sync::Arc;

use atomweave::{TruthValue, Value};

use crate::{Result, StoreError};

const FLOAT: u8 = 0;
const STRING: u8 = 1;
const BOOL: u8 = 2;
const LINK: u8 = 3;
const VOID: u8 = 4;
const STV: u8 = 5;
const CTV: u8 = 6;
const ATOM: u8 = 7;
/// A held AtomSpace: its name (its atoms are stored on their own).
const SPACE: u8 = 8;
/// A QueueValue: what it holds when stored, front first.
const QUEUE: u8 = 9;

/// LinkValues nest at most this deep (as a space allows).
const MAX_DEPTH: usize = atomweave::MAX_VALUE_NESTING;

/// Appends `v`; `id_of` gives the store id of an atom the value holds.
pub fn encode(v: &Value, out: &mut Vec<u8>, id_of: &mut dyn FnMut(atomweave::Handle) -> Result<u64>) -> Result<()> {
    write(v, out, id_of, 0)
}

/// Refuses what [`encode`] would refuse (a stream, nesting too deep, a
/// part too large), before there are store ids to encode with.
pub fn check(v: &Value) -> Result<()> {
    encode(v, &mut Vec::new(), &mut |_| Ok(0))
}

fn write(v: &Value, out: &mut Vec<u8>, id_of: &mut dyn FnMut(atomweave::Handle) -> Result<u64>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(StoreError::Unsupported(format!("a LinkValue nested more than {MAX_DEPTH} deep cannot be stored")));
    }
    // Counts and lengths are 32-bit: a longer one is an error, not a wrap.
    let len = |out: &mut Vec<u8>, n: usize| -> Result<()> {
        let n =
            u32::try_from(n).map_err(|_| StoreError::Unsupported(format!("a value of {n} elements or bytes is too large to store (at most {})", u32::MAX)))?;
        out.extend_from_slice(&n.to_le_bytes());
        Ok(())
    };
    match v {
        Value::Float(xs) => {
            out.push(FLOAT);
            len(out, xs.len())?;
            xs.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        Value::String(ss) => {
            out.push(STRING);
            len(out, ss.len())?;
            for s in ss.iter() {
                len(out, s.len())?;
                out.extend_from_slice(s.as_bytes());
            }
        }
        Value::Bool(bs) => {
            out.push(BOOL);
            len(out, bs.len())?;
            out.extend(bs.iter().map(|&b| u8::from(b)));
        }
        Value::Link(vs) => {
            out.push(LINK);
            len(out, vs.len())?;
            for v in vs.iter() {
                write(v, out, id_of, depth + 1)?;
            }
        }
        // Code run at each reading belongs to a running space: store a
        // reading of it instead (its value set under a key).
        Value::Stream(st) => {
            return Err(StoreError::Unsupported(format!(
                "a {} is not stored: it is run at each reading; store a reading of it (set its value under a key) instead",
                st.stream_type().name()
            )))
        }
        Value::Queue(q) => {
            let vs = q.snapshot();
            out.push(QUEUE);
            len(out, vs.len())?;
            for v in &vs {
                write(v, out, id_of, depth + 1)?;
            }
        }
        Value::Void => out.push(VOID),
        Value::Truth(TruthValue::Simple { strength, confidence }) => {
            out.push(STV);
            out.extend_from_slice(&strength.to_le_bytes());
            out.extend_from_slice(&confidence.to_le_bytes());
        }
        Value::Truth(TruthValue::Count { mean, confidence, count }) => {
            out.push(CTV);
            for x in [mean, confidence, count] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        Value::Atom(h) => {
            out.push(ATOM);
            out.extend_from_slice(&id_of(*h)?.to_le_bytes());
        }
        Value::Space(s) => {
            out.push(SPACE);
            let name = s.space().space_name();
            len(out, name.len())?;
            out.extend_from_slice(name.as_bytes());
        }
    }
    Ok(())
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(StoreError::Corrupt("a value ends early".into()));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u32(&mut self) -> Result<usize> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize)
    }
    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
}

/// Reads a value written by [`encode`]; `atom_of` maps store ids back to atoms.
pub fn decode(bytes: &[u8], atom_of: &mut dyn FnMut(u64) -> Result<atomweave::Handle>) -> Result<Value> {
    let mut r = Reader(bytes);
    let v = read(&mut r, atom_of, 0)?;
    if !r.0.is_empty() {
        return Err(StoreError::Corrupt("trailing bytes after a value".into()));
    }
    Ok(v)
}

fn read(r: &mut Reader<'_>, atom_of: &mut dyn FnMut(u64) -> Result<atomweave::Handle>, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(StoreError::Corrupt("LinkValues nested too deep".into()));
    }
    let tag = r.take(1)?[0];
    Ok(match tag {
        FLOAT => {
            let n = r.u32()?;
            Value::Float((0..n).map(|_| r.f64()).collect::<Result<Arc<[f64]>>>()?)
        }
        STRING => {
            let n = r.u32()?;
            // Each string takes at least its 4-byte length: a damaged count
            // cannot make a large allocation.
            let mut v = Vec::with_capacity(n.min(r.0.len() / 4));
            for _ in 0..n {
                let len = r.u32()?;
                let s = std::str::from_utf8(r.take(len)?).map_err(|_| StoreError::Corrupt("a StringValue is not UTF-8".into()))?;
                v.push(s.to_string());
            }
            Value::String(v.into())
        }
        BOOL => {
            let n = r.u32()?;
            Value::Bool(r.take(n)?.iter().map(|&b| b != 0).collect())
        }
        LINK | QUEUE => {
            let n = r.u32()?;
            let mut v = Vec::with_capacity(n.min(r.0.len()));
            for _ in 0..n {
                v.push(read(r, atom_of, depth + 1)?);
            }
            if tag == QUEUE {
                Value::Queue(atomweave::QueueValue::new(v))
            } else {
                Value::Link(v.into())
            }
        }
        VOID => Value::Void,
        STV => Value::Truth(TruthValue::simple(r.f64()?, r.f64()?)),
        CTV => Value::Truth(TruthValue::count(r.f64()?, r.f64()?, r.f64()?)),
        ATOM => Value::Atom(atom_of(r.u64()?)?),
        SPACE => {
            let len = r.u32()?;
            let name = std::str::from_utf8(r.take(len)?).map_err(|_| StoreError::Corrupt("an AtomSpace's name is not UTF-8".into()))?;
            Value::Space(atomweave::AtomSpace::new_named(name).into())
        }
        t => return Err(StoreError::Corrupt(format!("unknown value tag {t}"))),
    })
}

/// Appends `x` as a LEB128 varint (the LMDB and Redis records' member ids
/// and codes).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

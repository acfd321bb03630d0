//! The StorageNode calls (`(opencog persist)`): `(cog-open (RocksStorageNode
//! "rocks:///path"))`, `store-atom`, `fetch-atom`, `load-atomspace`,
//! `barrier`, `cog-close`. A call given no StorageNode uses the one opened
//! last and still open, as upstream's do.

use atomweave::{Handle, Value};
use atomweave_store::registry::{Registry, StoreRef};
use atomweave_store::StorageNode;

use crate::error::{Error, R};
use crate::ffi::{self, Scm, Subr};
use crate::smob::{self, Atom};

/// Open stores, by the space (its index) and StorageNode atom that opened
/// them, the current one last. Its lock is held only to find, add or
/// remove a store: a call then locks that store alone, so a slow fetch
/// holds up no other store.
static OPEN: Registry<(u32, Handle)> = Registry::new();

/// Whether an entry is the one StorageNode atom `n` opened.
fn opened_by(n: Atom) -> impl Fn(&(u32, Handle)) -> bool {
    move |&(space, node)| node == n.h && smob::space_at(space).same_hierarchy(&n.space())
}

/// The optional trailing arguments: a StorageNode atom and an atomspace, in any order.
#[derive(Default)]
struct Where {
    node: Option<Atom>,
    space: Option<u32>,
}

fn where_of(args: &[Scm]) -> R<Where> {
    let mut w = Where::default();
    for &x in args.iter().filter(|x| !x.is_undefined()) {
        if let Some(s) = smob::space_of(x) {
            w.space = Some(s);
        } else if let Some(a) = Atom::from_scm(x).filter(|a| a.get_type().is_ok_and(|t| t.is_a(atomweave::types::STORAGE_NODE))) {
            w.node = Some(a);
        } else {
            return Err(Error::wrong_type("a StorageNode or an atomspace", x));
        }
    }
    Ok(w)
}

/// Stores an embedder gave spaces (by space index): a call given no
/// StorageNode, with none open, uses the current space's. The server gives
/// its space the server's own store this way.
static GIVEN: Registry<u32> = Registry::new();

/// Makes `store` the one the calls use, for `space`, when no StorageNode is
/// open (see `GIVEN`); it is never closed from Scheme.
pub fn give_store(space: u32, store: Box<dyn StorageNode>) {
    GIVEN.add(space, store);
}

/// Runs `f` on the store `node` names (or the current one).
fn with_store<T>(node: Option<Atom>, f: impl FnOnce(&mut dyn StorageNode) -> atomweave_store::Result<T>) -> R<T> {
    Ok(store_of(node)?.call(f)?)
}

/// The store `node` names (or the current one), unlocked.
fn store_of(node: Option<Atom>) -> R<StoreRef> {
    let named = OPEN.named_or_current(node.map(opened_by), "cog-open");
    let given = || node.is_none().then(|| GIVEN.find(|&s| s == crate::api::current())).flatten();
    named.or_else(|e| given().ok_or(e)).map_err(Error::msg)
}

fn atom(x: Scm) -> R<Atom> {
    let a = Atom::from_scm(x).ok_or_else(|| Error::wrong_type("an atom", x))?;
    a.get_type()?;
    Ok(a)
}

fn key_of(a: Atom, k: Scm) -> R<Handle> {
    crate::api::handle_in(a.space, atom(k)?)
}

fn count(n: impl TryInto<i64>) -> Scm {
    ffi::from_i64(n.try_into().unwrap_or(i64::MAX))
}

subrs! {
    cog_open "cog-open" (sn) {
        let a = atom(sn)?;
        a.get_type()?;
        let name = a.space().name(a.h).unwrap_or_default().to_string();
        let already = || Error::msg(format!("{name} is already open"));
        if OPEN.contains(opened_by(a)) {
            return Err(already());
        }
        // Opening may take long (a network, a big file): not under the table's lock.
        let store = atomweave_store::proxy::open_node(&a.space(), a.h)?;
        if let Err(store) = OPEN.add_unless((a.space, a.h), store, opened_by(a)) {
            store.close()?;
            return Err(already());
        }
        Ok(ffi::UNSPECIFIED)
    }
    cog_close "cog-close" (sn) {
        let w = where_of(&[sn])?;
        let opened = match w.node {
            Some(n) => OPEN.remove(opened_by(n)),
            None => OPEN.remove_current(),
        };
        // Waits for a call still using it.
        opened.ok_or_else(|| Error::msg("no such StorageNode is open"))?.close()?;
        Ok(ffi::UNSPECIFIED)
    }
    cog_connected "cog-connected?" (sn) {
        let a = atom(sn)?;
        Ok(Scm::bool(OPEN.contains(opened_by(a))))
    }
    store_atom "store-atom" (x, sn) {
        let a = atom(x)?;
        with_store(where_of(&[sn])?.node, |s| s.store_atom(&a.space(), a.h))?;
        Ok(x)
    }
    store_value "store-value" (x, k, sn) {
        let a = atom(x)?;
        let key = key_of(a, k)?;
        with_store(where_of(&[sn])?.node, |s| s.store_value(&a.space(), a.h, key))?;
        Ok(x)
    }
    update_value "update-value" (x, k, delta, sn) {
        let a = atom(x)?;
        let key = key_of(a, k)?;
        let delta: Vec<f64> = match smob::value_parts(delta) {
            Some((_, xs)) => xs.list_iter().map(|d| ffi::to_f64(d).ok_or_else(|| Error::wrong_type("a number", d))).collect::<R<_>>()?,
            None => vec![ffi::to_f64(delta).ok_or_else(|| Error::wrong_type("a FloatValue or a number", delta))?],
        };
        let v = with_store(where_of(&[sn])?.node, |s| s.update_value(&a.space(), a.h, key, &delta))?;
        Ok(smob::to_scm(&v, a.space))
    }
    fetch_atom "fetch-atom" (x, sn) {
        let a = atom(x)?;
        with_store(where_of(&[sn])?.node, |s| s.fetch_atom(&a.space(), a.h))?;
        Ok(x)
    }
    fetch_value "fetch-value" (x, k, sn) {
        let a = atom(x)?;
        let key = key_of(a, k)?;
        with_store(where_of(&[sn])?.node, |s| s.fetch_value(&a.space(), a.h, key))?;
        Ok(x)
    }
    fetch_incoming_set "fetch-incoming-set" (x, sn) {
        let a = atom(x)?;
        with_store(where_of(&[sn])?.node, |s| s.fetch_incoming_set(&a.space(), a.h, false))?;
        Ok(x)
    }
    fetch_incoming_by_type "fetch-incoming-by-type" (x, t, sn) {
        let a = atom(x)?;
        let t = crate::api::type_arg(t)?;
        with_store(where_of(&[sn])?.node, |s| s.fetch_incoming_by_type(&a.space(), a.h, t))?;
        Ok(x)
    }
    fetch_query "fetch-query" (q, k, rest) {
        let a = atom(q)?;
        let key = key_of(a, k)?;
        // Upstream's optional metadata key is accepted and unused; `#t` asks for a fresh run.
        let mut fresh = false;
        let mut node = None;
        for x in rest.list_iter() {
            if x == ffi::BOOL_T {
                fresh = true;
            } else if let Some(w) = where_of(&[x]).ok().and_then(|w| w.node) {
                node = Some(w);
            }
        }
        // Unlocked: over LMDB the query reads through the store as it runs.
        let v = atomweave_store::read_through::fetch_query(&a.space(), &store_of(node)?, a.h, key, fresh)?;
        Ok(match v {
            Value::Atom(h) => Atom { space: a.space, h }.to_scm(),
            v => smob::to_scm(&v, a.space),
        })
    }
    load_atoms_of_type "load-atoms-of-type" (t, a1, a2) {
        let t = crate::api::type_arg(t)?;
        let w = where_of(&[a1, a2])?;
        let space = w.space.unwrap_or_else(crate::api::current);
        Ok(count(with_store(w.node, |s| s.load_atoms_of_type(&smob::space_at(space), t))?))
    }
    load_atomspace "load-atomspace" (a1, a2) {
        let w = where_of(&[a1, a2])?;
        let space = w.space.unwrap_or_else(crate::api::current);
        Ok(count(with_store(w.node, |s| s.load_atomspace(&smob::space_at(space), &mut |_| {}))?))
    }
    store_atomspace "store-atomspace" (a1, a2) {
        let w = where_of(&[a1, a2])?;
        let space = w.space.unwrap_or_else(crate::api::current);
        Ok(count(with_store(w.node, |s| s.store_atomspace(&smob::space_at(space), &mut |_| {}))?))
    }
    monitor_storage "monitor-storage" (sn) {
        let node = where_of(&[sn])?.node;
        // A StorageNode that a proxy opened (not cog-open): the proxy's report has it.
        if let Some(n) = node.filter(|&n| !OPEN.contains(opened_by(n))) {
            let name = atomweave::sexpr::atom_prefix(&*n.space(), n.h, atomweave::sexpr::Form::Wire, 200);
            return Ok(ffi::string(&format!("{name}: not open by cog-open (a proxy that uses it reports on it)\n")));
        }
        Ok(ffi::string(&with_store(node, |s| Ok(s.monitor()))?))
    }
    barrier "barrier" (sn) {
        with_store(where_of(&[sn])?.node, |s| s.barrier())?;
        Ok(ffi::UNSPECIFIED)
    }
    cog_delete "cog-delete!" (x, sn) {
        let a = atom(x)?;
        Ok(Scm::bool(with_store(where_of(&[sn])?.node, |s| s.delete(&a.space(), a.h, false))?))
    }
    cog_delete_recursive "cog-delete-recursive!" (x, sn) {
        let a = atom(x)?;
        Ok(Scm::bool(with_store(where_of(&[sn])?.node, |s| s.delete(&a.space(), a.h, true))?))
    }
}

pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, Subr)> {
    vec![
        ("cog-open", 1, 0, 0, cog_open as Subr),
        ("cog-close", 0, 1, 0, cog_close as Subr),
        ("cog-connected?", 1, 0, 0, cog_connected as Subr),
        ("store-atom", 1, 1, 0, store_atom as Subr),
        ("store-value", 2, 1, 0, store_value as Subr),
        ("update-value", 3, 1, 0, update_value as Subr),
        ("fetch-atom", 1, 1, 0, fetch_atom as Subr),
        ("fetch-value", 2, 1, 0, fetch_value as Subr),
        ("fetch-incoming-set", 1, 1, 0, fetch_incoming_set as Subr),
        ("fetch-incoming-by-type", 2, 1, 0, fetch_incoming_by_type as Subr),
        ("fetch-query", 2, 0, 1, fetch_query as Subr),
        ("load-atoms-of-type", 1, 2, 0, load_atoms_of_type as Subr),
        ("load-atomspace", 0, 2, 0, load_atomspace as Subr),
        ("store-atomspace", 0, 2, 0, store_atomspace as Subr),
        ("barrier", 0, 1, 0, barrier as Subr),
        ("monitor-storage", 0, 1, 0, monitor_storage as Subr),
        ("cog-delete!", 1, 1, 0, cog_delete as Subr),
        ("cog-delete-recursive!", 1, 1, 0, cog_delete_recursive as Subr),
    ]
}

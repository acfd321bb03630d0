//! `DynamicDataProxy`: values computed when they are fetched, as upstream's
//! proxy of that name. The proxy atom's own values say how: under each key,
//! a ProcedureNode (a DefinedSchema, a GroundedSchema `scm:`/`py:`, ...) is
//! run on the atom fetched, `(ExecutionOutput PROCEDURE (List ATOM))`, and
//! what it gives is set on the atom under that key; any other value is
//! copied as it is.
//!
//! `fetch-value` computes the one key, `fetch-atom` every key the proxy
//! has. The space keeps what the run adds, as `cog-execute!` would, but for
//! the ExecutionOutputLink made for it. The proxy holds no atoms: the other
//! reads find nothing, as upstream's do, and writes are refused (a write
//! that goes nowhere must not look stored).
//!
//! It keeps the proxy's content, not its Handle: each call finds the proxy
//! in the space the call names, with the values set on it by then.

use atomweave::{query, types, AtomSpace, Handle, Type, Value};

use crate::{Result, StorageNode, StoreError};

pub(super) struct DynamicData {
    url: String,
    /// The proxy atom's type and name.
    node: (Type, String),
    /// Values computed by a procedure, and values copied.
    computed: u64,
    copied: u64,
}

impl DynamicData {
    pub(super) fn new(url: String, t: Type, name: String) -> DynamicData {
        DynamicData { url, node: (t, name), computed: 0, copied: 0 }
    }

    fn refused(&self, call: &str) -> StoreError {
        StoreError::Unsupported(format!("{} does not write ({call}): it computes values when they are fetched", self.url))
    }

    /// The proxy atom in `space`, if the space sees it.
    fn proxy(&self, space: &AtomSpace) -> Option<Handle> {
        space.get_node(self.node.0, &self.node.1)
    }

    /// Sets on `h`, under `key`, what the proxy's value `v` gives.
    fn load(&mut self, space: &AtomSpace, h: Handle, key: Handle, v: Value) -> Result<()> {
        let procedure = match v {
            Value::Atom(p) if space.get_type(p).is_some_and(|t| t.is_a(types::PROCEDURE_NODE)) => p,
            v => {
                self.copied += 1;
                return Ok(space.set_value(h, key, v)?);
            }
        };
        let computed = run(space, procedure, h)?;
        space.set_value(h, key, computed)?;
        self.computed += 1;
        Ok(())
    }
}

/// What `procedure` gives for `h`. The ExecutionOutputLink (and its
/// ListLink) made to run it go again after, unless the space held them.
fn run(space: &AtomSpace, procedure: Handle, h: Handle) -> Result<Value> {
    let made = |t: Type, outgoing: &[Handle]| -> Result<(Handle, bool)> {
        let held = space.get_link(t, outgoing);
        Ok(match held {
            Some(l) => (l, false),
            None => (space.add_link(t, outgoing)?, true),
        })
    };
    let (args, new_args) = made(types::LIST_LINK, &[h])?;
    let (call, new_call) = made(types::EXECUTION_OUTPUT_LINK, &[procedure, args])?;
    let computed = query::execute_value(space, call);
    // Left if something came to hold them meanwhile, or they are the result.
    for (l, new) in [(call, new_call), (args, new_args)] {
        if new && !matches!(computed, Ok(Value::Atom(a)) if a == l) {
            let _ = space.extract(l, false);
        }
    }
    Ok(computed?)
}

impl StorageNode for DynamicData {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, _space: &AtomSpace, _h: Handle) -> Result<()> {
        Err(self.refused("store-atom"))
    }

    fn store_value(&mut self, _space: &AtomSpace, _h: Handle, _key: Handle) -> Result<()> {
        Err(self.refused("store-value"))
    }

    fn update_value(&mut self, _space: &AtomSpace, _h: Handle, _key: Handle, _delta: &[f64]) -> Result<Value> {
        Err(self.refused("update-value"))
    }

    /// Every key of the proxy; false if it has none.
    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        let Some(proxy) = self.proxy(space) else { return Ok(false) };
        let kvs = space.key_values(proxy);
        for (key, v) in &kvs {
            self.load(space, h, *key, v.clone())?;
        }
        Ok(!kvs.is_empty())
    }

    /// False if the proxy has nothing under `key`.
    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        let Some(v) = self.proxy(space).and_then(|p| space.get_value(p, key)) else { return Ok(false) };
        self.load(space, h, key, v)?;
        Ok(true)
    }

    fn fetch_incoming_set(&mut self, _space: &AtomSpace, _h: Handle, _recursive: bool) -> Result<usize> {
        Ok(0)
    }

    fn fetch_incoming_by_type(&mut self, _space: &AtomSpace, _h: Handle, _t: Type) -> Result<usize> {
        Ok(0)
    }

    fn load_atoms_of_type(&mut self, _space: &AtomSpace, _t: Type) -> Result<usize> {
        Ok(0)
    }

    fn load_atomspace(&mut self, _space: &AtomSpace, _progress: &mut dyn FnMut(u64)) -> Result<u64> {
        Ok(0)
    }

    fn store_atomspace(&mut self, _space: &AtomSpace, _progress: &mut dyn FnMut(u64)) -> Result<u64> {
        Err(self.refused("store-atomspace"))
    }

    fn delete(&mut self, _space: &AtomSpace, _h: Handle, _recursive: bool) -> Result<bool> {
        Err(self.refused("cog-delete!"))
    }

    fn barrier(&mut self) -> Result<()> {
        Ok(())
    }

    fn monitor(&self) -> String {
        format!("{}: {} values computed, {} copied\n", self.url, self.computed, self.copied)
    }

    fn close(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

//! Proxies: StorageNodes that pass calls on to other StorageNodes, as
//! upstream's ProxyNodes do. A proxy atom names its targets in a
//! ProxyParametersLink, `(ProxyParameters (WriteThruProxy "w") TARGET)`,
//! where TARGET is a StorageNode (a proxy too) or a ListLink of them.
//!
//! - `NullProxy`: takes every call and does nothing (reads find nothing).
//! - `WriteThruProxy`: every write to each target; it reads nothing.
//! - `ReadThruProxy`: each read from the next target in turn; it writes nothing.
//! - `SequentialReadProxy`: each read from the targets in order, until one
//!   has what is asked; it writes nothing.
//! - `ReadWriteProxy`: reads from the first target, writes to the second.
//! - `CachingProxy`: reads from its target what the space does not hold
//!   yet (an atom with values, a value, an incoming set); it writes nothing.
//! - `WriteBufferProxy`: writes held back and passed on in batches
//!   ([`crate::buffer`]).
//! - `DynamicDataProxy`: values computed on fetch by the procedures the
//!   proxy atom holds as values; no targets (`dynamic`).
//!
//! A proxy that does not write (or read) refuses the call with an error
//! that says so: a write that goes nowhere must not look stored.

use std::time::Duration;

use atomweave::{types, AtomSpace, Handle, Type, Value};

use crate::registry::StoreHandle;
use crate::{open, url_of_node, Result, StorageNode, StoreError};
use std::collections::HashMap;

mod dynamic;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Null,
    WriteThru,
    ReadThru,
    SequentialRead,
    ReadWrite,
    Caching,
    WriteBuffer,
}

/// A proxy and the stores it passes calls to.
pub struct Proxy {
    url: String,
    kind: Kind,
    targets: Vec<Box<dyn StorageNode>>,
    /// The ReadThruProxy's next target.
    next: usize,
    /// The CachingProxy's reads the space answered, and those it did not.
    hits: u64,
    misses: u64,
}

/// A proxy that takes every call and does nothing (what a closed
/// WriteBufferProxy leaves in its place).
pub(crate) fn null(url: &str) -> Box<dyn StorageNode> {
    Box::new(Proxy::new(url.to_string(), Kind::Null, Vec::new()))
}

/// Is `t` a proxy type?
pub fn is_proxy(t: Type) -> bool {
    t.is_a(types::PROXY_NODE)
}

/// Opens the store StorageNode atom `h` of `space` names: a proxy with the
/// targets its ProxyParametersLink gives (each opened in turn), or the
/// store of a URL.
pub fn open_node(space: &AtomSpace, h: Handle) -> Result<Box<dyn StorageNode>> {
    open_node_in(space, h, 0, &mut HashMap::new())
}

/// The stores a proxy tree has opened, by StorageNode atom: a store named
/// along two paths is opened once, and each path holds a handle on it.
type Opened = HashMap<Handle, StoreHandle>;

/// Proxies of proxies, at most this deep: a proxy that names itself must
/// not recurse without end.
const MAX_PROXY_DEPTH: usize = 32;

fn open_node_in(space: &AtomSpace, h: Handle, depth: usize, opened: &mut Opened) -> Result<Box<dyn StorageNode>> {
    let t = space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
    let name = space.name(h).unwrap_or_default().to_string();
    if !is_proxy(t) {
        if depth == 0 {
            return open(&url_of_node(t, &name)?);
        }
        if let Some(s) = opened.get(&h) {
            return Ok(Box::new(s.another()));
        }
        let store = StoreHandle::new(open(&url_of_node(t, &name)?)?);
        opened.insert(h, store.another());
        return Ok(Box::new(store));
    }
    let url = format!("({} \"{name}\")", t.name());
    let unsupported = |why: &str| StoreError::Unsupported(format!("{url}: {why}"));
    let kind = match t.name() {
        "DynamicDataProxyNode" => return Ok(Box::new(dynamic::DynamicData::new(url, t, name))),
        "NullProxyNode" => Kind::Null,
        "WriteThruProxyNode" => Kind::WriteThru,
        "ReadThruProxyNode" => Kind::ReadThru,
        "SequentialReadProxyNode" => Kind::SequentialRead,
        "ReadWriteProxyNode" => Kind::ReadWrite,
        "CachingProxyNode" => Kind::Caching,
        "WriteBufferProxyNode" => Kind::WriteBuffer,
        other => {
            return Err(unsupported(&format!(
                "{other} is not supported by atomweave (NullProxy, WriteThruProxy, ReadThruProxy, SequentialReadProxy, ReadWriteProxy, CachingProxy, WriteBufferProxy and DynamicDataProxy are)"
            )))
        }
    };
    if depth > MAX_PROXY_DEPTH {
        return Err(unsupported(&format!("proxies nest more than {MAX_PROXY_DEPTH} deep (does a proxy name itself?)")));
    }
    let mut targets = Vec::new();
    let mut interval = crate::buffer::DEFAULT_INTERVAL;
    if kind != Kind::Null {
        let params = space
            .incoming_by_type(h, types::PROXY_PARAMETERS_LINK)
            .into_iter()
            .find(|&l| space.outgoing(l).and_then(|o| o.first()) == Some(&h))
            .ok_or_else(|| unsupported("no ProxyParametersLink names its targets: (ProxyParameters PROXY STORAGE-NODE-OR-LIST)"))?;
        let params = space.outgoing(params).unwrap_or(&[]);
        let given = params.get(1).copied().ok_or_else(|| unsupported("its ProxyParametersLink names no target"))?;
        if let (Kind::WriteBuffer, Some(&n)) = (kind, params.get(2)) {
            let seconds = match space.get_type(n) {
                Some(types::NUMBER_NODE) => space.name(n).and_then(|x| x.split_whitespace().next()?.parse::<f64>().ok()),
                _ => None,
            };
            interval = seconds
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| unsupported("a WriteBufferProxy's third parameter is the seconds writes may wait, a NumberNode above 0"))?;
        }
        let nodes: Vec<Handle> = match space.get_type(given) {
            Some(types::LIST_LINK) => space.outgoing(given).unwrap_or(&[]).to_vec(),
            _ => vec![given],
        };
        for n in nodes {
            if !space.get_type(n).is_some_and(|nt| nt.is_a(types::STORAGE_NODE)) {
                return Err(unsupported(&format!(
                    "a target must be a StorageNode, not {}",
                    atomweave::sexpr::atom_prefix(space, n, atomweave::sexpr::Form::Wire, 120)
                )));
            }
            match open_node_in(space, n, depth + 1, opened) {
                Ok(s) => targets.push(s),
                Err(e) => {
                    for s in targets {
                        let _ = s.close();
                    }
                    return Err(e);
                }
            }
        }
        if targets.is_empty() {
            return Err(unsupported("its ProxyParametersLink names no target"));
        }
        if kind == Kind::ReadWrite && targets.len() != 2 {
            return Err(unsupported("a ReadWriteProxy takes two targets, (List READER WRITER)"));
        }
        if kind == Kind::Caching && targets.len() != 1 {
            return Err(unsupported("a CachingProxy reads from one target"));
        }
    }
    if kind == Kind::WriteBuffer {
        let through = Box::new(Proxy::new(url.clone(), Kind::WriteThru, targets));
        return Ok(Box::new(crate::buffer::WriteBuffer::new(url, through, interval)?));
    }
    Ok(Box::new(Proxy::new(url, kind, targets)))
}

impl Proxy {
    fn new(url: String, kind: Kind, targets: Vec<Box<dyn StorageNode>>) -> Proxy {
        Proxy { url, kind, targets, next: 0, hits: 0, misses: 0 }
    }

    /// The targets writes go to.
    fn writers(&mut self, call: &str) -> Result<&mut [Box<dyn StorageNode>]> {
        match self.kind {
            Kind::Null => Ok(&mut []),
            Kind::WriteThru => Ok(&mut self.targets),
            Kind::ReadWrite => Ok(&mut self.targets[1..]),
            Kind::ReadThru | Kind::SequentialRead | Kind::Caching => {
                Err(StoreError::Unsupported(format!("{} does not write ({call}): it only reads", self.url)))
            }
            Kind::WriteBuffer => unreachable!("a WriteBufferProxy opens as a buffer::WriteBuffer"),
        }
    }

    /// Asks the targets reads go to, as the proxy's kind does, until `found`
    /// says a result is enough; the last result.
    fn read<R: Default>(&mut self, call: &str, found: impl Fn(&R) -> bool, mut ask: impl FnMut(&mut dyn StorageNode) -> Result<R>) -> Result<R> {
        match self.kind {
            Kind::Null => Ok(R::default()),
            Kind::WriteThru => Err(StoreError::Unsupported(format!("{} does not read ({call}): it only writes", self.url))),
            Kind::ReadWrite | Kind::Caching => ask(&mut *self.targets[0]),
            Kind::WriteBuffer => unreachable!("a WriteBufferProxy opens as a buffer::WriteBuffer"),
            Kind::ReadThru => {
                let i = self.next % self.targets.len();
                self.next = i + 1;
                ask(&mut *self.targets[i])
            }
            Kind::SequentialRead => {
                let mut last = R::default();
                for t in &mut self.targets {
                    last = ask(&mut **t)?;
                    if found(&last) {
                        break;
                    }
                }
                Ok(last)
            }
        }
    }

    /// For a CachingProxy, whether the space holds what a read asks
    /// (counted): then the read is answered here. Other proxies always ask.
    fn cached(&mut self, held: bool) -> bool {
        if self.kind != Kind::Caching {
            return false;
        }
        if held {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        held
    }

    fn write_all(&mut self, call: &str, mut each: impl FnMut(&mut dyn StorageNode) -> Result<()>) -> Result<()> {
        for t in self.writers(call)? {
            each(&mut **t)?;
        }
        Ok(())
    }
}

impl StorageNode for Proxy {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.write_all("store-atom", |t| t.store_atom(space, h))
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.write_all("store-value", |t| t.store_value(space, h, key))
    }

    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
        let url = self.url.clone();
        let writers = self.writers("update-value")?;
        // Each store adds the delta once; the space takes it once, from the first.
        let Some((first, rest)) = writers.split_first_mut() else {
            return Err(StoreError::Unsupported(format!("{url} keeps no values to update")));
        };
        let v = first.update_value(space, h, key, delta)?;
        for t in rest {
            t.store_value(space, h, key)?;
        }
        Ok(v)
    }

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        if self.cached(!space.key_values(h).is_empty() || space.get_tv(h).is_some_and(|tv| !tv.is_default())) {
            return Ok(true);
        }
        self.read("fetch-atom", |&b| b, |t| t.fetch_atom(space, h))
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        if self.cached(space.get_value(h, key).is_some()) {
            return Ok(true);
        }
        self.read("fetch-value", |&b| b, |t| t.fetch_value(space, h, key))
    }

    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
        let held = space.incoming_size(h).unwrap_or(0);
        if self.cached(held > 0) {
            return Ok(held);
        }
        self.read("fetch-incoming-set", |&n| n > 0, |t| t.fetch_incoming_set(space, h, recursive))
    }

    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
        let held = space.incoming_by_type(h, t).len();
        if self.cached(held > 0) {
            return Ok(held);
        }
        self.read("fetch-incoming-by-type", |&n| n > 0, |s| s.fetch_incoming_by_type(space, h, t))
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.read("load-atoms-of-type", |&n| n > 0, |s| s.load_atoms_of_type(space, t))
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.read("load-atomspace", |&n| n > 0, |s| s.load_atomspace(space, progress))
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let mut n = 0;
        self.write_all("store-atomspace", |t| {
            n = t.store_atomspace(space, progress)?;
            Ok(())
        })?;
        Ok(n)
    }

    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        let writers = self.writers("cog-delete!")?;
        let Some((last, rest)) = writers.split_last_mut() else {
            // Nothing stored to delete: the space's atom goes, as any store's delete does.
            return Ok(space.extract(h, recursive).is_ok());
        };
        // A delete takes the atom from the space too: the other targets
        // delete it by content, from a copy in a space of its own.
        let mut done = true;
        if !rest.is_empty() {
            let copy_space = AtomSpace::new();
            let copy = copy_space.import(space, h)?;
            for t in rest {
                done &= t.delete(&copy_space, copy, recursive)?;
            }
        }
        Ok(last.delete(space, h, recursive)? && done)
    }

    fn barrier(&mut self) -> Result<()> {
        for t in &mut self.targets {
            t.barrier()?;
        }
        Ok(())
    }

    fn monitor(&self) -> String {
        let mut report = self.url.clone();
        if self.kind == Kind::Caching {
            report += &format!(": {} reads the space answered, {} passed on", self.hits, self.misses);
        }
        report.push('\n');
        for t in &self.targets {
            for line in t.monitor().lines() {
                report += &format!("  {line}\n");
            }
        }
        report
    }

    fn close(self: Box<Self>) -> Result<()> {
        let mut first_error = None;
        for t in self.targets {
            if let Err(e) = t.close() {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

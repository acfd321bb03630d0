//! Expressions recorded first and added a batch at a time: how the loader
//! parses on one thread while another adds.
//!
//! [`Recorder`] is a sink that adds nothing: it notes each node, link and
//! value the loader asks for, and hands out placeholder handles (an atom's
//! index in the batch). [`Batch::apply`] then adds the batch's nodes in one
//! [`AtomSink::add_nodes`], its links a height at a time (a link's members
//! are always lower) in one [`AtomSink::add_links`] each, so that the
//! table's cache misses overlap, and last its values, in the order the file
//! sets them. The sink ends as adding each expression in turn would leave
//! it: an atom added twice is added once, and the values are set in order
//! (an unordered link's members come in content order, as a table or space
//! keeps them, not as the file wrote them).
//!
//! When the loader adds into an [`AtomTable`](crate::AtomTable) on another
//! thread, the reading thread looks a batch's nodes up in the table first
//! while the adding thread has work waiting ([`Batch::find_known`],
//! lock-free): data files name each node a few times, and a node the table
//! holds already then costs the adding thread nothing (its lookup is three
//! dependent cache misses).
//!
//! It is not a parser (the loader's `Builder` drives the recorder) and it
//! checks only what adding could refuse later (kinds of types, value
//! shapes), so that a batch that records applies.

use crate::read::AtomSource;
use crate::sink::AtomSink;
use crate::table::NodeFinder;
use crate::{Error, Handle, LinkBatch, NodeBatch, Result, TruthValue, Type, Value};

/// A value the batch sets once its atoms are added.
enum Set {
    Tv(u32, TruthValue),
    Value(u32, u32, Value),
    Remove(u32, u32),
}

/// What a run of expressions adds, on placeholder handles.
#[derive(Default)]
pub(crate) struct Batch {
    nodes: NodeBatch,
    /// The placeholder of each node.
    node_atoms: Vec<u32>,
    /// Placeholders of nodes found in the sink already (`find_known`),
    /// with their atoms, in order: not in `nodes`.
    found: Vec<(u32, Handle)>,
    /// Links over placeholders.
    links: LinkBatch,
    /// The placeholder of each link.
    link_atoms: Vec<u32>,
    /// The height of each placeholder's atom: 0 for a node, one more than
    /// its highest member for a link.
    heights: Vec<u32>,
    /// Each placeholder's place in `nodes`, or in `links` with `LINK` set:
    /// what `Content` reads (until `find_known`, which moves nodes).
    places: Vec<u32>,
    /// Each value with the number of atoms recorded before it (where it
    /// falls among them in the file).
    sets: Vec<(u32, Set)>,
    /// What `apply` works in, kept with the batch so that a batch used
    /// again (see `clear`) reuses its buffers.
    scratch: Scratch,
}

/// `Batch::apply`'s working space.
#[derive(Default)]
struct Scratch {
    /// The atom of each placeholder.
    atoms: Vec<Handle>,
    /// The links' indexes, by height.
    order: Vec<usize>,
    /// One height's links, on atoms.
    level: LinkBatch,
    /// The atom of each value set, in order.
    targets: Vec<Handle>,
    /// The values the sets replaced, dropped when the batch is emptied (on
    /// the reading thread, when two share the load): a replaced value's
    /// memory was last touched long ago, and freeing it is a cache miss.
    replaced: Vec<Value>,
    /// `find_known`'s: what it found of each node, and the nodes it did not.
    lookups: Vec<Option<Handle>>,
    unfound: NodeBatch,
}

/// Where a batch stood, to go back to when an expression fails.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    nodes: usize,
    links: usize,
    atoms: usize,
    sets: usize,
}

impl Batch {
    /// Atoms recorded (with repeats).
    pub(crate) fn atoms(&self) -> usize {
        self.heights.len()
    }

    /// Empties the batch, keeping its room: a loader hands applied
    /// batches back to its reading thread, which fills them again (fresh
    /// ones cost page faults and frees on the adding thread).
    pub(crate) fn clear(&mut self) {
        self.truncate(Mark { nodes: 0, links: 0, atoms: 0, sets: 0 });
        self.found.clear();
        self.scratch.replaced.clear();
    }

    /// Looks the recorded nodes up in the sink (through `finder`, while
    /// another thread adds to it) and sets aside those found, which adding
    /// then skips. Once the batch is recorded: it is not truncated after.
    pub(crate) fn find_known(&mut self, finder: NodeFinder) {
        let Scratch { lookups, unfound, .. } = &mut self.scratch;
        finder.find(&self.nodes, lookups);
        if lookups.iter().all(Option::is_none) {
            return;
        }
        unfound.clear();
        let mut kept = 0;
        for (i, found) in lookups.iter().enumerate() {
            let p = self.node_atoms[i];
            match *found {
                Some(h) => self.found.push((p, h)),
                None => {
                    let (t, name) = self.nodes.get(i);
                    unfound.push(t, name);
                    self.node_atoms[kept] = p;
                    kept += 1;
                }
            }
        }
        self.node_atoms.truncate(kept);
        std::mem::swap(&mut self.nodes, unfound);
    }

    pub(crate) fn mark(&self) -> Mark {
        Mark { nodes: self.nodes.len(), links: self.links.len(), atoms: self.heights.len(), sets: self.sets.len() }
    }

    /// Forgets what was recorded since `mark`.
    pub(crate) fn truncate(&mut self, mark: Mark) {
        self.nodes.truncate(mark.nodes);
        self.node_atoms.truncate(mark.nodes);
        self.links.truncate(mark.links);
        self.link_atoms.truncate(mark.links);
        self.heights.truncate(mark.atoms);
        self.places.truncate(mark.atoms);
        self.sets.truncate(mark.sets);
    }

    fn placeholder(&mut self, height: u32, place: u32) -> Handle {
        self.heights.push(height);
        self.places.push(place);
        Handle((self.heights.len() - 1) as u32)
    }

    /// Adds the batch to `sink`: nodes, then links by height, then values,
    /// which it takes (the batch is left to `clear`). A batch that holds a
    /// StateLink or GrantLink, whose adding replaces or refuses by key (in
    /// a space), is added in file order instead. An error stops it where
    /// it happened (the sink refused a write: a read-only space, or one
    /// out of room).
    pub(crate) fn apply<S: AtomSink>(&mut self, sink: &mut S) -> Result<()> {
        if self.links.holds_keyed() {
            return self.apply_in_order(sink);
        }
        let Scratch { atoms, order, level, targets, replaced, .. } = &mut self.scratch;
        atoms.clear();
        atoms.resize(self.heights.len(), Handle(0));
        for (&p, h) in self.node_atoms.iter().zip(sink.add_nodes(&self.nodes)?) {
            atoms[p as usize] = h;
        }
        for &(p, h) in &self.found {
            atoms[p as usize] = h;
        }
        let height = |i: usize| self.heights[self.link_atoms[i] as usize];
        order.clear();
        order.extend(0..self.links.len());
        order.sort_by_key(|&i| height(i));
        for group in order.chunk_by(|&a, &b| height(a) == height(b)) {
            level.clear();
            for &i in group {
                level.push_with(self.links.types()[i], self.links.outgoing(i).iter().map(|x| atoms[x.0 as usize]));
            }
            // Recorded in content order (`Recorder::add_link`), the same on
            // atoms where every member is a node (height 1): two mentions of
            // one node are two placeholders, which break a tie by their
            // number, so a link over links sharing a member may compare
            // otherwise on atoms; those the table checks.
            level.trust_member_order(group.first().is_some_and(|&i| height(i) == 1));
            for (&i, h) in group.iter().zip(sink.add_links(level)?) {
                atoms[self.link_atoms[i] as usize] = h;
            }
        }
        // The atoms whose values are set are all over the table: their
        // slots and truth-value entries are fetched a few sets ahead.
        const AHEAD: usize = 16;
        targets.clear();
        targets.extend(self.sets.iter().map(|(_, set)| atoms[set.target() as usize]));
        for (i, (_, set)) in self.sets.drain(..).enumerate() {
            if let Some(&h) = targets.get(i + AHEAD) {
                sink.prefetch_values(h);
            }
            set.apply(sink, atoms, replaced)?;
        }
        Ok(())
    }

    /// Adds the batch one step at a time, as the file has them.
    fn apply_in_order<S: AtomSink>(&mut self, sink: &mut S) -> Result<()> {
        let Scratch { atoms, replaced, .. } = &mut self.scratch;
        atoms.clear();
        let (mut node, mut link) = (0, 0);
        let mut sets = self.sets.drain(..).peekable();
        let mut found = self.found.iter().peekable();
        for &height in &self.heights {
            while let Some((_, set)) = sets.next_if(|&(before, _)| before as usize == atoms.len()) {
                set.apply(sink, atoms, replaced)?;
            }
            // A node's height is 0, a link's more.
            let h = if let Some(&(_, h)) = found.next_if(|&&(p, _)| p as usize == atoms.len()) {
                h
            } else if height == 0 {
                let (t, name) = self.nodes.get(node);
                node += 1;
                sink.add_node(t, name)?
            } else {
                let out: Vec<Handle> = self.links.outgoing(link).iter().map(|x| atoms[x.0 as usize]).collect();
                link += 1;
                sink.add_link(self.links.types()[link - 1], &out)?
            };
            atoms.push(h);
        }
        sets.try_for_each(|(_, set)| set.apply(sink, atoms, replaced))
    }
}

impl Set {
    /// The placeholder of the atom whose value it sets.
    fn target(&self) -> u32 {
        match *self {
            Set::Tv(p, _) | Set::Value(p, ..) | Set::Remove(p, _) => p,
        }
    }

    /// Sets the value, keeping in `replaced` the one it replaced, if the
    /// sink gives it back.
    fn apply<S: AtomSink>(self, sink: &mut S, atoms: &[Handle], replaced: &mut Vec<Value>) -> Result<()> {
        match self {
            Set::Tv(p, tv) => sink.set_tv(atoms[p as usize], tv),
            Set::Value(p, key, v) => {
                replaced.extend(sink.replace_value(atoms[p as usize], atoms[key as usize], placed(v, atoms))?);
                Ok(())
            }
            Set::Remove(p, key) => sink.remove_value(atoms[p as usize], atoms[key as usize]),
        }
    }
}

/// `v` with its placeholders replaced by the atoms they stand for. The
/// recursion is bounded: values nest at most `MAX_VALUE_NESTING` deep
/// (checked as they are recorded).
fn placed(v: Value, atoms: &[Handle]) -> Value {
    match v {
        Value::Atom(p) => Value::Atom(atoms[p.0 as usize]),
        Value::Link(items) => Value::link(items.iter().map(|i| placed(i.clone(), atoms)).collect::<Vec<_>>()),
        Value::Queue(q) => Value::Queue(crate::QueueValue::new(q.snapshot().into_iter().map(|i| placed(i, atoms)))),
        other => other,
    }
}

/// The bit of a placeholder's place that says it is a link.
const LINK: u32 = 1 << 31;

/// What a batch's placeholders stand for, read as atoms: their types,
/// names and members (placeholders too), for the content order. They have
/// no values yet.
struct Content<'b>(&'b Batch);

impl Content<'_> {
    fn place(&self, h: Handle) -> Option<u32> {
        self.0.places.get(h.0 as usize).copied()
    }
}

impl AtomSource for Content<'_> {
    fn get_type(&self, h: Handle) -> Option<Type> {
        let p = self.place(h)?;
        Some(if p & LINK != 0 { self.0.links.types()[(p & !LINK) as usize] } else { self.0.nodes.get(p as usize).0 })
    }
    fn name(&self, h: Handle) -> Option<&str> {
        self.place(h).filter(|p| p & LINK == 0).map(|p| self.0.nodes.get(p as usize).1)
    }
    fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        self.place(h).filter(|p| p & LINK != 0).map(|p| self.0.links.outgoing((p & !LINK) as usize))
    }
    fn get_tv(&self, _h: Handle) -> Option<TruthValue> {
        None
    }
    fn key_values(&self, _h: Handle) -> std::borrow::Cow<'_, [(Handle, Value)]> {
        std::borrow::Cow::Borrowed(&[])
    }
}

/// The sink that records into a [`Batch`].
pub(crate) struct Recorder<'b>(pub(crate) &'b mut Batch);

impl Recorder<'_> {
    fn check(&self, h: Handle) -> Result<u32> {
        if (h.0 as usize) < self.0.heights.len() {
            Ok(h.0)
        } else {
            Err(Error::InvalidHandle(h))
        }
    }
}

impl AtomSink for Recorder<'_> {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        crate::types::node_type(t)?;
        let place = self.0.nodes.len() as u32;
        self.0.nodes.push(t, name);
        let h = self.0.placeholder(0, place);
        self.0.node_atoms.push(h.0);
        Ok(h)
    }

    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        if !t.is_link() {
            return Err(Error::NotALinkType(t));
        }
        let mut height = 0;
        for &x in outgoing {
            height = height.max(self.0.heights[self.check(x)? as usize]);
        }
        let place = self.0.links.len() as u32 | LINK;
        // An unordered link's members go in content order here, on the
        // reading thread, where their contents are at hand: a table then
        // takes the order as given where the members are nodes (`apply`).
        let content = Content(self.0);
        if t.is_unordered() && !crate::order::is_sorted(&content, outgoing) {
            let mut sorted = outgoing.to_vec();
            crate::order::sort(&content, &mut sorted);
            self.0.links.push(t, &sorted);
        } else {
            self.0.links.push(t, outgoing);
        }
        let h = self.0.placeholder(height + 1, place);
        self.0.link_atoms.push(h.0);
        Ok(h)
    }

    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        let p = self.check(h)?;
        let before = self.0.heights.len() as u32;
        self.0.sets.push((before, Set::Tv(p, tv)));
        Ok(())
    }

    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        v.check_shape()?;
        let (p, k) = (self.check(h)?, self.check(key)?);
        let before = self.0.heights.len() as u32;
        self.0.sets.push((before, Set::Value(p, k, v)));
        Ok(())
    }

    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        let (p, k) = (self.check(h)?, self.check(key)?);
        let before = self.0.heights.len() as u32;
        self.0.sets.push((before, Set::Remove(p, k)));
        Ok(())
    }

    fn contains(&self, h: Handle) -> bool {
        self.check(h).is_ok()
    }
}

//! The benchmarked methods, their inputs, and the layers they run on.

use std::hint::black_box;
use std::ops::Range;
use std::time::{Duration, Instant};

use atomweave::{types, AtomRead, AtomSpace, AtomTable, Handle, Result, TruthValue, Type, Value};
use rand::Rng;

use atomweave_bench::RandomSpace;

/// One measured operation, named as in upstream's `atomspace_bm -l`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Noop,
    GetType,
    GetTv,
    SetTv,
    GetValue,
    SetValue,
    GetIncomingSet,
    GetIncomingSetSize,
    GetOutgoingSet,
    AddNode,
    AddLink,
    RemoveAtom,
    GetHandlesByType,
    GetNodeHandles,
}

impl Method {
    pub const ALL: [Method; 14] = [
        Method::Noop,
        Method::AddNode,
        Method::AddLink,
        Method::GetType,
        Method::GetTv,
        Method::SetTv,
        Method::GetValue,
        Method::SetValue,
        Method::GetIncomingSet,
        Method::GetIncomingSetSize,
        Method::GetOutgoingSet,
        Method::GetNodeHandles,
        Method::GetHandlesByType,
        Method::RemoveAtom,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Noop => "noop",
            Method::GetType => "getType",
            Method::GetTv => "getTV",
            Method::SetTv => "setTV",
            Method::GetValue => "getValue",
            Method::SetValue => "setValue",
            Method::GetIncomingSet => "getIncomingSet",
            Method::GetIncomingSetSize => "getIncomingSetSize",
            Method::GetOutgoingSet => "getOutgoingSet",
            Method::AddNode => "addNode",
            Method::AddLink => "addLink",
            Method::RemoveAtom => "removeAtom",
            Method::GetHandlesByType => "getHandlesByType",
            Method::GetNodeHandles => "getNodeHandles",
        }
    }

    /// Looks a method up by name; upstream's older names are accepted too.
    pub fn from_name(name: &str) -> Option<Method> {
        let alias = match name {
            "getTruthValue" => "getTV",
            "setTruthValue" => "setTV",
            "getHandleSet" => "getHandlesByType",
            other => other,
        };
        Method::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(alias))
    }

    pub fn about(self) -> &'static str {
        match self {
            Method::Noop => "an empty loop body: the measurement baseline",
            Method::GetType => "type of a random atom",
            Method::GetTv => "truth value of a random atom",
            Method::SetTv => "set a random truth value on a random atom",
            Method::GetValue => "value under a key of a random atom (half of them have one)",
            Method::SetValue => "set a FloatValue under a key of a random atom",
            Method::GetIncomingSet => "incoming set of a random atom, read in place",
            Method::GetIncomingSetSize => "size of the incoming set of a random atom",
            Method::GetOutgoingSet => "outgoing set of a random atom, read in place",
            Method::AddNode => "add a new node",
            Method::AddLink => "add a link of Poisson(2) arity over random atoms",
            Method::RemoveAtom => "extract a random atom, recursively",
            Method::GetHandlesByType => "walk every atom of a random atom's type (runs n/100 times)",
            Method::GetNodeHandles => "look a node up by type and name",
        }
    }

    /// Operations this method runs when `n` are asked for.
    pub fn ops(self, n: usize) -> usize {
        match self {
            Method::GetHandlesByType => (n / 100).max(1),
            _ => n,
        }
    }
}

/// Inputs of one run, drawn before the clock starts.
#[derive(Default)]
pub struct Inputs {
    pub handles: Vec<Handle>,
    pub types: Vec<Type>,
    pub tvs: Vec<TruthValue>,
    /// Node names back to back; `name_ends[i]` ends the i-th.
    pub names: String,
    pub name_ends: Vec<usize>,
    /// Link members back to back; `member_ends[i]` ends the i-th link's.
    pub members: Vec<Handle>,
    pub member_ends: Vec<usize>,
    key: Option<Handle>,
    value: Option<Value>,
}

impl Inputs {
    pub fn name(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.name_ends[i - 1] };
        &self.names[start..self.name_ends[i]]
    }

    pub fn members(&self, i: usize) -> &[Handle] {
        let start = if i == 0 { 0 } else { self.member_ends[i - 1] };
        &self.members[start..self.member_ends[i]]
    }

    pub fn len(&self) -> usize {
        self.handles.len().max(self.name_ends.len()).max(self.member_ends.len()).max(self.types.len()).max(self.tvs.len())
    }
}

/// Draws the inputs of `ops` operations of `method` on a space whose atoms
/// are `atoms`; `tag` keeps the new names of different threads apart.
pub fn draw_inputs(method: Method, ops: usize, atoms: &[Handle], space: &impl AtomRead, key: Handle, tag: usize, rng: &mut impl Rng) -> Inputs {
    let mut inp = Inputs::default();
    let pick = |rng: &mut dyn rand::RngCore| atoms[rng.gen_range(0..atoms.len())];
    match method {
        Method::Noop | Method::GetType | Method::GetTv | Method::GetIncomingSet | Method::GetIncomingSetSize | Method::GetOutgoingSet => {
            inp.handles = (0..ops).map(|_| pick(rng)).collect();
        }
        Method::SetTv => {
            inp.handles = (0..ops).map(|_| pick(rng)).collect();
            inp.tvs = (0..ops).map(|_| TruthValue::simple(rng.gen(), rng.gen())).collect();
        }
        Method::GetValue | Method::SetValue => {
            inp.handles = (0..ops).map(|_| pick(rng)).collect();
            inp.key = Some(key);
            inp.value = Some(Value::float(vec![1.0, 2.0, 3.0]));
        }
        Method::AddNode => {
            for i in 0..ops {
                use std::fmt::Write;
                let _ = write!(inp.names, "bench node {tag}-{i}");
                inp.name_ends.push(inp.names.len());
            }
        }
        Method::AddLink => {
            for _ in 0..ops {
                let arity = atomweave_bench::poisson(rng, 2.0).max(1);
                inp.members.extend((0..arity).map(|_| pick(rng)));
                inp.member_ends.push(inp.members.len());
            }
        }
        Method::RemoveAtom => {
            let mut all = atoms.to_vec();
            let take = ops.min(all.len());
            for i in 0..take {
                let j = rng.gen_range(i..all.len());
                all.swap(i, j);
            }
            all.truncate(take);
            inp.handles = all;
        }
        Method::GetHandlesByType => {
            inp.types = (0..ops).map(|_| space.get_type(pick(rng)).unwrap_or(types::CONCEPT_NODE)).collect();
        }
        Method::GetNodeHandles => {
            let nodes: Vec<Handle> = atoms.iter().copied().filter(|&h| !space.is_link(h)).collect();
            for _ in 0..ops {
                let h = nodes[rng.gen_range(0..nodes.len())];
                inp.types.push(space.get_type(h).unwrap());
                inp.names.push_str(space.name(h).unwrap());
                inp.name_ends.push(inp.names.len());
            }
        }
    }
    inp
}

/// What a layer must offer to be measured. Read results are folded into a
/// number so the work cannot be optimised away.
pub trait Target {
    fn get_type(&self, h: Handle) -> Option<Type>;
    fn get_tv(&self, h: Handle) -> Option<TruthValue>;
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()>;
    fn get_value(&self, h: Handle, k: Handle) -> Option<Value>;
    fn set_value(&mut self, h: Handle, k: Handle, v: Value) -> Result<()>;
    fn incoming_probe(&self, h: Handle) -> usize;
    fn incoming_size(&self, h: Handle) -> usize;
    fn outgoing_probe(&self, h: Handle) -> usize;
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle>;
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle>;
    fn extract(&mut self, h: Handle) -> Result<()>;
    fn count_by_type(&self, t: Type) -> usize;
    fn get_node(&self, t: Type, name: &str) -> Option<Handle>;
    /// Adds `n` more random atoms (untimed, for -S).
    fn grow(&mut self, rs: &mut RandomSpace, n: usize) -> Result<()>;
    fn size(&self) -> usize;
}

fn probe(s: &[Handle]) -> usize {
    s.len() + s.first().map_or(0, |h| h.to_u32() as usize)
}

impl Target for AtomTable {
    fn get_type(&self, h: Handle) -> Option<Type> {
        AtomRead::get_type(self, h)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        AtomRead::get_tv(self, h)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        AtomTable::set_tv(self, h, tv)
    }
    fn get_value(&self, h: Handle, k: Handle) -> Option<Value> {
        AtomRead::get_value(self, h, k)
    }
    fn set_value(&mut self, h: Handle, k: Handle, v: Value) -> Result<()> {
        AtomTable::set_value(self, h, k, v)
    }
    fn incoming_probe(&self, h: Handle) -> usize {
        self.incoming(h).map_or(0, probe)
    }
    fn incoming_size(&self, h: Handle) -> usize {
        AtomRead::incoming_size(self, h).unwrap_or(0)
    }
    fn outgoing_probe(&self, h: Handle) -> usize {
        self.outgoing(h).map_or(0, probe)
    }
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        AtomTable::add_node(self, t, name)
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle> {
        AtomTable::add_link(self, t, out)
    }
    fn extract(&mut self, h: Handle) -> Result<()> {
        AtomTable::extract(self, h, true)
    }
    fn count_by_type(&self, t: Type) -> usize {
        self.handles_by_type(t, false).count()
    }
    fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        AtomRead::get_node(self, t, name)
    }
    fn grow(&mut self, rs: &mut RandomSpace, n: usize) -> Result<()> {
        rs.grow(self, n, |_| {})
    }
    fn size(&self) -> usize {
        AtomRead::size(self)
    }
}

/// The thread-safe layer, shared: every thread holds its own `SpaceRef`.
#[derive(Copy, Clone)]
pub struct SpaceRef<'a>(pub &'a AtomSpace);

impl Target for SpaceRef<'_> {
    fn get_type(&self, h: Handle) -> Option<Type> {
        self.0.get_type(h)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        self.0.get_tv(h)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        self.0.set_tv(h, tv)
    }
    fn get_value(&self, h: Handle, k: Handle) -> Option<Value> {
        self.0.get_value(h, k)
    }
    fn set_value(&mut self, h: Handle, k: Handle, v: Value) -> Result<()> {
        self.0.set_value(h, k, v)
    }
    fn incoming_probe(&self, h: Handle) -> usize {
        self.0.incoming(h).map_or(0, |i| probe(&i))
    }
    fn incoming_size(&self, h: Handle) -> usize {
        self.0.incoming_size(h).unwrap_or(0)
    }
    fn outgoing_probe(&self, h: Handle) -> usize {
        self.0.outgoing(h).map_or(0, probe)
    }
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        self.0.add_node(t, name)
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle> {
        self.0.add_link(t, out)
    }
    fn extract(&mut self, h: Handle) -> Result<()> {
        self.0.extract(h, true)
    }
    fn count_by_type(&self, t: Type) -> usize {
        self.0.handles_by_type(t, false).count()
    }
    fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        self.0.get_node(t, name)
    }
    fn grow(&mut self, rs: &mut RandomSpace, n: usize) -> Result<()> {
        rs.grow(&mut self.0, n, |_| {})
    }
    fn size(&self) -> usize {
        self.0.size()
    }
}

/// Runs operations `range` of `inp` and returns the time they took. The
/// `match` sits outside the loops so each loop is as tight as it can be.
/// A write's result is consumed as its handle or its success, read the way
/// a caller's `?` reads it: handing the whole `Result` to `black_box`
/// copied it in 16-byte pieces over the callee's narrower stores, a load
/// that cannot be forwarded from them and so waited for every store before
/// it to leave the core (with two threads adding, a sixth of their time).
pub fn run<T: Target>(t: &mut T, method: Method, inp: &Inputs, range: Range<usize>) -> Duration {
    let start = Instant::now();
    match method {
        Method::Noop => {
            for i in range {
                black_box(inp.handles[i]);
            }
        }
        Method::GetType => {
            for i in range {
                black_box(t.get_type(inp.handles[i]));
            }
        }
        Method::GetTv => {
            for i in range {
                black_box(t.get_tv(inp.handles[i]));
            }
        }
        Method::SetTv => {
            for i in range {
                black_box(t.set_tv(inp.handles[i], inp.tvs[i]).is_ok());
            }
        }
        Method::GetValue => {
            let key = inp.key.expect("key drawn");
            for i in range {
                black_box(t.get_value(inp.handles[i], key));
            }
        }
        Method::SetValue => {
            let (key, value) = (inp.key.expect("key drawn"), inp.value.as_ref().expect("value drawn"));
            for i in range {
                black_box(t.set_value(inp.handles[i], key, value.clone()).is_ok());
            }
        }
        Method::GetIncomingSet => {
            for i in range {
                black_box(t.incoming_probe(inp.handles[i]));
            }
        }
        Method::GetIncomingSetSize => {
            for i in range {
                black_box(t.incoming_size(inp.handles[i]));
            }
        }
        Method::GetOutgoingSet => {
            for i in range {
                black_box(t.outgoing_probe(inp.handles[i]));
            }
        }
        Method::AddNode => {
            for i in range {
                black_box(t.add_node(types::CONCEPT_NODE, inp.name(i)).ok());
            }
        }
        Method::AddLink => {
            for i in range {
                black_box(t.add_link(types::INHERITANCE_LINK, inp.members(i)).ok());
            }
        }
        Method::RemoveAtom => {
            for i in range {
                black_box(t.extract(inp.handles[i]).is_ok());
            }
        }
        Method::GetHandlesByType => {
            for i in range {
                black_box(t.count_by_type(inp.types[i]));
            }
        }
        Method::GetNodeHandles => {
            for i in range {
                black_box(t.get_node(inp.types[i], inp.name(i)));
            }
        }
    }
    start.elapsed()
}
